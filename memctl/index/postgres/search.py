"""The three candidate lists computed in PostgreSQL, beside the data.

The document counts the lexical plan needs (every form and prefix in one statement), and
the three lists (BM25 over the GIN-indexed tsvector, substring lookups through the pg_trgm
GIN index, nearest neighbours through HNSW), each bringing its rows' chunk records: in one
statement, or from a searcher's second search on, at once on side connections (lists.py),
the nearest neighbours from before the counts. The plan, the trigram scoring and everything
after the lists (fusion, scoring, snippets) are the SQLite backend's own code, so both rank
alike.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql as pgsql
from rapidfuzz import fuzz, process

from memctl.errors import UsageError
from memctl.index.postgres import substrings, words
from memctl.index.postgres.counts import WordCounter
from memctl.index.postgres.lists import (
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
from memctl.lexical.plan import Candidates, Filters, LexicalPlan
from memctl.lexical.vocab import fold

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore
    from memctl.index.usage import ChunkRecord

# FTS5's BM25 constants, so scores are on the SQLite backend's scale.
K1 = 1.2
B = 0.75
RANK_PER_TERM = 150
PREFIX_WORDS = 64  # the most words a query's prefixes are expanded into (_prefix_kept)
# A capped window term expected to fill its rows within this many rows of the table is read
# by a scan (migration 9). At 1M, a term's 150 rows: 44-52k windows (4-5%) 5.1-5.6 ms by
# scan against 7.9-9.1 by the index, 30-37k (3-4%) even, 12-14k 15-20 ms against 4.6-4.7.
SCAN_WINDOWS = 4000
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


class PgCandidates:
    """A shared server's CandidateSource (memctl.index.protocol): the lists computed in
    SQL beside the data; nothing is kept between searches but the store's own caches."""

    fresh = True
    matrix = None  # no vectors held in memory: the reranker reads windows' vectors in SQL

    def __init__(self, store: PgStore, embed: Callable[[str], Any]) -> None:
        self.store = store
        self._embed = embed

    def close(self) -> None:
        pass

    def rows(self) -> int:
        """This vault's chunk count for the reranker's IDF: its statistics row, as BM25
        reads it, not a count of the rows (~150 ms at 100k)."""
        rows, _ = self.store.stats([self.store.vault_name])
        return max(int(rows), 1)

    # Another machine may rewrite a file under a kept Searcher, unseen: its chunks are
    # read each search. Round trips are what cost: the snippets' context is read ahead.
    keeps_reads = False
    reads_ahead = True

    def data_version(self) -> tuple[int, int] | None:
        return None

    def word_counts(self) -> PlanWordCounts:
        return PlanWordCounts()

    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        return {r.id: r for r in self.store.chunks_by_ids(ids)}

    def vector_first(
        self,
        query: str,
        parsed: Query,
        reads: tuple[str, ...],
        filters: Filters,
        vector: Any,
        limit: int,
    ) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def lists(
        self,
        query: str,
        parsed: Query,
        filters: Filters,
        wanted: tuple[str, ...],
        vector: Any,
        notices: list[str],
        limit: int,
        common_fraction: float,
        first: Any = None,
    ) -> Candidates:
        started = time.perf_counter()
        # The store asks for the vector only when it builds the vector list; the
        # reranker's window cosines need the same one, as on SQLite.
        asked: list[Any] = []

        def query_vector() -> Any:
            if not asked:
                asked.append(vector if vector is not None else self._embed(query))
            return asked[0]

        plan, shared = candidate_lists(
            self.store, parsed, filters, limit, wanted, query_vector, notices, common_fraction
        )
        return Candidates(plan, shared, started, asked[0] if asked else None)


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
    vaults = scope_vaults(store, filters.scope)
    if vaults is not None and set(vaults) - {store.vault_name}:
        unknown = sorted(set(vaults) - set(store.vaults()) - {store.vault_name})
        if unknown:
            raise UsageError(f"no vault named {', '.join(unknown)} in the shared index")
    rows, mean_length = store.stats(vaults)
    cap = max(int(rows * common_fraction), cand.COMMON_MIN_ROWS)
    where, params = _where(filters, vaults)
    # The same filters as arguments of the lists' SQL functions (term_functions.py).
    function_filters = substrings.filter_arguments(filters, vaults)
    lists: dict[str, dict[int, float]] = {}
    scored: Callable[[], tuple[dict[int, float], dict[int, ChunkRecord]]] | None = None
    run = store.list_runner()
    run.decode = _decoded
    if "vector" in wanted:
        # First: it needs no word counts, so on a side connection it runs beside them.
        if store.has_vectors(vaults):
            qvec = get_vector()
            run.add(
                _records(
                    store,
                    "SELECT 'vector', c.id, 1 - (c.embedding <=> %s) FROM chunks AS c "
                    f"WHERE c.embedding IS NOT NULL AND {where} "
                    f"ORDER BY c.embedding <=> %s LIMIT {int(limit)}",
                    [qvec, *params, qvec],
                )
            )
            lists["vector"] = {}
        else:
            notices.append("no embeddings yet: answered from keyword search only")
    # Counts kept by the writers serve a search filtered on its vaults alone.
    vault_only = all(v is None for v in function_filters[1:])
    counter = WordCounter(
        store, where, params, cap, rows, kept=("c", vaults) if vault_only else None
    )
    forms = [f for t in query.content_terms for f in t.forms()]
    counter.prefetch(forms, [t.stem for t in query.content_terms if t.stem])
    plan = cand.build_plan(
        query,
        cap,
        df=counter.words,
        stem_df=counter.prefix,
        correct=lambda word: _correct(store, word),
        is_common=lexicon.is_common,
        exact_df=lambda forms: counter.words(forms, exact=True),
    )
    trigram_words = substring_list.trigram_words(query, plan)
    groups = _word_groups(query, plan)
    if "trigram" in wanted:
        share = substrings.shares(store, plan, rows)
        unheld = substrings.unheld(store, trigram_words)
        sql, sql_args = substrings.statement(
            query, plan, trigram_words, (filters, vaults), where, params, limit, share, unheld
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
        scored = run.add_read(with_texts((sql, sql_args)), scored_hits)
    if "fts" in wanted:
        lists["fts"] = {}
    if "window" in wanted:
        lists["window"] = {}
        # As SQLite: no window list for a query of words found everywhere.
        count, length = store.window_stats(vaults)
        if not plan.all_common and count:
            wwhere, wparams = _where(filters, vaults, "w")
            table = WINDOWS_JOINED if "c." in wwhere else WINDOWS
            windows = WordCounter(
                store,
                *(wwhere, wparams, cap, count, "window_words", table),
                kept=("w", vaults) if vault_only else None,
            )
            phrase_words = [w for p in plan.phrases for w in words.tokens(p)]
            table_rows = store.table_rows()  # on this connection, before the job starts

            def window_list(conn: psycopg.Connection[Any]) -> Statement | None:
                # Its counts on the connection that runs it, so neither waits for the
                # words list on this one (~5-35 ms a search for the rarer words at 1M).
                windows.conn = conn
                # Every count its BM25 needs in one round trip, not one per prefix.
                windows.prefetch([*plan.forms, *phrase_words], list(plan.prefixes))
                sql, sql_args = _fts_sql(
                    plan,
                    groups,
                    windows,
                    count,
                    length,
                    wwhere,
                    wparams,
                    function_filters,
                    limit,
                    table_rows,
                )
                return _records(store, sql, sql_args) if sql else None

            run.add_job(window_list)
    if "fts" in wanted:
        sql, sql_args = _fts_sql(
            plan, groups, counter, rows, mean_length, where, params, function_filters, limit
        )
        if sql:
            run.run_here(_records(store, sql, sql_args))
    found: list[tuple[Any, ...]] = []
    records: dict[int, ChunkRecord] = {}
    for row in run.rows():
        name = row[0]
        if name in _RECORDED:
            _, cid, score, record = row
            records[cid] = record
            lists[name][cid] = score
        else:
            found.append(row)
    if scored is not None:
        lists["trigram"], hit_records = scored()
        # A chunk in another list keeps the record that list brought.
        records = hit_records | records
    elif "trigram" in wanted:
        lists["trigram"] = substrings.score(
            query, trigram_words, substrings.hits(found), limit, store.chunk_words
        )
    store.prefetched(records)
    return plan, lists


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
        "SELECT word FROM lexemes WHERE word >= %s AND word < %s AND abs(length(word) - %s) <= 2",
        (folded[0], folded[0] + "\U0010ffff", len(folded)),
    ).fetchall()
    best = process.extractOne(
        folded, [w for (w,) in rows], scorer=fuzz.ratio, score_cutoff=cand.TYPO_MIN_RATIO
    )
    return best[0] if best else None


