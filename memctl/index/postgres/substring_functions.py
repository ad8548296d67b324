"""The PostgreSQL functions of the substring lookups (migrations 2, 4 and 5).

Each is a statement memctl chooses between (substrings.py): through the trigram index,
through the vocabulary's holders of a word, or a scan of the table testing a row's words
before its text. They live in the database so their plans and settings travel with them.
"""

from __future__ import annotations

from typing import Any

import psycopg

FILTERS = (
    "(vaults IS NULL OR c.vault = ANY(vaults)) AND (tier IS NULL OR c.tier = tier) "
    "AND (source IS NULL OR c.source = source) AND (since IS NULL OR c.date >= since) "
    "AND (until IS NULL OR c.date <= until)"
)


def substring_lookup(conn: psycopg.Connection[Any], dim: int) -> None:
    """`memctl_substrings`: rows whose text holds every pattern (ILIKE), through the trigram
    index, the first `lim` in the table's order.

    The planner prices ILIKE far below its cost (it lowercases each row's text: ~5-15 µs
    a row at 1M chunks) and estimates a substring's share of the rows from a sample, so it
    scanned the table for words in well under 1% of the rows (17k rows, 71 ms, where the
    index took a few). Here plain scans are off for these statements alone: the bitmap
    over the trigram index returns rows in the table's order and stops at the LIMIT, so
    the rows are those a scan returns. memctl scans, outside this function, for a
    substring its statistics put in enough rows (substrings.py: scanned)."""
    # Static statements, so each connection plans each once (a generic plan: with plain
    # scans off the trigram index is the only way, whatever the patterns); one per number
    # of patterns, since the index serves `ILIKE x AND ILIKE y` but not ILIKE ALL(array).
    # Past four patterns the rest are checked on the rows the first four find.
    branches = []
    for n in (1, 2, 3, 4):
        every = " AND ".join(f"c.text ILIKE patterns[{i}]" for i in range(1, n + 1))
        rest = " AND c.text ILIKE ALL(patterns[5:])" if n == 4 else ""
        test = f"cardinality(patterns) = {n}" if n < 4 else "true"
        branches.append(
            f"  {'IF' if n == 1 else 'ELSIF'} {test} THEN RETURN QUERY SELECT c.id, c.text "
            f"FROM chunks AS c WHERE {every}{rest} AND {FILTERS} LIMIT lim;"
        )
    conn.execute(
        """
CREATE OR REPLACE FUNCTION memctl_substrings(
  patterns text[], vaults text[], tier text, source text, since text, until text, lim integer)
RETURNS TABLE(id bigint, text text) LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_indexscan = off SET plan_cache_mode = force_generic_plan
AS $fn$
#variable_conflict use_variable
BEGIN
"""
        + "\n".join(branches)
        + """
  END IF;
END
$fn$"""
    )


HOLDERS = 100  # words of the vocabulary a lookup through the words' index may stand for
# A word of the vocabulary as a tsquery lexeme (quotes doubled, backslashes escaped).
_LEXEME = r"'''' || replace(replace(h.word, '\', '\\'), '''', '''''') || ''''"
# A plpgsql loop over the words of `folded`: returns no rows when one has no holder in the
# vocabulary, else ANDs into `every` the tsquery of each word's holders (when at most HOLDERS).
_EVERY_HOLDER = f"""  FOREACH p IN ARRAY folded LOOP
    CONTINUE WHEN p IS NULL;
    SELECT count(*), string_agg({_LEXEME}, ' | ') INTO n, q
      FROM (SELECT l.word FROM lexemes AS l WHERE l.word LIKE p LIMIT {HOLDERS + 1}) AS h;
    IF n = 0 THEN
      RETURN;
    END IF;
    IF n <= {HOLDERS} THEN
      every := CASE WHEN every IS NULL THEN q::tsquery ELSE every && q::tsquery END;
    END IF;
  END LOOP;
"""


def _holders_function(name: str, settings: str, then: str) -> str:
    """A lookup function of the substring patterns and the words in them (`folded`): the
    holders loop first, `then` with `every` (NULL when no word narrowed the rows)."""
    return f"""
CREATE OR REPLACE FUNCTION {name}(
  patterns text[], folded text[], vaults text[], tier text, source text, since text,
  until text, lim integer)
RETURNS TABLE(id bigint, text text) LANGUAGE plpgsql STABLE
{settings}
AS $fn$
#variable_conflict use_variable
DECLARE
  p text; n integer; q text; every tsquery;
BEGIN
{_EVERY_HOLDER}{then}END
$fn$"""


