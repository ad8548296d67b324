"""Pure parsing of decisions and daily-note names."""

from datetime import date

from memctl.notes import (
    daily_note_date,
    format_decision,
    format_note_bullet,
    parse_decisions,
    recent_decisions,
)

DECISIONS = """# Decisions

## 2026-11-01 — Use SQLite for the index

One file, WAL is enough.

## 2026-11-03 — לעבור ל-FTS5
הסבר בעברית.

## Undated thoughts
no date here

## 2026-02-30 — Not a real day
body

## 2026-11-02 - Сохранять индекс вне git
Потому что он производный.
"""


def test_parse_decisions_keeps_exact_line_ranges() -> None:
    decisions = parse_decisions(DECISIONS)
    assert [d.title for d in decisions] == [
        "Use SQLite for the index",
        "לעבור ל-FTS5",
        "Undated thoughts",
        "Not a real day",
        "Сохранять индекс вне git",
    ]
    first = decisions[0]
    assert (first.line_start, first.line_end) == (3, 5)
    lines = DECISIONS.splitlines()
    for d in decisions:
        assert d.text == "\n".join(lines[d.line_start - 1 : d.line_end])


def test_undated_and_impossible_dates_are_kept_but_undated() -> None:
    decisions = parse_decisions(DECISIONS)
    assert decisions[2].date is None and decisions[2].raw_date is None
    assert decisions[3].date is None and decisions[3].raw_date == "2026-02-30"


def test_recent_decisions_newest_first_and_limited() -> None:
    recent = recent_decisions(parse_decisions(DECISIONS), 2)
    assert [d.date for d in recent] == [date(2026, 11, 3), date(2026, 11, 2)]


def test_daily_note_date() -> None:
    assert daily_note_date("2026-11-22.md") == date(2026, 11, 22)
    assert daily_note_date("2026-13-01.md") is None
    assert daily_note_date("notes.md") is None


def test_note_bullet_indents_continuation_lines() -> None:
    assert format_note_bullet("09:05", "first\nsecond\n\nthird") == (
        "- 09:05 first\n  second\n\n  third\n"
    )


def test_format_decision_round_trips_through_the_parser() -> None:
    block = format_decision(date(2026, 1, 5), "Pick  a\nname", "Because.")
    (parsed,) = parse_decisions(block)
    assert parsed.date == date(2026, 1, 5) and parsed.title == "Pick a name"
