"""Names across scripts on a shared server: the vocabulary's crossing keys (migration 11).

SQLite keeps the keys beside its cached vocabulary (memctl.lexical.vocab); here the
vocabulary is the team's `lexemes` table, so each word's keys (memctl.lexical.crossing)
are made when the word first enters it, in the writer's transaction, and kept in
`lexeme_keys`: a search looks a key up through its primary key and never keys the
vocabulary. A crossed word must occur in the vaults searched (word_counts), since the
table holds every vault's words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from memctl.index.postgres import words
from memctl.lexical import crossing, lexicon

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore

_INSERT = (
    "INSERT INTO lexeme_keys(key, script, word) "
    "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]) ORDER BY 1, 3 "
    "ON CONFLICT DO NOTHING"
)
_BATCH = 20_000  # words keyed and inserted per statement when the table is filled


def migration(conn: psycopg.Connection[Any], dim: int) -> None:
    """The table, filled with the keys of the words there are (~7 µs a word in Python)."""
    conn.execute(
        'CREATE TABLE lexeme_keys(key text COLLATE "C" NOT NULL, script text NOT NULL, '
        'word text COLLATE "C" NOT NULL, PRIMARY KEY (key, word))'
    )
    with conn.cursor(name="memctl_lexemes") as cursor:
        cursor.execute("SELECT word FROM lexemes")
        while batch := cursor.fetchmany(_BATCH):
            add_keys(conn, [word for (word,) in batch])


def add_keys(conn: psycopg.Connection[Any], new_words: Iterable[str]) -> None:
    """The keys of words new to the vocabulary (in the caller's transaction)."""
    rows = [
        (one, found[0], word)
        for word in new_words
        if (found := crossing.keyed(word)) is not None
        for one in found[1]
    ]
    if rows:
        conn.execute(_INSERT, [list(column) for column in zip(*rows, strict=True)])


def crossed(store: PgStore, word: str, vaults: Sequence[str] | None) -> list[str]:
    """The searched vaults' names spelling `word` (folded) in another script."""

    def lookup(wanted: str) -> list[tuple[str, str]]:
        rows = store.conn.execute(
            "SELECT k.script, k.word FROM lexeme_keys AS k WHERE k.key = %s AND EXISTS "
            "(SELECT 1 FROM word_counts AS w WHERE w.kind = 'c' AND w.word = k.word "
            "AND w.rows > 0 AND (%s::text[] IS NULL OR w.vault = ANY(%s::text[])))",
            (wanted, vaults, vaults),
        ).fetchall()
        return [(str(script), str(term)) for script, term in rows]

    def named(term: str) -> bool:
        return crossing.is_name(
            term, lexicon.is_common, lambda one: _capitalised(store, one, vaults)
        )

    return crossing.forms(word, lookup, named)


def _capitalised(store: PgStore, word: str, vaults: Sequence[str] | None) -> bool:
    """Whether a few chunks holding `word` write it as a name (crossing.written_as_name)."""
    rows = store.conn.execute(
        "SELECT text FROM chunks WHERE words @@ %s::tsquery "
        "AND (%s::text[] IS NULL OR vault = ANY(%s::text[])) LIMIT 5",
        (words.lexeme(word), vaults, vaults),
    ).fetchall()
    return any(crossing.written_as_name(str(text), word) for (text,) in rows)
