"""Several writers at once (other machines: other processes, other folders) lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from memctl.index.backend import open_store
from memctl.search import search
from tests.postgres.conftest import as_clone, use_postgres
from tests.postgres.test_pg_word_counts import kept, recount
from tests.search.conftest import NOW


def write_vault(root: Path, seed: int, files: int = 40) -> None:
    archive = root / "memory" / "archive"
    archive.mkdir(parents=True)
    (root / "memory" / "core.md").write_text("# Core memory\n\n## Identity\n\n- agent\n")
    for f in range(files):
        parts = [f"# Notes {f}\n"]
        for s in range(5):
            parts.append(f"## Part {f}-{s}\n\nvault{seed} file {f} part {s} shared words here\n")
        (archive / f"n{f:03d}.md").write_text("\n".join(parts), encoding="utf-8")


def test_four_writers_at_once_leave_every_chunk_exactly_once(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two folders hold the same vault "alice" (two machines with one clone each); bob and
    # carol write beside them. Local locks are per folder, so nothing but PostgreSQL
    # keeps these four apart.
    plan = [
        ("alice-1", "alice", 1),
        ("alice-2", "alice", 1),
        ("bob", "bob", 2),
        ("carol", "carol", 3),
    ]
    vaults = {}
    for folder, name, seed in plan:
        write_vault(tmp_path / folder, seed)
        vaults[folder] = use_postgres(tmp_path / folder, name, pg_url, monkeypatch)
        as_clone(tmp_path / folder, f"https://example.com/team/{name}.git")
    env = {**os.environ, "MEMCTL_DATABASE_URL": pg_url, "HF_HUB_OFFLINE": "1"}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from memctl.cli import main; main()",
                "--vault",
                str(tmp_path / folder),
                "index",
                "--no-embed",
                # The readers below sync bob's folder before they search, under its local
                # lock; on a loaded machine that outlasted index's default 5 s wait.
                "--wait",
                "120",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder, _, _ in plan
    ]
    # Readers meanwhile: a search never fails and never sees a vault half-written file.
    for _ in range(5):
        for result in search(
            vaults["bob"], "shared words", k=5, now=NOW, log=False, mode="lexical"
        ).results:
            assert result.vault == "bob"
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT vault, path, line_start, hash FROM chunks").fetchall()
        per_vault = dict(conn.execute("SELECT vault, chunks FROM vault_stats").fetchall())
    assert len(rows) == len(set(rows))
    expected = 1 + 40 * 5  # core.md's section + five parts per file (the titles carry none)
    counted = {name: sum(1 for r in rows if r[0] == name) for name in ("alice", "bob", "carol")}
    with open_store(vaults["bob"]) as store:
        assert store.counts()["chunks"] == counted["bob"]
    assert counted == {
        "alice": counted["alice"],
        "bob": counted["alice"],
        "carol": counted["alice"],
    }
    assert counted["alice"] >= expected - 1
    assert per_vault == counted  # the BM25 statistics kept up with every writer
    with psycopg.connect(pg_url) as conn:
        # And the words' document counts (two writers of alice at once among them).
        assert kept(conn) == recount(conn)


def test_writers_of_different_vaults_never_wait_for_each_other(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one vault's sync holds its transaction open, another vault's sync of files with
    the same words (the shared vocabulary) and the same path commits without waiting."""
    from memctl.index.chunker import chunk_markdown

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    a = use_postgres(tmp_path / "a", "a", pg_url, monkeypatch)
    b = use_postgres(tmp_path / "b", "b", pg_url, monkeypatch)
    text = "# Notes\n\n## Same words\n\nshared vocabulary everywhere\n"
    chunks = chunk_markdown(text, "memory/decisions.md")
    with open_store(a) as first, open_store(b) as second:
        second.conn.execute("SET lock_timeout = '3s'")  # a wait would fail, not hang
        with first.transaction():
            first.replace_file(
                "memory/decisions.md", size=1, mtime_ns=1, digest="d", chunks=chunks, now=NOW
            )
            with second.transaction():
                second.replace_file(
                    "memory/decisions.md", size=1, mtime_ns=1, digest="d", chunks=chunks, now=NOW
                )
                second.remove_file("memory/other.md")
        assert first.counts()["chunks"] == second.counts()["chunks"] == len(chunks)
