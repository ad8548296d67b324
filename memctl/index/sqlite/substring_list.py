"""The trigram list: an unranked substring lookup (FTS5 trigram) of the query's words,
corrected typos and identifiers, each chunk found scored in Python by how well its words
match them (rapidfuzz, memctl.lexical.substrings). PostgreSQL's substring list
(memctl.index.postgres.substrings) scores its rows with the same functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.lexical.parse import Query, quote
from memctl.lexical.plan import Filters, LexicalPlan
from memctl.lexical.substrings import (
    NO_WORDS,
    ChunkWords,
    chunk_words,
    trigram_words,
    word_score,
)
from memctl.sqlite import select_in

if TYPE_CHECKING:
    from memctl.sqlite import Connection


@dataclass
class TrigramMemory:
    """What trigram lists read from the index, kept by a Searcher while the index does not
    change (memctl.search.kept): each substring lookup's rows (the same common words
    come back query after query), each chunk's words, and each query word's score in a
    chunk (a lookup's rows come back with its word)."""

    lookups: dict[tuple[Any, ...], list[int]] = field(default_factory=dict)
    words: dict[int, ChunkWords] = field(default_factory=dict)
    scores: dict[str, dict[int, float]] = field(default_factory=dict)  # word -> chunk -> score
    scored: int = 0  # entries in scores

    def clear(self) -> None:
        self.lookups.clear()
        self.words.clear()
        self.scores.clear()
        self.scored = 0

    def size(self) -> int:
        return max(len(self.lookups), len(self.words), self.scored)


def trigram_candidates(
    conn: Connection,
    query: Query,
    plan: LexicalPlan,
    filters: Filters,
    limit: int,
    kept: TrigramMemory | None = None,
) -> dict[int, float]:
    """Chunks containing a query word as a substring (or dated as asked), scored by rapidfuzz.

    `kept` holds what earlier searches of the same index read (TrigramMemory)."""
    kept = kept or TrigramMemory()
    words = trigram_words(query, plan)
    where, params = filters.sql("c")
    ids: dict[int, None] = {}
    per_word = limit * 2
    # Chunks holding every word come first: an unranked lookup of a common substring
    # returns arbitrary rows, so coordinate matches must not depend on being among them.
    # When they alone fill the list, single-word lookups could only add weaker rows.
    # Common words stay out of it: intersecting their long trigram lists costs ~25 ms at
    # 100k rows and 100+ ms at 1M, and they barely narrow the set; rapidfuzz still
    # scores every word below.
    dropped = set(plan.dropped)
    coordinate = [w for w in words if w not in dropped]
    lookup = _Lookup(conn, where, params, per_word, kept).rows
    if len(coordinate) > 1:
        key = (" AND ".join(quote(w) for w in coordinate), where, *params, per_word)
        if key not in kept.lookups:
            held = _held_by_all(conn, coordinate, lookup, per_word, kept)
            if held is not None:
                kept.lookups[key] = held
        ids.update(dict.fromkeys(lookup(key[0])))
        if len(ids) < limit:
            for w in words:
                ids.update(dict.fromkeys(lookup(quote(w))))
    else:
        for w in words:
            ids.update(dict.fromkeys(lookup(quote(w))))
    dated = _add_dated(conn, query, where, params, per_word, ids)
    if not ids:
        return {}
    targets = [w.lower() for w in words if w not in query.dates]
    _read_words(conn, ids, kept)
    parts = _kept_scores(targets, ids, kept)
    scored = {i: parts[i] + (1.0 if i in dated else 0.0) for i in ids}
    best = sorted(scored, key=scored.__getitem__, reverse=True)[:limit]
    return {i: scored[i] for i in best if scored[i] > 0}


@dataclass
class _Lookup:
    """One search's substring lookups: each query word (or all together) in the trigram
    index, within the search's filters, its rows kept while the index does not change."""

    conn: Connection
    where: str
    params: list[Any]
    per_word: int  # the most rows one lookup brings
    kept: TrigramMemory

    def rows(self, expression: str) -> list[int]:
        """The ids of the chunks the FTS5 trigram `expression` matches, unranked."""
        # Unranked substring lookups stay cheap at 1M rows; ranking them does not.
        key = (expression, self.where, *self.params, self.per_word)
        found = self.kept.lookups.get(key)
        if found is None:
            rows = self.conn.execute(
                "SELECT t.rowid FROM chunks_trigram AS t JOIN chunks AS c ON c.id = t.rowid "
                f"WHERE chunks_trigram MATCH ? AND {self.where} LIMIT ?",
                (expression, *self.params, self.per_word),
            )
            found = self.kept.lookups[key] = [int(r) for (r,) in rows]
        return found


def _add_dated(
    conn: Connection,
    query: Query,
    where: str,
    params: list[Any],
    per_word: int,
    ids: dict[int, None],
) -> set[int]:
    """The chunks dated on a day the query names, added to `ids`; their ids."""
    dated: set[int] = set()
    for day in query.dates:
        rows = conn.execute(
            f"SELECT c.id FROM chunks AS c WHERE c.date = ? AND {where} LIMIT ?",
            (day, *params, per_word),
        )
        dated.update(int(r) for (r,) in rows)
        ids.update((i, None) for i in dated)
    return dated


def _held_by_all(
    conn: Connection,
    words: Sequence[str],
    lookup: Callable[[str], list[int]],
    per_word: int,
    kept: TrigramMemory,
) -> list[int] | None:
    """The coordinate lookup's rows (chunks holding every word), found without its MATCH
    when one word's own lookup came back whole (fewer rows than its limit: every chunk
    holding it) and every text there is ASCII: a trigram MATCH of an ASCII phrase is then
    a substring test of the lowercased text (the trigram tokenizer folds ASCII case), and
    those rows, in the lookup's order, are the coordinate lookup's. Intersecting trigram
    lists costs ~1 ms a coordinate lookup at 10k rows; the words' own lookups are asked
    next anyway (whenever fewer than `limit` chunks hold every word). None: not known so.
    """
    if not all(len(w) >= 3 and w.isascii() for w in words):
        return None
    lowered = [w.lower() for w in words]
    for word in words:
        found = lookup(quote(word))
        if len(found) >= per_word:
            continue
        texts = _read_words(conn, found, kept)
        if not all(texts[i][0].isascii() for i in found if i in texts):
            return None
        return [i for i in found if i in texts and all(w in texts[i][0] for w in lowered)]
    return None


def _read_words(conn: Connection, ids: Iterable[int], kept: TrigramMemory) -> dict[int, ChunkWords]:
    """kept.words, holding these chunks' (read when not kept)."""
    unknown = [i for i in ids if i not in kept.words]
    for i, text in _texts(conn, unknown).items():
        kept.words[i] = chunk_words(text)
    return kept.words


def _kept_scores(
    targets: Sequence[str], ids: Iterable[int], kept: TrigramMemory
) -> dict[int, float]:
    """words_score of each chunk, each word's part kept (the same sums, in the same order;
    each word's table looked up once, not a (word, chunk) key made per part)."""
    if not targets:
        return dict.fromkeys(ids, 0.0)
    tables = [(target, kept.scores.setdefault(target, {})) for target in targets]
    words, n = kept.words, len(targets)
    out: dict[int, float] = {}
    for cid in ids:
        total = 0.0
        for target, table in tables:
            part = table.get(cid)
            if part is None:
                part = table[cid] = word_score(target, words.get(cid, NO_WORDS))
                kept.scored += 1
            total += part
        out[cid] = total / n
    return out


def _texts(conn: Connection, ids: Sequence[int]) -> dict[int, str]:
    return dict(select_in(conn, "SELECT id, text FROM chunks WHERE id IN ({marks})", ids))
