"""Item 7: a live decision is never archived because another one has a look-alike title."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from memctl.config import LifecycleSettings
from memctl.lifecycle.rules import decision_demotions, superseded_decisions
from memctl.notes import Decision, parse_decisions

PAIRS = [
    ("Retry policy for service A", "Retry policy for service B"),
    ("Rate limits for the API", "Rate limits for the UI"),
    ("Budget for Q3", "Budget for Q4"),
    ("Migration number 1", "Migration number 2"),
    ("Use Postgres 15 in staging", "Use Postgres 16 in staging"),
    ("מדיניות ניסיון חוזר לשירות א", "מדיניות ניסיון חוזר לשירות ב"),
    ("תקציב לרבעון 3", "תקציב לרבעון 4"),
    ("Политика повторов для сервиса A", "Политика повторов для сервиса B"),
    ("Бюджет на Q3", "Бюджет на Q4"),
    ("Лимиты для API", "Лимиты для UI"),
]


def vault_text(titles: list[str], start: date) -> str:
    parts = ["# Decisions", ""]
    for n, title in enumerate(titles):
        parts += [f"## {(start + timedelta(days=n)).isoformat()} — {title}", "", "reasons", ""]
    return "\n".join(parts)


@pytest.mark.parametrize("first,second", PAIRS)
def test_lookalike_titles_are_different_decisions(first: str, second: str) -> None:
    decisions = parse_decisions(vault_text([first, second], date(2026, 1, 1)))
    assert superseded_decisions(decisions) == []


def test_no_live_decision_leaves_warm_by_lookalike() -> None:
    titles = [t for pair in PAIRS for t in pair] + [
        f"Retry policy for service {c}" for c in "CDEFGHIJ"
    ]
    decisions = parse_decisions(vault_text(titles, date(2025, 1, 1)))
    moved = decision_demotions(decisions, {}, datetime(2026, 11, 22), LifecycleSettings())
    assert len(decisions) == 28 and moved == []


def test_the_same_title_again_still_supersedes() -> None:
    text = vault_text(
        ["Use SQLite for the index", "use sqlite for the index!", "Хранить в Git", "хранить в git"],
        date(2026, 1, 1),
    )
    decisions = parse_decisions(text)
    assert [s.index for s in superseded_decisions(decisions)] == [0, 2]


def test_supersedes_line_names_exactly_one_decision() -> None:
    text = vault_text(
        ["Retry policy for service A", "Retry policy for service B"], date(2026, 1, 1)
    )
    text += "\n## 2026-02-01 — New retry policy for B\n\nSupersedes: Retry policy for service B\n"
    text += "\n## 2026-02-02 — Бюджет\n\nЗаменяет: 2026-01-01 — Retry policy for service A\n"
    decisions: list[Decision] = parse_decisions(text)
    assert [s.index for s in superseded_decisions(decisions)] == [0, 1]
    # A typo in the reference retires nothing (lint says it names no decision).
    typo = text.replace(
        "Supersedes: Retry policy for service B", "Supersedes: Retry polcy for service C"
    )
    assert [s.index for s in superseded_decisions(parse_decisions(typo))] == [0]


def test_lint_names_a_supersedes_line_that_matches_nothing() -> None:
    from memctl.lifecycle.lint import check_decisions

    text = vault_text(["Retry policy for service A"], date(2026, 1, 1))
    text += "\n## 2026-02-01 — New\n\nSupersedes: Retry polcy for service A\n"
    found = [f for f in check_decisions(text) if f.code == "supersedes-unknown"]
    assert [(f.line, "polcy" in f.message) for f in found] == [(9, True)]
