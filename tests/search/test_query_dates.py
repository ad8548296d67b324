"""The dates a query says, read as day ranges in English, Hebrew and Russian (pure)."""

from __future__ import annotations

from datetime import date

import pytest

from memctl.search.query.dates import read_dates

TODAY = date(2026, 11, 28)  # a Saturday


def span(text: str, today: date = TODAY) -> tuple[str, str] | None:
    said = read_dates(text, today)
    return None if said is None else (said.start.isoformat(), said.end.isoformat())


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # English
        ("what did we do today?", "2026-11-28", "2026-11-28"),
        ("Which ticket went out yesterday?", "2026-11-27", "2026-11-27"),
        ("what happened the day before yesterday", "2026-11-26", "2026-11-26"),
        ("What did Eitan deploy last Tuesday?", "2026-11-24", "2026-11-24"),
        ("the call on Saturday", "2026-11-21", "2026-11-21"),  # a weekday is before today
        ("three days ago", "2026-11-25", "2026-11-25"),
        ("5 days ago", "2026-11-23", "2026-11-23"),
        ("a week ago", "2026-11-18", "2026-11-24"),
        ("last week", "2026-11-15", "2026-11-22"),  # Sunday to Sunday: both week starts
        ("this week", "2026-11-22", "2026-11-28"),
        ("in the last 3 days", "2026-11-25", "2026-11-28"),
        ("last month", "2026-10-01", "2026-10-31"),
        ("What did we write down about Georgia in March?", "2026-03-01", "2026-03-31"),
        ("notes from December", "2025-12-01", "2025-12-31"),  # the latest December past
        ("March 2025", "2025-03-01", "2025-03-31"),
        ("What did Noa approve on 16 November?", "2026-11-16", "2026-11-16"),
        ("on November 16th", "2026-11-16", "2026-11-16"),
        ("14 July", "2026-07-14", "2026-07-14"),
        ("14th of Jul 2025", "2025-07-14", "2025-07-14"),
        ("the 2026-07-14 deploy", "2026-07-14", "2026-07-14"),
        ("what broke on 14.07", "2026-07-14", "2026-07-14"),
        ("what broke on 14/07/2025", "2025-07-14", "2025-07-14"),
        ("on 30.11", "2025-11-30", "2025-11-30"),  # not yet this year: last year's
        # Hebrew, with the one-letter prefixes
        ("מה עשינו היום?", "2026-11-28", "2026-11-28"),
        ("מה רשמנו אתמול", "2026-11-27", "2026-11-27"),
        ("מאתמול", "2026-11-27", "2026-11-27"),
        ("מה היה שלשום", "2026-11-26", "2026-11-26"),
        ("לפני יומיים", "2026-11-26", "2026-11-26"),
        ("לפני 3 ימים", "2026-11-25", "2026-11-25"),
        ("מה עשינו בשבוע שעבר", "2026-11-15", "2026-11-22"),
        ("בחודש שעבר", "2026-10-01", "2026-10-31"),
        ("ביום שלישי שעבר", "2026-11-24", "2026-11-24"),
        ("ביום ג׳", "2026-11-24", "2026-11-24"),
        ("מה קרה בשבת", "2026-11-21", "2026-11-21"),
        ("שבת שעברה", "2026-11-21", "2026-11-21"),
        ("in the past Monday standup", "2026-11-23", "2026-11-23"),
        ("прошлый четверг", "2026-11-26", "2026-11-26"),
        ("איזה נוהל רשמנו באפריל?", "2026-04-01", "2026-04-30"),
        ("ביולי", "2026-07-01", "2026-07-31"),
        ("מיולי", "2026-07-01", "2026-07-31"),
        ("בחודש יולי", "2026-07-01", "2026-07-31"),
        ("מה נכתב ב-9 בנובמבר על גאורגיה?", "2026-11-09", "2026-11-09"),
        ("14 ביולי", "2026-07-14", "2026-07-14"),
        # Russian, in every case
        ("что сделали сегодня", "2026-11-28", "2026-11-28"),
        ("Что вчера написал Дима?", "2026-11-27", "2026-11-27"),
        ("позавчера", "2026-11-26", "2026-11-26"),
        ("два дня назад", "2026-11-26", "2026-11-26"),
        ("неделю назад", "2026-11-18", "2026-11-24"),
        ("на прошлой неделе", "2026-11-15", "2026-11-22"),
        ("в прошлом месяце", "2026-10-01", "2026-10-31"),
        ("в понедельник", "2026-11-23", "2026-11-23"),
        ("во вторник", "2026-11-24", "2026-11-24"),
        ("в среду", "2026-11-25", "2026-11-25"),
        ("в прошлую среду", "2026-11-25", "2026-11-25"),
        ("в прошлую пятницу", "2026-11-27", "2026-11-27"),
        ("в прошлое воскресенье", "2026-11-22", "2026-11-22"),
        ("в июле", "2026-07-01", "2026-07-31"),
        ("июля", "2026-07-01", "2026-07-31"),
        ("в мае", "2026-05-01", "2026-05-31"),
        ("14 июля", "2026-07-14", "2026-07-14"),
        ("1-го декабря 2025", "2025-12-01", "2025-12-01"),
    ],
)
def test_reads_the_range_said(text: str, start: str, end: str) -> None:
    assert span(text) == (start, end)


