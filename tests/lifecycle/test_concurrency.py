"""watch, maintain and add running at once, as separate processes: nothing lost or doubled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.vault import Vault
from tests.lifecycle.helpers import write
from tests.processes import MEMCTL, until, watch_process

NOW = "2026-11-22T03:00:00"
OLD_NOTES = {
    f"2026-09-{day:02d}": fact
    for day, fact in enumerate(
        [
            "rotated the staging deploy key",
            "ротация ключей прошла без ошибок",
            "גיבוי הלילה הסתיים בהצלחה",
            "Noa prefers PRs under 300 lines",
            "кэш сборки чистится по пятницам",
            "הלקוח ביקש דוח חודשי",
        ],
        start=1,
    )
}
ADDER = (
    "import sys\n"
    "from memctl.memory import add_note\n"
    "from memctl.vault import find_vault\n"
    "v = find_vault()\n"
    "for i in range(25):\n"
    "    add_note(v, f'{sys.argv[1]} заметка {i} הערה')\n"
)


def _occurrences(vault: Vault, text: str) -> list[str]:
    return [
        p.relative_to(vault.root).as_posix()
        for p in sorted((vault.root / "memory").rglob("*.md"))
        for _ in range(p.read_text(encoding="utf-8").count(text))
    ]


def _index_rows(vault: Vault) -> set[tuple[str, int, int, str]]:
    with Store.open(vault) as store:
        rows = store.conn.execute("SELECT path, line_start, line_end, hash FROM chunks")
        return {tuple(r) for r in rows}


def test_watch_maintain_and_adds_at_once_keep_every_memory_once(vault: Vault) -> None:
    old = datetime(2026, 9, 20, 12, 0)
    for day, fact in OLD_NOTES.items():
        write(vault, f"memory/daily/{day}.md", f"# {day}\n\n- 09:00 {fact}\n", modified=old)
    env = {
        **os.environ,
        "MEMCTL_VAULT": str(vault.root),
        "MEMCTL_NOW": NOW,
        "HF_HUB_OFFLINE": "1",
    }
    with watch_process([], env) as watcher:
        adders = [
            subprocess.Popen([sys.executable, "-c", ADDER, name], env=env) for name in ("a", "b")
        ]
        maintain = subprocess.run(
            [MEMCTL, "maintain", "--no-embed", "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert [p.wait(timeout=120) for p in adders] == [0, 0]
        # The watcher may already have synced the adders' last writes before `synced` is
        # read, so wait for a write made after it: one more sync proves it is still live.
        synced = watcher.syncs()
        write(vault, "memory/archive/last-write.md", "# Last write\n\nthe watcher is live\n")
        assert until(lambda: watcher.syncs() > synced)
    assert watcher.proc.returncode == 0, watcher.stderr
    assert "Traceback" not in watcher.stderr
    assert maintain.returncode == 0, maintain.stderr
    assert json.loads(maintain.stdout)["tiers"]["moves_made"] == len(OLD_NOTES)

    for day, fact in OLD_NOTES.items():  # demoted once, byte for byte
        assert _occurrences(vault, fact) == [f"memory/archive/daily/{day}.md"]
    today = (vault.root / "memory/daily/2026-11-22.md").read_text(encoding="utf-8")
    for name in ("a", "b"):
        for i in range(25):
            assert today.count(f"{name} заметка {i} הערה\n") == 1

    # The mirror the watcher and maintain left behind is the one a full rebuild makes.
    sync(vault, embed=False)
    incremental = _index_rows(vault)
    sync(vault, embed=False, full=True)
    assert incremental == _index_rows(vault)
