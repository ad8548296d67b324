"""lint's secret scan keeps each file's hits by content hash: an unchanged file is not
scanned again, a changed one (or other patterns) is."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle.secret_scan import MEMO_FILE
from memctl.vault import Vault
from tests.lifecycle.helpers import write

KEY = "sk-ant-" + "a1B2" * 8


def _secrets(vault: Vault) -> list[tuple[str, int, str]]:
    result = CliRunner().invoke(app, ["--vault", str(vault.root), "lint", "--json"])
    assert result.exit_code in (0, 1), result.output
    return [
        (f["path"], f["line"], f["message"])
        for f in json.loads(result.stdout)["findings"]
        if f["code"] == "secret"
    ]


def test_unchanged_files_keep_their_hits_changed_ones_are_scanned(vault: Vault) -> None:
    write(vault, "memory/archive/notes/keys.md", f"# keys\n\n- the key {KEY}\n")
    write(vault, "memory/archive/notes/plain.md", "# plain\n\n- nothing here\n")
    first = _secrets(vault)
    assert [(p, line) for p, line, _ in first] == [("memory/archive/notes/keys.md", 3)]
    assert KEY not in json.dumps(first)
    memo = vault.state_dir / MEMO_FILE
    assert memo.exists() and KEY not in memo.read_text(encoding="utf-8")  # previews only
    assert _secrets(vault) == first

    # The memo is what an unchanged file's hits come from: a planted hit shows up...
    data = json.loads(memo.read_text(encoding="utf-8"))
    data["files"]["memory/archive/notes/plain.md"][1] = [[3, "planted", "plan…"]]
    memo.write_text(json.dumps(data), encoding="utf-8")
    assert ("memory/archive/notes/plain.md", 3) in [(p, line) for p, line, _ in _secrets(vault)]
    # ...until the file changes, or the patterns do.
    write(vault, "memory/archive/notes/plain.md", "# plain\n\n- still nothing here\n")
    assert [(p, line) for p, line, _ in _secrets(vault)] == [("memory/archive/notes/keys.md", 3)]
    data = json.loads(memo.read_text(encoding="utf-8"))
    data["files"]["memory/archive/notes/plain.md"][1] = [[3, "planted", "plan…"]]
    data["patterns"] = "older patterns"
    memo.write_text(json.dumps(data), encoding="utf-8")
    assert [(p, line) for p, line, _ in _secrets(vault)] == [("memory/archive/notes/keys.md", 3)]

    # A new secret in a known file is found; a damaged memo is a full scan.
    write(vault, "memory/archive/notes/plain.md", f"# plain\n\n- oops {KEY}\n")
    memo.write_text("{damaged", encoding="utf-8")
    assert sorted((p, line) for p, line, _ in _secrets(vault)) == [
        ("memory/archive/notes/keys.md", 3),
        ("memory/archive/notes/plain.md", 3),
    ]