def held_substrings(conn: psycopg.Connection[Any], dim: int) -> None:
    """A trigram index on the vocabulary (`lexemes`), `memctl_held_substrings` (which of
    some LIKE patterns a word of the vocabulary holds) and `memctl_substrings_held`: the
    rows `memctl_substrings` returns, found through the words' index where it can.

    A substring lookup through the chunks' trigram index reads the posting list of each
    of the substring's trigrams before its LIMIT applies: at 1M chunks a typo whose
    trigrams are all common (`clasimnpnu`) read ~1M rows' worth of them to find nothing
    (60-120 ms), and a rare word's lookup reads several lists of thousands of rows. But a
    word of word characters (`folded`: the LIKE pattern of its folded form, NULL for any
    other pattern) can only be held inside one token of a text, and every token is in the
    vocabulary: the words of the vocabulary that hold it (through its own small trigram
    index), looked up in the chunks' words index, give every row that can hold it. None:
    no row holds it. Up to HOLDERS of them for each such pattern: the rows holding one
    of each pattern's words (the words index intersects them, as the trigram index does
    the patterns' trigrams), tested with ILIKE as before, in the table's order (a bitmap
    scan, as through the trigram index), so the same first `lim` rows. Plain scans off
    as in `memctl_substrings`."""
    conn.execute(
        """
CREATE INDEX lexemes_trigram ON lexemes USING gin (word gin_trgm_ops);
CREATE OR REPLACE FUNCTION memctl_held_substrings(patterns text[]) RETURNS SETOF text
LANGUAGE sql STABLE SET enable_seqscan = off
AS $fn$ SELECT p FROM unnest(patterns) AS p WHERE EXISTS (SELECT 1 FROM lexemes AS l WHERE l.word LIKE p) $fn$
"""
    )
    conn.execute(
        _holders_function(
            "memctl_substrings_held",
            "SET enable_seqscan = off SET enable_indexscan = off SET plan_cache_mode = force_generic_plan",
            f"""  IF every IS NULL THEN
    RETURN QUERY SELECT s.id, s.text
      FROM memctl_substrings(patterns, vaults, tier, source, since, until, lim) AS s;
  ELSE
    RETURN QUERY SELECT c.id, c.text FROM chunks AS c WHERE c.words @@ every
      AND c.text ILIKE ALL(patterns) AND {FILTERS} LIMIT lim;
  END IF;
""",
        )
    )


def scanned_substrings(conn: psycopg.Connection[Any], dim: int) -> None:
    """`memctl_substrings_scanned`: the rows a scan of the table finds for some patterns
    (the first `lim` in the table's order whose text holds every one), each row's words
    tested before its text.

    memctl scans for a substring common enough that a scan stops within a few thousand
    rows (substrings.py). ILIKE lowercases each text it tests (~5-15 µs a row at 1M
    chunks); a row's words (a binary search of its tsvector per word) cost ~1 µs. A word
    of word characters (`folded`, as in `memctl_substrings_held`) is only ever held inside
    one token of a text, so a row holding it has one of the word's holders among its
    words: that test goes first and ILIKE runs on the rows that pass it, the same rows in
    the same order. Without such a word (or with one of more than HOLDERS holders) it is
    the plain scan. The holders are found through the vocabulary's trigram index (plain
    scans off), the rows by a scan of the table (index reads off): settings the function
    restores when it returns."""
    conn.execute(
        _holders_function(
            "memctl_substrings_scanned",
            "SET enable_seqscan = off SET enable_bitmapscan = on SET enable_indexscan = off\n"
            "SET plan_cache_mode = force_generic_plan",
            f"""  PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_bitmapscan', 'off', true);
  IF every IS NULL THEN
    RETURN QUERY SELECT c.id, c.text FROM chunks AS c WHERE c.text ILIKE ALL(patterns)
      AND {FILTERS} LIMIT lim;
  ELSE
    RETURN QUERY SELECT c.id, c.text FROM chunks AS c WHERE c.words @@ every
      AND c.text ILIKE ALL(patterns) AND {FILTERS} LIMIT lim;
  END IF;
""",
        )
    )


def tested_substrings(conn: psycopg.Connection[Any], dim: int) -> None:
    """`memctl_substrings_held` with `narrow`: which of the words (`folded`) find the rows
    through the words' index; the others' holders are tested on each row's words, before
    its text, rather than left to ILIKE (migration 8).

    A lookup of a rare word and a common one finds its rows through the rare word's
    holders alone (reading the common word's long posting lists would cost more:
    substrings.py, `through_words`), then ran ILIKE for every pattern on each of those
    rows (~5-15 µs a row at 1M; ~16 ms for `ggdr zxqkloqihm`). A row holding the common
    word has one of its holders among its words (a binary search of its tsvector, ~1 µs),
    so that test goes first: the same rows in the same order. Kept out of the index's
    conditions (OFFSET 0: the planner would add the common word's lists to the bitmap)."""
    conn.execute(
        "DROP FUNCTION memctl_substrings_held(text[], text[], text[], text, text, text, text, "
        "integer)"
    )
    conn.execute(
        f"""
CREATE OR REPLACE FUNCTION memctl_substrings_held(
  patterns text[], folded text[], narrow boolean[], vaults text[], tier text, source text,
  since text, until text, lim integer)
RETURNS TABLE(id bigint, text text) LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_indexscan = off SET plan_cache_mode = force_generic_plan
AS $fn$
#variable_conflict use_variable
DECLARE
  p text; i integer := 0; n integer; q text; every tsquery; tested tsquery;
BEGIN
  FOREACH p IN ARRAY folded LOOP
    i := i + 1;
    CONTINUE WHEN p IS NULL;
    SELECT count(*), string_agg({_LEXEME}, ' | ') INTO n, q
      FROM (SELECT l.word FROM lexemes AS l WHERE l.word LIKE p LIMIT {HOLDERS + 1}) AS h;
    IF n = 0 THEN
      RETURN;
    END IF;
    IF n <= {HOLDERS} AND narrow[i] THEN
      every := CASE WHEN every IS NULL THEN q::tsquery ELSE every && q::tsquery END;
    ELSIF n <= {HOLDERS} THEN
      tested := CASE WHEN tested IS NULL THEN q::tsquery ELSE tested && q::tsquery END;
    END IF;
  END LOOP;
  IF every IS NULL THEN
    RETURN QUERY SELECT s.id, s.text
      FROM memctl_substrings(patterns, vaults, tier, source, since, until, lim) AS s;
  ELSE
    RETURN QUERY SELECT r.id, r.text FROM (SELECT c.id, c.text, c.words FROM chunks AS c
      WHERE c.words @@ every AND {FILTERS} OFFSET 0) AS r
      WHERE (tested IS NULL OR r.words @@ tested) AND r.text ILIKE ALL(patterns) LIMIT lim;
  END IF;
END
$fn$"""
    )
