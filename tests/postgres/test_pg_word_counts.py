"""`word_counts` (migration 7) equals a recount of the rows after every kind of write."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memctl.index.sync import sync
from tests.postgres.conftest import use_postgres
from tests.search.conftest import FIXTURE, NOW


def recount(conn: psycopg.Connection[Any]) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for kind, table, column in (("c", "chunks", "words"), ("w", "chunk_windows", "window_words")):
        for word, vault, rows in conn.execute(
            f"SELECT l.word, t.vault, count(*) FROM {table} AS t "
            f"CROSS JOIN unnest(tsvector_to_array(t.{column})) AS l(word) GROUP BY 1, 2"
        ):
            out[(kind, word, vault)] = rows
    return out


def kept(conn: psycopg.Connection[Any]) -> dict[tuple[str, str, str], int]:
    return {
        (kind, word, vault): rows
        for kind, word, vault, rows in conn.execute(
            "SELECT kind, word, vault, rows FROM word_counts WHERE rows <> 0"
        )
    }


def test_the_counts_follow_inserts_updates_deletes_moves_and_other_writers(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vaults = {}
    for name in ("erin", "frank"):
        root = tmp_path / name
        shutil.copytree(FIXTURE / "memory", root / "memory")
        vaults[name] = use_postgres(root, name, pg_url, monkeypatch)
        sync(vaults[name], embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        first = recount(conn)
        assert {k[0] for k in first} == {"c", "w"} and {k[2] for k in first} == {"erin", "frank"}
        assert kept(conn) == first
        memory = tmp_path / "erin" / "memory"
        files = sorted(p for p in memory.rglob("*.md") if p.stat().st_size > 200)
        # A file edited (a new section, a changed line: its windows rewritten in place),
        # one removed, one moved.
        edited = files[0]
        lines = edited.read_text(encoding="utf-8").splitlines()
        lines[-1] = lines[-1] + " zyxwordcount"
        edited.write_text("\n".join([*lines, "", "## Added", "", "quokka zyxwordcount"]) + "\n")
        files[1].unlink()
        files[2].rename(memory / "moved-here.md")
        use_postgres(tmp_path / "erin", "erin", pg_url, monkeypatch)
        sync(vaults["erin"], embed=False, now=NOW)
        after = recount(conn)
        assert after != first
        assert after[("c", "zyxwordcount", "erin")] == 2
        assert kept(conn) == after
        # Writers other than memctl's (no deferred deltas): each statement at once, and a
        # rolled back one leaves nothing.
        conn.execute(
            "UPDATE chunks SET words = words || 'zyxraw'::tsvector "
            "WHERE id IN (SELECT id FROM chunks WHERE vault = 'frank' ORDER BY id LIMIT 3)"
        )
        conn.execute(
            "UPDATE chunk_windows SET window_words = window_words || 'zyxraw'::tsvector "
            "WHERE id IN (SELECT id FROM chunk_windows WHERE vault = 'frank' ORDER BY id LIMIT 2)"
        )
        with pytest.raises(psycopg.errors.DivisionByZero), conn.transaction():
            conn.execute("DELETE FROM chunks WHERE vault = 'erin'")
            conn.execute("SELECT 1 / 0")
        conn.execute("DELETE FROM chunks WHERE id IN (SELECT id FROM chunks ORDER BY id LIMIT 5)")
        final = recount(conn)
        assert final[("c", "zyxraw", "frank")] == 3 and final[("w", "zyxraw", "frank")] == 2
        assert kept(conn) == final


def test_a_prefix_count_from_the_table_equals_the_rows_counted(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stem that one word of the vocabulary starts with is answered from word_counts,
    one that several start with is counted: both equal the rows that match it, for one
    vault and for the team, over the chunks and over their windows."""
    from memctl.index.backend import open_store
    from memctl.index.postgres.counts import WordCounter
    from memctl.index.postgres.search import WINDOWS, _where
    from memctl.lexical.plan import Filters

    vaults = {}
    for name in ("gina", "hank"):
        root = tmp_path / name
        shutil.copytree(FIXTURE / "memory", root / "memory")
        vaults[name] = use_postgres(root, name, pg_url, monkeypatch)
        sync(vaults[name], embed=False, now=NOW)
    # Only gina's vault holds "zyxprefone" (one word of its stem) and "zyxpreftw" starts
    # two words of the vocabulary, one of them in hank's vault alone.
    note = tmp_path / "gina" / "memory" / "archive" / "2024-01-01.md"
    note.write_text("# Zyx\n\nzyxprefone zyxpreftwa\n\nzyxprefone again\n", encoding="utf-8")
    (tmp_path / "hank" / "memory" / "archive" / "2024-01-01.md").write_text(
        "# Zyx\n\nzyxpreftwb\n", encoding="utf-8"
    )
    for name in vaults:
        sync(use_postgres(tmp_path / name, name, pg_url, monkeypatch), embed=False, now=NOW)
    stems = ["zyxprefon", "zyxpreftw", "zyxnothing", "memo", "decid", "сес", "של"]
    with open_store(vaults["gina"]) as store:
        for searched in (["gina"], ["hank"], None):
            for kind, column, table in (
                ("c", "words", "chunks AS c"),
                ("w", "window_words", WINDOWS),
            ):
                where, params = _where(Filters(), searched, "c" if kind == "c" else "w")
                counters = [
                    WordCounter(store, where, params, 10**6, 10**6, column, table, kept=kept)
                    for kept in ((kind, searched), None)
                ]
                for counter in counters:
                    counter.estimates = {}  # every stem counted or looked up, none estimated
                from_table, counted = ({s: c.prefix(s) for s in stems} for c in counters)
                assert from_table == counted, (searched, kind)
                if kind == "c" and searched == ["gina"]:
                    assert counted["zyxprefon"] >= 1 and counted["zyxpreftw"] >= 1, counted
        # In the team's vaults "zyxprefon" starts one word and comes from the table,
        # "zyxpreftw" two and is counted on the rows: a count in the table that no
        # longer matches the rows shows which.
        where, params = _where(Filters(), None, "c")

        def team(stem: str) -> int:
            counter = WordCounter(store, where, params, 10**6, 10**6, kept=("c", None))
            counter.estimates = {}
            return counter.prefix(stem)

        before = {s: team(s) for s in ("zyxprefon", "zyxpreftw")}
        assert min(before.values()) >= 1
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("UPDATE word_counts SET rows = rows + 40 WHERE word LIKE 'zyxpref%'")
        assert team("zyxprefon") == before["zyxprefon"] + 40
        assert team("zyxpreftw") == before["zyxpreftw"]
