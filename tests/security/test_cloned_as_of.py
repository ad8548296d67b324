"""Issue 32: `--as-of` on a vault that arrived by `git clone` stays inside it.

A committed `.memctl/as-of` link used to take the snapshot outside and `_prune`'s rmtree
deleted the sibling repositories it listed; a committed link in `memory/` stopped the
snapshot with exit 70; an unknown revision was answered `--as-of X: ?`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.search.as_of import KEEP_SNAPSHOTS
from memctl.vault import Vault
from tests.security.hostile_clone import clone, git, plant, siblings, tree_of

ENV = {"MEMCTL_NOW": "2026-11-22T09:30:00"}


def search(runner: CliRunner, root: Path, *args: str) -> tuple[int, str, str]:
    out = runner.invoke(app, ["--vault", str(root), "search", *args], env=ENV)
    assert "Traceback" not in out.output
    return out.exit_code, out.stdout, out.stderr


@pytest.mark.parametrize("target", ["../..", "ABSOLUTE", "../memory", "../memory/daily"])
def test_a_committed_as_of_link_is_refused_and_nothing_outside_is_touched(
    tmp_path: Path, runner: CliRunner, target: str
) -> None:
    """The reported case: `.memctl/as-of -> ../..` beside four other repositories (and
    an absolute link; and links into the vault's own memory/, which prune would empty)."""
    checkouts = tmp_path / "checkouts"
    checkouts.mkdir()
    siblings(checkouts)
    # Snapshots beyond KEEP_SNAPSHOTS are pruned: more folders than that beside the clone.
    for i in range(4, 4 + KEEP_SNAPSHOTS + 2):
        siblings(checkouts / f"more{i}", 1)

    def prepare(root: Path) -> None:
        (root / ".memctl").mkdir(exist_ok=True)
        link = checkouts if target == "ABSOLUTE" else target
        os.symlink(link, root / ".memctl" / "as-of")

    origin = plant(tmp_path / "origin", prepare)
    vault = clone(origin, checkouts / "shared")
    assert (vault / ".memctl" / "as-of").is_symlink()
    before = tree_of(checkouts, skip=vault / ".memctl")
    for when in ("HEAD", "2026-11-21"):
        code, stdout, stderr = search(runner, vault, "hello", "--as-of", when)
        assert code == 2, (stdout, stderr)
        assert ".memctl/as-of is a symbolic link" in stderr and "touched nothing" in stderr
    result = call_tool(Vault(vault), "search_memory", {"query": "hello", "as_of": "HEAD"})
    assert not result["ok"] and result["error"]["type"] == "refused"
    assert "symbolic link" in result["error"]["message"]
    assert tree_of(checkouts, skip=vault / ".memctl") == before
    assert os.readlink(vault / ".memctl" / "as-of") == str(
        checkouts if target == "ABSOLUTE" else target
    )


def test_a_committed_snapshot_link_is_refused(tmp_path: Path, runner: CliRunner) -> None:
    """A link in place of one snapshot's folder (its commit is known to whoever plants it)."""
    outside = tmp_path / "outside"
    siblings(outside, 2)

    def prepare(root: Path) -> None:
        (root / ".memctl" / "as-of").mkdir(parents=True)
        (root / ".memctl" / "as-of" / "README").write_text("planted\n", "utf-8")

    origin = plant(tmp_path / "origin", prepare)
    vault = clone(origin, tmp_path / "shared")
    head = git(vault, "rev-parse", "HEAD")
    os.symlink(outside, vault / ".memctl" / "as-of" / head[:16])
    (outside / ".ready").write_text(head, "utf-8")
    before = tree_of(outside)
    code, _out, stderr = search(runner, vault, "hello", "--as-of", "HEAD")
    assert code == 2 and f"as-of/{head[:16]} is a symbolic link" in stderr
    assert tree_of(outside) == before


def test_prune_never_removes_through_a_link(tmp_path: Path, runner: CliRunner) -> None:
    """Links and foreign entries among the snapshots are left alone when snapshots go."""
    outside = tmp_path / "outside"
    siblings(outside, 2)

    def prepare(root: Path) -> None:
        (root / ".memctl" / "as-of").mkdir(parents=True)
        os.symlink(outside, root / ".memctl" / "as-of" / "0123456789abcdef")
        os.symlink(outside / "repo0", root / ".memctl" / "as-of" / "repo0")
        (root / ".memctl" / "as-of" / "notes").mkdir()
        (root / ".memctl" / "as-of" / "notes" / "keep.txt").write_text("mine\n", "utf-8")

    origin = plant(tmp_path / "origin", prepare)
    vault = clone(origin, tmp_path / "shared")
    for i in range(KEEP_SNAPSHOTS + 2):  # more commits than snapshots kept
        (vault / "memory" / "daily" / f"2026-11-0{i + 1}.md").write_text(f"# day {i}\n- hello\n")
        git(vault, "add", "-A")
        git(vault, "commit", "-qm", f"day {i}")
    before = tree_of(outside)
    for i in range(KEEP_SNAPSHOTS + 2):
        code, _out, stderr = search(runner, vault, "hello", "--as-of", f"HEAD~{i}")
        assert code == 0, stderr
    snaps = vault / ".memctl" / "as-of"
    built = [p for p in snaps.iterdir() if not p.is_symlink() and p.name != "notes"]
    assert len(built) == KEEP_SNAPSHOTS  # pruning still works for memctl's own snapshots
    assert tree_of(outside) == before
    assert (snaps / "notes" / "keep.txt").read_text() == "mine\n"
    assert (snaps / "0123456789abcdef").is_symlink() and (snaps / "repo0").is_symlink()


def test_a_committed_lock_link_truncates_nothing(tmp_path: Path, runner: CliRunner) -> None:
    """filelock opens its file with O_TRUNC: a committed `.memctl/vault.lock` link to a
    file outside would empty it on the first `memctl add`."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n", "utf-8")

    def prepare(root: Path) -> None:
        (root / ".memctl").mkdir()
        for name in ("vault", "index", "embed"):
            os.symlink(outside, root / ".memctl" / f"{name}.lock")

    vault = clone(plant(tmp_path / "origin", prepare), tmp_path / "shared")
    add = runner.invoke(app, ["--vault", str(vault), "add", "a note"], env=ENV)
    assert add.exit_code == 2 and "vault.lock is a symbolic link" in add.stderr
    index = runner.invoke(app, ["--vault", str(vault), "index"], env=ENV)
    assert index.exit_code == 2 and "index.lock is a symbolic link" in index.stderr
    assert outside.read_text("utf-8") == "precious\n"


@pytest.mark.parametrize(
    "link", ["/etc/hostname", "../../../../../outside.md", "../../core.md", "2026-11-20.md"]
)
def test_a_link_in_a_committed_memory_is_skipped_with_a_notice(
    tmp_path: Path, runner: CliRunner, link: str
) -> None:
    """Item 8: an absolute link or one leaving the snapshot used to exit 70 (tarfile's
    AbsoluteLinkError / LinkOutsideDestinationError), MCP answering `internal`."""

    def prepare(root: Path) -> None:
        os.symlink(link, root / "memory" / "daily" / "2026-11-19.md")

    vault = clone(plant(tmp_path / "origin", prepare), tmp_path / "shared")
    code, stdout, stderr = search(runner, vault, "zebra rollout", "--as-of", "HEAD", "--json")
    assert code == 0, stderr
    assert "the zebra rollout" in stdout and "memory/daily/2026-11-" in stdout
    leaves = not link.startswith(("../../core", "2026"))
    assert ("2026-11-19.md at HEAD" in stderr and "leaves the vault" in stderr) == leaves
    result = call_tool(Vault(vault), "search_memory", {"query": "zebra rollout", "as_of": "HEAD~0"})
    assert result["ok"], result
    assert result["results"][0]["path"].startswith("memory/daily/2026-11-")


@pytest.mark.parametrize("when", ["nonexistent", "HEAD~99", "@{-1}", "v9.9"])
def test_an_unknown_revision_says_so(tmp_path: Path, runner: CliRunner, when: str) -> None:
    """Item 10: git runs with --quiet, so it says nothing: memctl used to print `: ?`."""
    vault = clone(plant(tmp_path / "origin", lambda root: None), tmp_path / "shared")
    code, _out, stderr = search(runner, vault, "hello", "--as-of", when)
    assert code == 2
    assert f"--as-of {when}: unknown revision" in stderr and "?" not in stderr.split(":")[-1]
    shown = runner.invoke(app, ["--vault", str(vault), "show", "core", "--as-of", when])
    assert shown.exit_code == 2 and "unknown revision" in shown.stderr
    result = call_tool(Vault(vault), "search_memory", {"query": "hello", "as_of": when})
    assert not result["ok"] and "unknown revision" in result["error"]["message"]
