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
from memctl.index.window_words import window_text


def windows(chunks: Sequence[tuple[str | None, str]]) -> list[tuple[str, int]]:
    """(tsvector literal, tokens) of each chunk's window; chunks in line order as
    (heading, text) (pure)."""
    rows = [(None, heading or "", text) for heading, text in chunks]
    return [words.tsvector(words.tokens(window_text(rows, i))) for i in range(len(rows))]


def rewrite_file(conn: Any, vault: str, path: str) -> int:
    """Give a file's current rows their windows; returns the change in the vault's total
    window length (for BM25's mean length)."""
    rows = conn.execute(
        "SELECT id, heading, text, window_ntokens FROM chunks WHERE vault = %s AND path = %s "
        "ORDER BY line_start, id",
        (vault, path),
    ).fetchall()
    built = windows([(heading, text) for _, heading, text, _ in rows])
    changed = [
        (literal, count, cid) for (cid, _, _, _), (literal, count) in zip(rows, built, strict=True)
    ]
    if changed:
        with conn.cursor() as cur:
            cur.executemany(
                "UPDATE chunks SET window_words = %s::tsvector, window_ntokens = %s "
                "WHERE id = %s AND (window_words IS DISTINCT FROM %s::tsvector "
                "OR window_ntokens <> %s)",
                [(lit, n, cid, lit, n) for lit, n, cid in changed],
            )
    return sum(n for _, n, _ in changed) - sum(int(r[3]) for r in rows)


def fill(conn: Any) -> None:
    """Every file's windows and each vault's total window length (a migrated index)."""
    files = conn.execute("SELECT DISTINCT vault, path FROM chunks").fetchall()
    for vault, path in files:
        rewrite_file(conn, vault, path)
    conn.execute(
        "UPDATE vault_stats AS s SET window_tokens = coalesce("
        "(SELECT sum(c.window_ntokens) FROM chunks AS c WHERE c.vault = s.vault), 0)"
    )
