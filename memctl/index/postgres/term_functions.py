"""The PostgreSQL functions that read a BM25 term's rows (migration 6).

A term's rows come through its GIN index as a bitmap of every row that holds it, read in
the table's order up to the term's cap (bm25.py: RANK_PER_TERM). For a word in tens of
thousands of rows the bitmap is most of the list's time: one entry per heap page, and
the entries sorted before the first row is read (~1.7 ms of a term's ~5 at 1M). With
less memory the bitmap keeps whole ranges of pages instead (lossy), so there is almost
nothing to sort; its pages are still read in the table's order and each row on them
tested, so the first rows that hold the word are the same rows. work_mem is the only
handle on a bitmap's size, and it also sizes every sort and hash of a statement (small,
it sends the list's own sort to disk, and makes the counts test every row of a lossy
page): set here, it holds for these lookups alone.
"""

from __future__ import annotations

from typing import Any

import psycopg

from memctl.index.postgres.substring_functions import FILTERS

# ~4,000 pages kept exact: a word in fewer rows gains nothing from a lossy bitmap, and
# testing every row of its pages costs more than sorting them (at 1M, over the bench's
# 200 queries, the window list's mean CPU 64kB 4.79 ms, 256kB 4.45, 1MB 5.28).
BITMAP_MEMORY = "256kB"

_FILTERED = "tier IS NOT NULL OR source IS NOT NULL OR since IS NOT NULL OR until IS NOT NULL"


def term_rows(conn: psycopg.Connection[Any], dim: int) -> None:
    """`memctl_term_rows` (chunks) and `memctl_window_term_rows` (their windows): the first
    `lim` rows (all with NULL) holding `tsq` that pass the filters, with their words."""
    # A generic plan, planned once per connection (the term is never known to it).
    settings = (
        f"SET work_mem = '{BITMAP_MEMORY}' SET enable_seqscan = off "
        "SET plan_cache_mode = force_generic_plan"
    )
    args = "tsq tsquery, lim integer, vaults text[], tier text, source text, since text, until text"
    conn.execute(
        f"""
CREATE OR REPLACE FUNCTION memctl_term_rows({args})
RETURNS TABLE(id bigint, words tsvector, ntokens integer) LANGUAGE plpgsql STABLE {settings}
AS $fn$
#variable_conflict use_variable
BEGIN
  RETURN QUERY SELECT c.id, c.words, c.ntokens FROM chunks AS c
  WHERE c.words @@ tsq AND {FILTERS} LIMIT lim;
END
$fn$"""
    )
    # A window's own vault column serves the vault filter; the other filters are its
    # chunk's, looked up only when one is given.
    conn.execute(
        f"""
CREATE OR REPLACE FUNCTION memctl_window_term_rows({args})
RETURNS TABLE(id bigint, words tsvector, ntokens integer) LANGUAGE plpgsql STABLE {settings}
AS $fn$
#variable_conflict use_variable
BEGIN
  RETURN QUERY SELECT w.id, w.window_words, w.window_ntokens FROM chunk_windows AS w
  WHERE w.window_words @@ tsq AND (vaults IS NULL OR w.vault = ANY(vaults))
  AND (NOT ({_FILTERED}) OR EXISTS (SELECT 1 FROM chunks AS c WHERE c.id = w.id AND {FILTERS}))
  LIMIT lim;
END
$fn$"""
    )


# Settings a scan of the windows needs, restored when the function returns: the table is
# read from its first page (a synchronized scan may start in the middle), by one process.
_SCAN = "SET synchronize_seqscans = off SET max_parallel_workers_per_gather = 0"


def scanned_window_terms(conn: psycopg.Connection[Any], dim: int) -> None:
    """`memctl_window_term_rows` with `scan`: a term's first rows read by a scan of the
    windows in the table's order, not through the GIN index (migration 9).

    A term capped at `lim` rows is read through its whole posting list first, lossy bitmap
    or not (~8 ms for a word in 44k of 1M windows); a scan that tests each window's words
    (a binary search of its tsvector) stops at the `lim`-th, after ~lim / share rows: the
    cheaper for a word in more than ~4% of the rows (bm25.py: SCAN_WINDOWS). The same
    rows in the same order: the bitmap's pages are read in the table's order, each page's
    rows in their order, as the scan reads them. A row updated within its page (HOT: no
    indexed column changed) would be met elsewhere in it; a window's row is rewritten
    when its words change (windows.write), an indexed column, so in practice never. Not
    for the chunks, whose rows are updated so (their usage and embedding columns)."""
    conn.execute(
        "DROP FUNCTION memctl_window_term_rows(tsquery, integer, text[], text, text, text, text)"
    )
    args = (
        "tsq tsquery, lim integer, scan boolean, vaults text[], tier text, source text, "
        "since text, until text"
    )
    rows = (
        "SELECT w.id, w.window_words, w.window_ntokens FROM chunk_windows AS w "
        "WHERE w.window_words @@ tsq AND (vaults IS NULL OR w.vault = ANY(vaults)) "
        f"AND (NOT ({_FILTERED}) OR EXISTS (SELECT 1 FROM chunks AS c WHERE c.id = w.id "
        f"AND {FILTERS})) LIMIT lim"
    )
    conn.execute(
        f"""
CREATE OR REPLACE FUNCTION memctl_window_term_rows({args})
RETURNS TABLE(id bigint, words tsvector, ntokens integer) LANGUAGE plpgsql STABLE
SET work_mem = '{BITMAP_MEMORY}' SET enable_seqscan = off SET enable_bitmapscan = on
SET plan_cache_mode = force_generic_plan {_SCAN}
AS $fn$
#variable_conflict use_variable
BEGIN
  IF scan THEN
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'off', true);
    RETURN QUERY {rows};
  ELSE
    RETURN QUERY {rows};
  END IF;
END
$fn$"""
    )
