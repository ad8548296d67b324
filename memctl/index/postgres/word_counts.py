"""Each vault's document count of every word, kept by triggers (migration 7).

BM25 needs the number of rows holding each query word. PostgreSQL's statistics estimate
the frequent ones; the others were counted row by row at search time, on the search's
own connection before its BM25 and substring lists could start (~2.5 ms of server CPU
in the costliest searches at 1M). `word_counts(kind, word, vault, rows)` holds those
counts (kind 'c': the chunks' words, 'w': their windows'), so a count is an index
lookup for one vault and a short range for the team (a sum over its vaults).

Triggers on `chunks` and `chunk_windows` keep it, so no write path can leave it behind:
statement-level, with the statement's old and new rows as transition tables, each
statement's words aggregated into one delta per (word, vault). A memctl writer's
transaction (store.py: `transaction`) sets `memctl.defer_word_counts`: the deltas then
wait in a temporary table of the session and are applied in one sorted statement at the
end, after every file lock, as the vocabulary and the vault's statistics are, so two
writers of one vault never take the same words' rows in crossing orders. Any other
writer's statement applies its own deltas at once, in sorted order. Either way the
counts commit, or roll back, with the rows they count. A row whose count drops to 0 is
kept (a lookup reads it as absent).
"""

from __future__ import annotations

from typing import Any

import psycopg

DEFER = "memctl.defer_word_counts"
DELTA_TABLE = "memctl_word_delta"
CREATE_DELTA = (
    f"CREATE TEMP TABLE IF NOT EXISTS {DELTA_TABLE}"
    '(kind "char", word text, vault text, rows bigint)'
)
FLUSH = (
    f"WITH d AS (DELETE FROM pg_temp.{DELTA_TABLE} RETURNING *) "
    "INSERT INTO word_counts(kind, word, vault, rows) "
    "SELECT kind, word, vault, sum(rows) FROM d GROUP BY 1, 2, 3 HAVING sum(rows) <> 0 "
    "ORDER BY 1, 2, 3 ON CONFLICT (kind, word, vault) "
    "DO UPDATE SET rows = word_counts.rows + excluded.rows"
)
# (kind, table, tsvector column) of each table counted.
TABLES = (("c", "chunks", "words"), ("w", "chunk_windows", "window_words"))
FILL_MEMORY = "256MB"  # the migration's aggregate of every row's words in memory


def _words(source: str, column: str, sign: int) -> str:
    return (
        f"SELECT l.word, t.vault, {sign} AS n FROM {source} AS t "
        f"CROSS JOIN unnest(tsvector_to_array(t.{column})) AS l(word)"
    )


def _function(name: str, kind: str, delta: str) -> str:
    """A trigger function applying `delta` (rows of word, vault, n), deferred or at once."""
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('{DEFER}', true) = 'on' THEN
    INSERT INTO pg_temp.{DELTA_TABLE}(kind, word, vault, rows)
    SELECT '{kind}', x.word, x.vault, x.n FROM ({delta}) AS x;
  ELSE
    INSERT INTO word_counts(kind, word, vault, rows)
    SELECT '{kind}', x.word, x.vault, x.n FROM ({delta}) AS x ORDER BY 2, 3
    ON CONFLICT (kind, word, vault) DO UPDATE SET rows = word_counts.rows + excluded.rows;
  END IF;
  RETURN NULL;
END
$fn$"""


def _grouped(*parts: str) -> str:
    union = " UNION ALL ".join(parts)
    return f"SELECT word, vault, sum(n) AS n FROM ({union}) AS u GROUP BY 1, 2 HAVING sum(n) <> 0"


def word_counts(conn: psycopg.Connection[Any], dim: int) -> None:
    """The table, filled from the rows there are, and the triggers that keep it."""
    conn.execute(
        'CREATE TABLE word_counts(kind "char" NOT NULL, word text NOT NULL, '
        "vault text NOT NULL, rows bigint NOT NULL)"
    )
    conn.execute(f"SET LOCAL work_mem = '{FILL_MEMORY}'")
    for kind, table, column in TABLES:
        conn.execute(
            "INSERT INTO word_counts(kind, word, vault, rows) "
            f"SELECT '{kind}', l.word, t.vault, count(*) FROM {table} AS t "
            f"CROSS JOIN unnest(tsvector_to_array(t.{column})) AS l(word) GROUP BY 2, 3"
        )
    conn.execute("SET LOCAL work_mem = DEFAULT")
    # Built after the fill (one sort, not a million inserts into a growing index).
    conn.execute("ALTER TABLE word_counts ADD PRIMARY KEY (kind, word, vault)")
    for kind, table, column in TABLES:
        name = f"memctl_{table}_words"
        for op, source, sign in (("insert", "new_rows", 1), ("delete", "old_rows", -1)):
            delta = _grouped(_words(source, column, sign))
            conn.execute(_function(f"{name}_{op}", kind, delta))
            rows = "NEW TABLE AS new_rows" if op == "insert" else "OLD TABLE AS old_rows"
            conn.execute(
                f"CREATE TRIGGER {name}_{op} AFTER {op.upper()} ON {table} "
                f"REFERENCING {rows} FOR EACH STATEMENT EXECUTE FUNCTION {name}_{op}()"
            )
        both = _grouped(_words("new_rows", column, 1), _words("old_rows", column, -1))
        if table == "chunk_windows":
            # A file's windows are rewritten in place whenever a neighbour changes.
            conn.execute(_function(f"{name}_update", kind, both))
            conn.execute(
                f"CREATE TRIGGER {name}_update AFTER UPDATE ON {table} "
                "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {name}_update()"
            )
        else:
            # memctl never rewrites a chunk's words (its text is in its key); this row
            # trigger covers any writer that does, and unlike a statement trigger with
            # transition tables it is not fired (nor its rows copied) by the updates
            # of other columns, such as a million vectors set after a load.
            row_delta = _grouped(
                _words(f"(SELECT NEW.vault AS vault, NEW.{column} AS {column})", column, 1),
                _words(f"(SELECT OLD.vault AS vault, OLD.{column} AS {column})", column, -1),
            )
            conn.execute(_function(f"{name}_update", kind, row_delta))
            conn.execute(
                f"CREATE TRIGGER {name}_update AFTER UPDATE OF {column}, vault ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {name}_update()"
            )
