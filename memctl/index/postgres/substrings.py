"""The substring candidate list on PostgreSQL: how each lookup runs, and its rows' scores.

Unranked lookups of the query's words in the chunks' texts (all words together, then
each), as SQLite's trigram list does them; each runs as a scan of the table or through
the trigram index as memctl estimates the substring's share of the rows (`scanned`), not
the planner. The rows are scored by the SQLite backend's own code.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memctl.lexical.parse import Query
from memctl.lexical.plan import Filters, LexicalPlan
from memctl.lexical.substrings import ChunkWords, chunk_words, words_score
from memctl.lexical.vocab import fold

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore

WORDS_SHARE = 0.002  # a word of the all-words lookup in more rows: its trigrams
SCAN_ROWS = 2000  # a substring lookup expected to stop within this many rows scans the table
WORDS_SCAN_ROWS = 6000  # the same, when each row's words are tested before its text
KEPT_WORDS = 50_000  # chunks whose words a store keeps for the substring list's scores
_TOKEN = re.compile(r"[^\W_]+")  # one token of the index (words.tokens)


def _like(word: str) -> str:
    return "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def filter_arguments(filters: Filters, vaults: list[str] | None) -> list[Any]:
    """A search's filters as the arguments of the lists' SQL functions (vaults, tier,
    source, since, until: what substring_functions.FILTERS tests)."""
    return [
        vaults,
        filters.tier,
        filters.source,
        filters.since.isoformat() if filters.since else None,
        filters.until.isoformat() if filters.until else None,
    ]


def unheld(store: PgStore, lookups: list[str]) -> set[str]:
    """The lookups no word of the vocabulary (`lexemes`: every indexed token) holds: their
    substring lookups would find no row, so they are not run (migration 4).

    Only a word of word characters whose lowercase is its folded form can be answered so:
    every text ILIKE finds it in then holds it inside one token (split on what is not a
    word character), and that token, folded, holds it. Others (identifiers with `.`
    or `_`, words with diacritics) are looked up as before. A word found in the
    vocabulary stays found (it is never emptied), so it is asked once per store."""
    asked = {w: fold(w) for w in lookups if _answerable(w)}
    unknown = sorted(set(asked.values()) - store.held_substrings)
    if not unknown:
        return set()
    if len(store.held_substrings) > KEPT_WORDS:
        store.held_substrings.clear()
    patterns = {_like(f): f for f in unknown}
    for (pattern,) in store.conn.execute(
        "SELECT * FROM memctl_held_substrings(%s::text[])", (list(patterns),)
    ).fetchall():
        store.held_substrings.add(patterns[pattern])
    return {w for w, f in asked.items() if f not in store.held_substrings}


def through_words(word: str, share: float, alone: bool) -> bool:
    """Whether a lookup may find `word`'s rows through the words' index, from the words of
    the vocabulary that hold it (`memctl_substrings_held`): a word it can answer for, of
    two trigrams or more; in a lookup of several words (`alone` False), only a word in
    under WORDS_SHARE of the rows by the statistics.

    Each of a word's trigrams' posting lists holds every row holding the word, and its
    holders' lists those rows and hardly more: for a longer word they are the smaller
    read, common words too. A three-letter word's one trigram list is exactly its rows,
    and its holders' lists (5-15 of them at 1M) only add reads. In the all-words lookup
    the words' lists are intersected: a rare word's list alone narrows it enough (the
    rows are tested with ILIKE), and a common word's would add a long read. Replayed at
    1M over the bench's substring statements: 1,182 ms in all (the old share rule) ->
    994 with the words' index for every longer word -> 964 with this rule (docs/lab/scale-rounds.md,
    the seventh round)."""
    return len(word) >= 4 and _answerable(word) and (alone or share < WORDS_SHARE)


def _answerable(word: str) -> bool:
    return has_trigram(word) and fold(word) == word.lower() and _TOKEN.fullmatch(word) is not None


# A lookup's rows as the lists read them (kind, id, score 0, text); `{}`: the lookup's kind.
_SELECT = "SELECT '{}' AS kind, c.id, 0::float8 AS score, c.text FROM chunks AS c WHERE "
# The index whatever the planner would guess (substring_functions.py: memctl_substrings).
# Through the words' index where the vocabulary allows (migration 4), else as above.
_INDEXED = (
    "SELECT '{}' AS kind, s.id, 0::float8 AS score, s.text FROM memctl_substrings_held("
    "%s::text[], %s::text[], %s::boolean[], %s::text[], %s::text, %s::text, %s::text, "
    "%s::text, %s::integer) AS s"
)
_BY_SCAN = _INDEXED.replace("memctl_substrings_held(", "memctl_substrings_scanned(").replace(
    "%s::boolean[], ", ""
)


def statement(
    query: Query,
    plan: LexicalPlan,
    lookups: list[str],
    searched: tuple[Filters, list[str] | None],
    where: str,
    params: list[Any],
    limit: int,
    share: Callable[[str], float],
    unheld: AbstractSet[str] = frozenset(),
) -> tuple[str, list[Any]]:
    """Unranked substring lookups (all words together, then each), as the SQLite list.

    Each lookup is a scan of the table or goes through the trigram index, as memctl
    decides from the substring's `share` of the rows (`scanned`), not the planner. A
    lookup of an `unheld` word (no row holds it) is left out, and so is the all-words
    lookup when it holds one: their rows are none."""
    dropped = set(plan.dropped)
    usable = [w for w in lookups if len(w) >= 3]
    coordinate = [w for w in usable if w not in dropped]
    if unheld & set(coordinate):
        coordinate = []
    usable = [w for w in usable if w not in unheld]
    filters, vaults = searched
    lookup = _Lookup(where, params, filter_arguments(filters, vaults), limit, share)
    parts: list[str] = []
    args: list[Any] = []
    head, gate = "", ""
    if len(coordinate) > 1:
        sql, more = lookup.of("all", coordinate, "")
        head = f"WITH every AS MATERIALIZED ({sql}) "
        args += more
        parts.append("SELECT * FROM every")
        # As SQLite: no single-word lookups when the all-words lookup alone fills the list
        # (a condition on no row: PostgreSQL checks it once and skips the lookups).
        gate = "(SELECT count(*) FROM every) < %s"
    for word in usable:
        sql, more = lookup.of("one", [word], gate)
        parts.append(f"({sql})")
        args += more
    for day in query.dates:
        parts.append(f"({_SELECT.format('dated')} c.date = %s AND {where} LIMIT %s)")
        args += [day, *params, lookup.per_word]
    if not parts:
        return (
            "SELECT 'one' AS kind, 0::bigint AS id, 0::float8 AS score, ''::text AS text WHERE false",
            [],
        )
    return head + " UNION ALL ".join(parts), args


@dataclass
class _Lookup:
    """How one search's substring lookups are written: its filters as SQL (`where`,
    `params`) and as the SQL functions' arguments, the list's length, each word's share."""

    where: str
    params: list[Any]
    function_filters: list[Any]
    limit: int
    share: Callable[[str], float]

    @property
    def per_word(self) -> int:
        """The most rows one lookup brings."""
        return self.limit * 2

    def of(self, kind: str, words: list[str], gate: str) -> tuple[str, list[Any]]:
        """One lookup of `words` (every one in a row), run only while `gate` holds: by a
        scan that tests each row's words first, by the planner's choice, or through the
        trigram index (substring_functions.py)."""
        gate_args: list[Any] = [self.limit] if gate else []
        # Words the vocabulary answers for: a scan tests each row's words first (~1 µs a
        # row against ILIKE's ~5-15), so it pays off further down (substring_functions.py).
        tested = all(map(_answerable, words))
        scan = scanned(
            [self.share(w) for w in words],
            self.per_word,
            WORDS_SCAN_ROWS if tested else SCAN_ROWS,
        )
        if scan and tested:
            return (
                f"{_BY_SCAN.format(kind)}{' WHERE ' + gate if gate else ''}",
                [
                    [_like(w) for w in words],
                    [_like(fold(w)) for w in words],
                    *self.function_filters,
                    self.per_word,
                    *gate_args,
                ],
            )
        if scan or not all(map(has_trigram, words)):
            # An expression the trigram index does not serve: the planner scans. A word
            # with no trigram (no three letters or digits in a row) would have the index
            # read whole: the planner chooses (a scan).
            column = "(c.text || '')" if scan else "c.text"
            every = " AND ".join(f"{column} ILIKE %s" for _ in words)
            return (
                f"{_SELECT.format(kind)} {gate + ' AND ' if gate else ''}{every} "
                f"AND {self.where} LIMIT %s",
                [*gate_args, *(_like(w) for w in words), *self.params, self.per_word],
            )
        return self._through_index(kind, words, gate, gate_args)

    def _through_index(
        self, kind: str, words: list[str], gate: str, gate_args: list[Any]
    ) -> tuple[str, list[Any]]:
        """A lookup through the trigram index, each word through its holders in the
        vocabulary where that narrows the rows (through_words)."""
        # A word that does not narrow the rows through the words' index is tested on
        # each row's words before its text (migration 8). ILIKE ALL stops at the first
        # pattern a row lacks, and nearly every row found through a word's holders holds
        # it: the other words go first (~7 µs a row saved at 1M; the same rows).
        narrows = {w: through_words(w, self.share(w), len(words) == 1) for w in words}
        words = sorted(words, key=lambda w: narrows[w])
        return (
            f"{_INDEXED.format(kind)}{' WHERE ' + gate if gate else ''}",
            [
                [_like(w) for w in words],
                [_like(fold(w)) if len(w) >= 4 and _answerable(w) else None for w in words],
                [narrows[w] for w in words],
                *self.function_filters,
                self.per_word,
                *gate_args,
            ],
        )


