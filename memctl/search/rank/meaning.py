"""Meaning per fact: a candidate's vector score lifted to its best unit's.

A chunk of several facts (a day's `- HH:MM` bullets, an archive note's list, a decision's
sentence lines) has one vector, their average, and loses to any chunk naming the asked-for
person. Each fact's own vector (memctl.index.units, cached beside the chunks') is compared
with the query too, and the chunk scores the better of the two (the fact's a little
discounted, SHORT_TEXT_BIAS): it is found by the fact and shown whole. The vector list is read again wider first in a small index (the whole
vault's nearest chunks by their own vectors can miss the one whose fact answers), so a
fact can bring in a chunk the list had left out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from memctl.index.units import Unit, units_of

POOL = 100  # chunks whose units are compared, in an index small enough to widen cheaply
POOL_MAX_CHUNKS = 20_000  # beyond this the wider read is a second scan: the list as it is
# A one-line fact meets a question in its own language a little nearer than a longer text
# of the same meaning does (e5's short texts): a Hebrew bullet of a mixed daily note
# outranked the English decision a Hebrew question was about by 0.018 (the fixture's
# x-he-en-1). A fact's cosine counts this much less than the chunk's.
SHORT_TEXT_BIAS = 0.015


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
    facts: dict[int, list[tuple[float, str]]] | None = None,
) -> dict[int, float]:
    """`scores` (chunk id -> cosine) with each chunk's cosine raised to its best unit's
    (less SHORT_TEXT_BIAS), best first; a chunk whose units are not embedded yet keeps its
    own. `facts`, when given, receives each chunk's units as (cosine, the unit's lines):
    the relevance floor judges a note of facts in several languages by the one matched."""
    hashes = {cid: [u.hash for u in _units(texts[cid])] for cid in scores if cid in texts}
    found = vectors_of([h for part in hashes.values() for h in part])
    qvec = np.asarray(query, dtype=np.float32)
    lifted: dict[int, float] = {}
    for cid, cosine in scores.items():
        values = [float(found[h] @ qvec) if h in found else None for h in hashes.get(cid, ())]
        best = max((v for v in values if v is not None), default=None)
        if facts is not None and best is not None:
            lines = texts[cid].splitlines()
            facts[cid] = [
                (v, "\n".join(lines[u.start : u.end + 1]))
                for u, v in zip(_units(texts[cid]), values, strict=True)
                if v is not None
            ]
        lifted[cid] = cosine if best is None else max(cosine, best - SHORT_TEXT_BIAS)
    return dict(sorted(lifted.items(), key=lambda item: -item[1]))
