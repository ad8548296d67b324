"""The people-facing search listing: no line printed twice."""

from __future__ import annotations

from memctl.cli.search_cmds import _shows_heading


def test_heading_is_not_repeated_when_the_snippet_opens_with_it() -> None:
    assert _shows_heading("## Deploy keys\n- rotate monthly", "Runbook > Deploy keys")
    assert _shows_heading("# 2026-11-20\n- 09:00 кофе", "2026-11-20")
    assert _shows_heading("### מפתחות\n- להחליף", "תפעול > מפתחות")
    assert not _shows_heading("- rotate monthly", "Runbook > Deploy keys")
    assert not _shows_heading("## Deploy", "Runbook > Deploy keys")
    assert not _shows_heading("", "Runbook")
