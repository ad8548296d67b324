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

from memctl.search.floor.rule import ByScript, Classifier, FloorThresholds
from tools.floor_design import Design
from tools.floor_fit import FloorOutcome, Question, outcome


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


MIN_SCRIPT_SHARE = 0.05  # of a set's questions in a script, for that script's model to fit on it
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
        d = Design(mine, guarded, start.max_missing)
        limits = d.limits(max_own_lost, own_lost_by_set or {})
        models.append(
            (script, _with_bars(d, np.array(model.weights), model.bias, limits, min_cross_gold))
        )
    chosen = FloorThresholds(
        start.min_coverage, max_missing=start.max_missing, classifier=ByScript(tuple(models))
    )
    return chosen, {name: outcome(qs, chosen) for name, qs in groups.items()}


def _with_bars(
    d: Design, weights: Any, bias: float, limits: Any, min_cross_gold: int
) -> Classifier:
    """The classifier of these weights with its bars fitted on `d` (see Design.bars)."""
    bars, later = d.bars(d.x @ weights + bias, limits, min_cross_gold)
    return Classifier(
        tuple(float(w) for w in weights),
        bias,
        tuple((str(key), -bar) for key, bar in bars.items()),
        max(later.values(), default=0.0),
    )


def _fittable(groups: Mapping[str, Sequence[Question]], guarded: Collection[str]) -> bool:
    """Both classes among the results a logistic fit would read."""
    d = Design(groups, guarded)
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

    d = Design(groups, guarded, max_missing)
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