def has_trigram(word: str) -> bool:
    """Whether pg_trgm finds a trigram in `%word%`: three letters or digits in a row."""
    run = 0
    for ch in word:
        run = run + 1 if ch.isalnum() else 0
        if run >= 3:
            return True
    return False


def scanned(shares: list[float], per_word: int, rows: int = SCAN_ROWS) -> bool:
    """Whether a lookup of substrings in these shares of the rows (independent, so the
    rows holding all are their product) scans the table rather than reads its trigrams.

    A GIN lookup reads the whole posting lists of the words' trigrams before its LIMIT
    applies; a scan of the table in its physical order, which is also the order the
    index's bitmap returns rows in (the same rows either way), stops at the LIMIT: after
    ~per_word / share rows, at ~5-15 µs a row (ILIKE lowercases each row's text). At 1M
    rows (140 words of the bench's queries, each looked up both ways) the scan was the
    faster for every word whose estimate put that under ~2,000 rows and the index for all
    but one above it: 0.6-30 ms against 13-570 ms for the common words' posting lists,
    2-20 ms against 20-2,000 ms for the rarer words' scans. A scan that tests each row's
    words first (WORDS_SCAN_ROWS) stops within `rows` rows as cheaply as the index reads
    a word in ~1% of the rows: at 1M, a word in 26,556 rows took 2.4-2.8 ms so against
    13-26 through the words' index and 14 by ILIKE alone."""
    joint = math.prod(shares)
    return joint > 0 and per_word / joint <= rows


