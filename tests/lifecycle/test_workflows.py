"""promote, demote and prune as library workflows: each owns the vault lock (held for the
changes, free for the LLM and the candidate scans) and returns a typed report."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from memctl.errors import LockBusy, UsageError
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.lifecycle import workflows
from memctl.lifecycle.proposals import ProposalBook
from memctl.lifecycle.workflows import (
    NO_INDEX_PROMOTE,
    NO_INDEX_PRUNE,
    run_demote,
    run_promote,
    run_prune,
)
from memctl.llm import NO_KEY_NOTICE, get_llm
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import DECISIONS, write
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

NOW = datetime(2026, 11, 22, 9, 30)
NOTE = "# 2026-11-20\n\n- 10:00 Никогда не запускать миграции в пятницу\n"


def lock_held(vault: Vault) -> bool:
    try:
        with vault.lock(timeout=0):
            return False
    except LockBusy:
        return True


def referenced(vault: Vault, times: int = 5) -> None:
    write(vault, "memory/daily/2026-11-20.md", NOTE)
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        row = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE text LIKE '%миграции%'"
        ).fetchone()
        for i in range(times):
            store.record_references(
                [(row[0], row[1])], "search", "миграции", NOW - timedelta(hours=i + 1)
            )


def probe_under_lock(
    monkeypatch: pytest.MonkeyPatch, vault: Vault, name: str, seen: list[bool]
) -> None:
    """Wrap workflows.`name` so each call records whether the vault lock is held."""
    real = getattr(workflows, name)

    def probe(*args: Any, **kwargs: Any) -> Any:
        seen.append(lock_held(vault))
        return real(*args, **kwargs)

    monkeypatch.setattr(workflows, name, probe)


def test_promote_with_review_asks_outside_the_lock_and_applies_under_it(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    referenced(vault)
    asked: list[bool] = []
    api = ScriptedAPI()

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        asked.append(lock_held(vault))
        return tool_message(
            {"approve": True, "reason": "a standing rule", "section": "Iron rules",
             "line": "Миграции — никогда по пятницам"}
        )  # fmt: skip

    api.responder = answer
    applied: list[bool] = []
    probe_under_lock(monkeypatch, vault, "apply_promotions", applied)
    report = run_promote(
        vault,
        review=True,
        llm=get_llm(fast_settings(), client=api.client()),
        apply_approved=True,
        now=NOW,
    )
    assert asked == [False] and applied == [True]
    assert not lock_held(vault)
    assert report.notices == [] and report.refused == [] and report.exit_code == 0
    [reviewed] = report.reviewed
    assert reviewed.status == "applied" and reviewed.review is not None
    assert reviewed.review["status"] == "approved"
    [(p, edit)] = report.applied
    assert p is reviewed and edit.section == "Iron rules"
    assert edit.added == ["- Миграции — никогда по пятницам"]
    assert report.proposals == []  # applied: no longer open
    assert "## Iron rules\n\n- Миграции — никогда по пятницам\n" in read_text(vault.core_path)
    # The report is what the CLI prints with --json, and it is stored: a new book agrees.
    out = report.to_dict()
    assert out["applied"] == [
        {"id": p.id, "section": "Iron rules", "added": edit.added, "core_lines": edit.line_count}
    ]
    assert [r["status"] for r in out["reviewed"]] == ["applied"]
    assert ProposalBook(vault).items[p.id].status == "applied"


def test_promote_review_without_llm_is_a_notice_and_lists_the_candidate(vault: Vault) -> None:
    referenced(vault)
    report = run_promote(vault, review=True, llm=None, now=NOW)
    assert report.notices == [NO_KEY_NOTICE]
    [p] = report.proposals
    assert p.status == "proposed" and p.line == "- Никогда не запускать миграции в пятницу"
    assert report.reviewed == [] and report.applied == [] and report.exit_code == 0


def test_promote_refusal_sets_the_exit_code_and_changes_nothing(vault: Vault) -> None:
    referenced(vault)
    [p] = run_promote(vault, now=NOW).proposals
    assert run_promote(vault, apply=[p.id], now=NOW).exit_code == 0
    before = read_text(vault.core_path)
    again = run_promote(vault, apply=[p.id], now=NOW)
    assert [(q.id, why) for q, why in again.refused] == [(p.id, "already applied")]
    assert again.exit_code == 1 and read_text(vault.core_path) == before


def test_promote_without_index_notices_and_usage_errors_raise(vault: Vault) -> None:
    report = run_promote(vault, now=NOW)
    assert report.notices == [NO_INDEX_PROMOTE] and report.proposals == []
    with pytest.raises(UsageError, match="--section and --text go with --apply ID"):
        run_promote(vault, section="Iron rules", now=NOW)
    assert not lock_held(vault)


def test_a_usage_error_costs_no_review(vault: Vault) -> None:
    referenced(vault)
    api = ScriptedAPI()  # no reply scripted: a request would fail the run differently
    llm = get_llm(fast_settings(), client=api.client())
    with pytest.raises(UsageError, match="exactly one ID"):
        run_promote(vault, review=True, llm=llm, apply=["P1", "P2"], text="x", now=NOW)
    assert api.requests == []
    assert ProposalBook(vault).items == {}  # nothing was stored either


def test_demote_plans_then_moves_under_the_lock(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = datetime(2026, 11, 22, 3, 0)
    write(vault, "memory/daily/2026-09-01.md", "# 2026-09-01\n\n- 09:00 שחרור הצליח\n",
          datetime(2026, 9, 1, 18))  # fmt: skip
    write(vault, "memory/decisions.md", DECISIONS)
    sync(vault, embed=False, now=later)
    shown = run_demote(vault, now=later)
    assert not shown.applied and shown.moved == [] and shown.recovered == []
    planned = {(m["kind"], m["from"]): m["reason"] for m in shown.planned}
    assert "daily note of 2026-09-01" in planned[("daily", "memory/daily/2026-09-01.md")]
    assert any(kind == "decision" and "superseded" in why for (kind, _), why in planned.items())
    assert (vault.root / "memory/daily/2026-09-01.md").exists()  # only shown
    moved: list[bool] = []
    probe_under_lock(monkeypatch, vault, "apply_demotions", moved)
    done = run_demote(vault, apply=True, now=later)
    assert moved == [True] and not lock_held(vault)
    assert {(m["kind"], m["from"]) for m in done.moved} == set(planned)
    assert done.to_dict()["planned"] == [] and done.skipped == []
    assert not (vault.root / "memory/daily/2026-09-01.md").exists()
    assert "שחרור הצליח" in read_text(vault.root / "memory/archive/daily/2026-09-01.md")
    # The index follows the moves: the archived note is COLD now.
    with Store.open(vault) as store:
        tiers = {r[0] for r in store.conn.execute("SELECT tier FROM chunks WHERE path LIKE '%2026-09-01%'")}  # fmt: skip
    assert tiers == {"cold"}
    assert run_demote(vault, apply=True, now=later).moved == []


def test_demote_archives_a_hot_line_by_id(vault: Vault) -> None:
    write(vault, "memory/core.md", read_text(vault.core_path).replace(
        "## Open blockers\n", "## Open blockers\n\n- אני גרה בחיפה\n"))  # fmt: skip
    sync(vault, embed=False, now=NOW - timedelta(days=31))
    run_demote(vault, now=NOW - timedelta(days=31))  # first sight of the line
    [hot] = [p for p in run_demote(vault, now=NOW).hot if "חיפה" in p.text]
    done = run_demote(vault, hot=[hot.id], now=NOW)
    assert done.moved == [
        {"kind": "core-line", "from": "memory/core.md", "to": "memory/archive/core.md",
         "what": "- אני גרה בחיפה"}
    ]  # fmt: skip
    assert "חיפה" not in read_text(vault.core_path)
    with pytest.raises(UsageError):
        run_demote(vault, hot=["H00000000"], now=NOW)


def test_prune_scans_outside_the_lock_and_deletes_under_it(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_prune(vault, now=NOW).notices == [NO_INDEX_PRUNE]
    write(vault, "memory/archive/daily/2026-03-02.md",
          "# 2026-03-02\n\n- 09:00 старая заметка про DNS\n", datetime(2026, 3, 2))  # fmt: skip
    sync(vault, embed=False, now=NOW)
    scanned: list[bool] = []
    deleted: list[bool] = []
    probe_under_lock(monkeypatch, vault, "prune_proposals", scanned)
    probe_under_lock(monkeypatch, vault, "apply_prunes", deleted)
    shown = run_prune(vault, now=NOW)
    assert shown.notices == [] and not shown.applied and shown.deleted == []
    [p] = shown.proposals
    assert p.path == "memory/archive/daily/2026-03-02.md" and "DNS" in p.text
    assert shown.to_dict()["proposals"][0]["id"] == p.id
    done = run_prune(vault, apply=True, only=[p.id], now=NOW)
    assert scanned == [False, False] and deleted == [True]
    assert done.deleted == [{"path": p.path, "what": "# 2026-03-02"}]
    assert done.to_dict()["proposals"] == [] and done.skipped == []
    assert not (vault.root / p.path).exists()
    assert ProposalBook(vault).items[p.id].status == "applied"
