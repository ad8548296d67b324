"""A chunk cut into its facts (memctl.index.units): list items and sentence lines, in
English, Hebrew and Russian; prose paragraphs and single facts stay whole."""

from __future__ import annotations

from memctl.index.units import MAX_UNITS, units_of


def texts(chunk: str) -> list[str]:
    return [u.text for u in units_of(chunk)]


def test_a_day_of_bullets_is_one_unit_per_bullet_without_marker_or_time() -> None:
    day = (
        "# 2026-11-29\n\n"
        "- 08:20 Kostya: 31 orders packed for today\n"
        "- 10:05 ליאת: קבוצה של 22 מרעננה מגיעה ביום שלישי\n"
        "- 12:45 Ирина: членам клуба не пришли письма о продлении\n"
    )
    assert texts(day) == [
        "Kostya: 31 orders packed for today",
        "ליאת: קבוצה של 22 מרעננה מגיעה ביום שלישי",
        "Ирина: членам клуба не пришли письма о продлении",
    ]
    assert [(u.start, u.end) for u in units_of(day)] == [(2, 2), (3, 3), (4, 4)]


def test_a_unit_says_the_note_title_above_a_date_heading() -> None:
    note = (
        "# Экскурсии на русском\n## 2026-08-01\n"
        "- цена 80 шекелей с человека, дети бесплатно\n"
        "- в дождь экскурсия идёт только по погребу\n"
    )
    assert texts(note) == [
        "Экскурсии на русском: цена 80 шекелей с человека, дети бесплатно",
        "Экскурсии на русском: в дождь экскурсия идёт только по погребу",
    ]


def test_sentence_lines_of_a_decision_are_units_titled_without_the_date() -> None:
    decision = (
        "## 2026-04-11 — מחיר הטעימה במרכז המבקרים\n"
        "טעימה של ארבעה יינות עולה 95 ש״ח לאדם.\n"
        "ליאת תולה את המחיר על הלוח ליד הדלת.\n"
    )
    assert texts(decision) == [
        "מחיר הטעימה במרכז המבקרים: טעימה של ארבעה יינות עולה 95 ש״ח לאדם.",
        "מחיר הטעימה במרכז המבקרים: ליאת תולה את המחיר על הלוח ליד הדלת.",
    ]


def test_a_hard_wrapped_paragraph_and_a_single_fact_have_no_units() -> None:
    wrapped = (
        "The tasting room opens at ten and the guide walks the guests\n"
        "through the cellar before they taste the four wines of the\n"
        "season, ending at the shop.\n"
    )
    assert units_of(wrapped) == []  # one unit: the chunk's own vector is the fact's
    assert units_of("# Title\n\n- only one bullet here today\n") == []
    # A fence is searched by its words; short lines are not facts.
    assert units_of("- TODO\n- ok\n```\nx = 1\ny = 2\n```\n") == []


def test_units_are_capped_and_hashed_by_their_own_text() -> None:
    many = "\n".join(f"- item number {i} of the list" for i in range(MAX_UNITS + 5))
    units = units_of(many)
    assert len(units) == MAX_UNITS
    assert len({u.hash for u in units}) == MAX_UNITS
