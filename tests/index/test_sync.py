"""Incremental lexical sync: what changes, what stays, and bad input (no model needed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.errors import LockBusy
from memctl.index import store as store_module
from memctl.index.status import index_status
from memctl.index.store import Store
from memctl.index.sync import ensure_fresh, sync
from memctl.vault import Vault
from tests.index.conftest import fts_paths, write

DAILY = "memory/daily/2026-11-20.md"


def test_words_and_trigram_find_all_three_languages(notes_vault: Vault) -> None:
    report = sync(notes_vault, embed=False)
    assert DAILY in report.changed and report.pending_embeddings == report.chunks_total > 0
    assert fts_paths(notes_vault, "DNS") == [DAILY]
    assert fts_paths(notes_vault, "провайдеру") == [DAILY]
    assert fts_paths(notes_vault, "נחסמה") == [DAILY]
    # Trigram: a Hebrew word behind a prefix letter (בבית) and a substring of a Russian word.
    assert fts_paths(notes_vault, '"בית"', "chunks_trigram") == [DAILY]
    assert fts_paths(notes_vault, '"айдер"', "chunks_trigram") == [DAILY]
    assert fts_paths(notes_vault, "Заметки") == ["memory/decisions.md"]


def test_unchanged_vault_reads_nothing(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False)
    again = sync(notes_vault, embed=False)
    assert again.changed == [] and again.removed == [] and again.chunks_written == 0
    assert again.files_unchanged == again.files_seen == 3


def test_edit_delete_and_touch(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False)
    daily = notes_vault.root / DAILY
    daily.write_text(daily.read_text(encoding="utf-8") + "- 11:00 новая строка kiwi\n")
    os.utime(notes_vault.decisions_path)  # touched, same bytes
    report = sync(notes_vault, embed=False)
    assert report.changed == [DAILY]
    assert fts_paths(notes_vault, "kiwi") == [DAILY]
    daily.unlink()
    report = sync(notes_vault, embed=False)
    assert report.removed == [DAILY] and fts_paths(notes_vault, "kiwi") == []
    with Store.open(notes_vault) as store:
        assert DAILY not in store.file_states()
        _fts_integrity(store)


def test_only_tier_files_under_memory_are_indexed(vault: Vault) -> None:
    write(vault.root / "README.md", "outside words zebra\n")
    write(vault.root / "memory" / "notes" / "x.md", "not a tier zebra\n")
    write(vault.root / "memory" / "archive" / ".hidden.md", "hidden zebra\n")
    write(vault.root / "memory" / "archive" / "2026-01-02.md", "archived zebra\n")
    sync(vault, embed=False)
    assert fts_paths(vault, "zebra") == ["memory/archive/2026-01-02.md"]


def test_bad_input_warns_and_keeps_going(vault: Vault, tmp_path: Path) -> None:
    archive = vault.archive_dir
    (archive / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (archive / "latin1.md").write_bytes("caf\xe9 olive\n".encode("latin-1"))
    outside = tmp_path / "secret.md"
    outside.write_text("leaked secret words\n", encoding="utf-8")
    (archive / "link.md").symlink_to(outside)
    inside = archive / "inside-link.md"
    inside.symlink_to(vault.core_path)
    report = sync(vault, embed=False)
    text = "\n".join(report.warnings)
    assert "binary.md: skipped" in text
    assert "latin1.md: not valid UTF-8" in text
    assert "link.md: skipped, it is a link that leaves the vault" in text
    assert "inside-link.md" not in text
    assert fts_paths(vault, "olive") == ["memory/archive/latin1.md"]
    assert fts_paths(vault, "leaked") == []
    with Store.open(vault) as store:
        [latin] = store.conn.execute(
            "SELECT text FROM chunks WHERE path = 'memory/archive/latin1.md'"
        ).fetchone()
    assert "\ufffd" in latin
    # A binary file is remembered, so the next run neither re-reads nor re-warns.
    assert sync(vault, embed=False).warnings == [w for w in report.warnings if "link" in w]


def test_large_file_indexes_the_first_part(vault: Vault) -> None:
    (vault.root / ".memctl.toml").write_text("[embed]\nmax_file_bytes = 2000\n")
    big = vault.archive_dir / "big.md"
    lines = [f"line {i} alpha" for i in range(400)]
    lines[5] = "early marker mango"
    lines[390] = "late marker papaya"
    big.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = sync(Vault(vault.root), embed=False)
    assert any("big.md: larger than" in w for w in report.warnings)
    assert fts_paths(vault, "mango") == ["memory/archive/big.md"]
    assert fts_paths(vault, "papaya") == []


def test_unreadable_file_is_skipped_and_keeps_its_old_rows(
    notes_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    sync(notes_vault, embed=False)
    daily = notes_vault.root / DAILY
    daily.write_text("- 12:00 changed text papaya\n", encoding="utf-8")
    real_open = Path.open

    def guarded(self: Path, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        if self.name == "2026-11-20.md":
            raise PermissionError(13, "Permission denied")
        return real_open(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", guarded)
    report = sync(notes_vault, embed=False)
    assert any("cannot read it (Permission denied)" in w for w in report.warnings)
    assert fts_paths(notes_vault, "DNS") == [DAILY]  # previous rows kept, not dropped
    monkeypatch.setattr(Path, "open", real_open)
    assert sync(notes_vault, embed=False).changed == [DAILY]
    assert fts_paths(notes_vault, "papaya") == [DAILY]


def test_a_failure_mid_batch_leaves_the_previous_index(
    notes_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    sync(notes_vault, embed=False)
    (notes_vault.root / DAILY).write_text("- 12:00 first new text kiwi\n", encoding="utf-8")
    notes_vault.decisions_path.write_text("## 2026-11-05 — second new text\n", encoding="utf-8")
    real = Store.replace_file
    calls = []

    def failing(self: Store, path: str, **kwargs: object) -> int:
        calls.append(path)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(self, path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "replace_file", failing)
    with pytest.raises(RuntimeError):
        sync(notes_vault, embed=False)
    assert fts_paths(notes_vault, "kiwi") == []
    assert fts_paths(notes_vault, "DNS") == [DAILY]
    monkeypatch.setattr(Store, "replace_file", real)
    assert sorted(sync(notes_vault, embed=False).changed) == sorted([DAILY, "memory/decisions.md"])


def test_second_indexer_waits_briefly_then_gives_up(notes_vault: Vault, runner: CliRunner) -> None:
    with notes_vault.lock("index", timeout=1):
        with pytest.raises(LockBusy, match="index lock"):
            sync(notes_vault, embed=False, wait=0.05)
        assert ensure_fresh(notes_vault).skipped == "another memctl process is indexing"
    assert ensure_fresh(notes_vault).skipped is None
    assert fts_paths(notes_vault, "DNS") == [DAILY]


def test_full_rebuild_swaps_content_under_an_open_reader(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False)
    live = store_module.index_path(notes_vault)
    query = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'DNS'"
    with Store.open(notes_vault) as reader:  # a long-lived reader, like an MCP server
        assert reader.conn.execute(query).fetchone()[0] == 1
        (notes_vault.root / DAILY).unlink()
        report = sync(notes_vault, embed=False, full=True)
        assert report.full and DAILY not in report.changed
        assert reader.conn.execute(query).fetchone()[0] == 0
        assert reader.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert not live.with_name("index.db.rebuild").exists()
    assert fts_paths(notes_vault, "DNS") == []
    assert fts_paths(notes_vault, "Заметки") == ["memory/decisions.md"]
    with Store.open(notes_vault) as store:
        _fts_integrity(store)
        assert store.counts()["chunks"] == report.chunks_total


def test_full_rebuild_keeps_the_schema_and_the_fts_triggers(notes_vault: Vault) -> None:
    # The rebuild fills FTS5 in one pass with its insert trigger dropped (rebuild.py):
    # the trigger must be back, word for word, so later syncs keep FTS5 in step.
    schema = "SELECT type, name, sql FROM main.sqlite_master ORDER BY name"
    sync(notes_vault, embed=False)
    with Store.open(notes_vault) as store:
        before = store.conn.execute(schema).fetchall()
    sync(notes_vault, embed=False, full=True)
    with Store.open(notes_vault) as store:
        assert store.conn.execute(schema).fetchall() == before
        _fts_integrity(store)
    write(notes_vault.archive_dir / "2026-01-02.md", "zebrafish colony notes\n")
    sync(notes_vault, embed=False)
    assert fts_paths(notes_vault, "zebrafish") == ["memory/archive/2026-01-02.md"]
    assert fts_paths(notes_vault, "DNS") == [DAILY]
    with Store.open(notes_vault) as store:
        _fts_integrity(store)


def test_failed_rebuild_keeps_the_live_index(
    notes_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    sync(notes_vault, embed=False)
    monkeypatch.setattr(
        Store, "mark_synced", lambda self, now: (_ for _ in ()).throw(OSError(28, "No space"))
    )
    with pytest.raises(OSError):
        sync(notes_vault, embed=False, full=True)
    assert not store_module.index_path(notes_vault).with_name("index.db.rebuild").exists()
    assert fts_paths(notes_vault, "DNS") == [DAILY]


def test_status_counts_tiers_staleness_and_pending(notes_vault: Vault) -> None:
    assert index_status(notes_vault).to_dict() == {"exists": False}
    sync(notes_vault, embed=False)
    write(notes_vault.archive_dir / "2026-01-01.md", "cold words\n")
    status = index_status(notes_vault).to_dict()
    assert status["exists"] is True and status["path"] == ".memctl/index.db"
    assert status["files"] == 3 and status["stale_files"] == 1
    assert status["chunks_by_tier"]["cold"] == 0 and status["chunks_by_tier"]["warm"] > 0
    assert status["chunks"] == sum(status["chunks_by_tier"].values())
    assert status["pending_embeddings"] == status["chunks"]
    assert status["model"] == "intfloat/multilingual-e5-small-q4"
    assert status["last_sync"]


def test_status_kept_counts_follow_every_commit(
    notes_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long-lived process keeps an unchanged index's counts (memctl ui's dashboard), and
    any commit to the index, by a sync here or elsewhere, shows at the next status."""
    from memctl.index import status as status_module

    sync(notes_vault, embed=False)
    with Store.open(notes_vault):  # a connection held open, as the warm Searcher's: the WAL stays
        first = index_status(notes_vault)
        asked: list[int] = []
        real = Store.counts

        def counting(self: Store) -> object:
            asked.append(1)
            return real(self)

        monkeypatch.setattr(Store, "counts", counting)
        assert index_status(notes_vault) == first and asked == []  # kept: not counted again
        write(notes_vault.archive_dir / "2026-01-01.md", "cold words\n")
        assert index_status(notes_vault).stale_files == 1  # the walk is never kept
        sync(notes_vault, embed=False)
        after = index_status(notes_vault)
        assert asked == [1] and after.chunks_by_tier["cold"] == 1
        assert after.chunks == first.chunks + 1 and after.stale_files == 0
        assert index_status(notes_vault) == after and asked == [1]  # kept again
        status_module.forget_kept()  # as a new process: the next status counts
        assert index_status(notes_vault) == after and asked == [1, 1]
    assert status_module._kept


