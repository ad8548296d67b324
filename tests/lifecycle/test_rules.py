"""The pure tier rules, driven by an explicit `now` (no clock, no files)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta

from memctl.config import LifecycleSettings
from memctl.lifecycle.rules import (
    ChunkUse,
    CoreLine,
    DailyFacts,
    core_line_from_chunk,
    daily_demotions,
    decision_demotions,
    focus_lines,
    guess_section,
    hot_archive_candidates,
    over_cap,
    promotion_candidates,
    prune_candidates,
    superseded_decisions,
)
from memctl.notes import parse_decisions

NOW = datetime(2026, 11, 22, 3, 0)
RULES = LifecycleSettings()
SECTIONS = ("Identity", "Iron rules", "Active project", "Open blockers")


def chunk(
    tier: str = "warm", refs: int = 0, last: datetime | None = None, h: str = "a" * 32
) -> ChunkUse:
    return ChunkUse(
        h, "memory/daily/2026-11-20.md", 3, 3, "- 10:00 text", tier, "daily", None, last, refs
    )


def test_promotion_needs_more_than_threshold_references_in_warm() -> None:
    chunks = [
        chunk(refs=3, h="a" * 32),
        chunk(refs=4, h="b" * 32),
        chunk("hot", 9, h="c" * 32),
        chunk(refs=6, h="d" * 32),
    ]
    assert [c.hash[0] for c in promotion_candidates(chunks, RULES)] == ["d", "b"]


def test_daily_demotion_needs_old_day_old_edit_and_no_recent_reference() -> None:
    old = NOW - timedelta(days=31)
    notes = [
        DailyFacts("a", date(2026, 10, 1), old, None),  # demoted
        DailyFacts("b", date(2026, 10, 1), NOW - timedelta(days=2), None),  # edited lately
        DailyFacts("c", date(2026, 10, 1), old, NOW - timedelta(days=29)),  # referenced lately
        DailyFacts("d", date(2026, 11, 1), old, None),  # too young
        DailyFacts("e", date(2026, 10, 1), old, NOW - timedelta(days=31)),  # reference too old
    ]
    assert [n.path for n in daily_demotions(notes, NOW, RULES)] == ["a", "e"]
    # One day later nothing new happens for "c" yet, thirty later it goes too.
    assert "c" in [n.path for n in daily_demotions(notes, NOW + timedelta(days=2), RULES)]


DECISIONS = """# Decisions

## 2026-09-01 — Use SQLite for the index

one file

## 2026-09-02 — Хранить заметки в markdown

Заменено: решили иначе

## 2026-09-03 — לשמור גיבוי יומי

גיבוי כל לילה

## 2026-09-10 — Deploy on Fridays

yes

## 2026-09-20 — Use SQLite for the index

again, with WAL

## 2026-10-01 — No deploys on Fridays

Supersedes: 2026-09-10 — Deploy on Fridays

## 2026-11-15 — Keep logs 30 days [superseded]

