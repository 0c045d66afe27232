"""Recursive block split: the Python step of a two-way diff pipeline.

``block_hashes`` holds one signature per (side, leaf): row count, distinct keys, NULL-key rows and
four 32-bit-split hash sums; or, when the pair's quick check ran, one whole-table signature per
side (``leaf_id`` NULL): equal, nothing to split; different, every level-0 block is a compare unit
(reason ``whole_table``, rows unknown), so that the row diff is the run's second and last read of
each table (ADR 0020). Signatures are additive,
so the signature of any coarser block is the sum over its leaves, and the whole tree ``B0 * f^D``
can be walked on the driver with no further scan of either table. Only block summaries reach the
driver (at most ``2 * leaf_count`` rows, bounded by the layout, independent of table size).

Walk: level-0 blocks whose signatures differ (or that hold duplicate keys) are split by the split
factor, level by level, keeping only children that still differ, until a block holds at most
``compare_unit_size`` rows on each side or the leaves (depth ``D <= max_depth``) are reached.
The surviving blocks are the *compare units* the row diff fetches. ``max_diff_rows`` stops early:
units are taken in key order while the differing rows they are certain to hold (at least one, at
least the row-count difference) stay below the limit; the rest are kept with ``selected = false``
so the summary can say the result is partial.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from dbt_table_diff.spec import Spec, UnitReason, load_spec

SIGNATURE_FIELDS = ("n_rows", "h1_hi", "h1_lo", "h2_hi", "h2_lo")
UNIT_SCHEMA = (
    "unit_id int, level int, block_id bigint, level0_block_id bigint, leaf_lo int, leaf_hi int, "
    "source_rows bigint, target_rows bigint, reason string, selected boolean, run_id string"
)


class StaleRunError(ValueError):
    """A pair's table belongs to another run than its ranges model (a failed or stopped run)."""


def check_run(spec: Spec, relation_label: str, run_ids: Iterable[Any]) -> str:
    """The pair's run id, after checking that every stamp in ``run_ids`` is that run (ADR 0011)."""
    run = spec.run_id
    if not run:
        raise StaleRunError(
            "table_diff.block_split: the ranges model was built by an older table_diff (no run "
            "id). Rebuild the whole pair: dbt build --select <pair>__ranges+."
        )
    other = sorted({str(r) for r in run_ids if r != run})
    if other:
        raise StaleRunError(
            f"table_diff.block_split: invalid block_hashes '{relation_label}'. Expected the "
            f"output of this pair's current run '{run}'. It holds run '{other[0]}': the run that "
            "started at the pair's ranges model failed or was stopped before this table was "
            "rebuilt. Rebuild the pair from its ranges model: dbt build --select <pair>__ranges+."
        )
    return run


@dataclass(frozen=True)
class Unit:
    level: int
    block_id: int
    level0_block_id: int
    leaf_lo: int
    leaf_hi: int
    source_rows: int | None  # None: not known (a whole_table unit)
    target_rows: int | None
    reason: str


@dataclass
class _Sig:
    n_rows: int = 0
    n_keys: int = 0
    h1_hi: int = 0
    h1_lo: int = 0
    h2_hi: int = 0
    h2_lo: int = 0

    def add(self, other: _Sig) -> None:
        self.n_rows += other.n_rows
        self.n_keys += other.n_keys
        self.h1_hi += other.h1_hi
        self.h1_lo += other.h1_lo
        self.h2_hi += other.h2_hi
        self.h2_lo += other.h2_lo

    def key(self) -> tuple[int, ...]:
        return (self.n_rows, self.h1_hi, self.h1_lo, self.h2_hi, self.h2_lo)

    @property
    def has_duplicates(self) -> bool:
        return self.n_rows > self.n_keys


def _default_log(message: str) -> None:
    try:
        from dbt_common.events.functions import fire_event
        from dbt_common.events.types import Note

        fire_event(Note(msg=message))
    except Exception:  # noqa: BLE001 - outside dbt: plain print
        print(message)


