"""Item 2: no reader follows a link out of the vault; its contents never reach any output."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.context import assemble
from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.vault import Vault
from tests.lifecycle.helpers import write

SECRET = "OUTSIDE-CONTENT-7f3a deploy key sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
NOW = datetime(2026, 11, 22, 9, 30)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "elsewhere" / "secrets.md"
    target.parent.mkdir()
    target.write_text(f"# 2026-11-22\n\n- {SECRET}\n", "utf-8")
    return target


def run(runner: CliRunner, vault: Vault, *args: str) -> str:
    result = runner.invoke(app, ["--vault", str(vault.root), *args])
    assert "Traceback" not in result.output
    return result.output


def test_daily_note_linking_outside_is_skipped_everywhere(
    vault: Vault, outside: Path, runner: CliRunner, pinned_now: str
) -> None:
    write(vault, "memory/daily/2026-11-21.md", "# 2026-11-21\n\n- 10:00 yesterday's work\n")
    os.symlink(outside, vault.root / "memory/daily/2026-11-22.md")
    write(vault, "memory/decisions.md", "# Decisions\n\n## 2026-11-01 — Keep\n\nbody\n")
    os.symlink(outside, vault.root / "memory/archive/old.md")
    for args in (
        ("show", "today"),
        ("show", "warm"),
        ("show", "warm", "--json"),
        ("context",),
        ("context", "--json"),
        ("lint",),
        ("lint", "--json"),
        ("status", "--json"),
    ):
        output = run(runner, vault, *args)
        assert "OUTSIDE-CONTENT" not in output, args
    assert "leaves the vault" in run(runner, vault, "show", "today")
    assert "yesterday's work" in run(runner, vault, "show", "warm")
    context = assemble(vault, record=False)
    assert "OUTSIDE-CONTENT" not in context.text()
    assert any("leaves the vault" in n for n in context.notices)
    loaded = call_tool(vault, "load_memory", {"what": "today"}, now=NOW)
    assert "OUTSIDE-CONTENT" not in json.dumps(loaded)
    assert any("leaves the vault" in n for n in loaded.get("notices", []))


def test_core_and_decisions_linking_outside_are_skipped(
    vault: Vault, outside: Path, runner: CliRunner, pinned_now: str
) -> None:
    for name in ("core.md", "decisions.md"):
        (vault.root / "memory" / name).unlink(missing_ok=True)
    os.symlink(outside, vault.root / "memory/core.md")
    os.symlink(outside, vault.root / "memory/decisions.md")
    for args in (("show", "core"), ("show", "decisions"), ("context",), ("lint", "--json")):
        assert "OUTSIDE-CONTENT" not in run(runner, vault, *args), args
    result = call_tool(vault, "remember", {"kind": "decision", "text": "x"}, now=NOW)
    assert not result["ok"] and "link" in result["error"]["message"]
    assert "OUTSIDE-CONTENT" not in json.dumps(result)
    assert (vault.root / "memory/decisions.md").is_symlink()  # neither replaced nor followed
    assert outside.read_text("utf-8") == f"# 2026-11-22\n\n- {SECRET}\n"


def test_writers_never_write_through_a_folder_link(
    vault: Vault, tmp_path: Path, runner: CliRunner, pinned_now: str
) -> None:
    elsewhere = tmp_path / "autostart"
    elsewhere.mkdir()
    shutil.rmtree(vault.root / "memory/daily", ignore_errors=True)
    os.symlink(elsewhere, vault.root / "memory/daily")
    result = runner.invoke(app, ["--vault", str(vault.root), "add", "hello"])
    assert result.exit_code == 2 and "link" in result.output
    assert list(elsewhere.iterdir()) == []


def test_a_link_inside_the_vault_is_read(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    write(vault, "memory/archive/daily/2026-11-22.md", "# 2026-11-22\n\n- 10:00 inside link\n")
    os.symlink(
        vault.root / "memory/archive/daily/2026-11-22.md", vault.root / "memory/daily/2026-11-22.md"
    )
    assert "inside link" in run(runner, vault, "show", "today")


def test_vault_folders_linking_outside_are_refused(
    vault: Vault, tmp_path: Path, runner: CliRunner, pinned_now: str
) -> None:
    """A cloned repository can track `.memctl` or `memory` as a link to a folder elsewhere."""
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    (elsewhere / "core.md").write_text("# core\n- OUTSIDE-CONTENT\n", "utf-8")
    (elsewhere / "index.db").write_bytes(b"precious")
    shutil.rmtree(vault.root / ".memctl", ignore_errors=True)
    os.symlink(elsewhere, vault.root / ".memctl")
    result = runner.invoke(app, ["--vault", str(vault.root), "index", "--no-embed"])
    assert result.exit_code == 2 and ".memctl" in result.output
    assert (elsewhere / "index.db").read_bytes() == b"precious"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["core.md", "index.db"]

    os.unlink(vault.root / ".memctl")
    shutil.copytree(vault.root / "memory", tmp_path / "moved")
    shutil.rmtree(vault.root / "memory")
    (tmp_path / "moved/core.md").write_text("# core\n- OUTSIDE-CONTENT\n", "utf-8")
    os.symlink(tmp_path / "moved", vault.root / "memory")
    for args in (("index", "--no-embed"), ("search", "OUTSIDE"), ("show", "core"), ("context",)):
        result = runner.invoke(app, ["--vault", str(vault.root), *args])
        assert "OUTSIDE-CONTENT" not in result.output, args


def test_compact_never_copies_a_linked_note_into_the_vault(
    vault: Vault, outside: Path, runner: CliRunner
) -> None:
    archived = vault.root / "memory/archive/daily"
    archived.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, archived / "2025-01-02.md")
    (archived / "2025-01-03.md").write_bytes(b"# 2025-01-03\n\n- caf\xe9\n")
    result = runner.invoke(app, ["--vault", str(vault.root), "compact"])
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    month = (vault.root / "memory/archive/2025-01.md").read_bytes()
    assert b"OUTSIDE-CONTENT" not in month
    assert b"- caf\xe9\n" in month  # the bad byte rolled in as it was, nothing lost
    assert (archived / "2025-01-02.md").is_symlink()  # left for a person to look at
    assert outside.read_text("utf-8").startswith("# 2026-11-22")