@pytest.mark.parametrize(
    "text",
    [
        "upgrade to python 3.12",
        "the server at 10.0.0.1",
        "version 1.5.2",
        "may I ask about the refund",  # "may" alone is not the month
        "march the tests through CI",  # nor "march" without a preposition
        "the day shift",
        "deploy friday",  # a weekday alone may be any such day
        "пятница без деплоев",
        "שומרי שבת",
        "среда разработки",  # "среда" is also "environment"
        "настроить среду для тестов",
        "שני אנשים",  # "שני" alone is "two", not Monday
        "deadline 2026-12-20",  # a date after today is not a note's date
        "port 8080 and ticket MT-531",
        "",
    ],
)
def test_reads_no_date_where_none_is_said(text: str) -> None:
    assert read_dates(text, TODAY) is None


def test_words_that_said_a_date_are_reported_unless_used_elsewhere() -> None:
    said = read_dates("what did we do the day before yesterday?", TODAY)
    assert said is not None and said.words == {"the", "day", "before", "yesterday"}
    said = read_dates("the last deploy last week", TODAY)
    assert said is not None
    assert said.words == {"week"}  # "the" and "last" are said outside the date too
    said = read_dates("איזה נוהל רשמנו באפריל?", TODAY)
    assert said is not None and said.words == {"באפריל"}
    said = read_dates("Что Ольга объясняла в прошлое воскресенье?", TODAY)
    assert said is not None and said.words == {"в", "прошлое", "воскресенье"}


def test_several_dates_give_several_ranges() -> None:
    said = read_dates("what changed between 2026-11-02 and yesterday", TODAY)
    assert said is not None
    assert [(r.start.isoformat(), r.said) for r in said.ranges] == [
        ("2026-11-02", "2026-11-02"),
        ("2026-11-27", "yesterday"),
    ]
    assert said.holds(date(2026, 11, 27)) and not said.holds(date(2026, 11, 10))
    assert not said.holds(None)


def test_today_is_whatever_the_caller_says() -> None:
    # No clock inside: the same words on another day give another range.
    assert span("yesterday", date(2025, 1, 1)) == ("2024-12-31", "2024-12-31")
    assert span("in December", date(2025, 12, 5)) == ("2025-12-01", "2025-12-05")
    assert span("last month", date(2025, 1, 15)) == ("2024-12-01", "2024-12-31")
    assert span("29.02", date(2025, 3, 1)) is None  # no 29 February that year


def test_describe_names_the_words_and_the_days() -> None:
    said = read_dates("in March", TODAY)
    assert said is not None and said.describe() == "'in March' = 2026-03-01..2026-03-31"
