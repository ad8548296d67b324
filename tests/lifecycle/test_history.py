"""Each nightly run's per-tier figures in .memctl/history.json, and the weekly tallies."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle import history
from memctl.lifecycle.history import RunFigures, per_week
from memctl.lifecycle.maintain import maintain
from memctl.lifecycle.proposals import ProposalBook
from memctl.lifecycle.workflows import run_promote
from memctl.vault import Vault
from tests.lifecycle.helpers import write
from tests.lifecycle.test_workflows import NOW, referenced

RUN = RunFigures("2026-11-02T03:15:00", 10, 100, 3, 4, 40, 1, 0, 2, 0, 1, 0)


def test_maintain_records_its_figures(vault: Vault) -> None:
    write(
        vault,
        "memory/daily/2026-09-01.md",
        "# 2026-09-01\n\n- старая заметка\n",
        NOW - timedelta(days=80),
    )
    maintain(vault, now=NOW, embed=False)
    maintain(vault, now=NOW + timedelta(days=1), embed=False)
    first, second = history.load_runs(vault)
    assert first.at.startswith("2026-11-22") and second.at.startswith("2026-11-23")
    assert first.moves == 1 and second.moves == 0  # the old note moved once
    assert first.hot_cap == 100 and first.hot_lines == second.hot_lines > 0
    assert first.cold_files == 1 and first.exit_code == 0


def test_a_damaged_history_reads_as_none_and_is_replaced(vault: Vault) -> None:
    (vault.state_dir / history.FILE).write_text("{not json", encoding="utf-8")
    assert history.load_runs(vault) == []
    history.record_run(vault, RUN)
    assert history.load_runs(vault) == [RUN]


def test_only_the_latest_runs_are_kept(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "KEEP", 3)
    for n in range(5):
        history.record_run(vault, replace(RUN, hot_lines=n))
    assert [r.hot_lines for r in history.load_runs(vault)] == [2, 3, 4]


def test_per_week_counts_promotions_as_the_rise_of_the_total() -> None:
    runs = [
        replace(RUN, at="2026-11-02T03:00:00", promotions_applied=5, moves=1),  # a Monday
        replace(RUN, at="2026-11-05T03:00:00", promotions_applied=7, moves=2),
        replace(RUN, at="2026-11-20T03:00:00", promotions_applied=1, moves=0),  # book reset
        replace(RUN, at="2026-11-21T03:00:00", promotions_applied=3, moves=4),
    ]
    assert per_week(runs) == [
        (date(2026, 11, 2), 2, 3),
        (date(2026, 11, 9), 0, 0),  # a week with no run is drawn as nothing done
        (date(2026, 11, 16), 2, 4),
    ]
    assert per_week([]) == []


def test_promote_reject_by_a_person(vault: Vault) -> None:
    referenced(vault)
    (pid,) = [p.id for p in run_promote(vault, now=NOW).proposals]
    runner = CliRunner()
    result = runner.invoke(app, ["--vault", str(vault.root), "promote", "--reject", pid])
    assert result.exit_code == 0, result.output
    assert f"rejected {pid}" in result.output
    p = ProposalBook(vault).get(pid)
    assert p.status == "rejected" and p.review and p.review["by"] == "person"
    # Not proposed again, and a second no is a no-op.
    assert run_promote(vault, now=NOW + timedelta(hours=1)).proposals == []
    again = runner.invoke(app, ["--vault", str(vault.root), "promote", "--reject", pid])
    assert again.exit_code == 0 and "rejected" not in again.output
    unknown = runner.invoke(app, ["--vault", str(vault.root), "promote", "--reject", "P00000000"])
    assert unknown.exit_code == 2 and "no proposal 'P00000000'" in unknown.output
    both = runner.invoke(
        app, ["--vault", str(vault.root), "promote", "--reject", pid, "--apply", pid]
    )
    assert both.exit_code == 2
