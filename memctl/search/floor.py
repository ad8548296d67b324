"""The relevance floor (pure, no I/O): is a result evidence of anything the query asks?

Fused scores are min-max scaled per candidate list, so the best candidate of any query
scores high even when nothing matches ("root:x:0" against two unrelated notes scored
0.39). The floor therefore rests on raw evidence that means the same across queries:

- coverage: the IDF-weighted share of the query's words that the result's snippet shows
  (exact forms, Hebrew prefixes, stems, typo corrections: what the keyword lists match).
  A rare word counts for more than a common one, so a foreign question that shares only
  "support" and "group" with a vault, and not the name it asks about, covers little.
- cosine: the raw cosine between the query and the best chunk inside the snippet,
  trusted only where the model understands the query's script (an English-only model's
  cosines for Hebrew or Russian are noise: see scoring.weights_for).
- missing: the IDF-weighted share of the query's words found nowhere in the vault (not
  even as a stem or a typo correction). Past `max_missing` the query is about something
  the vault never mentions (another person's name, another topic): its words are no
  evidence and only the cosine can carry a result (a paraphrase still passes).

evidence = max(coverage [0 past max_missing], cosine × min_coverage / min_cosine),
capped at 1: one number that clears `min_coverage` exactly when coverage or the cosine
clears its own threshold.
The thresholds are calibrated per embedding model on the dev sets
(`scripts/eval_shared --floor --calibrate`; floor_calibration.json) with part of each
set held out; an unknown model gets the lexical-only fallback (cosine ignored).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

LEXICAL_ONLY = "lexical"  # the table's key for "no trusted vectors"


@dataclass(frozen=True)
class FloorThresholds:
    min_coverage: float
    min_cosine: float | None = None  # None: cosine never counts (lexical-only fallback)
    # A query whose words are this much (IDF mass) absent from the whole vault asks about
    # something the vault never mentions: nothing passes. None: no such gate.
    max_missing: float | None = None

    def to_dict(self) -> dict[str, float | None]:
        return {
            "min_coverage": self.min_coverage,
            "min_cosine": self.min_cosine,
            "max_missing": self.max_missing,
        }


def missing_share(terms: Sequence[WeightedTerm], present: Sequence[bool]) -> float:
    """The IDF-weighted share of the query's words found nowhere in the vault."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 0.0
    return sum(t.weight for t, here in zip(terms, present, strict=True) if not here) / total


def gated(missing: float, thresholds: FloorThresholds) -> bool:
    """True when the query asks about what the vault never mentions."""
    return thresholds.max_missing is not None and missing >= thresholds.max_missing - 1e-9


def thresholds_for(
    model_id: str, table: Mapping[str, FloorThresholds], vectors_trusted: bool = True
) -> FloorThresholds:
    """The model's calibrated thresholds (the lexical entry for an unknown model); for a
    query whose vectors are not trusted (English-only model, non-Latin query) the same
    coverage threshold with the cosine left out, which is what calibration measured."""
    chosen = table.get(model_id, table[LEXICAL_ONLY])
    if not vectors_trusted:
        return FloorThresholds(chosen.min_coverage, None, chosen.max_missing)
    return chosen


