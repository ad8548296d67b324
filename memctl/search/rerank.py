"""The second ranking stage: a small learned model over the best fused candidates, each
seen as the window its snippet shows (pure, no I/O; memctl.search.windows reads the
windows' chunks and vectors and the shipped weights).

Fusion scores each chunk alone, but an agent reads the snippet: a turn that lacks the
question's words often sits right before the reply that has them. The features describe
what the window shows (the query's words by IDF, the cosines of the chunks in it, the
mean vector's cosine) beside what fusion already knew (each list's normalised score,
the context boost, the rank). A logistic model trained on LoCoMo conversations 0-2
(scripts/train_reranker) turns them into the probability that the window holds what
was asked; that probability replaces the fused relevance of the reranked candidates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memctl.search.floor import WeightedTerm
from memctl.search.scoring import LISTS

_WORD = re.compile(r"\w+", re.UNICODE)

FEATURES = (
    "fts",  # each list's normalised score (0.2..1), 0 when the chunk is not in it
    "trigram",
    "vector",
    "date_match",  # the chunk is dated on a date the query names
    "relevance",  # fused relevance, before the context boost
    "context",  # the context boost (best candidate in the following lines)
    "score_share",  # composite score / the best candidate's
    "rank",  # 1 / (1 + rank by composite score)
    "cos_chunk",  # cosine of the chunk, minus the query's best cosine among candidates
    "cos_window",  # best cosine of a chunk the window shows, same offset
    "cos_mean",  # cosine of the window's mean vector, same offset
    "cover_chunk",  # IDF share of the query's words in the chunk
    "cover_window",  # ... in the whole window
    "cover_after",  # ... in the window's lines after the chunk
    "cover_before",  # ... in the window's lines before the chunk
    "tf_window",  # IDF-weighted, saturated counts of the query's words in the window
    "support",  # best fused relevance of another candidate the window shows
    "lines_after",  # share of the window's lines after the chunk
    "cold",  # archived (COLD tier)
    "best_line",  # IDF share of the query's words on the window's best line
    "adjacent",  # query words side by side in the window (a phrase), per word pair
    "speaker",  # share of the window's `**Name:**` lines by someone the query names
)
_SPEAKER = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*:\n]{1,40}):\*\*")


@dataclass(frozen=True)
class Shown:
    """What one candidate's snippet shows."""

    path: str
    text: str  # the snippet
    line_start: int
    line_end: int
    chunk_text: str
    chunk_start: int
    chunk_end: int
    chunk_cosine: float | None  # None: no vector (yet)
    window_cosine: float | None  # best chunk the window shows
    mean_cosine: float | None  # the mean vector of the chunks it shows


@dataclass(frozen=True)
class Candidate:
    """What fusion knew of one candidate."""

    parts: Mapping[str, float]  # each list's normalised score (0 when absent)
    date_match: bool
    relevance: float
    boosted: float
    composite: float
    cold: bool