def _idf(rows: int, df: int) -> float:
    """FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), floored at a tiny positive value."""
    value = math.log((rows - df + 0.5) / (df + 0.5)) if rows else 0.0
    return value if value > 0 else 1e-6


def _fts_sql(
    plan: LexicalPlan,
    groups: list[list[str]],
    counter: WordCounter,
    rows: int,
    mean_length: float,
    where: str,
    params: list[Any],
    function_filters: list[Any],
    limit: int,
    window: int | None = None,
) -> tuple[str, list[Any]]:
    """BM25 as FTS5 computes it (k1 1.2, b 0.75, one IDF per query term), in SQL: over
    the chunks' words, or with `window` (the rows of every vault's windows) over their
    windows' (the window list; `counter`, `rows` and `mean_length` then of the windows).
    `groups` (_word_groups): the query's words, for the rows that hold them all (_conjunction)."""
    kind, column, length = (
        ("window", "window_words", "window_ntokens")
        if window is not None
        else ("fts", "words", "ntokens")
    )
    table, a = counter.table, counter.alias  # `chunks AS c`, or the windows (`w`)
    tsq = words.tsquery(plan.forms, plan.prefixes, plan.phrases)
    if not tsq:
        return "", []
    terms: list[tuple[str, bool, float]] = []
    counts = counter.words(list(plan.forms))
    for form in plan.forms:
        terms.append((fold(form), False, _idf(rows, counts[form])))
    for stem in plan.prefixes:
        terms.append((fold(stem), True, _idf(rows, counter.prefix(stem))))
    phrase_words = [w for p in plan.phrases for w in words.tokens(p)]
    for word, count in counter.words(phrase_words).items():
        terms.append((word, False, _idf(rows, count)))
    if plan.all_common:
        # As with SQLite: ranking every row of words found everywhere costs too much
        # for a near-zero IDF; BM25 over the newest matches is enough. The words go in
        # as a literal: a plan that cannot see them (a prepared statement's generic plan)
        # reads every row of every word through the GIN index instead of walking the
        # newest rows back until enough match (~200 ms against ~5 at 1M).
        words_literal = pgsql.Literal(tsq).as_string()
        matched = (
            f"SELECT {a}.id, {a}.{column} AS words, {a}.{length} AS ntokens FROM {table} "
            f"WHERE {a}.{column} @@ {words_literal}::tsquery AND {where} "
            f"ORDER BY {a}.id DESC LIMIT {int(limit) * 10}"
        )
        match_args: list[Any] = [*params]
    else:
        # Every row of a rare term is ranked; a term in more than RANK_PER_TERM rows adds
        # only that many (unranked) rows. Below that this is exactly FTS5's BM25; above
        # it, ranking every row of a common word costs ~0.1 ms a row in SQL, and its
        # near-zero IDF rarely lifts such a row into the top of the fused list anyway.
        # One fixed shape whatever the query's terms (a term's tsquery and cap in two
        # arrays, not one subquery each): a connection that searches again runs it
        # prepared, without planning it anew (~1 ms a list at 1M). The planner never sees
        # a term's tsquery either way in a lateral subquery, so a term's rows come
        # through the GIN index, in the table's order, as each subquery's did.
        term_queries = _term_queries(plan, counter)
        conjunction = _conjunction(groups, term_queries)
        if conjunction:
            term_queries.append((conjunction, RANK_PER_TERM + 1))
        # Each term's rows bring their words as they are read (a row of two terms once),
        # rather than being fetched again by id (~5 us a row), through a function that
        # keeps a common word's bitmap small (term_functions.py, migration 6).
        capped = [n > RANK_PER_TERM for _, n in term_queries]
        match_args = [
            [q for q, _ in term_queries],
            # NULL (no limit) for a term ranked whole.
            [str(RANK_PER_TERM) if c else None for c in capped],
        ]
        function, scan = "memctl_term_rows(", ""
        if window is not None:
            # A capped term in enough of the windows: its rows by a scan (migration 9).
            function, scan = "memctl_window_term_rows(", "q.scan, "
            match_args.append(
                [
                    c and n * SCAN_WINDOWS >= RANK_PER_TERM * window
                    for c, (_, n) in zip(capped, term_queries, strict=True)
                ]
            )
        matched = (
            "SELECT DISTINCT ON (x.id) x.id, x.words, x.ntokens FROM unnest(%s::text[], "
            f"%s::text[]{', %s::boolean[]' if scan else ''}) AS q(tsq, cap{', scan' if scan else ''}) "
            f"CROSS JOIN LATERAL {function}q.tsq::tsquery, q.cap::integer, {scan}%s::text[], "
            "%s::text, %s::text, %s::text, %s::text) AS x"
        )
        match_args += function_filters
    # Only the query's lexemes of each row, positions kept: weighted 'A' (memctl's own
    # tsvectors carry no weights) and filtered on that weight, in C, rather than every
    # lexeme of the row unnested and joined (~5x the time).
    exact = [t[0] for t in terms if not t[1]]
    prefixes = [t[0] for t in terms if t[1]]
    kept = "%s::text[]"
    kept_args: list[Any] = [exact]
    if prefixes:
        kept, kept_args = _prefix_kept(exact, prefixes)
    sql = (
        f"SELECT '{kind}', m.id, sum(t.idf * t.tf * %s / (t.tf + %s * (1 - %s + %s * m.ntokens / %s))) "
        f"FROM ({matched}) AS m CROSS JOIN LATERAL ("
        "SELECT q.idf, sum(coalesce(array_length(u.positions, 1), 1)) AS tf "
        f"FROM unnest(ts_filter(setweight(m.words, 'A', {kept}), '{{a}}')) AS u "
        "JOIN unnest(%s::text[], %s::boolean[], %s::float8[]) "
        "AS q(lexeme, prefix, idf) ON CASE WHEN q.prefix THEN starts_with(u.lexeme, q.lexeme) "
        "ELSE u.lexeme = q.lexeme END GROUP BY q.lexeme, q.prefix, q.idf) AS t "
        f"GROUP BY m.id ORDER BY 3 DESC, m.id LIMIT {int(limit)}"
    )
    args: list[Any] = [K1 + 1, K1, B, B, max(mean_length, 1.0), *match_args, *kept_args]
    args += [[t[0] for t in terms], [t[1] for t in terms], [t[2] for t in terms]]
    return sql, args


