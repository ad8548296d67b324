"""Moves keep every memory exactly once, byte for byte, even when killed half-way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle import moves
from memctl.lifecycle.moves import (
    MoveConflict,
    cut_block,
    find_block,
    finish_pending_moves,
    move_block,
    move_file,
)
from memctl.notes import parse_decisions
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import DECISIONS, snapshot, write

OLD = datetime(2026, 9, 1, 12, 0)
BLOCK = "## 2026-09-02 — Хранить заметки в markdown\n\nЗаменено: решили хранить в git"
ARCHIVE = "memory/archive/decisions.md"


class Crash(Exception):
    pass


def count(vault: Vault, block: str) -> int:
    total = 0
    for rel in ("memory/decisions.md", ARCHIVE):
        path = vault.root / rel
        if path.exists():
            total += read_text(path).count(block)
    return total


def test_find_and_cut_block_whole_lines_only() -> None:
    text = "a\n\n- שלום עולם\n\nb\n"
    assert find_block(text, "שלום") is None
    assert cut_block(text, "- שלום עולם") == "a\n\nb\n"
    assert cut_block("a\n\n- last", "- last") == "a\n"
    assert cut_block(text, "missing") == text


@pytest.mark.parametrize("step", ["journaled", "written", "removed"])
def test_interrupted_block_move_is_finished_exactly_once(
    vault: Vault, step: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "memory/decisions.md", DECISIONS)

    def crash(at: str) -> None:
        if at == step:
            raise Crash(at)

    monkeypatch.setattr(moves, "FAULT", crash)
    with pytest.raises(Crash):
        move_block(
            vault, "memory/decisions.md", ARCHIVE, BLOCK, header="# Archived\n\n", kind="decision"
        )
    # Between the two writes the block may sit in both files, never in neither.
    assert count(vault, BLOCK) >= 1
    monkeypatch.setattr(moves, "FAULT", None)
    finish_pending_moves(vault)
    assert count(vault, BLOCK) == 1
    assert find_block(read_text(vault.root / ARCHIVE), BLOCK) is not None
    assert BLOCK not in read_text(vault.decisions_path)
    assert not (vault.state_dir / "moves.json").exists()
    # Every other decision is still in decisions.md, untouched.
    assert [d.title for d in parse_decisions(read_text(vault.decisions_path))] == [
        "Use SQLite for the index",
        "לשמור גיבוי יומי",
        "Use SQLite for the index",
    ]
    assert finish_pending_moves(vault) == []


def test_move_file_keeps_bytes_and_refuses_to_overwrite(vault: Vault) -> None:
    data = "# 2026-09-01\n\n- 09:00 נפגשנו\r\n- 10:00 без перевода строки"
    write(vault, "memory/daily/2026-09-01.md", data)
    move_file(vault, "memory/daily/2026-09-01.md", "memory/archive/daily/2026-09-01.md")
    assert (vault.root / "memory/archive/daily/2026-09-01.md").read_bytes() == data.encode()
    write(vault, "memory/daily/2026-09-01.md", "other text")
    with pytest.raises(MoveConflict):
        move_file(vault, "memory/daily/2026-09-01.md", "memory/archive/daily/2026-09-01.md")
    assert (vault.root / "memory/daily/2026-09-01.md").exists()


def test_demote_cli_moves_byte_for_byte(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    note = "# 2026-09-01\n\n- 09:00 deployed v1\n- 10:00 פריסה הצליחה\n- 11:00 всё работает\n"
    write(vault, "memory/daily/2026-09-01.md", note, OLD)
    write(vault, "memory/daily/2026-11-21.md", "# 2026-11-21\n\n- 09:00 fresh\n")
    write(vault, "memory/decisions.md", DECISIONS)
    before = snapshot(vault)
    shown = runner.invoke(app, ["--vault", str(vault.root), "demote", "--json"])
    assert shown.exit_code == 0, shown.output
    planned = json.loads(shown.stdout)["planned"]
    assert {(m["kind"], m["from"]) for m in planned} == {
        ("daily", "memory/daily/2026-09-01.md"),
        ("decision", "memory/decisions.md"),
    }
    assert len(planned) == 3  # the note, the old "Use SQLite", the Russian one marked superseded
    assert snapshot(vault) == before  # showing changes nothing
    done = runner.invoke(app, ["--vault", str(vault.root), "demote", "--apply", "--json"])
    assert done.exit_code == 0, done.output
    assert len(json.loads(done.stdout)["moved"]) == 3
    after = snapshot(vault)
    assert after["memory/archive/daily/2026-09-01.md"] == note.encode()
    assert "memory/daily/2026-09-01.md" not in after
    archived = after[ARCHIVE].decode()
    for block in (BLOCK, "## 2026-09-01 — Use SQLite for the index\n\none file, no server"):
        assert find_block(archived, block) is not None
        assert count(vault, block) == 1
    again = runner.invoke(app, ["--vault", str(vault.root), "demote", "--apply", "--json"])
    assert json.loads(again.stdout)["moved"] == [] and snapshot(vault) == after


def test_killed_process_leaves_a_recoverable_vault(vault: Vault) -> None:
    """A real `memctl demote --apply` dies between writing the archive and cutting the source."""
    write(vault, "memory/decisions.md", DECISIONS)
    env = dict(os.environ, MEMCTL_NOW="2026-11-22T09:30:00", MEMCTL_FAULT_AT="written")
    exe = str(Path(sys.executable).with_name("memctl"))
    killed = subprocess.run(
        [exe, "--vault", str(vault.root), "demote", "--apply"], env=env, capture_output=True
    )
    assert killed.returncode == 137
    assert (vault.state_dir / "moves.json").exists()
    env.pop("MEMCTL_FAULT_AT")
    done = subprocess.run(
        [exe, "--vault", str(vault.root), "demote", "--apply", "--json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["recovered"]
    for block in (BLOCK, "## 2026-09-01 — Use SQLite for the index\n\none file, no server"):
        assert count(vault, block) == 1
    assert "again, now with WAL" in read_text(vault.decisions_path)


def test_person_editing_during_a_move_keeps_their_edit(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "memory/decisions.md", DECISIONS)
    added = "## 2026-11-22 — Новое решение\n\nзаписано вручную, пока memctl работал\n"

    def person_saves(at: str) -> None:
        if at == "written":
            path = vault.decisions_path
            path.write_text(path.read_text(encoding="utf-8") + "\n" + added, encoding="utf-8")

    monkeypatch.setattr(moves, "FAULT", person_saves)
    move_block(
        vault, "memory/decisions.md", ARCHIVE, BLOCK, header="# Archived\n\n", kind="decision"
    )
    text = read_text(vault.decisions_path)
    assert added in text and BLOCK not in text and count(vault, BLOCK) == 1


def test_maintain_holds_the_vault_lock(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    """While maintain works, `add` (the same lock) waits; nobody interleaves writes."""
    import threading

    from memctl.errors import LockBusy
    from memctl.lifecycle import maintain as maintain_mod

    inside, release = threading.Event(), threading.Event()
    real = maintain_mod.apply_demotions

    def paused(*args, **kwargs):  # type: ignore[no-untyped-def]
        inside.set()
        release.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(maintain_mod, "apply_demotions", paused)
    worker = threading.Thread(target=lambda: maintain_mod.maintain(vault, sync_index=False))
    worker.start()
    try:
        assert inside.wait(10)
        with pytest.raises(LockBusy), vault.lock(timeout=0):
            pass
    finally:
        release.set()
        worker.join(10)
    with vault.lock(timeout=0):
        pass
