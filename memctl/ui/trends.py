"""The trends page: each nightly run's per-tier figures and the reference log, as charts."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from memctl import clock
from memctl.lifecycle import history
from memctl.ui import charts
from memctl.vault import Vault

REFERENCE_DAYS = 60  # references per day: the last two months


def trends(vault: Vault) -> dict[str, Any]:
    runs = history.load_runs(vault)
    days = [r.at[:10] for r in runs]
    weeks = history.per_week(runs)
    per_day = _references_per_day(vault)
    charts_shown = {}
    if runs:
        charts_shown["HOT lines"] = charts.line_chart(
            days, [("HOT lines", [r.hot_lines for r in runs])], limit=runs[-1].hot_cap
        )
        charts_shown["WARM files"] = charts.line_chart(
            days, [("WARM files", [r.warm_files for r in runs])]
        )
        charts_shown["COLD"] = charts.line_chart(
            days,
            [
                ("COLD files", [r.cold_files for r in runs]),
                ("COLD chunks", [r.cold_chunks for r in runs]),
            ],
        )
        charts_shown["Promotions and demotions per week"] = charts.bar_chart(
            [w.isoformat() for w, _, _ in weeks],
            [("promotions", [p for _, p, _ in weeks]), ("demotions", [d for _, _, d in weeks])],
        )
    if per_day:
        charts_shown["References per day"] = charts.bar_chart(
            list(per_day), [("references", list(per_day.values()))]
        )
    return {"runs": runs, "charts": charts_shown}


def _references_per_day(vault: Vault) -> dict[str, float]:
    """Every day of the last REFERENCE_DAYS with its references (0 on a quiet day)."""
    from memctl.index.backend import has_index, open_store

    if not has_index(vault):
        return {}
    today = clock.today()
    since = clock.now() - timedelta(days=REFERENCE_DAYS)
    with open_store(vault) as store:
        counts = store.references_per_day(since)
    if not counts:
        return {}
    first = min(counts)
    out: dict[str, float] = {}
    day = since.date()
    while day <= today:
        key = day.isoformat()
        if key >= first:
            out[key] = counts.get(key, 0)
        day += timedelta(days=1)
    return out
