"""Issue 15 item 11: a daily note written for a date already archived is merged into the
archive (journalled, losslessly), not skipped every night forever."""

from __future__ import annotations

from datetime import datetime

import pytest

from memctl.lifecycle import moves
from memctl.lifecycle.maintain import maintain
from memctl.lifecycle.moves import finish_pending_moves
from memctl.vault import Vault
from tests.lifecycle.helpers import write

NOW = datetime(2026, 11, 22, 3, 0)
ARCHIVED = "# 2026-09-01\n\n- 09:00 released v0.9\n- 10:00 שחרור הצליח\n"
BACKFILL = "# 2026-09-01\n\n- 17:00 забыл записать: откат в 18:00\n"


def _vault(vault: Vault) -> None:
    write(vault, "memory/archive/daily/2026-09-01.md", ARCHIVED, datetime(2026, 10, 5))
    write(vault, "memory/daily/2026-09-01.md", BACKFILL, datetime(2026, 10, 1))


def test_backfilled_note_for_an_archived_date_is_merged(vault: Vault) -> None:
    _vault(vault)
    report = maintain(vault, now=NOW, embed=False)
    assert report.skipped_moves == []
    assert [(m["kind"], m["from"]) for m in report.moves] == [
        ("daily-merge", "memory/daily/2026-09-01.md")
    ]
    archive = (vault.root / "memory/archive/daily/2026-09-01.md").read_text(encoding="utf-8")
    assert archive == ARCHIVED + "\n" + BACKFILL
    assert not (vault.root / "memory/daily/2026-09-01.md").exists()
    again = maintain(vault, now=NOW, embed=False)
    assert again.moves == [] and again.skipped_moves == []
    assert (vault.root / "memory/archive/daily/2026-09-01.md").read_text(
        encoding="utf-8"
    ) == archive


@pytest.mark.parametrize("step", ["journaled", "written", "removed"])
def test_a_merge_killed_at_any_step_ends_with_the_text_once(
    vault: Vault, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    _vault(vault)

    class Killed(Exception):
        pass

    def fault(at: str) -> None:
        if at == step:
            raise Killed

    monkeypatch.setattr(moves, "FAULT", fault)
    with pytest.raises(Killed):
        maintain(vault, now=NOW, embed=False)
    monkeypatch.setattr(moves, "FAULT", None)
    with vault.lock():
        finish_pending_moves(vault)
    maintain(vault, now=NOW, embed=False)
    archive = (vault.root / "memory/archive/daily/2026-09-01.md").read_text(encoding="utf-8")
    assert archive.count("забыл записать") == 1 and archive.count("released v0.9") == 1
    assert not (vault.root / "memory/daily/2026-09-01.md").exists()


@pytest.mark.parametrize(
    ("source", "destination"),
    [
        ("memory/daily/2026-09-01.md", "memory/archive/daily/2026-09-02.md"),
        ("memory/decisions.md", "memory/archive/daily/2026-09-01.md"),
        ("memory/daily/2026-09-01.md", "memory/core.md"),
        ("memory/daily/notes.md", "memory/archive/daily/notes.md"),
    ],
)
def test_the_journal_refuses_a_merge_route_memctl_never_makes(
    vault: Vault, source: str, destination: str
) -> None:
    import json

    from memctl.errors import UsageError
    from memctl.lifecycle.moves import Journal, _intent_id

    block = "- 17:00 text"
    intent = {
        "id": _intent_id(source, block),
        "kind": "daily-merge",
        "source": source,
        "destination": destination,
        "block": block,
        "header": "",
    }
    (vault.state_dir / "moves.json").write_text(json.dumps({"pending": [intent]}))
    with pytest.raises(UsageError, match="not a route memctl uses"):
        Journal(vault).load()
