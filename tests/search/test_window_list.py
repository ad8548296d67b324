"""The window words list: each chunk ranked by the words of its window (itself and its
neighbours), kept in step with the chunks as files change."""

from __future__ import annotations

from pathlib import Path

from memctl.index.sqlite import lexical as cand
from memctl.index.sqlite.window_list import window_candidates
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters
from memctl.vault import Vault
from tests.search.conftest import NOW

LOG = """# Log

## Q1

Caroline: what did you paint for the exhibition?

## A1

Melanie: a sunset over the lake, in oils.

## Other

Unrelated: groceries and the bus timetable.

## Far

Unrelated: the lake house roof leaks.
"""


def windows(store: Store) -> int:
    return int(store.conn.execute("SELECT count(*) FROM windows_fts").fetchone()[0])


def windowed(store: Store) -> int:
    """Chunks that have a window: those of files with more than one chunk (a lone chunk's
    window would be itself, ranking its words twice)."""
    row = store.conn.execute(
        "SELECT coalesce(sum(n), 0) FROM (SELECT count(*) AS n FROM chunks GROUP BY path) "
        "WHERE n > 1"
    ).fetchone()
    return int(row[0])


def test_a_reply_is_found_by_its_question_words(vault: Vault) -> None:
    note = Path(vault.root) / "memory" / "archive" / "log.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(LOG, encoding="utf-8")
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        plan = cand.plan_lexical(store.conn, parse_query("painting exhibition"), 0.5)
        alone = cand.fts_candidates(store.conn, plan, Filters(), 10)
        found = window_candidates(store.conn, plan, Filters(), 10)
        heading = {r.id: r.heading for r in store.chunks_by_ids([*found, *alone])}
        # A1 (the reply) lacks the question's word; its window holds Q1's.
        assert sorted(heading[c] for c in alone) == ["Log > Q1"]
        # Other's window (A1, Other, Far) does not reach Q1.
        assert sorted(heading[c] for c in found) == ["Log > A1", "Log > Q1"]
        assert windows(store) == windowed(store) > 0


def test_windows_follow_their_file(vault: Vault) -> None:
    note = Path(vault.root) / "memory" / "archive" / "log.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(LOG, encoding="utf-8")
    sync(vault, embed=False, now=NOW)
    note.write_text(LOG.replace("exhibition", "gallery"), encoding="utf-8")
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        assert windows(store) == windowed(store) > 0
        # The table keeps no text: a file's old rows go with the text they were built from.
        for word, count in (("exhibition", 0), ("gallery", 2), ("lake", 4)):
            hits = store.conn.execute(
                "SELECT count(*) FROM windows_fts WHERE windows_fts MATCH ?", (word,)
            )
            assert hits.fetchone()[0] == count, word
    note.unlink()
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        assert windows(store) == windowed(store)
