"""The pair spec on the Python side: a frozen, typed view of the JSON ``key_ranges`` stores.

``key_ranges`` (``_resolve_spec`` in ``macros/internal/_spec.sql``, then
``macros/ranges/key_ranges.sql``) writes the spec as JSON into the ``spec`` column of
``NAME__ranges``; the Jinja models read it back with ``_spec_from_ranges``, the Python split with
:func:`load_spec`. Every field is documented in ``docs/spec.md``; ``tests/python/test_spec.py``
checks that no stage reads a field not named there.

Two version numbers, both stored in the spec and both equal to the Jinja macros':

* :data:`HASH_SPEC_VERSION` (``_hash_spec_version``) changes when the row fingerprint changes;
* :data:`SPEC_VERSION` (``_spec_version``) changes when a field is added, removed or changes
  meaning.

A stored spec with another value of either is stale: :func:`load_spec` raises
:class:`StaleSpecError` ("rebuild NAME__ranges: it was built by version X of the package ..."),
as the Jinja side does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any

SPEC_VERSION = 8
HASH_SPEC_VERSION = 1


class Strategy(str, Enum):
    """How rows are assigned to leaves: key ranges from a sample, or a hash of the key."""

    RANGE = "range"
    HASH = "hash"


class QuickCheck(str, Enum):
    """A pair's ``quick_check``: stored as ``true``, ``false`` or ``"auto"`` in the JSON."""

    AUTO = "auto"
    TRUE = "true"
    FALSE = "false"

    @classmethod
    def from_json(cls, value: Any) -> QuickCheck:
        if value is True:
            return cls.TRUE
        if value is False:
            return cls.FALSE
        return cls(value)


class UnitReason(str, Enum):
    """Why ``block_split`` kept a compare unit (its ``reason`` column)."""

    MISMATCH = "mismatch"
    DUPLICATE_KEYS = "duplicate_keys"
    MISMATCH_AND_DUPLICATE_KEYS = "mismatch+duplicate_keys"
    # The quick check found the sides different and no leaf was grouped (at most two reads of a
    # table per run, ADR 0020): every level-0 block is a unit, its rows unknown.
    WHOLE_TABLE = "whole_table"


class Status(str, Enum):
    """The ``status`` column of ``NAME__summary``."""

    COMPLETE = "complete"
    PARTIAL = "partial"
    CHANGED_DURING_RUN = "changed_during_run"


class SpecError(ValueError):
    """A stored spec that this version cannot use (missing or mistyped field)."""


class StaleSpecError(SpecError):
    """A spec written by a version of the package with another spec or hash spec version."""


@dataclass(frozen=True)
class KeyColumn:
    """An item of ``key``: a primary-key column and its types."""

    name: str
    type: str
    source_type: str
    target_type: str


@dataclass(frozen=True)
class CompareColumn:
    """An item of ``columns``: a compared (non-key) column, its types and normalisation rules."""

    name: str
    type: str
    source_type: str
    target_type: str
    normalize: Mapping[str, Any] = field(default_factory=dict)
    # {'abs': n}, {'rel': n} or {'abs': '2 seconds', 'micros': n}; {} = compared exactly.
    tolerance: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    """``layout``: the block layout ``key_ranges`` planned (``_plan_layout``)."""

    estimated_rows: int
    block_count: int
    depth: int
    leaf_count: int
    leaves_per_block: int
    sample_fraction: float
    compare_unit_size: int


@dataclass(frozen=True)
class Pin:
    """A value of ``pins``: the version of one side that every pass of the run reads.

    ``version`` (a Delta commit version or an Iceberg snapshot id) or ``timestamp`` (text, from an
    ``*_as_of`` option) is set when the side is read ``AS OF`` it; both are None for a side with no
    versions (plain files, a view), which the summary checks for writes during the run instead.
    ``explicit``: the pair asked for this version (``source_as_of`` / ``target_as_of``) rather
    than the side's current one. ``table``: a JDBC table's ``dbtable`` (a database side, ADR 0047).
    """

    format: str | None
    version: int | None
    timestamp: str | None
    explicit: bool
    table: str | None = None

    @property
    def pinned(self) -> bool:
        return self.version is not None or self.timestamp is not None


