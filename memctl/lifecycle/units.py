"""A memory line as lint compares it: its tier, and its text normalised for matching."""

from __future__ import annotations

from dataclasses import dataclass

from memctl import statements
from memctl.lifecycle.hot import content_lines
from memctl.vault import tier_of

MIN_UNIT_CHARS = 20  # shorter lines ("- ok", "## Notes") make meaningless duplicates


@dataclass(frozen=True)
class Unit:
    path: str
    line: int
    tier: str
    text: str  # the line as written
    norm: str  # casefolded, bullet and time stamp stripped


normalise = statements.normalise_line


def units_of(path: str, text: str) -> list[Unit]:
    tier = tier_of(path) or ""
    result = []
    for c in content_lines(text):
        norm = normalise(c.text)
        if len(norm) >= MIN_UNIT_CHARS:
            result.append(Unit(path, c.number, tier, c.text.strip(), norm))
    return result
