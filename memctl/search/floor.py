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
  cosines for Hebrew or Russian are noise: see scoring.weights_for). A multilingual
  model scores a question against text in another script (a Russian question, an
  English note) systematically lower than within one language (multilingual-e5-small:
  the gold paragraph's cosine 0.74-0.85 across, 0.80-0.92 within), so such a result is
  held to its own threshold, `min_cosine_cross`.
- missing: the IDF-weighted share of the query's words found nowhere in the vault (not
  even as a stem or a typo correction). Past `max_missing` the query is about something
  the vault never mentions (another person's name, another topic): its words are no
  evidence and only the cosine can carry a result (a paraphrase still passes).

evidence = max(words, (cosine + coverage_weight × words) × min_coverage / min_cosine
[or min_cosine_cross]), capped at 1, where words = coverage (0 past max_missing): one
number that clears `min_coverage` exactly when coverage clears it, or when the cosine
clears its own threshold, lowered by coverage_weight per unit of coverage.
The thresholds are calibrated per embedding model on the dev sets
(`scripts/eval_shared --floor --calibrate`; floor_calibration.json) with part of each
set held out; an unknown model gets the lexical-only fallback (cosine ignored).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LEXICAL_ONLY = "lexical"  # the table's key for "no trusted vectors"


@dataclass(frozen=True)
class FloorThresholds:
    min_coverage: float
    min_cosine: float | None = None  # None: cosine never counts (lexical-only fallback)
    # A query whose words are this much (IDF mass) absent from the whole vault asks about
    # something the vault never mentions: nothing passes. None: no such gate.
    max_missing: float | None = None
    # The cosine a result in another script than the query's must reach (None: min_cosine).
    min_cosine_cross: float | None = None
    # How far each unit of coverage lowers the cosine a result needs: a result that shows
    # some of the question's words passes on a somewhat weaker cosine than one that
    # shows none (HeQ's foreign questions reach e5 cosines of 0.82-0.85 on Wikipedia
    # paragraphs of the same field that share no name with them).
    coverage_weight: float = 0.0

    def cosine_bar(self, cross: bool) -> float | None:
        if cross and self.min_cosine is not None and self.min_cosine_cross is not None:
            return self.min_cosine_cross
        return self.min_cosine

    def to_dict(self) -> dict[str, float | None]:
        return {
            "min_coverage": self.min_coverage,
            "min_cosine": self.min_cosine,
            "max_missing": self.max_missing,
            "min_cosine_cross": self.min_cosine_cross,
            "coverage_weight": self.coverage_weight,
        }


_SCRIPTS = {
    "latin": re.compile(r"[A-Za-z\u00C0-\u024F]"),
    "hebrew": re.compile(r"[\u0590-\u05FF]"),
    "cyrillic": re.compile(r"[\u0400-\u04FF]"),
}


def script_of(text: str) -> str | None:
    """The script most of the text's letters are written in (None: no letters of these)."""
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS.items()}
    name, count = max(counts.items(), key=lambda item: item[1])
    return name if count else None


def cross_script(query_script: str | None, text: str) -> bool:
    """A result written in another script than the query (a cross-lingual answer)."""
    other = script_of(text)
    return query_script is not None and other is not None and other != query_script


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
    cover: float,
    cosine: float | None,
    thresholds: FloorThresholds,
    missing: float = 0.0,
    cross: bool = False,
) -> float:
    """One number in [0, 1]: coverage (none when the query's words are mostly missing
    from the vault), or the cosine on coverage's scale (see the module docstring);
    `cross`: the result is in another script than the query."""
    words = 0.0 if gated(missing, thresholds) else cover
    value = words
    bar = thresholds.cosine_bar(cross)
    if cosine is not None and bar:
        lifted = cosine + thresholds.coverage_weight * words
        value = max(value, lifted * thresholds.min_coverage / bar)
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
    cross: bool = False  # in another script than the question


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
            if evidence(r.coverage, r.cosine, thresholds, q.missing, r.cross) >= floor - 1e-9
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
# From MiniLM's spread-out cosines (0.3-0.6) to e5's compressed ones (0.7-0.9).
COSINE_GRID = tuple(round(0.01 * i, 2) for i in range(30, 95))
MISSING_GRID: tuple[float | None, ...] = (None, *(round(0.05 * i, 2) for i in range(4, 20)))
WEIGHT_GRID = (0.0, 0.04, 0.08, 0.12, 0.16, 0.2)


