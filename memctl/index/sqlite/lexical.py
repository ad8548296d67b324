"""The SQLite index's words (BM25) and vector lists, and the counts its lexical plan is
made from (memctl.lexical.plan), read with its own SQL (schema: docs/internals.md). The
trigram list is in substring_list.py, the window words list in window_list.py.

Each function returns {chunk id: raw score}, higher is better, at most `limit` entries.
Costs follow ../shared/notes/sqlite-search-costs.md: BM25 OR-queries drop terms found in
too many rows (their posting lists are what makes OR slow, and their IDF is ~0 anyway);
typos go through the vocabulary (fts5vocab → rapidfuzz → corrected words) rather than a
ranked OR of trigrams; trigram matching is an unranked substring lookup scored in Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.lexical import lexicon
from memctl.lexical.crossing import written_as_name
from memctl.lexical.parse import HEBREW_PREFIXES, Query, quote
from memctl.lexical.plan import (
    COMMON_MIN_ROWS,
    Filters,
    LexicalPlan,
    build_plan,
)
from memctl.lexical.typos import nearest_word
from memctl.sqlite import select_in

if TYPE_CHECKING:
    from memctl.sqlite import Connection

# The vocabulary view is created per connection in `temp`, so the index schema stays as
# the index layer defines it.
VOCAB_TABLE = "temp.memctl_search_vocab"
_VOCAB = VOCAB_TABLE


@dataclass
class KeptCounts:
    """Counts read from the index by earlier searches. A Searcher keeps them while the
    index does not change (it empties them whenever a search re-checks freshness): the
    same words come back query after query, and each count is an FTS5 lookup."""

    rows: int | None = None
    chunks: int | None = None  # store.chunk_count(): a count(*) of the table per search
    capped: dict[tuple[str, int], int] = field(default_factory=dict)

    def clear(self) -> None:
        self.rows = None
        self.chunks = None
        self.capped.clear()


def ensure_vocab(conn: Connection) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} USING fts5vocab(main, chunks_fts, row)"
    )


def row_count(conn: Connection, counts: KeptCounts | None = None) -> int:
    if counts is not None and counts.rows is not None:
        return counts.rows
    rows = int(conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0] or 0)
    if counts is not None:
        counts.rows = rows
    return rows


def doc_freqs(
    conn: Connection,
    words: Iterable[str],
    cap: int | None = None,
    counts: KeptCounts | None = None,
) -> dict[str, int]:
    """Rows holding each word. With `cap`, counting stops past it (a value above `cap`
    means "more than cap"): fts5vocab walks a word's whole posting list, ~20 ms for a
    word in most of 1M rows, while an unranked MATCH stops after cap + 1 rows."""
    words = list(dict.fromkeys(words))
    if not words:
        return {}
    if cap is not None:
        return {w: capped_count(conn, quote(w), cap, counts) for w in words}
    marks = ",".join("?" * len(words))
    rows = conn.execute(f"SELECT term, doc FROM {_VOCAB} WHERE term IN ({marks})", words)
    found = {term: int(n) for term, n in rows}
    return {w: found.get(w, 0) for w in words}


def capped_count(
    conn: Connection, expression: str, cap: int, counts: KeptCounts | None = None
) -> int:
    """Rows matching an FTS5 expression, counted up to cap + 1."""
    if counts is not None and (expression, cap) in counts.capped:
        return counts.capped[expression, cap]
    row = conn.execute(
        "SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)",
        (expression, cap + 1),
    ).fetchone()
    if counts is not None:
        counts.capped[expression, cap] = int(row[0])
    return int(row[0])


def prefix_freq(
    conn: Connection,
    prefix: str,
    cap: int,
    terms: Iterable[str] | None = None,
    counts: KeptCounts | None = None,
) -> int:
    """Documents matching `prefix*`, counted up to `cap` (enough to decide a drop).

    `terms` are the vocabulary words starting with `prefix`, when the caller has them
    cached: each is then counted with a capped MATCH instead of fts5vocab's full walk
    (a `prefix*` MATCH is no help: FTS5 merges every matching posting list up front).
    """
    if terms is None:
        rows = conn.execute(
            f"SELECT doc FROM {_VOCAB} WHERE term >= ? AND term < ? LIMIT 200",
            (prefix, prefix + "\U0010ffff"),
        )
        found: Iterable[int] = (int(n) for (n,) in rows)
    else:
        found = (capped_count(conn, quote(t), cap, counts) for t in terms)
    total = 0
    for n in found:
        total += n
        if total > cap:
            break
    return total


def correct_typo(conn: Connection, word: str) -> str | None:
    """The closest vocabulary word sharing the first letter (reads fts5vocab: fine for
    small indexes; `Searcher` uses the cached `vocab.Vocabulary` instead)."""
    rows = conn.execute(
        f"SELECT term FROM {_VOCAB} WHERE term >= ? AND term < ?",
        (word[0], word[0] + "\U0010ffff"),
    ).fetchall()
    return nearest_word(word, (t for (t,) in rows))


def capitalised(conn: Connection, word: str) -> bool:
    """Whether a few chunks holding `word` (folded) write it with a capital letter inside
    a sentence, as a name is written (not first on its line or after a full stop)."""
    rows = conn.execute(
        "SELECT c.text FROM chunks AS c WHERE c.id IN "
        "(SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 5)",
        (quote(word),),
    )
    return any(written_as_name(text, word) for (text,) in rows)


def plan_lexical(
    conn: Connection,
    query: Query,
    common_fraction: float,
    corrector: Callable[[str], str | None] | None = None,
    prefix_terms: Callable[[str], list[str]] | None = None,
    counts: KeptCounts | None = None,
    across: Callable[[str], list[str]] | None = None,
) -> LexicalPlan:
    """Choose the FTS5 forms: drop very common ones (never all), correct unknown words.

    `corrector`, `prefix_terms` and `across` (a name's spellings in the vault's other
    scripts) read a cached vocabulary; without them the
    vocabulary is read through fts5vocab, which is fine for small indexes only; `counts`
    keeps the counts across searches of an unchanged index.
    """
    ensure_vocab(conn)
    limit = max(int(row_count(conn, counts) * common_fraction), COMMON_MIN_ROWS)
    return build_plan(
        query,
        limit,
        df=lambda words: doc_freqs(conn, words, cap=limit, counts=counts),
        stem_df=lambda stem: prefix_freq(
            conn, stem, limit, prefix_terms(stem) if prefix_terms else None, counts
        ),
        correct=corrector or (lambda word: correct_typo(conn, word)),
        is_common=lexicon.is_common,
        cross=across or (lambda word: []),
        exact_df=lambda words: doc_freqs(conn, words),
    )


def fts_candidates(
    conn: Connection, plan: LexicalPlan, filters: Filters, limit: int
) -> dict[int, float]:
    expression = plan.expression()
    if not expression:
        return {}
    if plan.all_common:
        # Ranking every row holding a word found everywhere costs ~1 s at 1M rows for a
        # near-zero IDF; BM25 over the newest matches (unranked fetch is ~free) is enough.
        where, params = filters.sql("c")
        rows = conn.execute(
            "SELECT f.rowid, -bm25(chunks_fts) FROM chunks_fts AS f JOIN chunks AS c "
            f"ON c.id = f.rowid WHERE chunks_fts MATCH ? AND {where} "
            "ORDER BY f.rowid DESC LIMIT ?",
            (expression, *params, limit * 10),
        ).fetchall()
        rows.sort(key=lambda row: -row[1])
        return {int(i): float(s) for i, s in rows[:limit]}
    return ranked_bm25(conn, "chunks_fts", expression, filters, limit)


def ranked_bm25(
    conn: Connection, fts: str, expression: str, filters: Filters, limit: int
) -> dict[int, float]:
    """Row id -> BM25 (higher is better) of the best `limit` rows of the FTS5 table `fts`
    (chunks_fts or windows_fts, keyed by chunk id) matching `expression`."""
    if filters.active():
        where, params = filters.sql("c")
        ranked = conn.execute(
            f"SELECT f.rowid, -bm25({fts}) FROM {fts} AS f JOIN chunks AS c "
            f"ON c.id = f.rowid WHERE {fts} MATCH ? AND {where} "
            f"ORDER BY bm25({fts}) LIMIT ?",
            (expression, *params, limit),
        )
        return {int(i): float(s) for i, s in ranked}
    # Sorted on the selected bm25, not FTS5's `rank` column: the same rows, scores and
    # order for less CPU (at 10k, SQLite 3.51: words 0.80 -> 0.48 ms a query, windows
    # 1.77 -> 1.01 ms).
    ranked = conn.execute(
        f"SELECT rowid, bm25({fts}) AS score FROM {fts} WHERE {fts} MATCH ? ORDER BY score LIMIT ?",
        (expression, limit),
    )
    return {int(i): -float(s) for i, s in ranked}


def vec0_candidates(
    conn: Connection, vector: Any, filters: Filters, limit: int
) -> dict[int, float]:
    """Nearest neighbours from sqlite-vec (cosine similarity = 1 - distance)."""
    blob = vector.astype("float32").tobytes()
    # vec0 cannot filter on chunks' columns, so over-fetch and filter after.
    fetch = limit * 8 if filters.active() else limit
    rows = conn.execute(
        "SELECT rowid, distance FROM chunks_vec WHERE embedding MATCH ? AND k = ?", (blob, fetch)
    ).fetchall()
    scores = {int(i): 1.0 - float(d) for i, d in rows}
    if filters.active() and scores:
        scores = {i: scores[i] for i in filtered(conn, list(scores), filters)}
    best = sorted(scores, key=lambda i: -scores[i])[:limit]
    return {i: scores[i] for i in best}


# A filter that leaves at most this many chunks (a day, a week: --since/--until or a date
# the query says) has their vectors scored exactly: the nearest of the whole index, filtered
# after, would rarely hold them.
EXACT_FILTERED = 2000


def vectors_within(
    conn: Connection, vector: Any, filters: Filters, limit: int
) -> dict[int, float] | None:
    """The nearest of the chunks that pass `filters`, each scored (None: more than
    EXACT_FILTERED pass, where filtering the nearest over-fetched costs less)."""
    where, params = filters.sql("c")
    ids = [
        int(i)
        for (i,) in conn.execute(
            f"SELECT c.id FROM chunks AS c WHERE {where} LIMIT ?", [*params, EXACT_FILTERED + 1]
        )
    ]
    if len(ids) > EXACT_FILTERED:
        return None
    import numpy as np

    rows = list(
        select_in(conn, "SELECT rowid, embedding FROM chunks_vec WHERE rowid IN ({marks})", ids)
    )
    if not rows:
        return {}
    matrix = np.stack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
    query = np.asarray(vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = (matrix @ query) / np.where(norms > 0, norms, 1.0)
    scores = {int(i): float(c) for (i, _), c in zip(rows, cosines, strict=True)}
    best = sorted(scores, key=lambda i: (-scores[i], i))[:limit]
    return {i: scores[i] for i in best}


def filtered(conn: Connection, ids: Sequence[int], filters: Filters) -> list[int]:
    """The ids that pass the filters, in the order given."""
    if not ids:
        return []
    where, params = filters.sql("c")
    sql = "SELECT c.id FROM chunks AS c WHERE c.id IN ({marks}) AND " + where
    keep = {int(r) for (r,) in select_in(conn, sql, ids, params)}
    return [i for i in ids if i in keep]


def prefixed_rows(conn: Connection, word: str, limit: int = 200) -> int:
    """Rows (of the first `limit` holding `word` as a substring) that hold it as a word of
    its own, or behind one or two Hebrew prefix letters (בקוברנטיס holds קוברנטיס); a
    substring inside a longer word (מתי in אמתי, שנה in משנה) does not count."""
    if len(word) < 3:  # the trigram index finds nothing shorter
        return 0
    pattern = re.compile(
        rf"(?<!\w)[{HEBREW_PREFIXES}]{{0,2}}{re.escape(word)}(?!\w)", re.IGNORECASE
    )
    rows = conn.execute(
        "SELECT c.text FROM chunks_trigram AS t JOIN chunks AS c ON c.id = t.rowid "
        "WHERE chunks_trigram MATCH ? LIMIT ?",
        (quote(word), limit),
    )
    return sum(1 for (text,) in rows if pattern.search(text))


class SqliteWordCounts:
    """The SQLite index's word counts (a WordCounts: memctl.index.protocol), read from its
    own FTS5 tables, the counts kept across searches of an unchanged index."""

    exact = True

    def __init__(self, conn: Connection, counts: KeptCounts | None = None) -> None:
        self.conn = conn
        self.counts = counts

    def rows(self, plan: LexicalPlan, rows: int | None = None) -> int:
        return max(row_count(self.conn, self.counts), 1)

    def doc_freqs(self, words: list[str], cap: int | None = None) -> dict[str, int]:
        return doc_freqs(self.conn, words, cap=cap, counts=self.counts)

    def prefixed_rows(self, word: str) -> int:
        return prefixed_rows(self.conn, word)
