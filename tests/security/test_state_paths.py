"""Item 1: paths read from `.memctl/` state are confined to memory/ inside the vault.

A cloned vault can bring a tracked `.memctl/`: a planted journal or proposal must never
make memctl write, append to or delete a file outside memory/.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.errors import UsageError
from memctl.lifecycle.moves import Journal, _intent_id
from memctl.state_paths import state_path
from memctl.vault import Vault
from tests.lifecycle.helpers import DECISIONS, snapshot, write

BLOCK = "## 2026-09-02 — Хранить заметки в markdown\n\nЗаменено: решили хранить в git"


def plant_journal(vault: Vault, **override: str) -> dict[str, str]:
    intent = {
        "id": "",
        "kind": "decision",
        "source": "memory/decisions.md",
        "destination": "memory/archive/decisions.md",
        "block": BLOCK,
        "header": "# Archived decisions\n\n",
    }
    intent.update(override)
    intent["id"] = intent["id"] or _intent_id(intent["source"], intent["block"])
    (vault.state_dir / "moves.json").write_text(json.dumps({"pending": [intent]}), "utf-8")
    return intent


@pytest.mark.parametrize(
    "bad",
    [
        "/tmp/outside.sh",
        "../outside.sh",
        "memory/../../outside.sh",
        "memory/archive/../../../outside.sh",
        ".memctl/index.db",
        "README.md",
        "",
        "memory\\..\\x.md",
    ],
)
def test_state_path_refuses_anything_outside_memory(vault: Vault, bad: str) -> None:
    with pytest.raises(UsageError):
        state_path(vault, bad, what="test")


def test_state_path_refuses_a_link(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, vault.root / "memory" / "archive" / "linked")
    with pytest.raises(UsageError):
        state_path(vault, "memory/archive/linked/x.md", what="test")
    os.symlink(tmp_path / "bashrc", vault.root / "memory" / "archive" / "f.md")
    with pytest.raises(UsageError):
        state_path(vault, "memory/archive/f.md", what="test")
    assert state_path(vault, "memory/archive/decisions.md", what="test") == (
        vault.root / "memory/archive/decisions.md"
    )


@pytest.mark.parametrize(
    "field,value",
    [
        ("destination", "/PLACEHOLDER/bashrc"),
        ("destination", "../bashrc"),
        ("destination", "memory/core.md"),  # a block move never goes into HOT
        ("source", "/PLACEHOLDER/bashrc"),
        ("kind", "rm -rf"),
    ],
)
def test_planted_journal_touches_nothing(
    vault: Vault, tmp_path: Path, runner: CliRunner, field: str, value: str
) -> None:
    write(vault, "memory/decisions.md", DECISIONS)
    bashrc = tmp_path / "bashrc"
    bashrc.write_text("# my shell\n" + BLOCK + "\n", "utf-8")
    plant_journal(vault, **{field: value.replace("/PLACEHOLDER", str(tmp_path))})
    before, outside = snapshot(vault), bashrc.read_bytes()
    result = runner.invoke(app, ["--vault", str(vault.root), "maintain", "--no-sync"])
    assert result.exit_code == 2, result.output
    assert "moves.json" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert bashrc.read_bytes() == outside
    assert snapshot(vault) == before


def test_journal_shape_is_checked(vault: Vault) -> None:
    path = vault.state_dir / "moves.json"
    for bad in (
        "[]",
        '{"pending": {}}',
        '{"pending": [1]}',
        '{"pending": [{"kind": "decision"}]}',
        "{not json",
        "\xff",
    ):
        path.write_text(bad, "utf-8")
        with pytest.raises(UsageError, match=r"moves\.json"):
            Journal(vault).load()
    # An intent whose id does not match its content was not written by memctl.
    plant_journal(vault, id="0123456789abcdef")
    with pytest.raises(UsageError, match=r"moves\.json"):
        Journal(vault).load()
    intent = plant_journal(vault)
    assert Journal(vault).load() == [intent]


def test_damaged_journal_says_what_to_do(vault: Vault, runner: CliRunner) -> None:
    write(vault, "memory/decisions.md", DECISIONS)
    (vault.state_dir / "moves.json").write_bytes(b'{"pending": [{"id": "ab')
    result = runner.invoke(app, ["--vault", str(vault.root), "demote", "--apply"])
    assert result.exit_code == 2
    assert "memctl lint" in result.output and "Traceback" not in result.output
    # The damaged journal is kept for inspection, never silently dropped.
    assert (vault.state_dir / "moves.json").exists()


def plant_prune(vault: Vault, path: str, text: str) -> None:
    proposal = {
        "id": "Xdeadbeef",
        "kind": "prune",
        "status": "approved",
        "path": path,
        "line_start": 1,
        "line_end": 1,
        "hash": "deadbeef",
        "text": text,
    }
    (vault.state_dir / "proposals.json").write_text(
        json.dumps({"version": 1, "proposals": [proposal]}), "utf-8"
    )


@pytest.mark.parametrize("where", ["absolute", "dotdot", "link", "core"])
def test_planted_prune_proposal_deletes_nothing(
    vault: Vault, tmp_path: Path, runner: CliRunner, where: str
) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("- keep me\n", "utf-8")
    path = {
        "absolute": str(victim),
        "dotdot": "memory/archive/../../../victim.md",
        "link": "memory/archive/victim.md",
        "core": "memory/core.md",
    }[where]
    if where == "link":
        os.symlink(victim, vault.root / "memory/archive/victim.md")
    plant_prune(vault, path, "- keep me")
    (vault.root / ".memctl" / "index.db").write_bytes(b"")  # prune needs an index to exist
    before = snapshot(vault)
    for args in (["prune", "--apply"], ["prune", "--apply", "--id", "Xdeadbeef"]):
        result = runner.invoke(app, ["--vault", str(vault.root), *args])
        assert result.exit_code != 0
        assert "Traceback" not in result.output
    assert victim.read_text("utf-8") == "- keep me\n"
    assert snapshot(vault) == before


def test_following_the_damaged_journal_advice_never_doubles_a_move(
    vault: Vault, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 14: a move interrupted after its write leaves the block in both files; the
    journal is then damaged. The one-line advice (move it aside, run again) ends with the
    block exactly once."""
    from memctl.lifecycle import moves

    write(vault, "memory/decisions.md", DECISIONS)

    class Crash(Exception):
        pass

    def crash(step: str) -> None:
        if step == "written":
            raise Crash(step)

    monkeypatch.setattr(moves, "FAULT", crash)
    with pytest.raises(Crash):
        moves.move_block(
            vault,
            "memory/decisions.md",
            "memory/archive/decisions.md",
            BLOCK,
            header="# Archived decisions\n\n",
            kind="decision",
        )
    monkeypatch.setattr(moves, "FAULT", None)
    journal = vault.state_dir / "moves.json"
    journal.write_bytes(journal.read_bytes()[:40])  # damaged (a disk error, a bad merge)
    args = ["--vault", str(vault.root), "demote", "--apply"]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and "moves.json.bad" in refused.output
    journal.rename(journal.with_name("moves.json.bad"))
    env = {"MEMCTL_NOW": "2026-11-22T09:30:00"}
    assert runner.invoke(app, args, env=env).exit_code == 0
    both = [
        (vault.root / rel).read_text("utf-8").count(BLOCK)
        for rel in ("memory/decisions.md", "memory/archive/decisions.md")
    ]
    assert both == [0, 1]