def idf(df: int, rows: int) -> float:
    """BM25's IDF (always positive): a word absent from the vault weighs the most."""
    return math.log(1.0 + (rows - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class WeightedTerm:
    """One query word: its weight and the test of whether a snippet word is that word."""

    weight: float
    matches: Callable[[str], bool]


def coverage(terms: Sequence[WeightedTerm], words: Iterable[str]) -> float:
    """IDF-weighted share of query words found among `words` (1.0 when the query has no
    weighted word: there is nothing lexical to judge it by)."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 1.0
    found = [False] * len(terms)
    left = len(terms)
    for word in words:
        for i, term in enumerate(terms):
            if not found[i] and term.matches(word):
                found[i] = True
                left -= 1
        if not left:
            break
    return sum(t.weight for t, hit in zip(terms, found, strict=True) if hit) / total


def evidence(
    cover: float, cosine: float | None, thresholds: FloorThresholds, missing: float = 0.0
) -> float:
    """One number in [0, 1]: coverage (none when the query's words are mostly missing
    from the vault), or the cosine on coverage's scale (see the module docstring)."""
    value = 0.0 if gated(missing, thresholds) else cover
    if cosine is not None and thresholds.min_cosine:
        value = max(value, cosine * thresholds.min_coverage / thresholds.min_cosine)
    return min(max(value, 0.0), 1.0)


def passes(value: float, floor: float | None) -> bool:
    """`floor` None: everything passes (--all)."""
    return floor is None or value >= floor - 1e-9


def within_budget(ranked: Sequence[int], tokens: Mapping[int, int], budget: int) -> list[int]:
    """The best results, in order, while their snippets fit `budget` tokens together."""
    kept, used = [], 0
    for key in ranked:
        if used + tokens[key] > budget:
            break
        kept.append(key)
        used += tokens[key]
    return kept


# -- calibration (pure: the eval script feeds it features, it returns thresholds) --------


@dataclass(frozen=True)
class Observed:
    """One result of an unfloored top k, as the calibration sees it."""

    coverage: float
    cosine: float | None
    gold: bool = False  # own question: this result shows a gold item


@dataclass(frozen=True)
class Question:
    own: bool
    results: tuple[Observed, ...]
    missing: float = 0.0  # missing_share of its words in the vault it was asked of


@dataclass(frozen=True)
class FloorOutcome:
    foreign_rejected: float  # share of foreign questions left with at most one result
    own_lost: float  # share of own questions that lose a gold result from their top k
    foreign: int
    own: int

    def to_dict(self) -> dict[str, float | int]:
        return {
            "foreign_rejected": round(self.foreign_rejected, 4),
            "own_lost": round(self.own_lost, 4),
            "foreign": self.foreign,
            "own": self.own,
        }


def outcome(
    questions: Sequence[Question], thresholds: FloorThresholds, max_kept: int = 1
) -> FloorOutcome:
    """What a floor would do: foreign questions answered with at most `max_kept` results,
    own questions that lose a gold result (the floor only removes from a fixed top k
    here, so a result it would pull up from below is not credited)."""
    floor = thresholds.min_coverage
    rejected = lost = n_foreign = n_own = 0
    for q in questions:
        kept = [
            r
            for r in q.results
            if evidence(r.coverage, r.cosine, thresholds, q.missing) >= floor - 1e-9
        ]
        if q.own:
            n_own += 1
            if any(r.gold for r in q.results) and sum(r.gold for r in kept) < sum(
                r.gold for r in q.results
            ):
                lost += 1
        else:
            n_foreign += 1
            rejected += len(kept) <= max_kept
    return FloorOutcome(
        foreign_rejected=rejected / n_foreign if n_foreign else 1.0,
        own_lost=lost / n_own if n_own else 0.0,
        foreign=n_foreign,
        own=n_own,
    )


COVERAGE_GRID = tuple(round(0.05 * i, 2) for i in range(1, 14))
COSINE_GRID = tuple(round(0.02 * i, 2) for i in range(15, 30))
MISSING_GRID: tuple[float | None, ...] = (None, *(round(0.05 * i, 2) for i in range(4, 20)))


def calibrate(
    groups: Mapping[str, Sequence[Question]],
    max_own_lost: float = 0.03,
    use_cosine: bool = True,
) -> tuple[FloorThresholds, dict[str, FloorOutcome]]:
    """The thresholds that leave the most foreign questions with at most one result in
    the worst group (data set), then on average, while no group loses a gold result for
    more than `max_own_lost` of its own questions; ties go to the lower floor."""
    best: tuple[tuple[float, float, float], FloorThresholds, dict[str, FloorOutcome]] | None
    best = None
    cosines: Sequence[float | None] = COSINE_GRID if use_cosine else (None,)
    for cov in COVERAGE_GRID:
        for cos in cosines:
            for gate in MISSING_GRID:
                thresholds = FloorThresholds(cov, cos, gate)
                results = {name: outcome(qs, thresholds) for name, qs in groups.items()}
                if any(r.own_lost > max_own_lost for r in results.values()):
                    continue
                rejected = [r.foreign_rejected for r in results.values()]
                key = (min(rejected), sum(rejected) / len(rejected), -cov)
                if best is None or key > best[0]:
                    best = (key, thresholds, results)
    if best is None:  # nothing meets the loss target: the loosest floor there is
        thresholds = FloorThresholds(COVERAGE_GRID[0], COSINE_GRID[0] if use_cosine else None)
        return thresholds, {name: outcome(qs, thresholds) for name, qs in groups.items()}
    return best[1], best[2]
