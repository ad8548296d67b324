"""Lint's second contradiction check: HOT and WARM lines that give one subject different
values in other words (memctl.statement_values.worded_apart, the detection search ranks
the newer of two such memories by)."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from memctl.lifecycle.units import Unit
from memctl.statement_values import Claim, claims, first_apart

# A subject word on more lines than this says little about which lines share a subject
# ("shop" in a shop's vault); its lines are paired through their other words.
COMMON = 50


def worded_apart_pairs(
    units: list[Unit], skip: set[tuple[int, int]] | None = None
) -> list[tuple[Unit, Unit, str]]:
    """Pairs of lines (in `units` order) giving one subject different values, with why;
    `skip`: index pairs already reported. One of the two must say the value changed
    ("now", "moved to", "теперь", "עכשיו"): a daily log's counts ("31 orders packed" one
    day, "25 orders packed" the next) are events, not a contradiction."""
    stated: list[list[Claim]] = [claims(u.text, max_lines=1) for u in units]
    lines_of: dict[str, list[int]] = defaultdict(list)
    changed = [any(c.update for c in found) for found in stated]
    for i, found in enumerate(stated):
        for word in {w for c in found for w in c.subject}:
            lines_of[word].append(i)
    pairs: set[tuple[int, int]] = set()
    for lines in lines_of.values():
        if len(lines) <= COMMON:
            pairs.update(combinations(lines, 2))
    out = []
    for i, j in sorted(pairs - (skip or set())):
        if units[i].norm == units[j].norm or not (changed[i] or changed[j]):
            continue
        reason = first_apart(stated[j], stated[i])
        if reason:
            out.append((units[i], units[j], reason))
    return out
