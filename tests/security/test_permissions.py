"""Item 6: notes follow the umask; `.memctl/` is never more open than the vault's notes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.memory import init_vault


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def readable_by(path: Path, who: str) -> bool:
    """Whether group/other can read `path`: r on it and x on every folder up to the vault."""
    bits = {"group": (stat.S_IRGRP, stat.S_IXGRP), "other": (stat.S_IROTH, stat.S_IXOTH)}[who]
    if not path.stat().st_mode & bits[0]:
        return False
    folder = path.parent
    while (folder / "memory").exists() is False and folder != folder.parent:
        if not folder.stat().st_mode & bits[1]:
            return False
        folder = folder.parent
    return True


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o027], indirect=True)
def test_one_rule_for_notes_and_state(tmp_path: Path, runner: CliRunner, umask: int) -> None:
    root = tmp_path / "vault"
    init_vault(root)
    args = ["--vault", str(root)]
    assert runner.invoke(app, [*args, "add", "--date", "2026-11-20", "a note"]).exit_code == 0
    assert runner.invoke(app, [*args, "add", "--decision", "Use SQLite", "one file"]).exit_code == 0
    assert runner.invoke(app, [*args, "index", "--no-embed"]).exit_code == 0
    note = root / "memory/daily/2026-11-20.md"
    assert stat.S_IMODE(note.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((root / "memory/decisions.md").stat().st_mode) == 0o666 & ~umask
    state = root / ".memctl"
    for who in ("group", "other"):
        for secret in state.iterdir():
            if secret.is_file():
                assert readable_by(secret, who) <= readable_by(note, who), (who, secret)


def test_state_is_tightened_to_match_private_notes(tmp_path: Path, runner: CliRunner) -> None:
    root = tmp_path / "vault"
    init_vault(root)
    for path in (root / "memory").rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    (root / "memory").chmod(0o700)
    (root / ".memctl").mkdir(mode=0o755)
    (root / ".memctl").chmod(0o755)  # an older memctl left it open
    assert runner.invoke(app, ["--vault", str(root), "index", "--no-embed"]).exit_code == 0
    assert stat.S_IMODE((root / ".memctl").stat().st_mode) & 0o077 == 0
