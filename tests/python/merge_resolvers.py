"""User resolution functions for the merge tests' `python` policies (ADR 0040): importable on the
driver because tests/python is on sys.path, as a project's own package would be."""

from __future__ import annotations


def pick(base, ours, theirs):
    """Back to base where there was one, else theirs: any type, the column's own values."""
    return base if base is not None else theirs


def joined(base, ours, theirs):
    return f"{base}|{ours}|{theirs}"


def boom(base, ours, theirs):
    raise RuntimeError(f"cannot choose between {ours!r} and {theirs!r}")


def wrong_type(base, ours, theirs):
    return "not a number"
