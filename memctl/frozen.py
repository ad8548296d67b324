"""Frozen dataclasses made on hot paths.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`; a search
makes ~40 chunk records and ~60 reranker rows, where that is most of their cost.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

_T = TypeVar("_T")


def field_names(cls: type[Any]) -> tuple[str, ...]:
    """A dataclass's field names in order: `filled`'s `names`, worked out once per class."""
    return tuple(f.name for f in fields(cls))


def filled(cls: type[_T], names: tuple[str, ...], values: tuple[Any, ...]) -> _T:
    """`cls(*values)` for a frozen dataclass without `__post_init__`, filled in place: the
    same object (equal, hashed and shown alike, still frozen), ~3x cheaper."""
    made = object.__new__(cls)
    made.__dict__.update(zip(names, values, strict=True))
    return made
