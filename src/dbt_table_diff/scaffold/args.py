"""The scaffold's option parsers (``--normalize``, ``--column-map``, ``--tolerance``,
``--resolve``) and its error type, which every check of the scaffold raises."""

from __future__ import annotations

from typing import Any

NORMALIZE_RULES = {"round": int, "truncate": str, "trim": bool, "lower": bool}
TRUNCATE_UNITS = ("millisecond", "second", "minute", "hour", "day")


class ScaffoldError(ValueError):
    """Bad scaffold input; the message names the argument and the fix."""


def parse_normalize(items: list[str]) -> dict[str, dict[str, Any]]:
    """``['amount:round=2', 'name:trim', 'ts:truncate=second']`` -> rules per column."""
    rules: dict[str, dict[str, Any]] = {}
    for item in items:
        col, sep, rule = item.partition(":")
        name, _, arg = rule.partition("=")
        if not sep or not col or name not in NORMALIZE_RULES:
            raise ScaffoldError(
                f"invalid --normalize '{item}'. Expected COLUMN:RULE[=ARG] with RULE one of "
                "round=N, truncate=UNIT, trim, lower. Example: --normalize amount:round=2"
            )
        if name == "round":
            if not arg.isdigit() or int(arg) > 38:
                raise ScaffoldError(
                    f"invalid --normalize '{item}'. Expected round=N with N from 0 to 38."
                )
            value: Any = int(arg)
        elif name == "truncate":
            if arg not in TRUNCATE_UNITS:
                raise ScaffoldError(
                    f"invalid --normalize '{item}'. Expected truncate=UNIT with UNIT one of "
                    f"{', '.join(TRUNCATE_UNITS)}."
                )
            value = arg
        else:
            if arg:
                raise ScaffoldError(f"invalid --normalize '{item}'. '{name}' takes no value.")
            value = True
        rules.setdefault(col, {})[name] = value
    return rules


def parse_column_map(items: list[str]) -> dict[str, str]:
    """``['amt=amount', 'id=order_id']`` -> ``{'amt': 'amount', 'id': 'order_id'}``."""
    mapping: dict[str, str] = {}
    for item in items:
        target, sep, source = (part.strip() for part in item.partition("="))
        if not sep or not target or not source:
            raise ScaffoldError(
                f"invalid --column-map '{item}'. Expected TARGET_COLUMN=SOURCE_COLUMN "
                "(the target's column compared with the source's). Example: --column-map amt=amount"
            )
        if target.lower() in {t.lower() for t in mapping}:
            raise ScaffoldError(f"invalid --column-map '{item}': {target} is mapped twice.")
        if source.lower() in {s.lower() for s in mapping.values()}:
            raise ScaffoldError(
                f"invalid --column-map '{item}': two target columns map to {source}; keep one."
            )
        mapping[target] = source
    return mapping


def parse_tolerance(items: list[str]) -> dict[str, dict[str, Any]]:
    """``['amount:abs=0.01', 'rate:rel=1e-6', 'ts:abs=2 seconds']`` -> a rule per column."""
    rules: dict[str, dict[str, Any]] = {}
    for item in items:
        col, sep, rule = item.partition(":")
        kind, eq, arg = rule.partition("=")
        if not sep or not col or kind not in ("abs", "rel") or not eq or not arg.strip():
            raise ScaffoldError(
                f"invalid --tolerance '{item}'. Expected COLUMN:abs=N, COLUMN:rel=N or "
                "COLUMN:abs='N UNIT' (timestamps). Example: --tolerance amount:abs=0.01"
            )
        if col in rules:
            raise ScaffoldError(f"invalid --tolerance '{item}': {col} has a tolerance already.")
        try:
            value: Any = int(arg) if arg.strip().isdigit() else float(arg)
        except ValueError:
            value = arg.strip()  # a duration, checked by the macro with the column's type
        if kind == "rel" and not isinstance(value, (int, float)):
            raise ScaffoldError(f"invalid --tolerance '{item}'. rel takes a number (1e-6).")
        if isinstance(value, (int, float)) and value <= 0:
            raise ScaffoldError(f"invalid --tolerance '{item}'. Expected a number > 0.")
        rules[col] = {kind: value}
    return rules


def parse_resolve(items: list[str]) -> dict[str, Any]:
    """``['amount:max', 'price:latest=updated_at', 'note:python=pkg.mod.pick']`` ->
    ``{'amount': 'max', 'price': {'latest': 'updated_at'}, 'note': {'python': 'pkg.mod.pick'}}``
    (the shape of each policy is checked by the merge's validation)."""
    policies: dict[str, Any] = {}
    for item in items:
        col, sep, rule = item.partition(":")
        kind, eq, arg = rule.partition("=")
        col, kind, arg = col.strip(), kind.strip(), arg.strip()
        if not sep or not col or not kind or (eq and not arg):
            raise ScaffoldError(
                f"invalid --resolve '{item}'. Expected COLUMN:POLICY with POLICY one of ours, "
                "theirs, max, min, latest=ORDER_COLUMN, python=PKG.MODULE.FUNCTION. Example: "
                "--resolve amount:latest=updated_at"
            )
        if col.lower() in {c.lower() for c in policies}:
            raise ScaffoldError(f"invalid --resolve '{item}': {col} has a policy already.")
        policies[col] = {kind: arg} if eq else kind
    return policies
