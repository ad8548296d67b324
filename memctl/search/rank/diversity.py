"""Diversity (pure, no I/O): maximal marginal relevance over the ranked candidates, and the
word-set overlap that measures how much two chunks repeat each other."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from memctl.search.rank.scoring import Policy
from memctl.tokens import words


def mmr(
    ranked: Sequence[int],
    scores: Mapping[int, float],
    similarity: Callable[[int, int], float],
    k: int,
    policy: Policy,
) -> list[int]:
    """Maximal marginal relevance: pick k items trading score against redundancy.

    Items at least `duplicate_similarity` alike to one already picked are skipped
    outright, so near-duplicates never crowd the top k. Redundancy costs an item a share
    of its own score (1 - mmr_lambda per unit of similarity), never a fixed amount: a
    fixed one, beside scores that fall steeply (a reranker's probabilities), let noise
    scoring 0.004 win over a daily note at a tenth of the best score that shared a third
    of its words with a result already chosen. So an item is passed over only for one
    with at least 1 - (1 - mmr_lambda) x duplicate_similarity of its score (0.775).
    """
    if not ranked:
        return []
    picked: list[int] = []
    pool = list(ranked)
    # Each item's highest similarity to the picked ones, updated with each new pick only.
    redundancy = dict.fromkeys(pool, 0.0)
    rest, duplicate = 1 - policy.mmr_lambda, policy.duplicate_similarity
    while pool and len(picked) < k:
        best_item, best_value = None, -math.inf
        for item in pool:
            seen = redundancy[item]
            if seen >= duplicate:
                continue
            value = scores[item] * (1 - rest * seen)
            if value > best_value:
                best_item, best_value = item, value
        if best_item is None:
            break
        picked.append(best_item)
        pool.remove(best_item)
        if len(picked) < k:
            for item in pool:
                alike = similarity(item, best_item)
                if alike > redundancy[item]:  # max(), without the call
                    redundancy[item] = alike
    return picked


def word_set(text: str) -> frozenset[str]:
    return frozenset(words(text.lower()))


def jaccard(sa: frozenset[str], sb: frozenset[str]) -> float:
    if not sa or not sb:
        return 0.0
    shared = len(sa & sb)
    return shared / (len(sa) + len(sb) - shared)


def text_similarity(a: str, b: str) -> float:
    """Jaccard overlap of word sets: the redundancy measure between two chunks."""
    return jaccard(word_set(a), word_set(b))