class _Arrays:
    """The questions of every group as arrays (questions x results), for the grid search."""

    def __init__(self, groups: Mapping[str, Sequence[Question]]) -> None:
        import numpy as np

        self.names = list(groups)
        questions = [(g, q) for g, name in enumerate(self.names) for q in groups[name]]
        width = max((len(q.results) for _, q in questions), default=0) or 1
        shape = (len(questions), width)
        self.cover = np.full(shape, -1.0)
        self.cosine = np.full(shape, -np.inf)
        self.cross = np.zeros(shape, bool)
        self.gold = np.zeros(shape, bool)
        self.exists = np.zeros(shape, bool)
        for i, (_, q) in enumerate(questions):
            for j, r in enumerate(q.results):
                self.cover[i, j] = r.coverage
                self.cosine[i, j] = -np.inf if r.cosine is None else r.cosine
                self.cross[i, j], self.gold[i, j], self.exists[i, j] = r.cross, r.gold, True
        self.group = np.array([g for g, _ in questions], dtype=int)
        self.own = np.array([q.own for _, q in questions], dtype=bool)
        self.missing = np.array([q.missing for _, q in questions])
        self.has_gold = self.gold.any(axis=1) & self.own
        n = len(self.names)
        self.n_own = np.bincount(self.group[self.own], minlength=n)
        self.n_foreign = np.bincount(self.group[~self.own], minlength=n)

    def rates(self, keep: Any) -> tuple[Any, Any]:
        """Per group: foreign questions left with at most one result, own questions that
        lost a gold result (what `outcome` counts)."""
        import numpy as np

        n = len(self.names)
        rejected = (keep.sum(axis=1) <= 1) & ~self.own
        lost = self.has_gold & (self.gold & ~keep).any(axis=1)
        foreign = np.bincount(self.group, weights=rejected, minlength=n)
        own = np.bincount(self.group, weights=lost, minlength=n)
        return (
            np.where(self.n_foreign > 0, foreign / np.maximum(self.n_foreign, 1), 1.0),
            own / np.maximum(self.n_own, 1),
        )


def _cross_bar(data: _Arrays, max_own_lost: float, min_gold: int) -> float | None:
    """The highest cosine bar for results in another script than the question that keeps
    every group's losses among them within the target (they share no word with it, so
    only the cosine can carry them); None (the same bar as within a script) when fewer
    than `min_gold` such results have a gold item: too few to choose a bar from."""
    import numpy as np

    if int((data.gold & data.cross).sum()) < min_gold:
        return None
    for bar in sorted(COSINE_GRID, reverse=True):
        keep = ~(data.cross & (data.cosine < bar - 1e-9))
        _, lost = data.rates(keep)
        if (lost <= max_own_lost + 1e-12).all():
            return bar
    return float(np.min(data.cosine[data.gold & data.cross]))


def calibrate(
    groups: Mapping[str, Sequence[Question]],
    max_own_lost: float = 0.03,
    use_cosine: bool = True,
    guarded: Collection[str] = (),
    min_cross_gold: int = 50,
) -> tuple[FloorThresholds, dict[str, FloorOutcome]]:
    """The thresholds that leave the most foreign questions with at most one result in
    the worst group (data set), then on average, while no group loses a gold result for
    more than `max_own_lost` of its own questions; ties go to the lower floor.

    `guarded` groups only hold the loss target (their foreign questions are not aimed
    at: cross-lingual ones, where only the cosine can tell). The bar for results in
    another script than their question is chosen first (see `_cross_bar`), then the
    rest on a grid."""
    import numpy as np

    data = _Arrays(groups)
    aimed = np.array([name not in guarded for name in data.names])
    if not aimed.any():
        aimed[:] = True
    cross_bar = _cross_bar(data, max_own_lost, min_cross_gold) if use_cosine else None
    best: tuple[tuple[float, float, float], FloorThresholds] | None = None
    cosines: Sequence[float | None] = COSINE_GRID if use_cosine else (None,)
    for gate in MISSING_GRID:
        open_ = np.ones(len(data.missing), bool) if gate is None else data.missing < gate - 1e-9
        words = np.where(open_[:, None], data.cover, 0.0)
        for cov in COVERAGE_GRID:
            by_words = data.exists & (words >= cov - 1e-9)
            for cos in cosines:
                weights = WEIGHT_GRID if cos is not None else (0.0,)
                # A chunk in another script than the query meets the cross bar, when there
                # is one; cos is None only when cosines are off, and words alone decide.
                bar = None
                if cos is not None:
                    bar = np.where(data.cross, cos if cross_bar is None else cross_bar, cos)
                for weight in weights:
                    keep = by_words
                    if bar is not None:
                        lifted = data.cosine + weight * words
                        keep = keep | (data.exists & (lifted >= bar - 1e-9))
                    rejected, lost = data.rates(keep)
                    if (lost > max_own_lost + 1e-12).any():
                        continue
                    key = (float(rejected[aimed].min()), float(rejected[aimed].mean()), -cov)
                    if best is None or key > best[0]:
                        thresholds = FloorThresholds(
                            cov, cos, gate, cross_bar if cos else None, weight
                        )
                        best = (key, thresholds)
    if best is None:  # nothing meets the loss target: the loosest floor there is
        loosest = COSINE_GRID[0] if use_cosine else None
        chosen = FloorThresholds(COVERAGE_GRID[0], loosest, None, loosest and cross_bar)
    else:
        chosen = best[1]
    return chosen, {name: outcome(qs, chosen) for name, qs in groups.items()}
