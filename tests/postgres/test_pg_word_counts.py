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
