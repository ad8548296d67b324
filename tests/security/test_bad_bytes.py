"""Item 13: one bad byte never disables a command, never hides HOT, never gets corrupted."""

from __future__ import annotations

import json
from datetime import datetime

from typer.testing import CliRunner

from memctl.agent.context import assemble
from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.vault import Vault
from tests.lifecycle.helpers import write

BAD = b"# 2026-11-22\n\n- 09:00 caf\xe9 au lait \xff\xfe\n- 09:05 \xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 ok\n"
NOW = datetime(2026, 11, 22, 9, 30)


def test_bad_daily_note_keeps_hot_and_the_rest(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    (vault.root / "memory/daily/2026-11-22.md").write_bytes(BAD)
    args = ["--vault", str(vault.root)]
    assert runner.invoke(app, [*args, "status"]).exit_code == 0
    for command in (["context"], ["show", "today"], ["show", "warm"]):
        result = runner.invoke(app, [*args, *command])
        assert result.exit_code == 0, (command, result.output)
        assert "not valid UTF-8 at byte 25" in result.stderr, command
    context = assemble(vault, record=False)
    assert context.blocks[0].kind == "hot"
    assert "привет ok" in context.text()


def test_add_and_remember_append_bytes_safely(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    path = vault.root / "memory/daily/2026-11-22.md"
    path.write_bytes(BAD)
    result = runner.invoke(app, ["--vault", str(vault.root), "add", "שלום — новая заметка"])
    assert result.exit_code == 0, result.output
    assert "byte 25" in result.stderr
    assert call_tool(vault, "remember", {"text": "from the agent"}, now=NOW)["ok"]
    data = path.read_bytes()
    assert data.startswith(BAD)  # every original byte kept, in place
    tail = data[len(BAD) :].decode("utf-8")
    assert "שלום — новая заметка" in tail and "from the agent" in tail


def test_lone_surrogates_never_become_bytes(vault: Vault) -> None:
    path = vault.root / "memory/daily/2026-11-22.md"
    path.write_bytes(BAD)
    result = call_tool(vault, "remember", {"text": "x \udcff y"}, now=NOW)
    assert not result["ok"]
    assert path.read_bytes() == BAD


def test_bad_archive_file_does_not_stop_lifecycle(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    write(vault, "memory/archive/decisions.md", "# Archived decisions\n\n")
    (vault.root / "memory/archive/decisions.md").write_bytes(
        b"# Archived decisions\n\n## 2025-01-01 \xff Old\n\nbody\n"
    )
    (vault.root / "memory/archive/daily").mkdir(parents=True, exist_ok=True)
    (vault.root / "memory/archive/daily/2025-01-02.md").write_bytes(b"# 2025-01-02\n\n- \xc3\x28\n")
    write(
        vault,
        "memory/decisions.md",
        "# Decisions\n\n## 2026-01-01 — Keep logs\n\nSuperseded\n\n## 2026-11-01 — Live\n\nyes\n",
    )
    args = ["--vault", str(vault.root)]
    for command in (
        ["maintain", "--no-embed", "--json"],
        ["lint", "--json"],
        ["prune", "--json"],
        ["prune", "--apply", "--json"],
    ):
        result = runner.invoke(app, [*args, *command])
        assert result.exit_code in (0, 1), (command, result.output)
        assert "Traceback" not in result.output
    archived = (vault.root / "memory/archive/decisions.md").read_bytes()
    assert archived.startswith(b"# Archived decisions\n\n## 2025-01-01 \xff Old\n\nbody\n")
    assert b"Keep logs" in archived  # the superseded decision was moved next to the bad byte
    report = json.loads(runner.invoke(app, [*args, "lint", "--json"]).stdout)
    assert any("byte" in note for note in report["notes"])


def test_a_decision_with_a_bad_byte_moves_byte_for_byte(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    block = b"## 2026-01-01 \xe2\x80\x94 Keep logs \xff\n\nSuperseded"
    (vault.root / "memory/decisions.md").write_bytes(
        b"# Decisions\n\n" + block + b"\n\n## 2026-11-01 \xe2\x80\x94 Live\n\nyes\n"
    )
    result = runner.invoke(app, ["--vault", str(vault.root), "demote", "--apply"])
    assert result.exit_code == 0, result.output
    assert block in (vault.root / "memory/archive/decisions.md").read_bytes()
    assert block not in (vault.root / "memory/decisions.md").read_bytes()
