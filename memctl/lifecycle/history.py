"""Each nightly run's per-tier figures, kept in `.memctl/history.json` for the trends.

`memctl maintain` appends one record per run (rewritten atomically, the latest KEEP
runs kept); `memctl ui` draws them. Promotions are counted as the running total of
applied promotions, so a week's promotions are a difference of two runs' totals
whoever applied them (the CLI, an agent, the page).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from datetime import date, timedelta
from typing import Any

from memctl.vault import Vault, atomic_write_text

FILE = "history.json"
KEEP = 1000  # nearly three years of nightly runs in ~200 KB


@dataclass(frozen=True)
class RunFigures:
    """One maintain run: when, what each tier held, what it did, how it ended."""

    at: str  # ISO timestamp of the run
    hot_lines: int
    hot_cap: int
    warm_files: int
    cold_files: int
    cold_chunks: int | None
    moves: int  # demotions made by the run
    promotions_applied: int  # running total of applied promotions at the run
    proposals_waiting: int
    lint_errors: int
    lint_warnings: int
    exit_code: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_runs(vault: Vault) -> list[RunFigures]:
    """The recorded runs, oldest first; a damaged or foreign file reads as none."""
    path = vault.state_entry(FILE)
    try:
        raw = json.loads(path.read_bytes().decode("utf-8"))
        names = {f.name for f in fields(RunFigures)}
        return [RunFigures(**{k: v for k, v in r.items() if k in names}) for r in raw["runs"]]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


def record_run(vault: Vault, figures: RunFigures) -> None:
    """Append one run (the caller holds the vault lock, as for every state write)."""
    runs = [*load_runs(vault), figures][-KEEP:]
    text = json.dumps({"version": 1, "runs": [r.to_dict() for r in runs]}, ensure_ascii=False)
    atomic_write_text(vault.state_entry(FILE), text + "\n")


# -- pure: what the trends plot ---------------------------------------------------------------


def week_of(day: date) -> date:
    """The Monday starting `day`'s week."""
    return day - timedelta(days=day.weekday())


def per_week(runs: list[RunFigures]) -> list[tuple[date, int, int]]:
    """(week's Monday, promotions, demotions) for each week from the first run to the last.

    Promotions: the rise of the applied total over the week (a total that fell, as when
    proposals.json was deleted, counts as no promotions, never as negative ones)."""
    if not runs:
        return []
    weeks: dict[date, list[int]] = {}
    before = runs[0].promotions_applied
    for run in runs:
        week = week_of(date.fromisoformat(run.at[:10]))
        tally = weeks.setdefault(week, [0, 0])
        tally[0] += max(0, run.promotions_applied - before)
        tally[1] += run.moves
        before = run.promotions_applied
    first, last = min(weeks), max(weeks)
    out = []
    week = first
    while week <= last:
        promoted, demoted = weeks.get(week, [0, 0])
        out.append((week, promoted, demoted))
        week += timedelta(days=7)
    return out