@dataclass(frozen=True)
class Spec:
    """A pair's resolved options as stored in ``NAME__ranges.spec`` (docs/spec.md)."""

    spec_version: int
    package_version: str
    hash_spec_version: int
    source: str
    target: str
    key: tuple[KeyColumn, ...]
    columns: tuple[CompareColumn, ...]
    table_filter: str | None
    strategy: Strategy
    block_count: int | None
    block_size: int | None
    split_factor: int
    compare_unit_size: int
    max_depth: int
    max_diff_rows: int
    check_duplicate_keys: bool
    quick_check: QuickCheck
    keys_only: bool
    pins: Mapping[str, Pin]
    layout: Layout
    run_id: str
    ranges: str
    # Changes track (ADR 0019); absent from specs written before it: false / none.
    track: bool = False
    track_layout: Mapping[str, Any] | None = None
    # Columns named differently: target column -> source column, and each side read as
    # [stored name, name in the diff] pairs (spec v3).
    column_map: Mapping[str, str] = field(default_factory=dict)
    projections: Mapping[str, Any] = field(default_factory=dict)
    # A replica set (ADR 0028, spec v4): the shared ranges' replicas, or a replica's own ranges'
    # {name, side, ranges}; null for a pair.
    replicas: tuple[Mapping[str, Any], ...] | None = None
    replica: Mapping[str, Any] | None = None
    # key_ranges decided that this run takes the quick check, and cut no leaf bounds (spec v6,
    # ADR 0031); false: block_hashes decides, on sampled leaves.
    quick_check_planned: bool = False
    # key_ranges read the pair's block_hashes to decide (spec v7, ADR 0046): block_hashes takes its
    # answer instead of asking again.
    quick_check_decided: bool = False
    # What the range bounds were cut for, and whether this run kept the last run's bounds instead
    # of cutting a new sample (spec v7, ADR 0046); null / false without sampled bounds.
    leaves_of: Mapping[str, Any] | None = None
    leaves_kept: bool = False
    # The sides that are tables of a database (spec v8, ADR 0047): {side: its connection's name,
    # dialect, table, row estimate, and the kind each key and compared column is compared as}.
    databases: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """``source vs target``, as the logs name a pair."""
        return f"{self.source} vs {self.target}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``key_ranges`` stores for this spec (``load_spec`` reads it back)."""
        out = asdict(self)
        out["key"] = [asdict(k) for k in self.key]
        out["columns"] = [
            {**asdict(c), "normalize": dict(c.normalize), "tolerance": dict(c.tolerance)}
            for c in self.columns
        ]
        # A pin's `table` is written only for a JDBC table, as the macros write it.
        out["pins"] = {
            side: {k: v for k, v in asdict(pin).items() if k != "table" or v is not None}
            for side, pin in self.pins.items()
        }
        out["strategy"] = self.strategy.value
        out["quick_check"] = {QuickCheck.TRUE: True, QuickCheck.FALSE: False}.get(
            self.quick_check, self.quick_check.value
        )
        return out


def stale_message(macro: str, relation_label: str, data: Mapping[str, Any]) -> str:
    """The rebuild message for a stale spec (same text as the Jinja ``_stale_spec_message``)."""
    built = data.get("package_version")
    by = f"version {built}" if built else "an earlier version"
    return (
        f"table_diff.{macro}: rebuild {relation_label}: it was built by {by} of the package "
        f"(spec v{data.get('spec_version') or 0}, hash spec v{data.get('hash_spec_version')}); "
        f"this version reads spec v{SPEC_VERSION} (hash spec v{HASH_SPEC_VERSION}). "
        f"dbt build --select {relation_label}+"
    )


def _required(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in data:
        raise SpecError(f"{where}: the spec has no field '{name}' (docs/spec.md)")
    value = data[name]
    wrong_bool = isinstance(value, bool) and bool not in _as_tuple(kind)  # bool is an int subclass
    if value is None or wrong_bool or not isinstance(value, kind):
        raise SpecError(f"{where}: spec field '{name}' is {value!r}, expected {_kind_name(kind)}")
    return value


def _optional(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str) -> Any:
    if name not in data:
        raise SpecError(f"{where}: the spec has no field '{name}' (docs/spec.md)")
    return None if data[name] is None else _required(data, name, kind, where)


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in _as_tuple(kind))


def _column_fields(item: Any, where: str) -> dict[str, str]:
    if not isinstance(item, Mapping):
        raise SpecError(f"{where}: expected an object, got {item!r}")
    names = ("name", "type", "source_type", "target_type")
    return {n: _required(item, n, str, where) for n in names}


