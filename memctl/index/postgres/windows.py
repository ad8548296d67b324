"""Window words on PostgreSQL: each chunk's words with its neighbours' in its file.

The SQLite index keeps them in a table of their own (memctl.index.window_words); here
they are two columns of the chunk's row (`window_words`, `window_ntokens`), built in
Python from the same window text, so both backends rank the window list alike. A
chunk's window changes with its neighbours, so a file's rows are given their windows
whenever any chunk of the file changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memctl.index.postgres import words
from memctl.index.window_words import has_window, window_text


def windows(chunks: Sequence[tuple[str | None, str]]) -> list[tuple[str | None, int]]:
    """(tsvector literal, tokens) of each chunk's window, (None, 0) where it has none
    (window_words.has_window); chunks in line order as (heading, text) (pure)."""
    if not has_window(len(chunks)):
        return [(None, 0)] * len(chunks)
    rows = [(None, heading or "", text) for heading, text in chunks]
    return [words.tsvector(words.tokens(window_text(rows, i))) for i in range(len(rows))]


def rewrite_file(conn: Any, vault: str, path: str) -> None:
    """Give a file's current rows their windows (`fill` recounts the vault's)."""
    rows = conn.execute(
        "SELECT id, heading, text FROM chunks WHERE vault = %s AND path = %s "
        "ORDER BY line_start, id",
        (vault, path),
    ).fetchall()
    built = windows([(heading, text) for _, heading, text in rows])
    if rows:
        with conn.cursor() as cur:
            cur.executemany(
                "UPDATE chunks SET window_words = %s::tsvector, window_ntokens = %s WHERE id = %s",
                [(lit, n, row[0]) for row, (lit, n) in zip(rows, built, strict=True)],
            )


def fill(conn: Any) -> None:
    """Every file's windows and each vault's count and total length of them (an index
    migrated from before they existed)."""
    files = conn.execute("SELECT DISTINCT vault, path FROM chunks").fetchall()
    for vault, path in files:
        rewrite_file(conn, vault, path)
    conn.execute(
        "UPDATE vault_stats AS s SET (windows, window_tokens) = (SELECT "
        "count(c.window_words), coalesce(sum(c.window_ntokens), 0) FROM chunks AS c "
        "WHERE c.vault = s.vault)"
    )