def shares(store: PgStore, plan: LexicalPlan, rows: int) -> Callable[[str], float]:
    """The share of the table's rows a scan for a substring finds (the searched vaults'
    `rows` among every vault's): at least its word's own rows there (counted for the plan)
    and at least those of the common words holding it (the whole table's statistics,
    taken to hold alike in every vault)."""
    table_rows = store.table_rows()
    searched = min(1.0, rows / table_rows) if table_rows else 0.0

    def share(word: str) -> float:
        folded = fold(word)
        count = plan.doc_freqs.get(word) or plan.doc_freqs.get(folded) or 0
        own = count / table_rows if table_rows else 0.0
        return max(own, store.substring_share(folded) * searched)

    return share


def hits(rows: Sequence[Sequence[Any]]) -> dict[str, list[tuple[int, str]]]:
    """The substring list's rows (kind, id, score, then `lists.with_texts`' record columns,
    the text fifth) as `score` takes them: each lookup's (id, text) pairs, in order."""
    found: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        found.setdefault(row[0], []).append((int(row[1]), row[7]))
    return found


def score(
    query: Query,
    lookups: list[str],
    hits: dict[str, list[tuple[int, str]]],
    limit: int,
    kept: dict[int, ChunkWords],
) -> dict[int, float]:
    """SQLite's scores of the rows found (the lookups' own order is irrelevant). `kept`:
    each chunk's words by id, from earlier searches (a row's text never changes: an
    edited chunk is a new row)."""
    ids: dict[int, None] = {}
    coordinate = hits.get("all", [])
    found = [coordinate]
    ids.update((i, None) for i, _ in coordinate)
    # SQLite stops after the all-words lookup when it alone fills the list.
    if not (coordinate and len(ids) >= limit):
        found.append(hits.get("one", []))
    found.append(hits.get("dated", []))
    for rows in found[1:]:
        ids.update((i, None) for i, _ in rows)
    if not ids:
        return {}
    if len(kept) > KEPT_WORDS:
        kept.clear()
    for rows in found:
        for i, text in rows:
            if i not in kept:
                kept[i] = chunk_words(text)
    dated = {i for i, _ in hits.get("dated", [])}
    targets = [w.lower() for w in lookups if w not in query.dates]
    scored = {i: words_score(targets, kept[i]) + (1.0 if i in dated else 0.0) for i in ids}
    best = sorted(scored, key=lambda i: -scored[i])[:limit]
    return {i: scored[i] for i in best if scored[i] > 0}
