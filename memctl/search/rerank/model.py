"""The second ranking stage: a small learned model over the best fused candidates, each
seen as the window its snippet shows (pure, no I/O; memctl.search.rerank.windows reads the
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
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from memctl.search.floor.rule import WeightedTerm
from memctl.search.rank.scoring import LISTS
from memctl.search.rerank.lines import Line, LineWords, Terms, TextViews, WindowView, share

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

    def probability(self, row: Sequence[float], shift: float = 0.0) -> float:
        """`shift`: added to the linear score (rerank's standing by meaning)."""
        z = self.intercept + shift
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


def features(
    order: Sequence[int],
    candidates: Mapping[int, Candidate],
    shown: Mapping[int, Shown],
    terms: Sequence[WeightedTerm],
    query_words: frozenset[str] = frozenset(),
    may_match: Callable[[str], object] | None = None,
    line_words: LineWords | None = None,
    needles: AbstractSet[str] | None = None,
    prefixes: Sequence[str] | None = None,
    views: TextViews | None = None,
) -> dict[int, list[float]]:
    """Each candidate's feature row (FEATURES order); `order`: the candidates by composite
    score, best first; `query_words`: the query's words, lowercased; `may_match`: None
    for a word no term matches (a quicker test of every term's words at once, such as
    the snippets' matcher); `line_words`: lines' words kept from earlier searches;
    `needles`: strings one of which a query word's lowercase holds (the matcher's forms
    and stems); `prefixes`: the matcher's stems, when `needles` are exactly its forms and
    stems (a word is then tested only if its lowercase is a needle or starts with a stem
    or a Hebrew prefix letter, as the matcher's own tests need); `views`: lines' and
    windows' views kept from earlier searches."""
    total = sum(t.weight for t in terms)
    known = Terms(terms, may_match, line_words, needles, prefixes, views)
    best_score = max((candidates[c].composite for c in order), default=0.0) or 1.0
    cosines = [c for c in (shown[cid].chunk_cosine for cid in order) if c is not None]
    top_cos = max(cosines, default=0.0)
    low_cos = min(cosines, default=0.0)
    rows: dict[int, list[float]] = {}
    pair = known.pairs
    # `support` looks only at candidates of the same file (each one's others, in order).
    same_file = _by_file(order, shown)
    shows = [shown[cid] for cid in order]
    windows = known.windows([v.text for v in shows], [v.chunk_text for v in shows])
    for rank, (cid, view, window) in enumerate(zip(order, shows, windows, strict=True)):
        cand = candidates[cid]
        hits = _window_hits(window, view, known.hit_lines, len(terms), pair)
        rows[cid] = [
            *(cand.parts.get(name, 0.0) for name in LISTS),
            1.0 if cand.date_match else 0.0,
            cand.relevance,
            cand.boosted - cand.relevance,
            cand.composite / best_score,
            1.0 / (1.0 + rank),
            *_cosine_offsets(view, low_cos, top_cos),
            share(terms, hits.chunk, total) if hits.chunk else 0.0,
            share(terms, hits.window, total) if hits.window else 0.0,
            share(terms, hits.after, total) if hits.after else 0.0,
            share(terms, hits.before, total) if hits.before else 0.0,
            hits.tf(terms) / total if total > 0 else 0.0,
            _support(cid, view, same_file[view.path], shown, candidates),
            max(view.line_end - view.chunk_end, 0) / max(len(window.lines), 1),
            1.0 if cand.cold else 0.0,
            hits.best_line,
            min(len(hits.pairs) / (len(terms) - 1), 1.0) if pair else 0.0,
            _named(window.speakers, query_words),
        ]
    return rows


@dataclass
class WindowHits:
    """Where a candidate's window shows the query's words (indexes into its terms)."""

    counts: list[int]  # each term's occurrences in the window
    shows_words: bool  # any of the window's lines shows a query word
    window: set[int] = field(default_factory=set)  # the terms anywhere in the window
    before: set[int] = field(default_factory=set)  # ... in its lines before the chunk
    after: set[int] = field(default_factory=set)  # ... after it
    chunk: set[int] = field(default_factory=set)  # ... in the chunk's own lines
    best_line: float = 0.0  # the best IDF share one line shows
    pairs: set[tuple[int, int]] = field(default_factory=set)  # terms next to each other

    def tf(self, terms: Sequence[WeightedTerm]) -> float:
        """The terms' IDF-weighted, saturated counts in the window."""
        if not self.shows_words:
            return 0.0
        return sum(t.weight * c / (c + 1.2) for t, c in zip(terms, self.counts, strict=True))


def _window_hits(
    window: WindowView, view: Shown, hit_lines: Mapping[str, Line], terms: int, pair: bool
) -> WindowHits:
    """The query's words the window's lines show: only the lines that show one are read
    (most show none); a line with a word between two of them breaks a phrase across them."""
    lines = window.lines
    shows_words = [(o, hit_lines[t]) for o, t in enumerate(lines) if t in hit_lines]
    hits = WindowHits([0] * terms, bool(shows_words))
    previous: int | None = None  # the query word the window's last word was
    worded, last = window.worded, 0
    for offset, line in shows_words:
        if worded[offset] != worded[last]:
            previous = None
        last = offset + 1
        for i, c in line.counts.items():
            hits.counts[i] += c
        if pair:
            here = line.head
            if here is not None and previous is not None and here != previous:
                hits.pairs.add((min(here, previous), max(here, previous)))
            hits.pairs |= line.inner
            previous = line.tail
        on_line = line.found
        hits.window |= on_line
        hits.best_line = max(hits.best_line, line.share)
        number = view.line_start + offset
        if number < view.chunk_start:
            hits.before |= on_line
        elif number > view.chunk_end:
            hits.after |= on_line
    for text in view.chunk_text.split("\n"):
        if text in hit_lines:
            hits.chunk |= hit_lines[text].found
    return hits


def _by_file(order: Sequence[int], shown: Mapping[int, Shown]) -> dict[str, list[int]]:
    """The shown candidates of each file, in order."""
    same_file: dict[str, list[int]] = {}
    for other in order:
        if other in shown:
            same_file.setdefault(shown[other].path, []).append(other)
    return same_file


def _named(speakers: Sequence[str], query_words: frozenset[str]) -> float:
    """The share of the window's speakers the query names."""
    if speakers and not query_words.isdisjoint(speakers):
        return sum(name in query_words for name in speakers) / len(speakers)
    return 0.0


def _cosine_offsets(view: Shown, low_cos: float, top_cos: float) -> tuple[float, float, float]:
    """The chunk's, the window's best and the window's mean cosine, each minus the best
    candidate's (an unknown one is the one before it; the chunk's, the lowest seen)."""
    chunk_cos: float = low_cos if view.chunk_cosine is None else view.chunk_cosine
    window_cos: float = chunk_cos if view.window_cosine is None else view.window_cosine
    mean_cos: float = window_cos if view.mean_cosine is None else view.mean_cosine
    return chunk_cos - top_cos, window_cos - top_cos, mean_cos - top_cos


def _support(
    cid: int,
    view: Shown,
    same_file: Sequence[int],
    shown: Mapping[int, Shown],
    candidates: Mapping[int, Candidate],
) -> float:
    """The best relevance of another candidate of the same file whose chunk the window
    shows: a window that shows another strong candidate shows more of what was asked."""
    support = 0.0
    for other in same_file:
        if other == cid:
            continue
        o = shown[other]
        if (
            (o.chunk_start, o.chunk_end) != (view.chunk_start, view.chunk_end)
            and view.line_start <= o.chunk_start
            and o.chunk_end <= view.line_end
        ):
            support = max(support, candidates[other].relevance)
    return support


def rerank(
    model: Model,
    rows: Mapping[int, Sequence[float]],
    standing: Mapping[int, float] | None = None,
    weight: float = 0.0,
) -> dict[int, float]:
    """Each candidate's probability that its window holds what was asked; `standing`: how
    far each stands out of the query's vector list (rank/meaning.standing), `weight` times
    it added to the model's score.

    The model's cosine features are offsets from the best candidate's cosine, scaled by
    LoCoMo's spread, and its window features read a day of bullets by all of them: a day
    whose one bullet the vectors found 2nd of 50 lost to a day holding a few words of the
    question (issue 31: "a strong vector match is never buried by weak word matches")."""
    if not standing or weight == 0.0:
        return {cid: model.probability(row) for cid, row in rows.items()}
    return {
        cid: model.probability(row, weight * standing.get(cid, 0.0)) for cid, row in rows.items()
    }