def test_cli_index_json_and_warnings_on_stderr(notes_vault: Vault, runner: CliRunner) -> None:
    (notes_vault.archive_dir / "binary.md").write_bytes(b"\x00\x00")
    result = runner.invoke(app, ["--vault", str(notes_vault.root), "index", "--no-embed", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert DAILY in data["changed"] and data["pending_embeddings"] > 0
    assert "binary.md: skipped" in result.stderr
    status = runner.invoke(app, ["--vault", str(notes_vault.root), "status", "--json"])
    assert json.loads(status.stdout)["index"]["chunks"] == data["chunks_total"]


def test_cli_busy_lock_is_a_one_line_error(notes_vault: Vault, runner: CliRunner) -> None:
    with notes_vault.lock("index", timeout=1):
        result = runner.invoke(
            app, ["--vault", str(notes_vault.root), "index", "--no-embed", "--wait", "0"]
        )
    assert result.exit_code == 3
    assert "another memctl process holds the index lock" in result.stderr
    assert "Traceback" not in result.output


def _fts_integrity(store: Store) -> None:
    """Both FTS indexes agree with `chunks` row for row (SQLite raises if not)."""
    for table in ("chunks_fts", "chunks_trigram"):
        store.conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")


def test_ensure_fresh_writes_nothing_when_nothing_changed(notes_vault: Vault) -> None:
    from datetime import datetime

    sync(notes_vault, embed=False, now=datetime(2026, 11, 20, 8, 0))
    assert ensure_fresh(notes_vault, now=datetime(2026, 11, 21)).changed == []
    assert index_status(notes_vault).last_sync == "2026-11-20T08:00:00"
    (notes_vault.root / DAILY).write_text("- 14:00 fig\n", encoding="utf-8")
    assert ensure_fresh(notes_vault, now=datetime(2026, 11, 22)).changed == [DAILY]
    assert index_status(notes_vault).last_sync == "2026-11-22T00:00:00"