short lived
"""


def test_superseded_definitions() -> None:
    decisions = parse_decisions(DECISIONS)
    found = {decisions[s.index].title: s for s in superseded_decisions(decisions)}
    assert set(found) == {
        "Use SQLite for the index",  # a later near-identical title
        "Хранить заметки в markdown",  # explicit marker (Russian)
        "Deploy on Fridays",  # named by Supersedes:
        "Keep logs 30 days [superseded]",  # title marker
    }
    assert found["Use SQLite for the index"].since == date(2026, 9, 20)
    assert found["Deploy on Fridays"].since == date(2026, 10, 1)
    assert found["Use SQLite for the index"].index == 0  # the older one, never the newer


def test_decision_demotion_waits_for_age_and_no_reference() -> None:
    decisions = parse_decisions(DECISIONS)
    moved = decision_demotions(decisions, {}, NOW, RULES)
    titles = [decisions[s.index].title for s in moved]
    # The one superseded on 2026-10-01 is 52 days old; the 2026-11-15 one is too recent.
    assert titles == ["Use SQLite for the index", "Хранить заметки в markdown", "Deploy on Fridays"]
    recently = {0: NOW - timedelta(days=3)}
    assert "Use SQLite for the index" not in [
        decisions[s.index].title for s in decision_demotions(decisions, recently, NOW, RULES)
    ]
    early = decision_demotions(decisions, {}, datetime(2026, 10, 15), RULES)
    assert [decisions[s.index].title for s in early] == ["Хранить заметки в markdown"]


def test_hebrew_decision_without_successor_stays() -> None:
    decisions = parse_decisions(DECISIONS)
    moved = {
        decisions[s.index].title
        for s in decision_demotions(decisions, {}, NOW + timedelta(days=400), RULES)
    }
    assert "לשמור גיבוי יומי" not in moved


def test_hot_lines_need_full_window_unreferenced() -> None:
    old, recent = NOW - timedelta(days=40), NOW - timedelta(days=5)
    lines = [
        CoreLine(5, "- a", "Active project", old, None),
        CoreLine(6, "- b", "Active project", recent, None),  # new line: never proposed
        CoreLine(7, "- c", "Active project", old, recent),
        CoreLine(8, "- d", "Open blockers", old, old),
        CoreLine(9, "- e", "Open blockers", None, None),
        CoreLine(10, "- никогда не пушить в main", "Iron rules", old, None),  # pinned
        CoreLine(11, "- אני הסוכן של דנה", "identity", old, None),  # pinned, any case
    ]
    assert [c.number for c in hot_archive_candidates(lines, NOW, RULES)] == [5, 8]
    unpinned = replace(RULES, hot_pinned_sections=())
    assert [c.number for c in hot_archive_candidates(lines, NOW, unpinned)] == [5, 8, 10, 11]


def test_prune_uses_anchor_and_last_read() -> None:
    old = NOW - timedelta(days=200)
    cold = [
        chunk("cold", h="a" * 32),
        chunk("cold", last=NOW - timedelta(days=10), h="b" * 32),
        chunk("cold", h="c" * 32),
        chunk("warm", h="d" * 32),
    ]
    anchors = {"a" * 32: old, "b" * 32: old, "c" * 32: NOW - timedelta(days=3), "d" * 32: old}
    assert [c.hash[0] for c in prune_candidates(cold, anchors, NOW, RULES)] == ["a"]


def test_cap_and_sections() -> None:
    assert over_cap(98, 2, 100) == 0 and over_cap(99, 3, 100) == 2
    assert guess_section("Never force-push", SECTIONS) == "Iron rules"
    assert guess_section("Никогда не удалять архив", SECTIONS) == "Iron rules"
    assert guess_section("אסור לדחוף ל-main", SECTIONS) == "Iron rules"
    assert guess_section("Blocked on the DNS change", SECTIONS) == "Open blockers"
    assert guess_section("Меня зовут Дана", SECTIONS) == "Identity"
    assert guess_section("memctl v1 release", SECTIONS) == "Active project"


def test_core_line_from_chunk_drops_headings_and_stamps() -> None:
    text = "## Notes\n- 10:15 всегда проверять бэкап\n- 11:00 review PRs"
    assert core_line_from_chunk(text) == "- всегда проверять бэкап\n- review PRs"


def test_focus_lines_keeps_what_the_searches_were_about() -> None:
    chunk = (
        "## 2026-11-20\n- 09:00 lunch with Noa\n- 09:30 API rate limit is 600 rpm per key\n"
        "- 10:00 הלקוח ביקש דוח חודשי בעברית\n- 11:00 Обновить сертификат до 1 декабря\n"
    )
    assert focus_lines(chunk, ("rate limit per key",)) == "- API rate limit is 600 rpm per key"
    assert focus_lines(chunk, ("דוח חודשי",)) == "- הלקוח ביקש דוח חודשי בעברית"
    assert focus_lines(chunk, ("сертификат",)) == "- Обновить сертификат до 1 декабря"
    whole = focus_lines(chunk, ())
    assert whole.count("\n") == 3  # no query: the whole chunk, for the reviewer to narrow
    assert focus_lines(chunk, ("zebra crossing",)) == whole  # nothing matches well
    short = "- 09:00 one\n- 09:10 two\n"
    assert focus_lines(short, ("two",)) == "- one\n- two"  # short chunks go whole