@dataclass(frozen=True)
class Model:
    """Standardised logistic regression: p = sigmoid(b + Σ w_i (x_i - mean_i) / scale_i)."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    candidates: int  # how many of the best fused candidates it reranks
    model: str = ""  # the embedding model whose cosines it was trained on

    def probability(self, row: Sequence[float]) -> float:
        z = self.intercept
        for x, m, s, w in zip(row, self.mean, self.scale, self.coef, strict=True):
            z += w * (x - m) / s
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Model:
        names = tuple(str(n) for n in data["features"])
        if names != FEATURES:
            raise ValueError("reranker weights do not match its features: retrain it")
        return cls(
            names,
            tuple(float(v) for v in data["mean"]),
            tuple(float(v) or 1.0 for v in data["scale"]),
            tuple(float(v) for v in data["coef"]),
            float(data["intercept"]),
            int(data.get("candidates", 30)),
            str(data.get("model", "")),
        )


class _Terms:
    """The query's weighted words, and which of them each window word is (worked out once
    per word per search: the 30 windows share most of their words)."""

    def __init__(self, terms: Sequence[WeightedTerm]) -> None:
        self.terms = terms
        self._hits: dict[str, tuple[int, ...]] = {}

    def hits(self, word: str) -> tuple[int, ...]:
        found = self._hits.get(word)
        if found is None:
            found = self._hits[word] = tuple(i for i, t in enumerate(self.terms) if t.matches(word))
        return found

    def found(self, words: Sequence[str]) -> tuple[set[int], list[int]]:
        """Which terms occur among `words`, and how often each does."""
        counts = [0] * len(self.terms)
        for word in words:
            for i in self.hits(word):
                counts[i] += 1
        return {i for i, c in enumerate(counts) if c}, counts


def _share(terms: Sequence[WeightedTerm], found: set[int], total: float) -> float:
    return sum(terms[i].weight for i in found) / total if total > 0 else 0.0


def features(
    order: Sequence[int],
    candidates: Mapping[int, Candidate],
    shown: Mapping[int, Shown],
    terms: Sequence[WeightedTerm],
    query_words: frozenset[str] = frozenset(),
) -> dict[int, list[float]]:
    """Each candidate's feature row (FEATURES order); `order`: the candidates by composite
    score, best first; `query_words`: the query's words, lowercased."""
    total = sum(t.weight for t in terms)
    known = _Terms(terms)
    best_score = max((candidates[c].composite for c in order), default=0.0) or 1.0
    cosines = [c for c in (shown[cid].chunk_cosine for cid in order) if c is not None]
    top_cos = max(cosines, default=0.0)
    low_cos = min(cosines, default=0.0)
    rows: dict[int, list[float]] = {}
    for rank, cid in enumerate(order):
        cand, view = candidates[cid], shown[cid]
        lines = view.text.split("\n")
        # One pass over the window's lines: which query words each line shows.
        window_words: list[str] = []
        counts = [0] * len(terms)
        found_window: set[int] = set()
        found_before: set[int] = set()
        found_after: set[int] = set()
        best_line = 0.0
        for offset, line in enumerate(lines):
            words = _WORD.findall(line)
            window_words.extend(words)
            on_line: set[int] = set()
            for word in words:
                for i in known.hits(word):
                    counts[i] += 1
                    on_line.add(i)
            if not on_line:
                continue
            found_window |= on_line
            best_line = max(best_line, _share(terms, on_line, total))
            number = view.line_start + offset
            if number < view.chunk_start:
                found_before |= on_line
            elif number > view.chunk_end:
                found_after |= on_line
        found_chunk, _ = known.found(_WORD.findall(view.chunk_text))
        tf = sum(t.weight * c / (c + 1.2) for t, c in zip(terms, counts, strict=True))
        speakers = [m.group(1).split()[0].lower() for m in map(_SPEAKER.match, lines) if m]
        named = sum(name in query_words for name in speakers) / len(speakers) if speakers else 0.0
        # A window that shows another strong candidate shows more of what was asked.
        support = 0.0
        for other in order:
            if other == cid or other not in shown:
                continue
            o = shown[other]
            if (
                o.path == view.path
                and (o.chunk_start, o.chunk_end) != (view.chunk_start, view.chunk_end)
                and view.line_start <= o.chunk_start
                and o.chunk_end <= view.line_end
            ):
                support = max(support, candidates[other].relevance)
        n_lines = max(len(lines), 1)
        chunk_cos: float = low_cos if view.chunk_cosine is None else view.chunk_cosine
        window_cos: float = chunk_cos if view.window_cosine is None else view.window_cosine
        mean_cos: float = window_cos if view.mean_cosine is None else view.mean_cosine
        rows[cid] = [
            *(cand.parts.get(name, 0.0) for name in LISTS),
            1.0 if cand.date_match else 0.0,
            cand.relevance,
            cand.boosted - cand.relevance,
            cand.composite / best_score,
            1.0 / (1.0 + rank),
            chunk_cos - top_cos,
            window_cos - top_cos,
            mean_cos - top_cos,
            _share(terms, found_chunk, total),
            _share(terms, found_window, total),
            _share(terms, found_after, total),
            _share(terms, found_before, total),
            tf / total if total > 0 else 0.0,
            support,
            max(view.line_end - view.chunk_end, 0) / n_lines,
            1.0 if cand.cold else 0.0,
            best_line,
            _adjacent(known, window_words),
            named,
        ]
    return rows


def _adjacent(known: _Terms, words: Sequence[str]) -> float:
    """Pairs of different query words side by side in `words`, per possible pair."""
    if len(known.terms) < 2:
        return 0.0
    previous: int | None = None
    pairs: set[tuple[int, int]] = set()
    for word in words:
        hits = known.hits(word)
        here = hits[0] if hits else None
        if here is not None and previous is not None and here != previous:
            pairs.add((min(here, previous), max(here, previous)))
        previous = here
    return min(len(pairs) / (len(known.terms) - 1), 1.0)


def rerank(model: Model, rows: Mapping[int, Sequence[float]]) -> dict[int, float]:
    """Each candidate's probability that its window holds what was asked."""
    return {cid: model.probability(row) for cid, row in rows.items()}
