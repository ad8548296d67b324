"""Issue 15 item 15: what a killed write leaves behind is cleaned at the next run and
never committed."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle.maintain import maintain
from memctl.memory import init_vault
from memctl.vault import Vault

TEMP = ".2026-11-20.md.k3j_x9qa.tmp"


def _plant(vault: Vault) -> dict[str, Path]:
    daily = vault.root / "memory/daily"
    planted = {
        "daily": daily / TEMP,
        "core": vault.root / "memory/.core.md.ab12cd34.tmp",
        "state": vault.state_dir / ".proposals.json.zz99yy88.tmp",
        "rebuild": vault.state_dir / "index.db.rebuild",
        "rebuild-wal": vault.state_dir / "index.db.rebuild-wal",
    }
    for path in planted.values():
        path.write_text("- 09:00 a half-written copy of the note\n", encoding="utf-8")
    return planted


def test_maintain_removes_temp_copies_a_killed_write_left(vault: Vault) -> None:
    planted = _plant(vault)
    editor = vault.root / "memory/daily/.2026-11-20.md.swp"
    editor.write_text("an editor's file: not ours", encoding="utf-8")
    report = maintain(vault, embed=False)
    assert not any(p.exists() for p in planted.values())
    assert editor.exists()
    assert any("left by an interrupted write" in n for n in report.notices)


def test_maintain_puts_back_a_note_a_crash_left_aside(vault: Vault) -> None:
    note = vault.root / "memory/daily/2026-03-04.md"
    aside = vault.root / "memory/daily/.2026-03-04.md.memctl-aside"
    aside.write_text("# 2026-03-04\n\n- 09:00 kept\n", encoding="utf-8")
    maintain(vault, embed=False)
    assert not aside.exists()
    assert "- 09:00 kept" in (note.read_text(encoding="utf-8") if note.exists() else "") or (
        "- 09:00 kept"
        in (vault.root / "memory/archive/daily/2026-03-04.md").read_text(encoding="utf-8")
    )


def test_index_full_removes_a_killed_rebuild(vault: Vault, runner: CliRunner) -> None:
    planted = _plant(vault)
    result = runner.invoke(app, ["--vault", str(vault.root), "index", "--full", "--no-embed"])
    assert result.exit_code == 0, result.output
    assert not planted["rebuild"].exists() and not planted["rebuild-wal"].exists()
    assert not planted["daily"].exists()


def test_a_temp_file_being_written_under_the_lock_is_left_alone(vault: Vault) -> None:
    """A live writer holds the vault lock while its temp file exists: not ours to remove."""
    from memctl.leftovers import remove_stale_temp_files

    path = vault.root / "memory/daily" / TEMP
    path.write_text("in progress", encoding="utf-8")
    holding = threading.Event()
    release = threading.Event()

    def writer() -> None:
        with vault.lock():
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    holding.wait(10)
    try:
        assert remove_stale_temp_files(vault) == []
        assert path.exists()
    finally:
        release.set()
        thread.join()
    assert remove_stale_temp_files(vault) == ["memory/daily/" + TEMP]


def test_template_gitignore_keeps_temp_copies_out_of_git(tmp_path: Path) -> None:
    root = tmp_path / "v"
    init_vault(root, git=True)
    (root / "memory/daily" / TEMP).write_text("copy", encoding="utf-8")
    (root / "memory/.core.md.ab12cd34.tmp").write_text("copy", encoding="utf-8")
    (root / "memory/daily/2026-11-20.md").write_text("# note\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert staged == ["memory/daily/2026-11-20.md"]
