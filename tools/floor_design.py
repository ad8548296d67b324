"""What the relevance floor's calibration counts (pure; NumPy): every result with a cosine
as classifier inputs, the bars that keep each set's own losses within its limit, and the
rejection of foreign questions a classifier reaches (floor_learn fits on it).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from memctl.search.floor.rule import QuerySignals
from tools.floor_fit import Question

BAR_MARGIN = 1e-4  # logits
# The share of each set's own-loss target the bar of a query's best result may spend;
# the rest goes to the later bar (floor.keep), which is what rejects a foreign question.
LEAD_SHARE = 0.5


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


class Design:
    """Every result with a cosine as classifier inputs, and what calibration counts."""

    def __init__(
        self,
        groups: Mapping[str, Sequence[Question]],
        guarded: Collection[str],
        max_missing: float | None = None,
    ):
        import numpy as np

        from memctl.search.floor.rule import CROSS, features

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

        from memctl.search.floor.rule import CROSS

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


_NO_SIGNALS = QuerySignals()