def plan_units(
    leaves: Iterable[dict[str, Any]],
    *,
    split_factor: int,
    depth: int,
    compare_unit_size: int,
    block_count: int = 1,
    log: Callable[[str], None] = _default_log,
    label: str = "",
) -> list[Unit]:
    """Walk the block tree over per-leaf signatures; return mismatched compare units in key order.

    ``leaves``: dicts with ``side`` ('source' | 'target'), ``leaf_id`` and the signature columns.
    """
    per_side: dict[str, dict[int, _Sig]] = {"source": {}, "target": {}}
    whole: dict[str, _Sig] = {}
    for row in leaves:
        side = row["side"]
        if side not in per_side:
            raise ValueError(f"table_diff.block_split: unexpected side {side!r} in block_hashes")
        sig = _Sig(
            int(row["n_rows"]),
            int(row["n_keys"]),
            int(row["h1_hi"]),
            int(row["h1_lo"]),
            int(row["h2_hi"]),
            int(row["h2_lo"]),
        )
        if row["leaf_id"] is None:
            whole[side] = sig
        else:
            per_side[side][int(row["leaf_id"])] = sig

    def span(level: int) -> int:
        return split_factor ** (depth - level)

    if whole:
        # The quick check's result: one whole-table signature per side, and no leaf rows.
        if set(whole) != {"source", "target"}:
            raise ValueError(
                "table_diff.block_split: block_hashes holds a whole-table signature (leaf_id "
                f"NULL) for {sorted(whole)} only; table_diff.block_hashes' quick check writes one "
                "per side. Rebuild it: dbt build --select <pair>__block_hashes+."
            )
        if per_side["source"] or per_side["target"]:
            raise ValueError(
                "table_diff.block_split: block_hashes mixes whole-table (leaf_id NULL) and "
                "per-leaf rows. Rebuild it: dbt build --select <pair>__block_hashes+."
            )
        s, t = whole["source"], whole["target"]
        if s.key() == t.key():
            log(
                f"table_diff split{(' ' + label) if label else ''}: identical by whole-table "
                f"signature ({s.n_rows} rows each side): nothing to split"
            )
            return []
        log(
            f"table_diff split{(' ' + label) if label else ''}: whole-table signatures differ "
            f"({s.n_rows} source rows, {t.n_rows} target rows) and no leaf was grouped: every "
            f"block is a compare unit, compared by the row diff in one read of each side"
        )
        return [
            Unit(
                level=0,
                block_id=block,
                level0_block_id=block,
                leaf_lo=block * span(0),
                leaf_hi=(block + 1) * span(0) - 1,
                source_rows=None,
                target_rows=None,
                reason=UnitReason.WHOLE_TABLE.value,
            )
            for block in range(block_count)
        ]

    def signature(side: str, level: int, block: int) -> _Sig:
        total = _Sig()
        lo = block * span(level)
        for leaf in range(lo, lo + span(level)):
            sig = per_side[side].get(leaf)
            if sig is not None:
                total.add(sig)
        return total

    present = set(per_side["source"]) | set(per_side["target"])
    frontier = sorted({leaf // span(0) for leaf in present})
    units: list[Unit] = []
    for level in range(depth + 1):
        mismatched: list[tuple[int, _Sig, _Sig, str]] = []
        for block in frontier:
            s, t = signature("source", level, block), signature("target", level, block)
            reasons = []
            if s.key() != t.key():
                reasons.append(UnitReason.MISMATCH.value)
            if s.has_duplicates or t.has_duplicates:
                reasons.append(UnitReason.DUPLICATE_KEYS.value)
            if reasons:
                mismatched.append((block, s, t, UnitReason("+".join(reasons)).value))
        rows = sum(max(s.n_rows, t.n_rows) for _, s, t, _ in mismatched)
        log(
            f"table_diff split{(' ' + label) if label else ''}: level {level}: "
            f"blocks in {len(frontier)}, mismatched {len(mismatched)}, rows in them {rows}"
        )
        next_frontier: list[int] = []
        for block, s, t, reason in mismatched:
            if level == depth or max(s.n_rows, t.n_rows) <= compare_unit_size:
                lo = block * span(level)
                units.append(
                    Unit(
                        level=level,
                        block_id=block,
                        level0_block_id=lo // span(0),
                        leaf_lo=lo,
                        leaf_hi=lo + span(level) - 1,
                        source_rows=s.n_rows,
                        target_rows=t.n_rows,
                        reason=reason,
                    )
                )
            else:
                next_frontier.extend(range(block * split_factor, (block + 1) * split_factor))
        frontier = next_frontier
        if not frontier:
            break
    units.sort(key=lambda u: u.leaf_lo)
    return units


def select_units(units: list[Unit], max_diff_rows: int) -> list[bool]:
    """Early stop: take units in key order while their certain differing rows stay below the cap."""
    selected, certain = [], 0
    for unit in units:
        take = certain < max_diff_rows
        selected.append(take)
        if take:
            if unit.source_rows is None or unit.target_rows is None:
                certain += 1
            else:
                certain += max(1, abs(unit.source_rows - unit.target_rows))
    return selected


def read_spec(ranges, relation_label: str | None = None) -> Spec:
    """The resolved spec a ``key_ranges`` model stored with its leaves (:func:`load_spec`)."""
    row = ranges.select("spec").limit(1).collect()
    if not row:
        raise ValueError(
            "table_diff.block_split: the ranges model is empty; build it with "
            "table_diff.key_ranges "
            "(dbt build --select +<pair>__ranges)."
        )
    return load_spec(row[0][0], relation_label)


def block_split(session, ranges, block_hashes, *, log: Callable[[str], None] = _default_log):
    """DataFrame of compare units (schema :data:`UNIT_SCHEMA`) for a pair's ranges and hashes."""
    spec = read_spec(ranges)
    leaves = [row.asDict() for row in block_hashes.collect()]
    run = check_run(spec, spec.label, (r.get("run_id") for r in leaves))
    units = plan_units(
        leaves,
        split_factor=spec.split_factor,
        depth=spec.layout.depth,
        compare_unit_size=spec.compare_unit_size,
        block_count=spec.layout.block_count,
        log=log,
        label=spec.label,
    )
    selected = select_units(units, spec.max_diff_rows)
    if not all(selected):
        log(
            f"table_diff split: max_diff_rows={spec.max_diff_rows} reached: "
            f"{selected.count(False)} of {len(units)} mismatched units left out (result is partial)"
        )
    rows = [
        (
            i,
            u.level,
            u.block_id,
            u.level0_block_id,
            u.leaf_lo,
            u.leaf_hi,
            u.source_rows,
            u.target_rows,
            u.reason,
            take,
            run,
        )
        for i, (u, take) in enumerate(zip(units, selected, strict=True))
    ]
    return session.createDataFrame(rows, UNIT_SCHEMA)