def load_spec(
    json_text_or_dict: str | bytes | Mapping[str, Any],
    relation_label: str | None = None,
    *,
    macro: str = "block_split",
) -> Spec:
    """The typed :class:`Spec` of a stored spec, after checking its versions and required fields.

    ``relation_label`` names the ranges table in messages (default: the spec's own ``ranges``
    field, else ``<pair>__ranges``). Raises :class:`StaleSpecError` when the spec was written with
    another spec or hash spec version, :class:`SpecError` when a field is missing or mistyped.
    """
    data = (
        json.loads(json_text_or_dict)
        if isinstance(json_text_or_dict, str | bytes)
        else json_text_or_dict
    )
    if not isinstance(data, Mapping):
        raise SpecError(f"table_diff.{macro}: the stored spec is not a JSON object: {data!r}")
    label = relation_label or data.get("ranges") or "<pair>__ranges"
    if (
        data.get("spec_version") != SPEC_VERSION
        or data.get("hash_spec_version") != HASH_SPEC_VERSION
    ):
        raise StaleSpecError(stale_message(macro, label, data))
    where = f"table_diff.{macro}: {label}"
    key_items = _required(data, "key", list, where)
    if not key_items:
        raise SpecError(f"{where}: spec field 'key' is empty")
    key = tuple(KeyColumn(**_column_fields(k, f"{where}: key item")) for k in key_items)
    columns = tuple(
        CompareColumn(
            **_column_fields(c, f"{where}: columns item"),
            normalize=dict(_required(c, "normalize", Mapping, f"{where}: columns item")),
            tolerance=dict(_required(c, "tolerance", Mapping, f"{where}: columns item")),
        )
        for c in _required(data, "columns", list, where)
    )
    pins = {}
    for side, item in _required(data, "pins", Mapping, where).items():
        at = f"{where}: pins.{side}"
        if not isinstance(item, Mapping):
            raise SpecError(f"{at}: expected an object, got {item!r}")
        pins[side] = Pin(
            format=_optional(item, "format", str, at),
            version=_optional(item, "version", int, at),
            timestamp=_optional(item, "timestamp", str, at),
            explicit=_required(item, "explicit", bool, at),
            # Only a JDBC table's pin has it (absent elsewhere).
            table=_optional(item, "table", str, at) if "table" in item else None,
        )
    if set(pins) != {"source", "target"}:
        sides = sorted(pins)
        raise SpecError(f"{where}: spec field 'pins' has sides {sides}, expected source and target")
    lay = _required(data, "layout", Mapping, where)
    layout = Layout(
        estimated_rows=_required(lay, "estimated_rows", int, f"{where}: layout"),
        block_count=_required(lay, "block_count", int, f"{where}: layout"),
        depth=_required(lay, "depth", int, f"{where}: layout"),
        leaf_count=_required(lay, "leaf_count", int, f"{where}: layout"),
        leaves_per_block=_required(lay, "leaves_per_block", int, f"{where}: layout"),
        sample_fraction=float(_required(lay, "sample_fraction", (int, float), f"{where}: layout")),
        compare_unit_size=_required(lay, "compare_unit_size", int, f"{where}: layout"),
    )
    try:
        strategy = Strategy(_required(data, "strategy", str, where))
        quick_check = QuickCheck.from_json(_required(data, "quick_check", (bool, str), where))
    except ValueError as err:
        if isinstance(err, SpecError):
            raise
        raise SpecError(f"{where}: {err}") from None
    return Spec(
        spec_version=data["spec_version"],
        package_version=_required(data, "package_version", str, where),
        hash_spec_version=data["hash_spec_version"],
        source=_required(data, "source", str, where),
        target=_required(data, "target", str, where),
        key=key,
        columns=columns,
        table_filter=_optional(data, "table_filter", str, where),
        strategy=strategy,
        block_count=_optional(data, "block_count", int, where),
        block_size=_optional(data, "block_size", int, where),
        split_factor=_required(data, "split_factor", int, where),
        compare_unit_size=_required(data, "compare_unit_size", int, where),
        max_depth=_required(data, "max_depth", int, where),
        max_diff_rows=_required(data, "max_diff_rows", int, where),
        check_duplicate_keys=_required(data, "check_duplicate_keys", bool, where),
        quick_check=quick_check,
        keys_only=_required(data, "keys_only", bool, where),
        pins=pins,
        layout=layout,
        run_id=_required(data, "run_id", str, where),
        ranges=_required(data, "ranges", str, where),
        track="track" in data and bool(_optional(data, "track", bool, where)),
        track_layout=_optional(data, "track_layout", Mapping, where) if "track" in data else None,
        column_map=dict(_required(data, "column_map", Mapping, where)),
        projections=dict(_required(data, "projections", Mapping, where)),
        replicas=_optional(data, "replicas", list, where),
        replica=_optional(data, "replica", Mapping, where),
        quick_check_planned=_required(data, "quick_check_planned", bool, where),
        quick_check_decided=_required(data, "quick_check_decided", bool, where),
        leaves_of=_optional(data, "leaves_of", Mapping, where),
        leaves_kept=_required(data, "leaves_kept", bool, where),
        databases=dict(_required(data, "databases", Mapping, where)),
    )


SPEC_FIELDS = frozenset(f.name for f in fields(Spec))
KEY_FIELDS = frozenset(f.name for f in fields(KeyColumn))
COLUMN_FIELDS = frozenset(f.name for f in fields(CompareColumn))
LAYOUT_FIELDS = frozenset(f.name for f in fields(Layout))
PIN_FIELDS = frozenset(f.name for f in fields(Pin))
