"""Day ranges by the calendar: a month, a week, the latest day or weekday before today,
some months back (pure: `today` is passed in)."""

from __future__ import annotations

from datetime import date, timedelta


def month_range(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return first, following - timedelta(days=1)


def latest_month(month: int, today: date, year: int | None) -> tuple[date, date]:
    if year is None:
        year = today.year if month <= today.month else today.year - 1
    return month_range(year, month)


def latest_day(day: int, month: int, today: date, year: int | None) -> tuple[date, date] | None:
    try:
        if year is not None:
            found = date(year, month, day)
        else:
            found = date(today.year, month, day)
            if found > today:
                found = date(today.year - 1, month, day)
    except ValueError:
        return None
    return found, found


def weekday_before(weekday: int, today: date) -> tuple[date, date]:
    """The latest `weekday` (0 = Monday) strictly before today."""
    back = (today.weekday() - weekday - 1) % 7 + 1
    day = today - timedelta(days=back)
    return day, day


def week(today: date, weeks_back: int) -> tuple[date, date]:
    """A calendar week, from its Sunday (the Israeli week) to its Sunday (the European
    one): both conventions are inside. 0 is this week, up to today."""
    monday = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks_back)
    start = monday - timedelta(days=1)
    end = min(monday + timedelta(days=6), today)
    return start, end


def around(day: date, today: date, half: int) -> tuple[date, date]:
    return day - timedelta(days=half), min(day + timedelta(days=half), today)


def months_back(today: date, back: int) -> tuple[date, date]:
    index = today.year * 12 + today.month - 1 - back
    start, end = month_range(index // 12, index % 12 + 1)
    return start, min(end, today)
