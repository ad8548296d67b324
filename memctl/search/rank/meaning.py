"""Meaning per fact: a candidate's vector score lifted to its best unit's.

A chunk of several facts (a day's `- HH:MM` bullets, an archive note's list, a decision's
sentence lines) has one vector, their average, and loses to any chunk naming the asked-for
person. Each fact's own vector (memctl.index.units, cached beside the chunks') is compared
with the query too, and the chunk scores the better of the two (the fact's a little
discounted, SHORT_TEXT_BIAS): it is found by the fact and shown whole. The vector list is read again wider first in a small index (the whole
vault's nearest chunks by their own vectors can miss the one whose fact answers), so a
fact can bring in a chunk the list had left out. In a large index facts are not read at
search time (LIFT_MAX_CHUNKS).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from memctl.index.chunker import content_hash
from memctl.index.units import UNITS_MAX_CHUNKS, Unit, units_of

POOL = 100  # chunks whose units are compared, in an index small enough to widen cheaply
POOL_MAX_CHUNKS = 20_000  # beyond this the wider read is a second scan: the list as it is
# Beyond this no fact is read (nor embedded: units.UNITS_MAX_CHUNKS): without the
# wider read a fact lifts only a chunk its own vector already listed (synthetic hit@5 at
# 100k 0.240 -> 0.245), while reading the ~60 facts' vectors by hash from a state.db of
# ~1 GB is one cold page each (~1 ms on these machines): units-on p95 was 1.5-1.7x
# units-off's (docs/lab/search.md, 2026-11-29).
LIFT_MAX_CHUNKS = UNITS_MAX_CHUNKS
# A one-line fact meets a question in its own language a little nearer than a longer text
# of the same meaning does (e5's short texts): a Hebrew bullet of a mixed daily note
# outranked the English decision a Hebrew question was about by 0.018 (the fixture's
# x-he-en-1). A fact's cosine counts this much less than the chunk's.
SHORT_TEXT_BIAS = 0.015


@dataclass(frozen=True)
class Fact:
    """One fact of a candidate (a unit, or the chunk itself when it holds one fact): its
    own lines (without the heading its vector was made with), its vector and its cosine
    with the query. Supersession compares two candidates' facts by meaning
    (rank/supersession.py)."""

    body: str
    vector: np.ndarray
    cosine: float
    unit: bool = True  # False: the chunk itself, which holds one fact


@functools.lru_cache(maxsize=8192)
def _units(text: str) -> tuple[Unit, ...]:
    return tuple(units_of(text))


def has_units(texts: Mapping[int, str]) -> bool:
    return any(_units(text) for text in texts.values())


def lift(
    scores: Mapping[int, float],
    texts: Mapping[int, str],
    query: Any,
    vectors_of: Callable[[Sequence[str]], Mapping[str, np.ndarray]],
    facts: dict[int, tuple[Fact, ...]] | None = None,
) -> dict[int, float]:
    """`scores` (chunk id -> cosine) with each chunk's cosine raised to its best unit's
    (less SHORT_TEXT_BIAS), best first; a chunk whose units are not embedded yet keeps its
    own. `facts` gets each chunk's facts (read in the same statement as the units')."""
    units = {cid: _units(texts[cid]) for cid in scores if cid in texts}
    hashes = {cid: [u.hash for u in part] for cid, part in units.items()}
    own = (
        {cid: content_hash(texts[cid]) for cid, part in units.items() if not part}
        if facts is not None
        else {}
    )
    found = vectors_of([h for part in hashes.values() for h in part] + list(own.values()))
    qvec = np.asarray(query, dtype=np.float32)
    lifted: dict[int, float] = {}
    for cid, cosine in scores.items():
        near = [(float(found[u.hash] @ qvec), u) for u in units.get(cid, ()) if u.hash in found]
        best = max((pair[0] for pair in near), default=None)
        lifted[cid] = cosine if best is None else max(cosine, best - SHORT_TEXT_BIAS)
        if facts is None:
            continue
        if near:
            lines = texts[cid].splitlines()
            facts[cid] = tuple(
                Fact("\n".join(lines[u.start : u.end + 1]), found[u.hash], near_cosine)
                for near_cosine, u in near
            )
        elif cid in own and own[cid] in found:
            facts[cid] = (Fact(texts[cid], found[own[cid]], cosine, unit=False),)
    return dict(sorted(lifted.items(), key=lambda item: -item[1]))


def floor_facts(facts: Mapping[int, tuple[Fact, ...]]) -> dict[int, list[tuple[float, str]]]:
    """The relevance floor's view of the candidates' facts (floor/facts.py): each note of
    several facts as (cosine, lines), the one it matched judged by its own script."""
    return {
        cid: [(f.cosine, f.body) for f in found]
        for cid, found in facts.items()
        if found and all(f.unit for f in found)
    }


# How far a candidate stands out of its vector list (`standing`) counts in the reranker's
# score (rerank/model.rerank): the list's best by meaning gains this much (a logit).
# 1.0 against 0.5 (no change) and 1.5 (one cross-lingual question lost) on the tune splits.
STANDING_WEIGHT = 1.0


def standing(
    cosines: Mapping[int, float], facts: Mapping[int, tuple[Fact, ...]]
) -> dict[int, float]:
    """How far each candidate found by one of its facts (`facts`' units: a bullet of a day,
    an item of an archive note) stands above its vector list's median cosine, as a share of
    the best candidate's height (1 for the best, 0 at or below the median; empty for a list
    too short or too flat to say).

    e5's cosines bunch (0.80-0.83 for nearly every note of a vault, whatever the question),
    so a raw cosine, or its offset from the best, says little of how far a note stands out
    among this query's candidates; its place between the median and the best reads the
    same in every vault. Only a note of several facts is judged so: its window's words and
    mean vector (the reranker's features) are mostly its other facts'. A one-fact chunk (a
    conversation's turn, a decision) is judged by its own as before."""
    if len(cosines) < 3:
        return {}
    values = sorted(cosines.values())
    middle = len(values) // 2
    median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    span = values[-1] - median
    if span <= 0:
        return {}
    return {
        cid: max(cosine - median, 0.0) / span
        for cid, cosine in cosines.items()
        if any(fact.unit for fact in facts.get(cid, ()))
    }
