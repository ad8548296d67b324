"""Fitting the relevance floor's classifier (pure; NumPy): see fit_classifier.

A logistic model per query script over the evidence features (floor.FEATURES), fitted
on the calibration parts of the dev sets to tell own questions' gold results from
foreign questions' results, refined towards what the floor is judged by (the worst
set's rejection of foreign questions), then offsets: the loosest that keep every set's
own losses within the target.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from memctl.search.floor import ByScript, Classifier, FloorThresholds, QuerySignals
from memctl.search.floor_fit import FloorOutcome, Question, outcome


def _logistic(x: Any, y: Any, weight: Any, l2: float) -> tuple[Any, float]:
    """Weighted logistic regression by Newton steps (IRLS) with an L2 penalty on the
    weights (not the bias); `x` standardised. NumPy only: a few thousand rows."""
    import numpy as np

    n, k = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(k + 1)
    penalty = np.diag(np.r_[np.full(k, l2), 0.0])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(xb @ beta)))
        gradient = xb.T @ (weight * (y - p)) - penalty @ beta
        hessian = (xb * (weight * p * (1 - p) + 1e-12)[:, None]).T @ xb + penalty
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    return beta[:-1], float(beta[-1])


def _loosest(candidates: Any, feasible: Any) -> float:
    """The highest candidate bar that `feasible` accepts (losses only grow with the
    bar); the lowest candidate when none is."""
    import numpy as np

    values = np.unique(candidates)
    lo, hi = 0, len(values) - 1
    if hi < 0:
        return 0.0
    if not feasible(values[0]):
        return float(values[0])
    while lo < hi:  # values[lo] is feasible
        mid = (lo + hi + 1) // 2
        if feasible(values[mid]):
            lo = mid
        else:
            hi = mid - 1
    return float(values[lo])


class _Design:
    """Every result with a cosine as classifier inputs, and what calibration counts."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[Question]],
        guarded: Collection[str],
        max_missing: float | None = None,
    ):
        import numpy as np

        from memctl.search.floor import CROSS, features

        rows: list[tuple[int, int, tuple[float, ...], bool]] = []
        questions = [(name, q) for name in groups for q in groups[name]]
        for i, (_, q) in enumerate(questions):
            for j, r in enumerate(q.results):
                values = features(r.coverage, r.cosine, q.signals, r.bm25_rank, r.sentence)
                if values is not None:
                    rows.append((i, j, values, r.cross))
        if not rows:
            raise ValueError("no result has a cosine to fit a classifier on")
        self.x = np.array([values for _, _, values, _ in rows], dtype=float)
        width = max(len(q.results) for _, q in questions)
        self.gold = np.zeros((len(questions), width), bool)
        self.exists = np.zeros((len(questions), width), bool)
        for i, (_, q) in enumerate(questions):
            for j, r in enumerate(q.results):
                self.exists[i, j] = True
                self.gold[i, j] = q.own and r.gold
        self.qi = np.array([i for i, _, _, _ in rows])
        self.rank = np.array([j for _, j, _, _ in rows])
        cross = np.array([c for _, _, _, c in rows], bool)
        missing = np.array([questions[i][1].missing for i, _, _, _ in rows])
        # Results the missing-words gate drops whatever their score (floor.evidence).
        self.gated = ~cross & (
            missing >= max_missing - 1e-9 if max_missing is not None else np.zeros(len(rows), bool)
        )
        self.own = np.array([q.own for _, q in questions], bool)
        names = [name for name, _ in questions]
        group = np.array(names)[self.qi]
        self.label = np.where(self.own[self.qi], self.gold[self.qi, self.rank], False)
        self.fitted = (
            ~cross
            & ~self.gated
            & (
                self.gold[self.qi, self.rank]
                | (~self.own[self.qi] & ~np.isin(group, list(guarded)))
            )
        )
        # Each set's two classes weigh alike.
        self.weight = np.zeros(len(rows))
        for name in groups:
            for value in (True, False):
                mask = self.fitted & (group == name) & (self.label == value)
                if mask.any():
                    self.weight[mask] = self.fitted.sum() / mask.sum()
        self.scripts = np.array(
            [
                CROSS if c else (questions[i][1].signals or _NO_SIGNALS).script or ""
                for i, c in zip(self.qi, cross, strict=True)
            ]
        )
        self.order = [CROSS, *sorted({s for s in self.scripts if s and s != CROSS})]
        self.has_gold = self.gold.any(axis=1)
        ids = {name: k for k, name in enumerate(groups)}
        self.gid = np.array([ids[name] for name in names])
        self.n_groups = len(groups)
        self.n_own = np.bincount(self.gid[self.own], minlength=self.n_groups)
        self.n_foreign = np.bincount(self.gid[~self.own], minlength=self.n_groups)
        self.aimed = np.array([name not in guarded for name in groups]) | all(
            name in guarded for name in groups
        )
        self.names = list(groups)

    def limits(self, max_own_lost: float, by_set: Mapping[str, float]) -> Any:
        """Each set's own-loss target: its own in `by_set`, else `max_own_lost`."""
        import numpy as np

        return np.array([by_set.get(name, max_own_lost) for name in self.names])

    def keep(
        self, z: Any, bars: Mapping[str, float], later: Mapping[str, float] | None = None
    ) -> Any:
        """What the floor keeps (floor.keep): each result with a bar at it (its margin,
        z minus the bar, is its evidence's logit); with `later`, each that is not its
        question's best by that margin at the script's later logits too."""
        import numpy as np

        keep = self.exists.copy()
        margin = np.full(len(z), np.inf)  # a key without a bar keeps its results
        for key, bar in bars.items():
            mine = self.scripts == key
            margin[mine] = z[mine] - bar
        margin[self.gated] = -np.inf
        drop = margin < -1e-12
        if later:
            order = np.lexsort((-margin, self.qi))
            first = np.r_[True, self.qi[order][1:] != self.qi[order][:-1]]
            lead = np.zeros(len(z), bool)
            lead[order[first]] = True
            need = np.zeros(len(z))
            for key, value in later.items():
                need[self.scripts == key] = value
            drop |= ~lead & (margin < need - 1e-12)
        keep[self.qi[drop], self.rank[drop]] = False
        return keep

    def lost(self, keep: Any) -> Any:
        import numpy as np

        lost = self.has_gold & (self.gold & ~keep).any(axis=1)
        return np.bincount(self.gid[lost], minlength=self.n_groups) / np.maximum(self.n_own, 1)

    def rejected(self, keep: Any) -> Any:
        import numpy as np

        rejected = (keep.sum(axis=1) <= 1) & ~self.own
        return np.bincount(self.gid[rejected], minlength=self.n_groups) / np.maximum(
            self.n_foreign, 1
        )

    def bars(
        self, z: Any, max_own_lost: Any, min_cross_gold: int
    ) -> tuple[dict[str, float], dict[str, float]]:
        """CROSS first, then each script: the loosest bar on `z` that keeps every set's
        own losses within LEAD_SHARE of the target (no CROSS bar from a handful of such
        answers); then each script's later logits (floor.keep), the most that keeps
        them within the whole target."""
        import numpy as np

        from memctl.search.floor import CROSS

        bars: dict[str, float] = {}
        gold = self.gold[self.qi, self.rank]
        for key in self.order:
            mine = self.scripts == key
            if not mine.any() or (key == CROSS and (mine & gold).sum() < min_cross_gold):
                continue
            candidates = np.r_[z[mine & gold], z[mine].max() + 1e-6]

            def feasible(bar: float, key: str = key) -> bool:
                lost = self.lost(self.keep(z, {**bars, key: bar}))
                return bool((lost <= LEAD_SHARE * max_own_lost + 1e-12).all())

            # Just under the gold result it keeps, so that the table's rounding (6
            # decimals) cannot put that result under its bar.
            bars[key] = _loosest(candidates, feasible) - BAR_MARGIN
        later: dict[str, float] = {}
        for key in self.order:
            mine = (self.scripts == key) & (key != CROSS)
            if key not in bars or not mine.any():
                continue
            margin = z - bars[key]
            candidates = np.r_[0.0, margin[mine & gold & (margin > 0)], margin[mine].max() + 1e-6]

            def feasible_later(value: float, key: str = key) -> bool:
                lost = self.lost(self.keep(z, bars, {**later, key: value}))
                return bool((lost <= max_own_lost + 1e-12).all())

            later[key] = max(_loosest(candidates, feasible_later) - BAR_MARGIN, 0.0)
        return bars, later

    def score(self, weights: Any, max_own_lost: Any, min_cross_gold: int) -> tuple[float, float]:
        """The worst aimed set's foreign rejection (then the mean) once the bars are set."""
        z = self.x @ weights
        bars, later = self.bars(z, max_own_lost, min_cross_gold)
        rejected = self.rejected(self.keep(z, bars, later))[self.aimed]
        return float(rejected.min()), float(rejected.mean())