def _prefix_kept(exact: list[str], prefixes: list[str]) -> tuple[str, list[Any]]:
    """The lexemes a row's BM25 keeps when the plan has prefixes, as SQL on `m.words`.

    A prefix's lexemes are the vocabulary's words that start with it (`lexemes`, every
    indexed token: a range of its C-ordered key, read once per statement), so each row's
    are picked by setweight's binary search in C. Picking them off the row's own lexeme
    list instead costs ~10-20 us a row (an array of all its ~100 lexemes, unnested, each
    compared); the vocabulary's way costs ~0.08 us a row for each word kept, so past
    PREFIX_WORDS words the row's own list is used again. Either way the same lexemes are
    kept and the term frequencies are the same integers. (A token of 512 bytes or more
    is not in the vocabulary: a prefix then misses it, where FTS5 would not.)"""
    vocabulary = (
        f"(SELECT CASE WHEN count(*) <= {PREFIX_WORDS} THEN coalesce(array_agg(l.word), '{{}}') END "
        "FROM unnest(%s::text[]) AS p(stem) CROSS JOIN LATERAL (SELECT word FROM lexemes "
        "WHERE word >= p.stem AND word < p.stem || chr(1114111) AND word ^@ p.stem "
        f"LIMIT {PREFIX_WORDS + 1}) AS l)"
    )
    own = "ARRAY(SELECT x FROM unnest(tsvector_to_array(m.words)) AS x WHERE x ^@ ANY(%s::text[]))"
    sql = f"%s::text[] || CASE WHEN {vocabulary} IS NULL THEN {own} ELSE {vocabulary} END"
    return sql, [exact, prefixes, prefixes, prefixes]


