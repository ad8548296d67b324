"""Ordering rules applied after the composite score (pure, no I/O).

1. *COLD under WARM*: an archived memory never outranks a current one that is at least as
   relevant. Recency alone cannot promise it: an archive note can carry a recent date,
   an importance of 1 or many past accesses.
2. *Newer first*: when two candidates state different values for the same subject, however
   worded (memctl.statement_values decides, as for `memctl lint`), or one negates the
   other (memctl.statements), the newer takes the older's place and the older is placed
   just below it. It stays in the results (the history is useful), it only stops winning
   against the fact that replaced it.

core.md is undated and always current, so it counts as today's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date

import numpy as np

from memctl.search.rank.meaning import Fact
from memctl.search.rank.scoring import best_first
from memctl.statement_values import (
    Claim,
    changed_value,
    claims,
    first_apart,
    names_older,
    qualified_apart,
)
from memctl.statements import Line, first_conflict, parse_lines

BELOW = 0.97  # an outranked memory's score becomes at most this share of the winner's
CHECKED = 10  # candidates (by score) compared pairwise for conflicting statements
REACH = 20  # candidates (by score) searched for a newer statement of a checked one's subject
SAME_MEANING = 0.86  # two facts' cosine from which they may be about one subject
ASKED = 0.03  # a fact answers the query when its cosine is this near the best fact's
# A newer fact further from the query than this below the older's bar is about something
# else (a daily bullet has no heading to share the query's words: it sits lower).
NEWER_SLACK = 0.10


@dataclass(frozen=True)
class Item:
    tier: str
    source: str | None
    day: date | None
    text: str
    heading: str = ""  # the chunk's " > "-joined heading path (a later chunk of a section)


# A dated section heading inside the chunk ("## 2026-08-01"), as archive notes of several
# dated entries write them.
_SECTION_DAY = re.compile(r"^#{1,6}\s+(\d{4}-\d{2}-\d{2})\b", re.MULTILINE)


# A dated heading in a chunk's heading path ("Front desk handbook > 2026-03-08"): a long
# section's later chunks do not hold the heading line itself.
_PATH_DAY = re.compile(r"(?:^|> )(\d{4}-\d{2}-\d{2})\b")


def effective_day(item: Item, today: date) -> date | None:
    """The day a candidate's statements were true: its own date, else (core.md) today,
    else a dated section heading it holds or sits under; None when nothing says."""
    if item.day is not None:
        return item.day
    if item.source == "core":
        return today
    match = _SECTION_DAY.search(item.text) or _PATH_DAY.search(item.heading)
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


def cold_under_warm(
    scores: Mapping[int, float], relevance: Mapping[int, float], items: Mapping[int, Item]
) -> dict[int, float]:
    """Cap each COLD score below every WARM score whose relevance is at least its own."""
    out = dict(scores)
    # COLD first: a search without a COLD candidate needs no WARM sort.
    cold = [cid for cid in scores if items[cid].tier == "cold"]
    if not cold:
        return out
    # By falling relevance, ties in their order (reverse=True keeps a sort stable).
    warm = sorted(
        (cid for cid in scores if items[cid].tier == "warm"),
        key=relevance.__getitem__,
        reverse=True,
    )
    if not warm:
        return out
    cold.sort(key=relevance.__getitem__, reverse=True)
    # Walk COLD by falling relevance; `floor` is the lowest WARM score among the WARM
    # items at least as relevant as the current COLD one.
    floor, i = float("inf"), 0
    for cid in cold:
        while i < len(warm) and relevance[warm[i]] >= relevance[cid]:
            floor = min(floor, scores[warm[i]])
            i += 1
        if floor != float("inf") and out[cid] >= floor:
            out[cid] = floor * BELOW
    return out


@functools.lru_cache(maxsize=4096)
def _focused(text: str, query: frozenset[str]) -> tuple[Claim, ...]:
    # A search settles twice (before and after the reranker), over the same candidates.
    return tuple(claims(text, focus=query))


@functools.lru_cache(maxsize=4096)
def _claims(body: str) -> tuple[Claim, ...]:
    return tuple(claims(body))


@functools.lru_cache(maxsize=4096)
def _lines(text: str) -> tuple[Line, ...]:
    # Each Line keeps its parsed statement: the second settle of a search (after the
    # reranker) and the next pair with this candidate read it again for nothing.
    return tuple(parse_lines(text))


@functools.lru_cache(maxsize=16384)
def _worded_change(newer: str, older: str, query: frozenset[str]) -> str | None:
    # A search settles twice and compares each pair of facts near in meaning; the query
    # lets one shared subject word it names be enough (changed_value).
    return changed_value(newer, older, query) or first_apart(_claims(newer), _claims(older))


def _changed(newer: str, older: str, query: frozenset[str]) -> str | None:
    """Why the newer fact gives the older's subject another value (the two already near in
    meaning): a stated change, or the words' own check; None when the query names a name
    only the older gives ("Sabot barrels": it asks about that one)."""
    why = _worded_change(newer, older, query)
    if why and not names_older(query, list(_claims(newer)), list(_claims(older))):
        return why
    return None


def _near_in_meaning(
    facts: Mapping[int, tuple[Fact, ...]],
    olders: list[int],
    newers: list[int],
    days: Mapping[int, date],
    asked: float,
) -> dict[tuple[int, int], list[tuple[Fact, Fact]]]:
    """(newer, older) -> their pairs of facts at least SAME_MEANING apart, the older's
    answering the query (cosine ≥ `asked`), the newer's not far from it (≥ `asked` less
    NEWER_SLACK) and dated later: every pair in one product."""
    old = [(cid, f) for cid in olders for f in facts.get(cid, ()) if f.cosine >= asked]
    new = [
        (cid, f) for cid in newers for f in facts.get(cid, ()) if f.cosine >= asked - NEWER_SLACK
    ]
    if not old or not new:
        return {}
    near = np.stack([f.vector for _, f in new]) @ np.stack([f.vector for _, f in old]).T
    later = np.array([days[c].toordinal() for c, _ in new])[:, None] > np.array(
        [days[c].toordinal() for c, _ in old]
    )
    out: dict[tuple[int, int], list[tuple[Fact, Fact]]] = {}
    for i, j in zip(*np.nonzero((near >= SAME_MEANING) & later), strict=True):
        (newer, new_fact), (older, old_fact) = new[i], old[j]
        out.setdefault((newer, older), []).append((new_fact, old_fact))
    return out


def newer_first(
    scores: Mapping[int, float],
    items: Mapping[int, Item],
    today: date,
    checked: int = CHECKED,
    query: frozenset[str] = frozenset(),
    facts: Mapping[int, tuple[Fact, ...]] | None = None,
) -> tuple[dict[int, float], dict[int, int]]:
    """Scores with each superseded candidate placed below its newer rival, the newer
    raised to the older's score when that was higher (`query`: the query's stems,
    statement_values.query_stems, which say which subject was asked about).

    Returns the scores and, per superseded candidate, the id of the memory that
    supersedes it (for --explain and the JSON's superseded_by).
    """
    out = dict(scores)
    ranked = best_first(scores)
    top = set(ranked[:checked])
    days = {
        cid: day
        for cid in ranked[: max(checked, REACH)]
        if (day := effective_day(items[cid], today)) is not None
    }
    facts = facts or {}
    # An older fact answers the query when its cosine is near the best fact's.
    asked = max((f.cosine for c in ranked[:REACH] for f in facts.get(c, ())), default=1.0) - ASKED
    dated = list(days)
    # Newest first, so a chain (A → B → C) settles in one pass: C, then B below C, ...
    dated.sort(key=lambda c: (days[c], out[c]), reverse=True)
    near = _near_in_meaning(facts, [c for c in dated if c in top], dated, days, asked)
    rivals = _Rivals(items, query, top, near)
    superseded: dict[int, int] = {}
    for i, newer in enumerate(dated):
        for older in dated[i + 1 :]:
            if days[older] >= days[newer] or older not in top:
                continue
            if newer not in top and (newer, older) not in near:
                continue
            if older in superseded and out[older] < out[newer] * BELOW:
                continue  # named and placed already: nothing to settle
            if rivals.supersedes(newer, older):
                # Named even when already below: --explain and the JSON say why.
                superseded.setdefault(older, newer)
                if out[older] >= out[newer] * BELOW:
                    out[newer] = max(out[newer], out[older])
                    out[older] = out[newer] * BELOW
    return out, superseded


@dataclass
class _Rivals:
    """Whether a newer candidate supersedes an older one, for one query: by their lines'
    words when the newer is among the best `top`, by their facts' meaning (`near`) below."""

    items: Mapping[int, Item]
    query: frozenset[str]
    top: set[int]
    near: dict[tuple[int, int], list[tuple[Fact, Fact]]]
    claimed: dict[int, list[Claim]] = field(default_factory=dict)

    def stated(self, cid: int) -> list[Claim]:
        # Without the query's words nothing says what was asked: no claims, no cost.
        if cid not in self.claimed:
            text = self.items[cid].text
            self.claimed[cid] = list(_focused(text, self.query)) if self.query else []
        return self.claimed[cid]

    def revised(self, newer: int, older: int) -> list[Claim]:
        """The newer's claims, each saying its value changed when both are decisions: a
        later entry of decisions.md about the same subject revises the earlier by the
        file's own rule (one entry per decision, a revision gets a new one), whatever its
        title and though it says no "now" or "moved to"."""
        claimed = self.stated(newer)
        if self.items[newer].source == self.items[older].source == "decision":
            return [replace(c, update=True) for c in claimed]
        return claimed

    def meant(self, newer: int, older: int) -> str | None:
        for new_fact, old_fact in self.near.get((newer, older), ()):
            why = _changed(new_fact.body, old_fact.body, self.query)
            if why:
                return why
        return None

    def supersedes(self, newer: int, older: int) -> bool:
        # Words among the best 10 only: a newer one further down is found by meaning (its
        # facts' vectors are read already, its words would cost a parse each).
        if newer not in self.top:
            return bool(self.meant(newer, older))
        return bool(
            first_conflict(
                _lines(self.items[newer].text), _lines(self.items[older].text), qualified_apart
            )
            or first_apart(self.revised(newer, older), self.stated(older), self.query)
            or self.meant(newer, older)
        )