BAR_MARGIN = 1e-4  # logits
MIN_SCRIPT_SHARE = 0.05  # of a set's questions in a script, for that script's model to fit on it
# The share of each set's own-loss target the bar of a query's best result may spend;
# the rest goes to the later bar (floor.keep), which is what rejects a foreign question.
LEAD_SHARE = 0.5

# The sign each weight may take (FEATURES' order; 0: either): cosine, coverage,
# missing, best cosine, unknown name, BM25's rank, the best sentence's coverage.
SIGNS = (1, 1, -1, 0, -1, 1, 1)

# How the fitted weights are refined: each in turn scaled by these factors, kept when
# the worst set's rejection on the calibration parts improves.
REFINE_FACTORS = (0.0, 0.5, 0.8, 1.25, 2.0)


def fit_classifier(
    groups: Mapping[str, Sequence[Question]],
    max_own_lost: float = 0.03,
    guarded: Collection[str] = (),
    min_coverage: float = 0.35,
    l2: float = 1.0,
    refine: int = 2,
    min_cross_gold: int = 50,
    own_lost_by_set: Mapping[str, float] | None = None,
    max_missing: float | None = None,
) -> tuple[FloorThresholds, dict[str, FloorOutcome]]:
    """One classifier per query script (see floor.ByScript), each fitted on the
    questions of that script (every set holds the loss target on them), starting from
    the logistic fit on them and from the one on every script, whichever rejects more
    once refined. Scripts in the order of their number of questions, the largest first
    (the fallback for a script with no model). A CROSS bar needs `min_cross_gold` gold
    results in another script than their question (fewer: too few to choose from).
    Every question needs its `signals`."""
    settings = (
        max_own_lost,
        guarded,
        l2,
        refine,
        min_cross_gold,
        own_lost_by_set or {},
        max_missing,
    )
    pooled = _fit_one(groups, *settings)[0]
    counts: dict[str, int] = {}
    for qs in groups.values():
        for q in qs:
            if q.signals is not None and q.signals.script:
                counts[q.signals.script] = counts.get(q.signals.script, 0) + 1
    models = []
    for script in sorted(counts, key=lambda name: -counts[name]):
        mine = _in_script(groups, script)
        if not mine:  # a few questions of some set: the first model judges them
            continue
        fits = [_fit_one(mine, *settings, start=pooled)]
        if _fittable(mine, guarded):
            fits.append(_fit_one(mine, *settings))
        models.append((script, max(fits, key=lambda fit: fit[1])[0]))
    chosen = FloorThresholds(
        min_coverage, max_missing=max_missing, classifier=ByScript(tuple(models))
    )
    return chosen, {name: outcome(qs, chosen) for name, qs in groups.items()}