def _word_groups(query: Query, plan: LexicalPlan) -> list[list[str]]:
    """Per query word the plan ranks, its tsqueries as _term_queries writes them (its forms,
    its correction, its prefix); one group a word, duplicates once."""
    forms, prefixes = set(plan.forms), set(plan.prefixes)
    groups: list[list[str]] = []
    for term in query.content_terms:
        known = [f for f in plan.term_forms(term) if f in forms]
        group = [words.tsquery([f]) for f in dict.fromkeys(known)]
        if term.stem and term.stem in prefixes:
            group.append(words.tsquery([], [term.stem]))
        group = [q for q in group if q]
        if group and group not in groups:
            groups.append(group)
    return groups


def _conjunction(groups: list[list[str]], term_queries: list[tuple[str, int]]) -> str:
    """A tsquery of the rows that hold every query word through capped terms alone ('' when
    there are none to find).

    A capped term's rows are its first in the table's order, not its best, so a row that
    holds every query word is missed when each of its words is capped: in a large index
    (3.4M rows) many words are, and such a row is the one FTS5 ranks first. A row holding
    an uncapped term is ranked already: only the capped terms of each word are intersected,
    and only when every word has one. GIN intersects their posting lists itself."""
    rows = dict(term_queries)
    capped = [[q for q in g if rows.get(q, 0) > RANK_PER_TERM] for g in groups]
    if len(capped) < 2 or not all(capped):
        return ""
    return " & ".join(f"({' | '.join(g)})" for g in capped)


def _term_queries(plan: LexicalPlan, counter: WordCounter) -> list[tuple[str, int]]:
    """(tsquery, rows matching it) for every form, prefix and phrase of the plan."""
    out = [(words.tsquery([f]), n) for f, n in counter.words(list(plan.forms)).items()]
    out += [(words.tsquery([], [p]), counter.prefix(p)) for p in plan.prefixes]
    out += [(words.tsquery([], [], [p]), RANK_PER_TERM + 1) for p in plan.phrases]
    return [(q, n) for q, n in out if q]


class PlanWordCounts:
    """A shared server's word counts (a WordCounts: memctl.index.protocol): what its
    lexical plan counted, its chunk count estimated from them unless the reranker gives
    it; no word is looked up again, none judged missing."""

    exact = False

    def rows(self, plan: LexicalPlan, rows: int | None = None) -> int:
        if rows is not None:
            return rows
        return max(max(plan.doc_freqs.values(), default=0) * 10, 1000)

    def doc_freqs(self, words: list[str], cap: int | None = None) -> dict[str, int]:
        return {}

    def prefixed_rows(self, word: str) -> int:
        return 0
