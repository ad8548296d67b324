"""The three candidate lists computed in PostgreSQL, beside the data.

The document counts the lexical plan needs (every form and prefix in one statement), and
the three lists (BM25 over the GIN-indexed tsvector, substring lookups through the pg_trgm
GIN index, nearest neighbours through HNSW), each bringing its rows' chunk records: in one
statement, or from a searcher's second search on, at once on side connections (lists.py),
the nearest neighbours from before the counts. The plan, the trigram scoring and everything
after the lists (fusion, scoring, snippets) are the SQLite backend's own code, so both rank
alike. PgCandidates (candidates.py) calls candidate_lists; the words lists' BM25 statement
is bm25.py's, the substring list's substrings.py's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg

from memctl.errors import UsageError
from memctl.index.postgres import bm25, crossing_keys, substrings, words
from memctl.index.postgres.counts import WordCounter
from memctl.index.postgres.lists import (
    Lists,
    Statement,
    record_of,
    records_by_ids,
    with_records,
    with_texts,
)
from memctl.lexical import lexicon
from memctl.lexical import plan as cand
from memctl.lexical import substrings as substring_list
from memctl.lexical.parse import Query
from memctl.lexical.plan import Filters, LexicalPlan
from memctl.lexical.typos import nearest_word
from memctl.lexical.vocab import fold

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore
    from memctl.index.usage import ChunkRecord

# The window list's rows: a window's own vault column serves the vault filter; the other
# filters (tier, source, dates) are the chunk's, joined only when one is asked for.
WINDOWS = "chunk_windows AS w"
WINDOWS_JOINED = "chunk_windows AS w JOIN chunks AS c ON c.id = w.id"


def scope_vaults(store: PgStore, scope: Sequence[str]) -> list[str] | None:
    """None for the whole team, else the vault names searched."""
    if not scope:
        return [store.vault_name]
    if "*" in scope:
        return None
    return list(dict.fromkeys(scope))


def _where(
    filters: Filters, vaults: list[str] | None, vault_of: str = "c"
) -> tuple[str, list[Any]]:
    """The filters as SQL on `chunks AS c`, the vault's column on `vault_of` (`w`, the
    window list's `chunk_windows`, which then joins `chunks` only for the other filters)."""
    parts = [f"{vault_of}.vault = ANY(%s)"] if vaults is not None else []
    params: list[Any] = [vaults] if vaults is not None else []
    for column, value in (
        ("tier", filters.tier),
        ("source", filters.source),
        ("date >=", filters.since.isoformat() if filters.since else None),
        ("date <=", filters.until.isoformat() if filters.until else None),
    ):
        if value is not None:
            op = "" if " " in column else " ="
            parts.append(f"c.{column}{op} %s")
            params.append(value)
    return (" AND ".join(parts) or "true"), params


def candidate_lists(
    store: PgStore,
    query: Query,
    filters: Filters,
    limit: int,
    wanted: Sequence[str],
    get_vector: Callable[[], Any],
    notices: list[str],
    common_fraction: float,
) -> tuple[LexicalPlan, dict[str, dict[int, float]]]:
    """The lexical plan and the lists `wanted`, each list's statement handed to one runner
    (lists.py) as soon as what it needs is known, their rows read together at the end."""
    vaults = _searched_vaults(store, filters)
    rows, mean_length = store.stats(vaults)
    where, params = _where(filters, vaults)
    # The same filters as arguments of the lists' SQL functions (term_functions.py).
    function_filters = substrings.filter_arguments(filters, vaults)
    cap = max(int(rows * common_fraction), cand.COMMON_MIN_ROWS)
    scope = _Scope(store, filters, vaults, where, params, function_filters, limit, cap)
    lists: dict[str, dict[int, float]] = {}
    run = store.list_runner()
    run.decode = _decoded
    if "vector" in wanted:
        # First: it needs no word counts, so on a side connection it runs beside them.
        _add_vector(scope, run, get_vector, notices, lists)
    plan, counter = _planned(scope, query, rows)
    trigram_words = substring_list.trigram_words(query, plan)
    groups = bm25.word_groups(query, plan)
    scored = None
    if "trigram" in wanted:
        scored = _add_trigram(scope, run, query, plan, trigram_words, rows)
    if "fts" in wanted:
        lists["fts"] = {}
    if "window" in wanted:
        lists["window"] = {}
        _add_window(scope, run, plan, groups)
    if "fts" in wanted:
        sql, sql_args = bm25.statement(
            plan, groups, counter, rows, mean_length, where, params, function_filters, limit
        )
        if sql:
            run.run_here(_records(store, sql, sql_args))
    found = _read_rows(run, lists)
    records = found.records
    if scored is not None:
        lists["trigram"], hit_records = scored()
        # A chunk in another list keeps the record that list brought.
        records = hit_records | records
    elif "trigram" in wanted:
        lists["trigram"] = substrings.score(
            query, trigram_words, substrings.hits(found.hits), limit, store.chunk_words
        )
    store.prefetched(records)
    return plan, lists