def _in_script(groups: Mapping[str, Sequence[Question]], script: str) -> dict[str, list[Question]]:
    """Each set's questions in `script`. A set with a handful of them (HeQ's two Latin
    ones: "מהו PUBG?" is Hebrew, but a few are all names) is left out: one lost answer
    would be half of it, its rejection the worst set's, and the script's fit bent to it."""
    return {
        name: kept
        for name, qs in groups.items()
        if len(kept := [q for q in qs if q.signals is not None and q.signals.script == script])
        >= MIN_SCRIPT_SHARE * len(qs)
    }


def fit_bars(
    groups: Mapping[str, Sequence[Question]],
    start: FloorThresholds,
    max_own_lost: float = 0.03,
    guarded: Collection[str] = (),
    min_cross_gold: int = 50,
    own_lost_by_set: Mapping[str, float] | None = None,
) -> tuple[FloorThresholds, dict[str, FloorOutcome]]:
    """`start`'s classifiers with only their bars refitted (each script's offset, the
    cross one, the later logits), as fit_classifier sets them: for a change that moves
    the bars and not what the weights measure (floor.keep's later bar), without the
    weights' refit, whose refinement on a few hundred questions a set is the fragile
    step of the fit."""
    import numpy as np

    if start.classifier is None:
        raise ValueError("no classifier to refit the bars of")
    models = []
    for script, model in start.classifier.models:
        mine = _in_script(groups, script)
        if not mine:
            models.append((script, model))
            continue
        d = _Design(mine, guarded, start.max_missing)
        limits = d.limits(max_own_lost, own_lost_by_set or {})
        models.append(
            (script, _with_bars(d, np.array(model.weights), model.bias, limits, min_cross_gold))
        )
    chosen = FloorThresholds(
        start.min_coverage, max_missing=start.max_missing, classifier=ByScript(tuple(models))
    )
    return chosen, {name: outcome(qs, chosen) for name, qs in groups.items()}


