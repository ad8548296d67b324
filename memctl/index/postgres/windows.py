"""Window words on PostgreSQL: each chunk's words with its neighbours' in its file.

The SQLite index keeps them in a table of their own (memctl.index.window_words); here
too (`chunk_windows`, one row per chunk that has a window, keyed by the chunk's id),
built in Python from the same window text, so both backends rank the window list alike.
Not columns of `chunks`: a window changes with its neighbours, and rewriting a chunk's
row for it would add an entry to every index of `chunks`, the HNSW graph included. A
file's windows are written again whenever any chunk of the file changes; only those
that differ are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memctl.index.postgres import words
from memctl.index.window_words import has_window, window_text

FILL_BATCH = 5000  # chunks read at a time by the migration's fill


def windows(chunks: Sequence[tuple[str | None, str]]) -> list[tuple[str | None, int]]:
    """(tsvector literal, tokens) of each chunk's window, (None, 0) where it has none
    (window_words.has_window); chunks in line order as (heading, text) (pure)."""
    if not has_window(len(chunks)):
        return [(None, 0)] * len(chunks)
    rows = [(None, heading or "", text) for heading, text in chunks]
    return [words.tsvector(words.tokens(window_text(rows, i))) for i in range(len(rows))]


def write(
    conn: Any, vault: str, ids: Sequence[int], built: Sequence[tuple[str | None, int]]
) -> None:
    """Store the windows `built` of a file's chunks `ids` (all of the file's rows): rows
    whose window changed are written, those left without one removed."""
    kept = [(i, lit, n) for i, (lit, n) in zip(ids, built, strict=True) if lit is not None]
    if kept:
        conn.execute(
            "INSERT INTO chunk_windows(id, vault, window_words, window_ntokens) "
            "SELECT t.id, %s, t.w::tsvector, t.n "
            "FROM unnest(%s::bigint[], %s::text[], %s::integer[]) AS t(id, w, n) "
            "ON CONFLICT (id) DO UPDATE SET window_words = excluded.window_words, "
            "window_ntokens = excluded.window_ntokens "
            "WHERE (chunk_windows.window_words, chunk_windows.window_ntokens) "
            "IS DISTINCT FROM (excluded.window_words, excluded.window_ntokens)",
            (vault, [k[0] for k in kept], [k[1] for k in kept], [k[2] for k in kept]),
        )
    lone = [i for i, (lit, _) in zip(ids, built, strict=True) if lit is None]
    if lone:
        conn.execute("DELETE FROM chunk_windows WHERE id = ANY(%s::bigint[])", (lone,))


def fill(conn: Any) -> None:
    """Every chunk's window into an empty `chunk_windows` (an index migrated from before
    they existed) and each vault's count and total length of them: the chunks read once
    in file order, the windows sent FILL_BATCH at a time in one INSERT (at a million
    chunks, one statement per file would be ~100k round trips)."""
    with conn.transaction():  # a server-side cursor lives in a transaction
        read = conn.cursor(name="memctl_window_fill")
        read.execute(
            "SELECT id, vault, path, heading, text FROM chunks ORDER BY vault, path, line_start, id"
        )
        out: list[tuple[int, str, str, int]] = []
        file: list[tuple[Any, ...]] = []

        def done_file() -> None:
            built = windows([(r[3], r[4]) for r in file])
            out.extend(
                (r[0], r[1], lit, n)
                for r, (lit, n) in zip(file, built, strict=True)
                if lit is not None
            )
            file.clear()

        def send() -> None:
            if out:
                conn.execute(
                    "INSERT INTO chunk_windows(id, vault, window_words, window_ntokens) "
                    "SELECT t.id, t.vault, t.w::tsvector, t.n FROM unnest(%s::bigint[], "
                    "%s::text[], %s::text[], %s::integer[]) AS t(id, vault, w, n)",
                    [[o[k] for o in out] for k in range(4)],
                )
                out.clear()

        while batch := read.fetchmany(FILL_BATCH):
            for row in batch:
                if file and (row[1], row[2]) != (file[0][1], file[0][2]):
                    done_file()
                file.append(row)
            send()
        done_file()
        send()
        read.close()
    conn.execute(
        "UPDATE vault_stats AS s SET windows = coalesce(t.n, 0), "
        "window_tokens = coalesce(t.tokens, 0) FROM vault_stats AS v LEFT JOIN ("
        "SELECT vault, count(*) AS n, sum(window_ntokens) AS tokens FROM chunk_windows "
        "GROUP BY vault) AS t ON t.vault = v.vault WHERE v.vault = s.vault"
    )