@dataclass
class _Scope:
    """What every list of one search shares: the store, the vaults searched, the filters as
    SQL, the lists' length and the rows past which a word is common (the plan's cap)."""

    store: PgStore
    filters: Filters
    vaults: list[str] | None
    where: str  # the filters on `chunks AS c` (_where)
    params: list[Any]
    function_filters: list[Any]  # the same filters as the lists' SQL functions' arguments
    limit: int
    cap: int

    @property
    def vault_only(self) -> bool:
        """Filtered on its vaults alone: the counts kept by the writers serve it."""
        return all(v is None for v in self.function_filters[1:])


def _planned(scope: _Scope, query: Query, rows: int) -> tuple[LexicalPlan, WordCounter]:
    """The lexical plan (memctl.lexical.plan, as SQLite's) over this server's word counts,
    every form and prefix counted in one statement; the counter, which the words list's
    BM25 reads again."""
    store = scope.store
    counter = WordCounter(
        store,
        scope.where,
        scope.params,
        scope.cap,
        rows,
        kept=("c", scope.vaults) if scope.vault_only else None,
    )
    forms = [f for t in query.content_terms for f in t.forms()]
    counter.prefetch(forms, [t.stem for t in query.content_terms if t.stem])
    plan = cand.build_plan(
        query,
        scope.cap,
        df=counter.words,
        stem_df=counter.prefix,
        correct=lambda word: _correct(store, word),
        is_common=lexicon.is_common,
        exact_df=lambda forms: counter.words(forms, exact=True),
        cross=lambda word: crossing_keys.crossed(store, fold(word), scope.vaults),
    )
    return plan, counter


def _searched_vaults(store: PgStore, filters: Filters) -> list[str] | None:
    """The vaults a search reads (None: the whole team); a vault the shared index does not
    hold is the user's mistake, said in one line."""
    vaults = scope_vaults(store, filters.scope)
    if vaults is not None and set(vaults) - {store.vault_name}:
        unknown = sorted(set(vaults) - set(store.vaults()) - {store.vault_name})
        if unknown:
            raise UsageError(f"no vault named {', '.join(unknown)} in the shared index")
    return vaults


def _add_vector(
    scope: _Scope,
    run: Lists,
    get_vector: Callable[[], Any],
    notices: list[str],
    lists: dict[str, dict[int, float]],
) -> None:
    """The nearest neighbours by HNSW, when the vaults searched hold vectors at all."""
    store = scope.store
    if not store.has_vectors(scope.vaults):
        notices.append("no embeddings yet: answered from keyword search only")
        return
    qvec = get_vector()
    run.add(
        _records(
            store,
            "SELECT 'vector', c.id, 1 - (c.embedding <=> %s) FROM chunks AS c "
            f"WHERE c.embedding IS NOT NULL AND {scope.where} "
            f"ORDER BY c.embedding <=> %s LIMIT {int(scope.limit)}",
            [qvec, *scope.params, qvec],
        )
    )
    lists["vector"] = {}