def _with_bars(
    d: _Design, weights: Any, bias: float, limits: Any, min_cross_gold: int
) -> Classifier:
    """The classifier of these weights with its bars fitted on `d` (see _Design.bars)."""
    bars, later = d.bars(d.x @ weights + bias, limits, min_cross_gold)
    return Classifier(
        tuple(float(w) for w in weights),
        bias,
        tuple((str(key), -bar) for key, bar in bars.items()),
        max(later.values(), default=0.0),
    )


def _fittable(groups: Mapping[str, Sequence[Question]], guarded: Collection[str]) -> bool:
    """Both classes among the results a logistic fit would read."""
    d = _Design(groups, guarded)
    labels = d.label[d.fitted]
    return bool(labels.any() and not labels.all())


def _fit_one(
    groups: Mapping[str, Sequence[Question]],
    max_own_lost: float,
    guarded: Collection[str],
    l2: float,
    refine: int,
    min_cross_gold: int,
    by_set: Mapping[str, float],
    max_missing: float | None,
    start: Classifier | None = None,
) -> tuple[Classifier, tuple[float, float]]:
    """A logistic model telling own questions' gold results (1) from foreign questions'
    results (0), each set's two classes weighing alike; results in another script than
    their question, and the foreign questions of `guarded` sets, are not fitted (only
    the cosine can tell them, on a lower scale). `start`: another model's weights
    instead. The log-loss is not what the floor is judged by, so `refine` rounds then
    scale each weight in turn while the worst set's rejection of foreign questions on
    these parts improves. Then the offsets: CROSS first, the loosest bar that keeps
    every set's losses within `max_own_lost`, then the script's. Returns the model and
    its (worst, mean) rejection."""
    import numpy as np

    d = _Design(groups, guarded, max_missing)
    limits = d.limits(max_own_lost, by_set)
    if start is None:
        fitted = d.fitted
        mean, scale = d.x[fitted].mean(axis=0), d.x[fitted].std(axis=0)
        scale[scale == 0] = 1.0
        coef, bias = _logistic((d.x[fitted] - mean) / scale, d.label[fitted], d.weight[fitted], l2)
        weights = coef / scale
        bias -= float((coef * mean / scale).sum())
    else:
        weights, bias = np.array(start.weights), start.bias
    # Evidence never grows with words the vault lacks nor shrinks with a better cosine
    # or more of the question's words: a weight of the wrong sign (fitted to a quirk
    # of one set, such as LoCoMo's paraphrases missing words) is dropped.
    weights = np.where(np.array(SIGNS) * weights < 0, 0.0, weights)
    best = d.score(weights, limits, min_cross_gold)
    for _ in range(refine):
        for k in range(len(weights)):
            for factor in REFINE_FACTORS:
                trial = weights.copy()
                trial[k] *= factor
                value = d.score(trial, limits, min_cross_gold)
                if value > best:
                    best, weights = value, trial
    return _with_bars(d, weights, bias, limits, min_cross_gold), best


_NO_SIGNALS = QuerySignals()
