"""The reranking stage's reads: what the best candidates' snippets show (the chunks inside
each window and their cosines with the query) and the reranker's shipped weights.

Only the ~30 reranked candidates are looked at, so nothing is precomputed at index time:
the vectors of the chunks their windows show are read when a window is first seen, and
kept with their sum by a kept Searcher while the index is unchanged (SQLite's; on a shared
server they are read each search: stage.rerank_probabilities). memctl.search.rerank.model
holds the policy.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from memctl.frozen import field_names, filled
from memctl.index.protocol import IndexBackend
from memctl.index.usage import ChunkRecord
from memctl.search.floor.rule import WeightedTerm
from memctl.search.present.snippets import Snippet
from memctl.search.rank.meaning import SHORT_TEXT_BIAS, STANDING_WEIGHT, Fact, standing
from memctl.search.rerank.lines import speaker
from memctl.search.rerank.model import (
    FEATURES,
    Candidate,
    Model,
    Shown,
    features,
    rerank,
)

if TYPE_CHECKING:
    from memctl.search.run import SearchRun

WEIGHTS_FILE = "rerank_weights.json"
_model: Model | None = None


class WindowVectors:
    """The ids of the chunks with a vector a window shows, and their vectors' sum and its
    norm (a window's mean vector does not depend on the query: kept, 30 windows a search)."""

    __slots__ = ("ids", "norm", "total")

    def __init__(self, vectors: Mapping[int, np.ndarray]) -> None:
        self.ids = tuple(vectors)
        self.total: np.ndarray | None = None
        self.norm = 0.0
        if vectors:
            # What np.sum(axis=0) and np.linalg.norm compute (row by row; sqrt of the
            # dot), without their array and argument handling.
            self.total = functools.reduce(np.add, vectors.values())
            self.norm = float(np.sqrt(self.total.dot(self.total)))


class KeptWindows:
    """Windows' WindowVectors by (vault, path, first line, last line), and the vectors of
    their chunks by id (copied: those read are views of one read for all windows, which a
    kept vector would otherwise hold whole); valid while the index is unchanged."""

    __slots__ = ("vectors", "windows")

    def __init__(self) -> None:
        self.windows: dict[tuple[str, str, int, int], WindowVectors] = {}
        self.vectors: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return max(len(self.windows), len(self.vectors))

    def clear(self) -> None:
        self.windows.clear()
        self.vectors.clear()


_NONE = WindowVectors({})  # no query vector: no window's vectors are looked at


def model() -> Model:
    """The shipped reranker (written by scripts/train_reranker)."""
    global _model
    if _model is None:
        text = (resources.files("memctl.search.rerank") / WEIGHTS_FILE).read_text(encoding="utf-8")
        _model = Model.from_dict(json.loads(text))
    return _model


def shown(
    store: IndexBackend,
    order: Sequence[int],
    records: Mapping[int, ChunkRecord],
    snippet: Callable[[int], Snippet],
    query_vector: Any,
    list_cosines: Mapping[int, float],
    matrix: Any = None,
    spans: dict[str, list[tuple[int, int, int]]] | None = None,
    kept: KeptWindows | None = None,
    facts: Mapping[int, Sequence[Fact]] | None = None,
) -> dict[int, Shown]:
    """Each candidate's window: its snippet, and the cosines of the chunks it shows
    (without a query vector, only the vector list's cosines are known); `kept`: windows'
    vectors from earlier searches of this index (filled here); `facts`: the candidates'
    facts (rank/meaning.py), read into their windows' mean (fact_mean)."""
    snips = {cid: snippet(cid) for cid in order}
    qvec = None if query_vector is None else np.asarray(query_vector, dtype=np.float32)
    held: list[WindowVectors] = [_NONE] * len(order)
    cosine: dict[int, float] = dict(list_cosines)
    if qvec is not None:
        table = KeptWindows() if kept is None else kept
        held = _windows_read(store, order, records, snips, table, matrix, spans)
        chunks = table.vectors
        # `.dot`, not `@`: the same BLAS dot of two vectors (equal floats, checked on every
        # kept vector of the 10k vault) without matmul's dispatch, 2 against 5 µs a call.
        for window in held:
            for cid in window.ids:
                if cid not in cosine:
                    cosine[cid] = float(chunks[cid].dot(qvec))
    out: dict[int, Shown] = {}
    for cid, window in zip(order, held, strict=True):
        record, s = records[cid], snips[cid]
        known = [cosine[i] for i in (*window.ids, cid) if i in cosine]
        mean = None
        if window.total is not None and qvec is not None:
            mean = float(window.total.dot(qvec)) / window.norm if window.norm > 0 else None
            found = facts.get(cid) if facts else None
            if mean is not None and found and cid in window.ids:
                mean = max(mean, fact_mean(window, table.vectors[cid], found, qvec))
        out[cid] = filled(
            Shown,
            _SHOWN,
            (
                record.path,
                s.text,
                s.line_start,
                s.line_end,
                record.text,
                record.line_start,
                record.line_end,
                cosine.get(cid),
                max(known) if known else None,
                mean,
            ),
        )
    return out


def fact_mean(window: WindowVectors, own: Any, facts: Sequence[Fact], qvec: Any) -> float:
    """The cosine of the window's mean vector with the candidate's chunk read as its fact
    nearest the query (less SHORT_TEXT_BIAS, as the vector list reads it): a day of
    unrelated bullets found by one of them is otherwise judged by their average, and a
    clear vector match lost to any window whose average sat 0.01 nearer (issue 31)."""
    units = [f for f in facts if f.unit]
    if not units:
        return -1.0
    best = max(units, key=lambda f: f.cosine)
    total = window.total - own + best.vector if window.total is not None else best.vector
    norm = float(np.sqrt(total.dot(total)))
    return float(total.dot(qvec)) / norm - SHORT_TEXT_BIAS if norm > 0 else -1.0


def _windows_read(
    store: IndexBackend,
    order: Sequence[int],
    records: Mapping[int, ChunkRecord],
    snips: Mapping[int, Snippet],
    table: KeptWindows,
    matrix: Any,
    spans: dict[str, list[tuple[int, int, int]]] | None,
) -> list[WindowVectors]:
    """Each candidate's window's vectors, those `table` does not hold yet read in one call
    (and kept there, with their chunks' vectors)."""
    windows, chunks = table.windows, table.vectors
    keys = [
        (records[cid].vault, records[cid].path, snips[cid].line_start, snips[cid].line_end)
        for cid in order
    ]
    missing = [key for key in dict.fromkeys(keys) if key not in windows]
    if missing:
        read = store.window_vectors(missing, matrix, spans)
        for key, vectors in zip(missing, read, strict=True):
            windows[key] = WindowVectors(vectors)
            for cid, vec in vectors.items():
                if cid not in chunks:
                    chunks[cid] = vec.copy()
    return [windows[key] for key in keys]


_SHOWN = field_names(Shown)
_CANDIDATE = field_names(Candidate)


def reranked(composite: Mapping[int, float]) -> list[int]:
    """The candidates the reranker looks at: the best by composite score."""
    return sorted(composite, key=lambda c: (-composite[c], c))[: model().candidates]


def _candidates(run: SearchRun, order: Sequence[int]) -> dict[int, Candidate]:
    """What fusion knew of each reranked candidate: each list's score over its weight, the
    dates the query says, the fused, relevance and composite scores, its tier."""
    scored, fused, records = run.scored, run.fused, run.records
    trigram = run.lists.get("trigram", {})
    weight = {name: run.weights.of(name) for cid in order for name in fused[cid]}
    return {
        cid: filled(
            Candidate,
            _CANDIDATE,
            (
                {
                    name: value / weight[name] if weight[name] > 0 else 0.0
                    for name, value in fused[cid].items()
                },
                trigram.get(cid, 0.0) >= 1.0,
                sum(fused[cid].values()),
                scored.relevance[cid],
                scored.composite[cid],
                records[cid].tier == "cold",
            ),
        )
        for cid in order
    }


def rerank_scores(
    store: IndexBackend,
    run: SearchRun,
    terms: Sequence[WeightedTerm],
    query_words: frozenset[str],
    *,
    matrix: Any = None,
    apply: bool = True,
    sink: Callable[[dict[int, list[float]], dict[int, Shown]], None] | None = None,
    kept_windows: KeptWindows | None = None,
) -> dict[int, float]:
    """The reranker's probability for each of the best fused candidates of `run` (empty
    when not `apply`; `sink` receives every candidate's features and window, for training;
    `kept_windows`: see shown). The snippets' matcher tells rerank.features which words may
    match; the Searcher's kept tables hold the lines' words and spans."""
    matcher, kept = run.snippets.matcher, run.kept
    reranker = model()
    order = reranked(run.scored.composite)
    if not order:
        return {}
    views = shown(
        store,
        order,
        run.records,
        run.snippets,
        run.vector,
        run.lists.get("vector", {}),
        matrix,
        kept.spans,
        kept_windows,
        run.scored.facts,
    )
    rows = features(
        order,
        _candidates(run, order),
        views,
        terms,
        query_words,
        matcher.matches,
        kept.line_words,
        matcher.exact | set(matcher.prefixes),
        matcher.prefixes,
    )
    if sink is not None:
        sink(rows, views)
    if not apply:
        return {}
    shows = FEATURES.index("cover_window")
    if not any(row[shows] > 0 for row in rows.values()):
        # No window shows a word of the query (a question in another language than the
        # notes): the model's word features say nothing, and its window cosines favour
        # wide running-log windows over a lone decision; fusion's order stands.
        return {}
    return rerank(reranker, rows, _standing(run, rows), STANDING_WEIGHT)


def _standing(run: SearchRun, reranked: Mapping[int, object]) -> dict[int, float]:
    """How far each `reranked` candidate found by one of its facts stands out of the vector
    list (rank/meaning.standing), when no candidate holds half the question's words
    (`echoed`: the words found it, and the model judges as trained)."""
    if run.echoed:
        return {}
    facts = run.scored.facts
    stands = standing(run.lists.get("vector", {}), facts)
    stands = {cid: value for cid, value in stands.items() if value > 0 and cid in reranked}
    # A conversation's turns answer each other: there the window is the model's own ground
    # (it was trained on them), and a turn standing out alone says less (LoCoMo 3-4, lines
    # layout: 0.770 -> 0.765 with turns judged so too).
    return {
        cid: value
        for cid, value in stands.items()
        if not any(speaker(fact.body) for fact in facts[cid])
    }
