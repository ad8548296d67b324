"""A temp vault with something to decide in three languages, and `memctl ui` serving it."""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.lifecycle import history
from memctl.lifecycle.workflows import run_promote
from memctl.memory import init_vault
from memctl.vault import Vault
from tests.lifecycle.helpers import DECISIONS, write
from tests.processes import MEMCTL, stop, until
from tests.resident.conftest import env_for

NOW = datetime(2026, 11, 22, 9, 30)
HOSTILE = '<script>document.title="owned"</script><img src=x onerror="document.title=1">'
CORE = """# Core memory

## Identity

- A coding agent for the memctl project.

## Iron rules

- Back up the vault every night before the maintenance window starts.
- Answer in English, עברית or русский, as the user writes.

## Active project

- The index lives in .memctl/.

## Open blockers

- None.
"""
TODAY = f"""# 2026-11-21

- 10:00 Никогда не запускать миграции в пятницу
- 11:00 לעולם לא לפרוס לייצור ביום שישי
- 12:00 A hostile note: {HOSTILE}
- 13:00 Back up the vault every night before the maintenance window starts!
"""
TOKEN = "ui-test-token-0123456789-abcdefghijklmnop"
OLD = "# 2026-09-01\n\n- 09:00 Старая заметка о переезде сервера\n"


def build(root: Path, *, context_loads: bool = True) -> Vault:
    """core.md, today's note referenced by searches (a promotion), an old note (a
    demotion), an index, and three nightly runs recorded."""
    init_vault(root)
    vault = Vault(root)
    write(vault, "memory/core.md", CORE)
    write(vault, "memory/daily/2026-11-21.md", TODAY, NOW - timedelta(hours=20))
    write(vault, "memory/daily/2026-09-01.md", OLD, NOW - timedelta(days=80))
    write(vault, "memory/decisions.md", DECISIONS, NOW - timedelta(days=60))
    write(vault, "memory/daily/2026-11-22.md", "# 2026-11-22\n\n- 08:00 Checked the backups.\n")
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        row = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE text LIKE '%миграции%'"
        ).fetchone()
        for i in range(6):
            store.record_references(
                [(row[0], row[1])], "search", "миграции пятница", NOW - timedelta(hours=i + 1)
            )
        core = store.conn.execute("SELECT hash, path FROM chunks WHERE path = 'memory/core.md'")
        loaded = list(core) if context_loads else []
        for day in range(
            1, 30 if loaded else 0
        ):  # an agent's context loads, a few a day (the trends' refs)
            for turn in range(day % 4 + 1):
                store.record_references(
                    loaded, "context", None, NOW - timedelta(days=day, minutes=turn)
                )
    run_promote(vault, now=NOW)  # the proposals, as `memctl promote` lists them
    # Ten weekly runs: HOT grows, COLD grows as notes are demoted, promotions now and then.
    for week in range(10):
        with vault.lock():
            history.record_run(
                vault,
                history.RunFigures(
                    at=(NOW - timedelta(days=7 * (9 - week) + 1)).isoformat(),
                    hot_lines=40 + 6 * week,
                    hot_cap=100,
                    warm_files=3 + week % 3,
                    cold_files=10 + 4 * week,
                    cold_chunks=60 + 25 * week,
                    moves=2 + week % 4,
                    promotions_applied=week + week // 3,
                    proposals_waiting=1 + week % 2,
                    lint_errors=0,
                    lint_warnings=week % 3,
                    exit_code=0,
                ),
            )
    return vault


@pytest.fixture
def ui_vault(tmp_path: Path) -> Vault:
    return build(tmp_path / "vault")


@dataclass
class UiServer:
    proc: subprocess.Popen[str]
    url: str = ""
    lines: list[str] = field(default_factory=list)
    token: str = TOKEN

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def client(self) -> httpx.Client:
        """An HTTP client that sends the bearer token, as a script would."""
        return httpx.Client(
            base_url=self.url, headers={"authorization": f"Bearer {self.token}"}, timeout=60
        )


@contextmanager
def serving_ui(
    root: Path,
    *args: str,
    env: dict[str, str] | None = None,
    command: tuple[str, ...] = ("ui", "--port", "0"),
) -> Iterator[UiServer]:
    """`memctl --vault ROOT ui --port 0 ARGS...` (or another command that serves the page)
    until the block ends (SIGTERM)."""
    proc = subprocess.Popen(
        [MEMCTL, "--vault", str(root), *command, *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env or env_for(HF_HUB_OFFLINE="1", MEMCTL_MCP_TOKEN=TOKEN),
    )
    server = UiServer(proc)
    reader = threading.Thread(target=lambda: server.lines.extend(proc.stderr or []), daemon=True)
    reader.start()
    try:
        assert until(
            lambda: (
                any("serving the memctl page" in ln for ln in server.lines)
                or proc.poll() is not None
            ),
            90,
        )
        found = re.search(r"memctl page for .* on (http://\S+/)$", server.log, re.M)
        assert found and proc.poll() is None, server.log
        server.url = found.group(1).rstrip("/")
        yield server
    finally:
        stop(proc)
        reader.join(5)


@pytest.fixture
def ui(ui_vault: Vault) -> Iterator[UiServer]:
    with serving_ui(ui_vault.root) as server:
        yield server
