"""Issue 15 item 8: maintain reads each archive once and keeps its CPU work out of the
vault lock, so `add` is never kept waiting by it."""

from __future__ import annotations

from datetime import datetime

import pytest

from memctl.errors import LockBusy
from memctl.lifecycle import evidence
from memctl.lifecycle.compact import insert_note
from memctl.lifecycle.maintain import maintain
from memctl.vault import Vault
from tests.lifecycle.helpers import write

NOW = datetime(2027, 11, 22, 3, 0)


def _month(days: int, bullets: int) -> str:
    text = ""
    for day in range(1, days + 1):
        name = f"2026-09-{day:02d}.md"
        body = f"# 2026-09-{day:02d}\n\n" + "".join(
            f"- 09:{i:02d} заметка {day}/{i} נבדק once\n\n## part {i}\n\n" for i in range(bullets)
        )
        text = insert_note(text, "2026-09", name, body)
    return text


def test_prune_anchors_read_each_archive_once_and_date_each_packed_note(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "memory/archive/2026-09.md", _month(12, 10), datetime(2027, 1, 1))
    maintain(vault, now=NOW, embed=False)  # builds the index
    uses = evidence.load_chunk_uses(vault, NOW)
    cold = [u for u in uses if u.tier == "cold"]
    assert len(cold) > 50
    reads: list[str] = []
    real = evidence.read_exact
    monkeypatch.setattr(evidence, "read_exact", lambda p: reads.append(str(p)) or real(p))
    anchors = evidence.anchors_for_prune(vault, uses)
    assert len(reads) == 1
    days = {anchors[u.hash].date().isoformat() for u in cold if "заметка" in u.text}
    assert days and days <= {f"2026-09-{d:02d}" for d in range(1, 13)}
    # Each packed note's chunks carry that note's day, not the roll-up's mtime.
    for u in cold:
        if u.date is None and "заметка 7/" in u.text:
            assert anchors[u.hash].date().isoformat() == "2026-09-07"


def test_vault_lock_is_free_while_maintain_computes_proposals(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault, "memory/archive/2026-09.md", _month(3, 3), datetime(2027, 1, 1))
    held: list[bool] = []
    real = evidence.anchors_for_prune

    def probe(v: Vault, uses: list[evidence.ChunkUse]) -> dict[str, datetime]:
        try:
            with vault.lock(timeout=0):
                held.append(False)
        except LockBusy:
            held.append(True)
        return real(v, uses)

    monkeypatch.setattr(evidence, "anchors_for_prune", probe)
    maintain(vault, now=NOW, embed=False)
    assert held == [False]
