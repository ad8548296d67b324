"""Snippets: the best window of a chunk's lines within a token budget (pure, no I/O).

A search never returns whole files: each result carries at most `budget` tokens,
centred on the lines that match the most distinct query words, with line numbers
that point at the file exactly. Matched words come back as character spans so the
CLI can highlight them and agents can ignore them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memctl.search.query import HEBREW_PREFIXES
from memctl.tokens import estimate_tokens

_WORD = re.compile(r"\w+", re.UNICODE)
ELLIPSIS = "…"


@dataclass(frozen=True)
class Matcher:
    """Which words count as a match: exact forms, or words that start with a stem."""

    exact: frozenset[str]
    prefixes: tuple[str, ...] = ()

    def matches(self, word: str) -> str | None:
        """The query form this word matches (lowercased), or None."""
        lw = word.lower()
        if lw in self.exact:
            return lw
        # Hebrew glues one or two prefix letters onto a word: בבית is בית.
        for cut in (1, 2):
            stripped = lw[cut:]
            prefixed = all(c in HEBREW_PREFIXES for c in lw[:cut])
            if prefixed and len(stripped) >= 2 and stripped in self.exact:
                return stripped
        for prefix in self.prefixes:
            if lw.startswith(prefix):
                return prefix
        return None

    def spans(self, text: str) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in _WORD.finditer(text) if self.matches(m.group(0))]

    def distinct(self, text: str) -> set[str]:
        found = set()
        for m in _WORD.finditer(text):
            form = self.matches(m.group(0))
            if form:
                found.add(form)
        return found


@dataclass(frozen=True)
class Snippet:
    text: str
    line_start: int  # 1-based, inclusive, in the file
    line_end: int
    highlights: tuple[tuple[int, int], ...]  # character spans of matched words in `text`
    truncated: bool  # True when the matched chunk had more than the snippet shows


class _Costs:
    """Token cost of each line (+1 for its newline), computed only for lines looked at:
    context lines far from the chunk are never priced."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._cache: dict[int, int] = {}

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._lines)))]
        cost = self._cache.get(index)
        if cost is None:
            cost = self._cache[index] = estimate_tokens(self._lines[index]) + 1
        return cost


def best_snippet(
    lines: Sequence[str | None],
    first_line: int,
    matcher: Matcher,
    budget: int,
    core: tuple[int, int] | None = None,
    weights: Sequence[float] | None = None,
) -> Snippet:
    """The window of whole lines (≤ budget tokens) holding the most distinct matched words.

    `lines` is a stretch of the file starting at line `first_line`; None marks a line the
    snippet may not show (front matter, text outside the index). The window is chosen
    inside `core` (0-based, inclusive; default: every line), the chunk that matched; if
    the whole core fits, the leftover budget shows its neighbouring lines, after first
    then before, because an answer tends to follow the words that name its topic;
    `weights` (per line, e.g. the relevance of other matching chunks) pull the widened
    window towards the neighbours that matter most.
    Ties go to the window whose matches sit nearest its centre, then to the earliest.
    A single line longer than the budget is cut to the words around its first match.
    """
    lo, hi = core if core is not None else (0, len(lines) - 1)
    text_of = [line or "" for line in lines]
    costs = _Costs(text_of)
    found = [
        matcher.distinct(line) if i >= lo and i <= hi else set() for i, line in enumerate(text_of)
    ]
    best: tuple[float, float, int] | None = None
    best_range = (lo, lo - 1)
    end = lo
    used = 0
    if sum(costs[lo : hi + 1]) <= budget:
        # The whole chunk fits: show all of it, then its neighbours.
        best, best_range, end = (float("inf"), 0.0, 0), (lo, hi), hi + 1
    for start in range(lo, hi + 1 if best is None else lo):
        if end < start:
            end, used = start, 0
        while end <= hi and used + costs[end] <= budget:
            used += costs[end]
            end += 1
        if end == start:
            continue  # this line alone is over budget; handled below
        words: set[str] = set().union(*(found[i] for i in range(start, end)))
        hits = [i for i in range(start, end) if found[i]]
        centre = (start + end - 1) / 2
        offset = abs(sum(hits) / len(hits) - centre) if hits else 0.0
        key = (len(words), -offset, -start)
        if best is None or key > best:
            best, best_range = key, (start, end - 1)
        used -= costs[start]
        if end > hi and not words:
            break
    whole_best = max(range(lo, hi + 1), key=lambda i: (len(found[i]), -i))
    if best is None or (len(found[whole_best]) > best[0] and costs[whole_best] > budget):
        return _cut_line(text_of[whole_best], first_line + whole_best, matcher, budget)
    start, stop = best_range
    if (start, stop) == (lo, hi):
        start, stop = _widen(lines, costs, lo, hi, budget, weights)
    while start < stop and not text_of[start].strip():
        start += 1
    while stop > start and not text_of[stop].strip():
        stop -= 1
    body = "\n".join(text_of[start : stop + 1])
    return Snippet(
        text=body,
        line_start=first_line + start,
        line_end=first_line + stop,
        highlights=tuple(matcher.spans(body)),
        truncated=start > lo or stop < hi,
    )


