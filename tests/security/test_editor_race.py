"""Item 9: an editor saving by rename while memctl updates the same file loses no save.

A separate process plays the editor: it reads the note, appends a line, writes a temp
file and renames it over the note, every 1-5 ms. memctl appends its own lines through
`update_file` meanwhile. Every editor save must survive (memctl's own lines may be
overwritten by the editor, as any editor that saves a stale buffer would).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from memctl.vault import append_block, update_file

EDITOR = r"""
import os, random, sys, time
path, stop = sys.argv[1], sys.argv[2]
n = 0
while not os.path.exists(stop):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except FileNotFoundError:
        continue
    tmp = path + ".editor~"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text + f"E{n}\n")
    os.replace(tmp, path)
    n += 1
    time.sleep(random.uniform(0.001, 0.005))
print(n)
"""


def test_no_editor_save_is_lost(tmp_path: Path) -> None:
    note = tmp_path / "2026-11-22.md"
    note.write_text("# 2026-11-22\n", "utf-8")
    stop = tmp_path / "stop"
    editor = subprocess.Popen(
        [sys.executable, "-c", EDITOR, str(note), str(stop)], stdout=subprocess.PIPE, text=True
    )
    try:
        for m in range(300):
            update_file(note, lambda before, m=m: append_block(before, f"U{m}\n"))
            time.sleep(0.001)
    finally:
        stop.touch()
        saves = int(editor.communicate(timeout=30)[0])
    lines = set(note.read_text("utf-8").splitlines())
    lost = [n for n in range(saves) if f"E{n}" not in lines]
    assert saves > 100
    assert lost == [], f"{len(lost)} of {saves} editor saves lost"


def test_a_file_left_aside_by_a_crash_comes_back(tmp_path: Path) -> None:
    note = tmp_path / "core.md"
    aside = tmp_path / ".core.md.memctl-aside"
    aside.write_text("# core\n- kept\n", "utf-8")  # killed between the two steps
    update_file(note, lambda before: append_block(before, "- added\n"))
    assert note.read_text("utf-8") == "# core\n- kept\n- added\n"
    assert not aside.exists()
    aside.write_text("# older\n", "utf-8")  # a newer file is in place: it wins
    update_file(note, lambda before: append_block(before, "- again\n"))
    assert note.read_text("utf-8") == "# core\n- kept\n- added\n- again\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["core.md"]


def test_without_hard_links_a_save_is_still_re_applied(tmp_path: Path, monkeypatch) -> None:
    from memctl import files

    monkeypatch.setattr(files, "_links_work", False)
    note = tmp_path / "core.md"
    note.write_text("one\n", "utf-8")
    calls: list[str] = []

    def change(before: str) -> str:
        calls.append(before)
        if len(calls) == 1:
            note.write_text("one\nby hand\n", "utf-8")
        return before + "by memctl\n"

    update_file(note, change)
    assert note.read_text("utf-8") == "one\nby hand\nby memctl\n"


def test_the_template_ignores_a_file_left_aside(tmp_path: Path) -> None:
    from memctl.memory import init_vault

    root = tmp_path / "vault"
    init_vault(root, git=True)
    (root / "memory/.core.md.memctl-aside").write_text("# core\n", "utf-8")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "memctl-aside" not in status.stdout
