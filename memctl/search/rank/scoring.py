"""Ranking policy (pure, no I/O): normalisation, fusion, the composite score (diversity:
rank/diversity.py).

relevance = fusion of the three candidate lists (weighted sum of normalised scores, or RRF)
final     = relevance × recency × importance × usage × tags × recent-return penalty

Each factor is a multiplier near 1 so relevance still decides between unrelated chunks;
the factors break ties between similar ones (a fresh note over a stale one with a
similar name, a memory that proved useful over one never used).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Protocol

from memctl.index.embed.registry import english_only

LISTS = ("fts", "trigram", "vector")

# Kinds of memory whose value does not fade with age.
DURABLE_SOURCES = frozenset({"core", "decision"})
_SUPERSEDED = re.compile(r"\b(superseded|obsolete|reverted|replaced by)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Weights:
    fts: float = 0.4
    trigram: float = 0.2
    vector: float = 0.4
    window: float = 0.0  # the window words list (memctl.index.sqlite.window_list); 0 leaves it out

    def of(self, name: str) -> float:
        return float(getattr(self, name))


@dataclass(frozen=True)
class Policy:
    """The knobs of the composite score; defaults come from [search] in .memctl.toml."""

    fusion: str = "weighted"  # or "rrf"
    weights: Weights = field(default_factory=Weights)
    rrf_k: int = 60
    normalise_floor: float = 0.2
    # A running log's snippet shows the lines after the matched chunk (see snippets._widen),
    # so the window, not the lone chunk, is what a result answers with. Tuned on LoCoMo dev.
    context_lines: int = 12  # lines after a chunk that its snippet usually shows
    context_weight: float = 0.3  # × the best candidate among those lines, added to relevance
    half_life_days: float = 14.0
    recency_floor: float = 0.75  # a very old dated note keeps this share of its relevance
    importance_span: float = 0.2  # importance 0 → ×0.9, 1 → ×1.1
    access_step: float = 0.03  # per log(1 + access_count)
    access_cap: float = 1.15
    tag_boost: float = 0.10  # per query word that matches one of the chunk's tags
    recent_penalty: float = 0.8  # multiplier for a chunk returned in the last few minutes
    # The word lists' weights × (share of the query's words the index holds) ** this:
    # 2 against 1 and 0 on the vault-shaped set's tune split (scoring.weights_for).
    reach_power: float = 2.0
    # A word list's mark × (the IDF share of the query's words its candidate holds /
    # this) when no candidate holds this much (covered). 0.5-1 tie on the tune splits.
    cover_full: float = 0.5
    mmr_lambda: float = 0.75
    duplicate_similarity: float = 0.9


# English-only models (registry.english_only): their vectors for Hebrew or Russian text
# are close to noise (vector-only recall@5 0.22 on HeQ and XQuAD-ru against 0.98 on XQuAD-en).
NON_LATIN_VECTOR_SCALE = 0.25  # tuned on HeQ / XQuAD-ru: 0.25 and 0 tie, both beat 1
_LATIN = re.compile(r"[A-Za-z]")
_NON_LATIN = re.compile(r"[\u0590-\u05FF\u0400-\u04FF]")


def weights_for(
    weights: Weights, query: str, model_id: str, reach: float = 1.0, reach_power: float = 2.0
) -> Weights:
    """Trust the word lists as far as the index holds the query's words (`reach`,
    LexicalPlan.reach, to `reach_power`), and the vector list less when an English-only
    model meets a mostly non-Latin query.

    Min-max normalisation gives a list's best candidate full marks however little of the
    query it matched: a paraphrase that shares only "may" and "weekend" with the vault put
    notes holding those two words above the one its meaning found first. Scaling the word
    lists by the share of the query's words the vault holds at all leaves identifier and
    keyword questions as they were (every word known) and lets the vectors decide for a
    question worded apart from its note. The vector list's weight is never raised, so the
    floor's trust in it (`trusted`) reads as before."""
    if reach < 1.0:
        scale = reach**reach_power
        weights = replace(
            weights,
            fts=weights.fts * scale,
            trigram=weights.trigram * scale,
            window=weights.window * scale,
        )
    if not english_only(model_id):
        return weights
    if len(_NON_LATIN.findall(query)) <= len(_LATIN.findall(query)):
        return weights
    return replace(weights, vector=weights.vector * NON_LATIN_VECTOR_SCALE)


def normalise(scores: Mapping[int, float], floor: float = 0.2) -> dict[int, float]:
    """Min-max scale into [floor, 1]; higher is better on input.

    Min-max spreads a list whose scores bunch together (cosine similarities often sit
    within 0.3-0.6), and the floor keeps the weakest candidate above zero: it still
    earned its place in the list. Tuned on LoCoMo dev (see docs/search.md).
    """
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi <= lo:
        return {key: 1.0 for key in scores}
    return {key: floor + (1.0 - floor) * (value - lo) / (hi - lo) for key, value in scores.items()}