def _widen(
    lines: Sequence[str | None],
    costs: _Costs,
    lo: int,
    hi: int,
    budget: int,
    weights: Sequence[float] | None,
) -> tuple[int, int]:
    """The widest window holding lines lo..hi within budget, most weight first.

    Among windows of equal weight the one that grew after and before in turn wins
    (neighbours on both sides, a little more after).
    """
    used = sum(costs[lo : hi + 1])
    start, stop = lo, hi
    open_after = open_before = True
    while open_after or open_before:
        if open_after:
            nxt = stop + 1
            if nxt < len(lines) and lines[nxt] is not None and used + costs[nxt] <= budget:
                stop, used = nxt, used + costs[nxt]
            else:
                open_after = False
        if open_before:
            prev = start - 1
            if prev >= 0 and lines[prev] is not None and used + costs[prev] <= budget:
                start, used = prev, used + costs[prev]
            else:
                open_before = False
    if not weights or not any(weights):
        return start, stop
    best_key = (sum(weights[start : stop + 1]), 0)
    best = (start, stop)
    # Slide the window: every start from the earliest reachable to lo, each grown to budget.
    first = lo
    spent = sum(costs[lo : hi + 1])
    while first > 0 and lines[first - 1] is not None and spent + costs[first - 1] <= budget:
        first -= 1
        spent += costs[first]
    for begin in range(first, lo + 1):
        used = sum(costs[begin : hi + 1])
        end = hi
        while (
            end + 1 < len(lines) and lines[end + 1] is not None and used + costs[end + 1] <= budget
        ):
            end += 1
            used += costs[end]
        key = (sum(weights[begin : end + 1]), -abs((lo - begin) - (end - hi)))
        if key > best_key:
            best_key, best = key, (begin, end)
    return best


def _cut_line(line: str, line_no: int, matcher: Matcher, budget: int) -> Snippet:
    """Words around the first match of an over-long line, marked with ellipses where cut."""
    pieces = list(re.finditer(r"\S+", line))
    anchor = next((i for i, m in enumerate(pieces) if matcher.spans(m.group(0))), 0)
    lo = hi = anchor
    used = estimate_tokens(pieces[anchor].group(0)) if pieces else 0
    # Grow both ways, one word at a time, so the match stays near the middle.
    grew = True
    while grew:
        grew = False
        for side in (-1, 1):
            i = lo - 1 if side < 0 else hi + 1
            if 0 <= i < len(pieces):
                cost = estimate_tokens(pieces[i].group(0))
                if used + cost + 2 <= budget:  # 2: room for the ellipses
                    used += cost
                    lo, hi = (i, hi) if side < 0 else (lo, i)
                    grew = True
    if not pieces:
        body = ""
    else:
        body = line[pieces[lo].start() : pieces[hi].end()]
        if lo > 0:
            body = ELLIPSIS + body
        if hi < len(pieces) - 1:
            body += ELLIPSIS
    return Snippet(
        text=body,
        line_start=line_no,
        line_end=line_no,
        highlights=tuple(matcher.spans(body)),
        truncated=True,
    )
