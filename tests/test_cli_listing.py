"""The people-facing search listing: no line printed twice."""

from __future__ import annotations

from memctl.cli.search_cmds import _shows_heading


def test_heading_is_not_repeated_when_the_snippet_shows_it() -> None:
    assert _shows_heading("## Deploy keys\n- rotate monthly", "Runbook > Deploy keys")
    assert _shows_heading("# 2026-11-20\n- 09:00 кофе", "2026-11-20")
    assert _shows_heading("### מפתחות\n- להחליף", "תפעול > מפתחות")
    assert _shows_heading(
        "# Decisions\n\n## 2026-10-23 — Billing\n\ntext", "Decisions > 2026-10-23 — Billing"
    )
    assert not _shows_heading("- rotate monthly", "Runbook > Deploy keys")
    assert not _shows_heading("- see Deploy keys", "Runbook > Deploy keys")  # not a heading line
    assert not _shows_heading("## Deploy", "Runbook > Deploy keys")
    assert not _shows_heading("", "Runbook")