def fuse_weighted(
    lists: Mapping[str, Mapping[int, float]], weights: Weights, floor: float = 0.2
) -> dict[int, dict[str, float]]:
    """Per chunk, each list's contribution (weight × normalised score); absent lists add 0."""
    out: dict[int, dict[str, float]] = {}
    for name, scores in lists.items():
        w = weights.of(name)
        for key, value in normalise(scores, floor).items():
            out.setdefault(key, {})[name] = w * value
    return out


# The word lists a candidate earns by holding the query's words itself. The window list's
# mark is earned by the lines after its chunk, which the chunk need not hold.
COVERED_LISTS = ("fts", "trigram")


def covered(
    fused: Mapping[int, Mapping[str, float]], cover: Mapping[int, float], full: float
) -> dict[int, dict[str, float]]:
    """Each candidate's word-list marks × its `cover` (the IDF share of the query's words
    it holds) / `full`, when no candidate holds `full` or more of the question.

    Min-max gives a list's best candidate full marks however little of the question it
    holds: one common word ("new", "grape") of a ten-word paraphrase lifted a day of
    unrelated bullets over the day the vectors found by its answering bullet (issue 31).
    `reach` (weights_for) scales the lists by the share of the query the whole vault
    holds; this scales each candidate by the share it holds itself, and only for a
    question no note echoes (a note holding half its weight: the words found it, as in
    identifier, keyword and most LoCoMo questions, and nothing changes). A candidate
    with no cover, or none of the query's weighed words found in it (a one-letter word,
    a trigram fragment of an uncorrected typo), is left as it is: nothing to judge by."""
    if echoed(cover, full):
        return {key: dict(parts) for key, parts in fused.items()}
    out: dict[int, dict[str, float]] = {}
    for key, parts in fused.items():
        share = cover.get(key)
        if not share or share >= full:
            out[key] = dict(parts)
            continue
        scale = share / full
        out[key] = {
            name: value * scale if name in COVERED_LISTS else value for name, value in parts.items()
        }
    return out


def echoed(cover: Mapping[int, float], full: float) -> bool:
    """Whether some candidate holds `full` of the question's IDF weight (its words found
    it), or the rule is off: `covered` and the reranker's standing (rerank/model) then
    leave the ranking to the words as they are."""
    return full <= 0 or max(cover.values(), default=0.0) >= full


def fuse_rrf(
    lists: Mapping[str, Mapping[int, float]], weights: Weights, k: int = 60
) -> dict[int, dict[str, float]]:
    """Reciprocal-rank fusion, weighted per list, scaled so rank 1 in every list scores 1."""
    total = sum(weights.of(name) for name in lists) or 1.0
    out: dict[int, dict[str, float]] = {}
    for name, scores in lists.items():
        ranked = sorted(scores, key=lambda key: -scores[key])
        w = weights.of(name)
        for rank, key in enumerate(ranked, start=1):
            out.setdefault(key, {})[name] = w * (k + 1) / (k + rank) / total
    return out


def fuse(
    lists: Mapping[str, Mapping[int, float]], policy: Policy, weights: Weights | None = None
) -> dict[int, dict[str, float]]:
    weights = weights or policy.weights
    if policy.fusion == "rrf":
        return fuse_rrf(lists, weights, policy.rrf_k)
    return fuse_weighted(lists, weights, policy.normalise_floor)


@dataclass(frozen=True)
class Placed:
    """Where a candidate sits in its file, for the neighbourhood boost."""

    path: str
    line_start: int
    line_end: int


class Located(Protocol):
    """Where a chunk sits in its file: a Placed, or the chunk's record itself."""

    @property
    def path(self) -> str: ...
    @property
    def line_start(self) -> int: ...
    @property
    def line_end(self) -> int: ...


def context_boost(
    relevance: Mapping[int, float], placed: Mapping[int, Located], policy: Policy
) -> dict[int, float]:
    """Each chunk's relevance plus a share of the best candidate its snippet would also show.

    A snippet of a running log shows the lines after the matched chunk, so a chunk
    followed by a strong match (the reply that names the topic, the next part of an
    answer) shows more of what was asked than an isolated match of the same strength.
    The best neighbour, not the sum: a sum favours long stretches of weak matches
    (measured on LoCoMo dev: sum ×0.15 0.675, max ×0.3 0.675 with a better MRR).
    """
    if policy.context_weight <= 0:
        return dict(relevance)
    by_path: dict[str, list[int]] = {}
    for key in relevance:
        if key in placed:
            by_path.setdefault(placed[key].path, []).append(key)
    out = dict(relevance)
    for keys in by_path.values():
        keys.sort(key=lambda k: placed[k].line_start)
        for i, key in enumerate(keys):
            last = placed[key].line_end + policy.context_lines
            best = 0.0
            for other in keys[i + 1 :]:
                if placed[other].line_start > last:
                    break
                if placed[other].line_end <= last:
                    best = max(best, relevance[other])
            out[key] = relevance[key] + policy.context_weight * best
    return out


