"""BM25 in SQL as FTS5 computes it: the statement of a shared server's words list and window list.

search.py (candidate_lists) asks for one statement per words list; each ranks the rows that
hold the query's terms on SQLite's scale (k1 1.2, b 0.75, one IDF per query term), a common
term's rows capped (RANK_PER_TERM), the rows holding every query word found apart
(_conjunction).
"""

from __future__ import annotations

import math
from typing import Any

from psycopg import sql as pgsql

from memctl.index.postgres import words
from memctl.index.postgres.counts import WordCounter
from memctl.lexical.parse import Query
from memctl.lexical.plan import LexicalPlan
from memctl.lexical.vocab import fold

# FTS5's BM25 constants, so scores are on the SQLite backend's scale.
K1 = 1.2
B = 0.75
RANK_PER_TERM = 150
PREFIX_WORDS = 64  # the most words a query's prefixes are expanded into (_prefix_kept)
# A capped window term expected to fill its rows within this many rows of the table is read
# by a scan (migration 9). At 1M, a term's 150 rows: 44-52k windows (4-5%) 5.1-5.6 ms by
# scan against 7.9-9.1 by the index, 30-37k (3-4%) even, 12-14k 15-20 ms against 4.6-4.7.
SCAN_WINDOWS = 4000

Term = tuple[str, bool, float]  # a query term's lexeme, whether it is a prefix, its IDF


def statement(
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
    `groups` (word_groups): the query's words, for the rows that hold them all (_conjunction).
    ("", []) when the plan has no term to search for."""
    kind, column, length = (
        ("window", "window_words", "window_ntokens")
        if window is not None
        else ("fts", "words", "ntokens")
    )
    tsq = words.tsquery(plan.forms, plan.prefixes, plan.phrases)
    if not tsq:
        return "", []
    terms = _terms(plan, counter, rows)
    if plan.all_common:
        matched, match_args = _newest_matched(counter, column, length, tsq, where, params, limit)
    else:
        matched, match_args = _capped_matched(plan, groups, counter, function_filters, window)
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


def _terms(plan: LexicalPlan, counter: WordCounter, rows: int) -> list[Term]:
    """Every form, prefix and phrase word of the plan with its IDF over `rows`."""
    terms: list[Term] = []
    counts = counter.words(list(plan.forms))
    for form in plan.forms:
        terms.append((fold(form), False, _idf(rows, counts[form])))
    for stem in plan.prefixes:
        terms.append((fold(stem), True, _idf(rows, counter.prefix(stem))))
    phrase_words = [w for p in plan.phrases for w in words.tokens(p)]
    for word, count in counter.words(phrase_words).items():
        terms.append((word, False, _idf(rows, count)))
    return terms


def _newest_matched(
    counter: WordCounter,
    column: str,
    length: str,
    tsq: str,
    where: str,
    params: list[Any],
    limit: int,
) -> tuple[str, list[Any]]:
    """The rows a plan of words found everywhere ranks: the newest that match.

    As with SQLite: ranking every row of words found everywhere costs too much for a
    near-zero IDF; BM25 over the newest matches is enough. The words go in as a literal:
    a plan that cannot see them (a prepared statement's generic plan) reads every row of
    every word through the GIN index instead of walking the newest rows back until enough
    match (~200 ms against ~5 at 1M)."""
    table, a = counter.table, counter.alias  # `chunks AS c`, or the windows (`w`)
    words_literal = pgsql.Literal(tsq).as_string()
    matched = (
        f"SELECT {a}.id, {a}.{column} AS words, {a}.{length} AS ntokens FROM {table} "
        f"WHERE {a}.{column} @@ {words_literal}::tsquery AND {where} "
        f"ORDER BY {a}.id DESC LIMIT {int(limit) * 10}"
    )
    return matched, [*params]


def _capped_matched(
    plan: LexicalPlan,
    groups: list[list[str]],
    counter: WordCounter,
    function_filters: list[Any],
    window: int | None,
) -> tuple[str, list[Any]]:
    """The rows a plan ranks: every row of a rare term, a common term's first rows.

    Every row of a rare term is ranked; a term in more than RANK_PER_TERM rows adds only
    that many (unranked) rows. Below that this is exactly FTS5's BM25; above it, ranking
    every row of a common word costs ~0.1 ms a row in SQL, and its near-zero IDF rarely
    lifts such a row into the top of the fused list anyway. One fixed shape whatever the
    query's terms (a term's tsquery and cap in two arrays, not one subquery each): a
    connection that searches again runs it prepared, without planning it anew (~1 ms a
    list at 1M). The planner never sees a term's tsquery either way in a lateral
    subquery, so a term's rows come through the GIN index, in the table's order, as each
    subquery's did."""
    term_queries = _term_queries(plan, counter)
    conjunction = _conjunction(groups, term_queries)
    if conjunction:
        term_queries.append((conjunction, RANK_PER_TERM + 1))
    # Each term's rows bring their words as they are read (a row of two terms once),
    # rather than being fetched again by id (~5 us a row), through a function that
    # keeps a common word's bitmap small (term_functions.py, migration 6).
    capped = [n > RANK_PER_TERM for _, n in term_queries]
    match_args: list[Any] = [
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
    return matched, match_args + function_filters


def _idf(rows: int, df: int) -> float:
    """FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), floored at a tiny positive value."""
    value = math.log((rows - df + 0.5) / (df + 0.5)) if rows else 0.0
    return value if value > 0 else 1e-6


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


def word_groups(query: Query, plan: LexicalPlan) -> list[list[str]]:
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
