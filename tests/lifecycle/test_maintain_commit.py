"""Issue 15 item 10: `maintain --commit` commits exactly memctl's changes, in a real git
repository: moves of never-committed notes, a person's uncommitted hunks in a file the
run touches, a staged change elsewhere, a vault in a sub-folder of the repository."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path

from memctl.lifecycle.maintain import maintain
from memctl.memory import init_vault
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import DECISIONS, write

NOW = datetime(2026, 11, 22, 3, 0)
OLD_NOTE = "# 2026-09-01\n\n- 09:00 released v0.9\n- 10:00 שחרור הצליח\n"
ID = ["-c", "user.name=t", "-c", "user.email=t@t"]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *ID, *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def make(tmp_path: Path, sub: str = "") -> Vault:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    root = repo / sub if sub else repo
    init_vault(root)
    vault = Vault(root)
    write(vault, "memory/decisions.md", DECISIONS)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "vault")
    # Written by `memctl add` and never committed: the normal case when only maintain commits.
    write(vault, "memory/daily/2026-09-01.md", OLD_NOTE, datetime(2026, 9, 1, 18))
    return vault


def test_a_never_committed_note_is_archived_committed_and_revertable(tmp_path: Path) -> None:
    vault = make(tmp_path)
    report = maintain(vault, now=NOW, embed=False, commit=True)
    assert report.commit and report.exit_code == 0
    assert read_text(vault.root / "memory/archive/daily/2026-09-01.md") == OLD_NOTE
    assert git(vault.root, "status", "--porcelain", "--", "memory") == ""
    git(vault.root, "revert", "--no-edit", "HEAD")
    assert read_text(vault.root / "memory/daily/2026-09-01.md") == OLD_NOTE
    assert not (vault.root / "memory/archive/daily/2026-09-01.md").exists()
    assert read_text(vault.decisions_path) == DECISIONS


def test_a_persons_uncommitted_hunks_stay_theirs(tmp_path: Path) -> None:
    vault = make(tmp_path)
    mine = "## 2026-11-20 — Keep nightly backups\n\nstill uncommitted\n"
    write(vault, "memory/decisions.md", mine + "\n" + DECISIONS)
    other = vault.root / "memory/core.md"
    other.write_text(read_text(other) + "- staged by the person\n", encoding="utf-8")
    git(vault.root, "add", "memory/core.md")
    report = maintain(vault, now=NOW, embed=False, commit=True)
    assert report.commit and any(m["kind"] == "decision" for m in report.moves)
    committed = git(vault.root, "show", "HEAD:memory/decisions.md")
    assert "Keep nightly backups" not in committed
    assert "Хранить заметки в markdown" not in committed  # archived by this run
    assert "Хранить заметки в markdown" in git(
        vault.root, "show", "HEAD:memory/archive/decisions.md"
    )
    # The working tree keeps the person's hunk, shown as their uncommitted change.
    assert read_text(vault.decisions_path).startswith(mine)
    assert "+## 2026-11-20 — Keep nightly backups" in git(
        vault.root, "diff", "--", "memory/decisions.md"
    )
    # Their staged change is still staged, and not in memctl's commit.
    assert git(vault.root, "diff", "--cached", "--name-only").split() == ["memory/core.md"]
    assert "staged by the person" not in git(vault.root, "show", "HEAD:memory/core.md")


def test_a_vault_in_a_sub_folder_of_the_repository(tmp_path: Path) -> None:
    vault = make(tmp_path, "agent")
    report = maintain(vault, now=NOW, embed=False, commit=True)
    assert report.commit
    names = git(vault.root, "show", "--name-only", "--format=", "HEAD").split()
    assert "agent/memory/archive/daily/2026-09-01.md" in names
    assert git(vault.root, "status", "--porcelain") == ""
