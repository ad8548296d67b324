"""maintain loads once: one index connection per run, core.md and the proposals read once,
chunks with their usage loaded once (twice when moves changed the vault)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from memctl.index.store import Store
from memctl.lifecycle.maintain import maintain
from memctl.lifecycle.proposals import FILE as PROPOSALS
from memctl.vault import Vault
from tests.lifecycle.helpers import DECISIONS, write

NOW = datetime(2026, 11, 22, 3, 0)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Index opens, core.md reads and proposals reads, counted as they happen."""
    seen: Counter[str] = Counter()
    real_open = Store.open.__func__  # type: ignore[attr-defined]

    def open_store(cls: type[Store], *args: Any, **kwargs: Any) -> Store:
        seen["index opens"] += 1
        return real_open(cls, *args, **kwargs)

    real_read = Vault.read_memory

    def read_memory(self: Vault, path: Path, *args: Any, **kwargs: Any) -> str | None:
        if path == self.core_path:
            seen["core.md reads"] += 1
        return real_read(self, path, *args, **kwargs)

    real_bytes = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == PROPOSALS:
            seen["proposals reads"] += 1
        return real_bytes(self)

    monkeypatch.setattr(Store, "open", classmethod(open_store))
    monkeypatch.setattr(Vault, "read_memory", read_memory)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return seen


def _vault(vault: Vault) -> Vault:
    write(
        vault,
        "memory/daily/2026-09-01.md",
        "# 2026-09-01\n\n- 09:00 שחרור הצליח\n",
        datetime(2026, 9, 1, 18),
    )
    write(vault, "memory/daily/2026-11-21.md", "# 2026-11-21\n\n- 09:00 Работаю над lifecycle\n")
    write(vault, "memory/decisions.md", DECISIONS)
    return vault


def test_a_run_with_moves_opens_the_index_once(vault: Vault, counted: Counter[str]) -> None:
    report = maintain(_vault(vault), now=NOW, embed=False)
    assert report.moves  # the old note and the superseded decisions moved
    assert counted["index opens"] == 1  # was 11: three per sync, two usage loads, lint, counts
    # After the moves the vault is read again, once: the moves changed what the files hold.
    assert counted["core.md reads"] == 1
    assert report.loads == {"uses": 2, "texts": 1, "state": 1, "book": 1}


def test_a_no_change_run_reads_everything_once(vault: Vault, counted: Counter[str]) -> None:
    maintain(_vault(vault), now=NOW, embed=False)
    (vault.state_dir / PROPOSALS).write_text(
        json.dumps({"version": 1, "proposals": []}), encoding="utf-8"
    )
    counted.clear()
    report = maintain(vault, now=NOW, embed=False)
    assert not report.moves
    assert counted == Counter({"index opens": 1, "core.md reads": 1, "proposals reads": 1})
    assert report.loads == {"uses": 1, "texts": 1, "state": 1, "book": 1}
