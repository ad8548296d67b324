"""Issue 32 items 4 and 11: `show FILE` and `load_memory` follow the one reader rule.

`ln -s /elsewhere v/memory; memctl show memory/core.md` printed the outside file while
`show core`, `context`, `search` and `status` skipped it; a NUL byte in load_memory's
path answered type `internal`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.tools import TOOL_SPECS, call_tool
from memctl.cli import app
from memctl.vault import Vault
from tests.security.hostile_clone import clone, plant

OUTSIDE = "OUTSIDE-CONTENT-5c1d the deploy key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz"
ENV = {"MEMCTL_NOW": "2026-11-22T09:30:00"}


def elsewhere(folder: Path) -> Path:
    """A folder shaped like memory/, every file holding OUTSIDE."""
    for rel in ("core.md", "decisions.md", "daily/2026-11-22.md", "archive/old.md"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(f"# {rel}\n\n- {OUTSIDE}\n", "utf-8")
    return folder


def linked_memory(tmp_path: Path, how: str) -> Path:
    """A vault whose memory/ is a link out of it: made here, or committed and cloned."""
    outside = elsewhere(tmp_path / "elsewhere")
    if how == "local":
        root = tmp_path / "vault"
        plant(root, lambda r: None)
        shutil.rmtree(root / "memory")
        os.symlink(outside, root / "memory")
        return root

    def prepare(root: Path) -> None:
        shutil.rmtree(root / "memory")
        os.symlink("../elsewhere", root / "memory")

    return clone(plant(tmp_path / "origin", prepare), tmp_path / "shared")


@pytest.mark.parametrize("how", ["local", "cloned"])
def test_show_file_follows_the_reader_rule(tmp_path: Path, runner: CliRunner, how: str) -> None:
    root = linked_memory(tmp_path, how)
    assert (root / "memory").is_symlink()
    for rel in ("memory/core.md", "memory/daily/2026-11-22.md", "memory/core.md:1-3"):
        out = runner.invoke(app, ["--vault", str(root), "show", rel], env=ENV)
        assert out.exit_code == 2 and "Traceback" not in out.output
        assert OUTSIDE not in out.output and "leaves the vault" in out.stderr
    for args in (
        ["show", "core"],
        ["show", "warm", "--json"],
        ["context"],
        ["status", "--json"],
        ["search", "deploy key"],
        ["show", "memory/core.md", "--heading", "core.md"],
    ):
        out = runner.invoke(app, ["--vault", str(root), *args], env=ENV)
        assert OUTSIDE not in out.output, args
        assert out.exit_code in (0, 1, 2) and "Traceback" not in out.output, args


@pytest.mark.parametrize("how", ["local", "cloned"])
def test_load_memory_follows_the_reader_rule(tmp_path: Path, how: str) -> None:
    root = linked_memory(tmp_path, how)
    vault = Vault(root)
    for path in ("memory/core.md", "memory/archive/old.md"):
        result = call_tool(vault, "load_memory", {"what": "file", "path": path})
        assert not result["ok"] and result["error"]["type"] == "invalid_arguments"
        assert "leaves the vault" in result["error"]["message"]
        assert OUTSIDE not in str(result)
    for what in ("today", "decisions"):
        assert OUTSIDE not in str(call_tool(vault, "load_memory", {"what": what}))


def test_a_file_link_out_of_memory_is_refused_too(vault: Vault, tmp_path: Path) -> None:
    outside = elsewhere(tmp_path / "elsewhere")
    os.symlink(outside / "core.md", vault.root / "memory" / "archive" / "x.md")
    result = call_tool(vault, "load_memory", {"what": "file", "path": "memory/archive/x.md"})
    assert not result["ok"] and "leaves the vault" in result["error"]["message"]
    assert OUTSIDE not in str(result)


def test_a_link_inside_the_vault_is_still_read(vault: Vault) -> None:
    (vault.root / "memory" / "archive" / "real.md").write_text("# real\n\n- inside text\n")
    os.symlink("real.md", vault.root / "memory" / "archive" / "alias.md")
    result = call_tool(vault, "load_memory", {"what": "file", "path": "memory/archive/alias.md"})
    assert result["ok"] and "inside text" in result["items"][0]["text"]


@pytest.mark.parametrize(
    "path", ["memory/core.md\x00", "memory/\x00core.md", "\x00", "memory/daily/\x00.md"]
)
def test_a_nul_byte_in_a_path_is_invalid_arguments(vault: Vault, path: str) -> None:
    result = call_tool(vault, "load_memory", {"what": "file", "path": path})
    assert not result["ok"] and result["error"]["type"] == "invalid_arguments", result
    assert "NUL" in result["error"]["message"] or "not a memory file" in result["error"]["message"]


def test_no_string_argument_with_a_nul_is_internal(vault: Vault) -> None:
    """Every string argument of every tool, given a NUL: never an `internal` answer."""
    samples = {
        "search_memory": {"query": "hello", "path": "memory/", "as_of": "HEAD"},
        "load_memory": {"what": "file", "path": "memory/core.md", "heading": "x", "date": "x"},
        "remember": {"text": "a note", "title": "t", "kind": "note"},
        "update_core_memory": {"section": "Facts", "text": "a fact"},
    }
    for spec in TOOL_SPECS:
        base = samples[spec.name]
        for key, value in base.items():
            args = {**base, key: value + "\x00x"}
            result = call_tool(vault, spec.name, args)
            assert result["ok"] or result["error"]["type"] != "internal", (spec.name, key, result)
