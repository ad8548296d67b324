"""Calibrating the relevance floor (pure: the eval script feeds it what each search saw,
it returns thresholds; memctl.search.floor.rule applies them).

What a calibration sees (Observed, Question), what a floor does to it (outcome), and
`calibrate`: a grid over the hand-made rule's thresholds (coverage, cosine bars, missing
gate, coverage weight), for MiniLM and the lexical fallback. The classifier of the
default model is fitted by tools.floor_learn. Both choose on the calibration
parts of the dev sets only.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memctl.search.floor.rule import FloorThresholds, QuerySignals, evidence, keep


@dataclass(frozen=True)
class Observed:
    """One result of an unfloored top k, as the calibration sees it."""

    coverage: float
    cosine: float | None
    gold: bool = False  # own question: this result shows a gold item
    cross: bool = False  # in another script than the question
    bm25_rank: float = 0.0  # floor.bm25_rank of its rank in the words list
    shows: tuple[int, ...] = ()  # own question: which of its gold items this result shows
    sentence: float | None = None  # floor.sentence_coverage of its snippet (None: coverage)


@dataclass(frozen=True)
class Question:
    own: bool
    results: tuple[Observed, ...]
    missing: float = 0.0  # missing_share of its words in the vault it was asked of
    signals: QuerySignals | None = None  # what a classifier reads (missing included)
    gold_items: int = 0  # own question: how many gold items it has (for recall)


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


def kept(q: Question, thresholds: FloorThresholds | None) -> list[Observed]:
    """The results of `q` the floor keeps, as the search does (floor.keep: the best at
    the floor, the others at their later bar too); None: no floor."""
    if thresholds is None:
        return list(q.results)
    values = [
        evidence(
            r.coverage, r.cosine, thresholds, q.missing, r.cross, q.signals, r.bm25_rank, r.sentence
        )
        for r in q.results
    ]
    script = q.signals.script if q.signals is not None else None
    later = [thresholds.later_floor(script, r.cross) for r in q.results]
    return [q.results[i] for i in keep(values, later, thresholds.floor)]


def outcome(
    questions: Sequence[Question], thresholds: FloorThresholds, max_kept: int = 1
) -> FloorOutcome:
    """What a floor would do: foreign questions answered with at most `max_kept` results,
    own questions that lose a gold result (the floor only removes from a fixed top k
    here, so a result it would pull up from below is not credited)."""
    rejected = lost = n_foreign = n_own = 0
    for q in questions:
        left = kept(q, thresholds)
        if q.own:
            n_own += 1
            if any(r.gold for r in q.results) and sum(r.gold for r in left) < sum(
                r.gold for r in q.results
            ):
                lost += 1
        else:
            n_foreign += 1
            rejected += len(left) <= max_kept
    return FloorOutcome(
        foreign_rejected=rejected / n_foreign if n_foreign else 1.0,
        own_lost=lost / n_own if n_own else 0.0,
        foreign=n_foreign,
        own=n_own,
    )


def recall(questions: Sequence[Question], thresholds: FloorThresholds | None) -> float:
    """Mean recall of the own questions' gold items in what the floor keeps of their
    top k (None: no floor), as LoCoMo counts it (locomo_check.py: the share of a
    question's evidence turns some kept snippet shows)."""
    total, n = 0.0, 0
    for q in questions:
        if not q.own or not q.gold_items:
            continue
        found: set[int] = set()
        for r in kept(q, thresholds):
            found.update(r.shows)
        total += len(found) / q.gold_items
        n += 1
    return total / n if n else 0.0


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