def _add_trigram(
    scope: _Scope,
    run: Lists,
    query: Query,
    plan: LexicalPlan,
    trigram_words: list[str],
    rows: int,
) -> Callable[[], tuple[dict[int, float], dict[int, ChunkRecord]]] | None:
    """The substring list's statement (substrings.py); what scores its hits with their
    records, or None when its rows come among the other lists' (scored by the caller)."""
    store, limit = scope.store, scope.limit
    share = substrings.shares(store, plan, rows)
    unheld = substrings.unheld(store, trigram_words)
    sql, sql_args = substrings.statement(
        query,
        plan,
        trigram_words,
        (scope.filters, scope.vaults),
        scope.where,
        scope.params,
        limit,
        share,
        unheld,
    )

    def scored_hits(
        conn: psycopg.Connection[Any], found: list[tuple[Any, ...]]
    ) -> tuple[dict[int, float], dict[int, ChunkRecord]]:
        # The records of the ids kept too (the list brings only texts): read here, no
        # round trip of their own after the lists (~0.7 ms at 1M).
        scores = substrings.score(
            query, trigram_words, substrings.hits(found), limit, store.chunk_words
        )
        return scores, records_by_ids(conn, store.vault_name, list(scores))

    # Scored on a side connection's thread as its rows arrive, while the other lists
    # run (None: it runs with them, its rows among theirs, scored below).
    return run.add_read(with_texts((sql, sql_args)), scored_hits)


def _add_window(scope: _Scope, run: Lists, plan: LexicalPlan, groups: list[list[str]]) -> None:
    """BM25 over the chunks' windows (bm25.py), as a job of its own connection."""
    store, vaults = scope.store, scope.vaults
    # As SQLite: no window list for a query of words found everywhere.
    count, length = store.window_stats(vaults)
    if plan.all_common or not count:
        return
    wwhere, wparams = _where(scope.filters, vaults, "w")
    table = WINDOWS_JOINED if "c." in wwhere else WINDOWS
    windows = WordCounter(
        store,
        *(wwhere, wparams, scope.cap, count, "window_words", table),
        kept=("w", vaults) if scope.vault_only else None,
    )
    phrase_words = [w for p in plan.phrases for w in words.tokens(p)]
    table_rows = store.table_rows()  # on this connection, before the job starts

    def window_list(conn: psycopg.Connection[Any]) -> Statement | None:
        # Its counts on the connection that runs it, so neither waits for the
        # words list on this one (~5-35 ms a search for the rarer words at 1M).
        windows.conn = conn
        # Every count its BM25 needs in one round trip, not one per prefix.
        windows.prefetch([*plan.forms, *phrase_words], list(plan.prefixes))
        sql, sql_args = bm25.statement(
            plan,
            groups,
            windows,
            count,
            length,
            wwhere,
            wparams,
            scope.function_filters,
            scope.limit,
            table_rows,
        )
        return _records(store, sql, sql_args) if sql else None

    run.add_job(window_list)


@dataclass
class _Rows:
    """The runner's rows once every list has run: the chunk records the recorded lists
    brought, and the substring hits left for the caller to score (their rows as they are)."""

    records: dict[int, ChunkRecord]
    hits: list[tuple[Any, ...]]


def _read_rows(run: Lists, lists: dict[str, dict[int, float]]) -> _Rows:
    """Every list's rows into `lists` (each list of _RECORDED named there already)."""
    rows = _Rows({}, [])
    for row in run.rows():
        name = row[0]
        if name in _RECORDED:
            _, cid, score, record = row
            rows.records[cid] = record
            lists[name][cid] = score
        else:
            rows.hits.append(row)
    return rows


_RECORDED = ("fts", "vector", "window")  # the lists whose rows bring their chunk records


def _decoded(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A list's row as candidate_lists reads it: (kind, id, score, record) for a list in
    _RECORDED (`lists.with_records`' columns); a substring hit's row as it is."""
    if row[0] in _RECORDED:
        return (row[0], int(row[1]), float(row[2]), record_of((row[1], *row[3:])))
    return row


def _records(store: PgStore, sql: str, args: list[Any]) -> Statement:
    return with_records((sql, args), store.vault_name)


def _correct(store: PgStore, word: str) -> str | None:
    """The nearest word of the shared vocabulary with the same first letter (as SQLite)."""
    folded = fold(word)
    rows = store.conn.execute(
        "SELECT word FROM lexemes WHERE word >= %s AND word < %s AND abs(length(word) - %s) <= 2"
        " ORDER BY word",  # code point order ("C"): nearest_word's own, so its sort only checks
        (folded[0], folded[0] + "\U0010ffff", len(folded)),
    ).fetchall()
    return nearest_word(folded, (w for (w,) in rows))