def decays(source: str | None, text: str) -> bool:
    """Dated operational notes fade; core, decisions in force and undated facts do not."""
    if source in DURABLE_SOURCES:
        return bool(_SUPERSEDED.search(text)) if source == "decision" else False
    return True


def recency(
    source: str | None, day: date | None, now: datetime, policy: Policy, text: str = ""
) -> float:
    if day is None or not decays(source, text):
        return 1.0
    age = max((now.date() - day).days, 0)
    fade: float = 0.5 ** (age / policy.half_life_days)
    return policy.recency_floor + (1.0 - policy.recency_floor) * fade


def importance_factor(importance: float | None, policy: Policy) -> float:
    value = 0.5 if importance is None else min(max(importance, 0.0), 1.0)
    return 1.0 + policy.importance_span * (value - 0.5)


def access_factor(access_count: int, policy: Policy) -> float:
    return min(1.0 + policy.access_step * math.log1p(max(access_count, 0)), policy.access_cap)


def tag_factor(
    query_words: Sequence[str], tags: Sequence[str], policy: Policy
) -> tuple[float, int]:
    """+10% per distinct query word that equals one of the chunk's tags (case and # ignored)."""
    if not tags:  # most chunks have none: no set to build
        return 1.0, 0
    wanted = {t.lower().lstrip("#") for t in tags}
    hits = len({w for w in query_words if w in wanted})
    return 1.0 + policy.tag_boost * hits, hits


def recent_factor(returned_recently: bool, policy: Policy) -> float:
    return policy.recent_penalty if returned_recently else 1.0


@dataclass(frozen=True)
class Signals:
    """What the composite score knows about one candidate besides its relevance."""

    source: str | None
    day: date | None
    text: str
    importance: float | None
    access_count: int
    tags: tuple[str, ...]
    returned_recently: bool


def record_factors(signals: Signals, now: datetime, policy: Policy) -> tuple[float, float, float]:
    """The factors owing nothing to the query: recency (by `now`'s day), importance, access."""
    return (
        recency(signals.source, signals.day, now, policy, signals.text),
        importance_factor(signals.importance, policy),
        access_factor(signals.access_count, policy),
    )


# composite()'s factors by name, in the order they multiply the relevance.
FACTORS = ("recency", "importance", "access", "tags", "recent_penalty")


def _factors(
    signals: Signals,
    query_words: Sequence[str],
    policy: Policy,
    fixed: tuple[float, float, float],
    returned_recently: bool,
) -> tuple[float, float, float, float, float]:
    recency_, importance, access = fixed
    tags = tag_factor(query_words, signals.tags, policy)[0]
    return recency_, importance, access, tags, recent_factor(returned_recently, policy)


def _times(relevance: float, factors: Sequence[float]) -> float:
    score = relevance
    for value in factors:
        score *= value
    return score


def composite(
    relevance: float,
    signals: Signals,
    query_words: Sequence[str],
    now: datetime,
    policy: Policy,
    fixed: tuple[float, float, float] | None = None,
) -> tuple[float, dict[str, float]]:
    """The final score and each factor (for --explain); `fixed`: record_factors of these
    signals on `now`'s day, when the caller kept them."""
    factors = _factors(
        signals,
        query_words,
        policy,
        fixed or record_factors(signals, now, policy),
        signals.returned_recently,
    )
    return _times(relevance, factors), dict(zip(FACTORS, factors, strict=True))


def composite_product(
    relevance: float,
    signals: Signals,
    query_words: Sequence[str],
    policy: Policy,
    fixed: tuple[float, float, float],
    returned_recently: bool,
) -> tuple[float, float]:
    """composite()'s score (with `returned_recently` for the signals') and the product of
    its factors, the same factors multiplied in the same order, without the factors by
    name that only --explain shows (~95 candidates a search). A factor of 1 (no tags, not
    returned recently: most candidates) is left out: multiplying by 1.0 changes no float."""
    recency_, importance, access = fixed
    score = relevance * recency_ * importance * access
    product = recency_ * importance * access
    if signals.tags:
        tags = tag_factor(query_words, signals.tags, policy)[0]
        score *= tags
        product *= tags
    if returned_recently:
        penalty = recent_factor(True, policy)
        score *= penalty
        product *= penalty
    return score, product


def best_first(scores: Mapping[int, float]) -> list[int]:
    """The ids by falling score, ties by rising id: sorted(key=(-score, id))'s order in two
    sorts on C keys (~2.5x faster at ~95 candidates; a sort with reverse=True is stable)."""
    ids = sorted(scores)
    ids.sort(key=scores.__getitem__, reverse=True)
    return ids
