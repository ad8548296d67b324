"""Dates a query says ("yesterday", "last Tuesday", "in July", "14 июля", "ביולי") read as
day ranges, in English, Hebrew and Russian (pure: `today` is passed in, no I/O).

A search boosts the chunks dated inside the ranges (search/rank/dated.py); the words that
said a date are no longer matched as keywords, so "yesterday" does not drag in every note
that happens to contain the word. Past dates are meant: a month or weekday named without
a year is its latest occurrence on or before today (a weekday: before today).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memctl.search.query.date_names import (
    EN_DAYS,
    EN_MONTHS,
    EN_MONTHS_ALONE,
    HE_DAY_LETTERS,
    HE_DAYS,
    HE_MONTHS,
    NUMBER,
    RU_DAYS,
    RU_MONTHS,
    alt,
    count,
    which,
)
from memctl.search.query.day_ranges import (
    around,
    latest_day,
    latest_month,
    months_back,
    week,
    weekday_before,
)

# Words as parse_query splits them (the unicode61 tokenizer's split).
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# One or two Hebrew one-letter prefixes (ב, ל, מ, ו, ה, ש, כ), maybe with a maqaf or hyphen.
_HE = r"(?:[ובלמהשכ]{1,2}[-־]?)?"
_B = r"(?<![\w.])"  # a word starts (no letter, digit or dot before it)
_E = r"(?![\w])"  # a word ends


@dataclass(frozen=True)
class DateRange:
    """Days from `start` to `end`, inclusive, and the words of the query that said them."""

    start: date
    end: date
    said: str  # as the query has it, e.g. "the day before yesterday"

    def holds(self, day: date) -> bool:
        return self.start <= day <= self.end

    def describe(self) -> str:
        span = (
            self.start.isoformat()
            if self.start == self.end
            else f"{self.start.isoformat()}..{self.end.isoformat()}"
        )
        return f"{self.said!r} = {span}"


@dataclass(frozen=True)
class DatesSaid:
    """Every date range a query says, and the query words that said them (lowercased, split
    as parse_query splits; a word also used elsewhere in the query is not among them)."""

    ranges: tuple[DateRange, ...]
    words: frozenset[str]

    def holds(self, day: date | None) -> bool:
        return day is not None and any(r.holds(day) for r in self.ranges)

    @property
    def start(self) -> date:
        return min(r.start for r in self.ranges)

    @property
    def end(self) -> date:
        return max(r.end for r in self.ranges)

    def describe(self) -> str:
        return "; ".join(r.describe() for r in self.ranges)


# Words that ask what happened rather than about something: a query of these and a date
# ("what did we do yesterday?", "מה עשינו אתמול", "что мы делали вчера") asks for the day.
HAPPENED = frozenset(
    """happen happened happening do did done doing work worked working write wrote written
    note noted notes say said discuss discussed talk talked decide decided going new anything
    something everything whats what's up on
    עשינו עשיתי עשו קרה קורה היה היו רשמנו רשמתי כתבנו כתבתי נכתב נרשם דיברנו עבדנו הוחלט
    החלטנו חדש מה
    делали сделали сделал делал было были был произошло случилось происходило обсуждали
    обсудили писали написали записали записано работали решили нового новое что""".split()
)


def _year(value: str | None) -> int | None:
    if not value:
        return None
    year = int(value)
    return year + 2000 if year < 100 else year


# --- the rules ------------------------------------------------------------------------

Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], tuple[date, date] | None]]


def _days_ago(n: int) -> Callable[[re.Match[str], date], tuple[date, date]]:
    return lambda _m, today: (today - timedelta(days=n), today - timedelta(days=n))


def _rule(pattern: str, read: Callable[[re.Match[str], date], tuple[date, date] | None]) -> Rule:
    return re.compile(pattern, re.IGNORECASE), read


def _numeric(m: re.Match[str], today: date) -> tuple[date, date] | None:
    return latest_day(int(m.group(1)), int(m.group(2)), today, _year(m.group(3)))


def _iso(m: re.Match[str], today: date) -> tuple[date, date] | None:
    return latest_day(int(m.group(3)), int(m.group(2)), today, int(m.group(1)))


def _day_month(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date] | None]:
    def read(m: re.Match[str], today: date) -> tuple[date, date] | None:
        month = which(names, m.group("month").lower()) + 1
        return latest_day(int(m.group("day")), month, today, _year(m.group("year")))

    return read


def _month(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date]]:
    def read(m: re.Match[str], today: date) -> tuple[date, date]:
        month = which(names, m.group("month").lower()) + 1
        return latest_month(month, today, _year(m.group("year")))

    return read


def _weekday(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date]]:
    def read(m: re.Match[str], today: date) -> tuple[date, date]:
        return weekday_before(which(names, m.group("day").lower()), today)

    return read


def _units_ago(m: re.Match[str], today: date) -> tuple[date, date]:
    n, unit = count(m.group("n").lower()), m.group("unit").lower()
    if unit.startswith(("day", "дн", "ден", "יומ", "ימ")):
        return _days_ago(n)(m, today)
    if unit.startswith(("week", "недел", "שבוע")):
        return around(today - timedelta(weeks=n), today, 3)
    return months_back(today, n)


_EN_DAY_MONTH = (
    _B
    + r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>"
    + alt(EN_MONTHS)[1:]
    + r"\.?(?:,?\s+(?P<year>\d{4}))?"
    + _E
)
_EN_MONTH_DAY = (
    _B + r"(?P<month>" + alt(EN_MONTHS)[1:] + r"\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:,?\s+(?P<year>\d{4}))?" + _E
)
_HE_MONTH = _HE + r"(?:חודש\s+)?(?P<month>" + alt(HE_MONTHS)[1:]
_RU_MONTH = r"(?P<month>" + alt(RU_MONTHS)[1:]

_RULES: tuple[Rule, ...] = (
    # Written dates: 2026-07-14, 14.07, 14.07.2026, 14/07/26 (day first, as written in
    # Israel and Russia; both parts two digits, so "3.12" stays a version number).
    _rule(r"(?<![\w.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w])", _iso),
    _rule(r"(?<![\w./])(\d{2})[./](\d{2})(?:[./](\d{4}|\d{2}))?(?![\w/]|\.\d)", _numeric),
    _rule(_EN_DAY_MONTH, _day_month(EN_MONTHS)),
    _rule(_EN_MONTH_DAY, _day_month(EN_MONTHS)),
    _rule(
        _B + r"(?:[ובלמה][-־]?)?(?P<day>\d{1,2})\s+" + _HE_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _day_month(HE_MONTHS),
    ),
    _rule(
        _B + r"(?P<day>\d{1,2})(?:-?го)?\s+" + _RU_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _day_month(RU_MONTHS),
    ),
    # Relative days.
    _rule(r"(?:the\s+)?day\s+before\s+yesterday" + _E, _days_ago(2)),
    _rule(_B + r"позавчера" + _E, _days_ago(2)),
    _rule(_B + r"(?:[ומ]?)שלשום" + _E, _days_ago(2)),
    _rule(_B + r"(?:yesterday|last\s+night)" + _E, _days_ago(1)),
    _rule(_B + r"вчера(?:шн\w*)?" + _E, _days_ago(1)),
    _rule(_B + r"(?:[ומ]?)אתמול" + _E, _days_ago(1)),
    _rule(_B + r"(?:today|tonight|this\s+morning)" + _E, _days_ago(0)),
    _rule(_B + r"сегодня(?:шн\w*)?" + _E, _days_ago(0)),
    _rule(_B + r"(?:[ומ]?)היום" + _E, _days_ago(0)),
    _rule(
        _B + r"(?P<n>" + NUMBER[1:] + r"\s+(?P<unit>days?|weeks?|months?)\s+ago" + _E,
        _units_ago,
    ),
    _rule(
        _B + r"(?P<n>" + NUMBER[1:] + r"\s+(?P<unit>дн\w*|ден\w*|недел\w*|месяц\w*)\s+назад" + _E,
        _units_ago,
    ),
    _rule(_B + r"(?P<unit>недел\w*|месяц)\s+назад" + _E, lambda m, t: _units_ago_one(m, t)),
    _rule(_B + r"(?:מ?לפני)\s+(?P<n>\d{1,3})\s+(?P<unit>ימים|שבועות|חודשים)" + _E, _units_ago),
    _rule(
        _B + r"(?:מ?לפני)\s+(?P<unit>יומיים|שבועיים|חודשיים|שבוע|חודש)" + _E,
        lambda m, t: _hebrew_ago(m.group("unit"), t),
    ),
    # Weeks, months, years.
    _rule(_B + r"(?:the\s+)?(?:last|past|previous)\s+week" + _E, lambda _m, t: week(t, 1)),
    _rule(_B + r"this\s+week" + _E, lambda _m, t: week(t, 0)),
    _rule(
        _B + r"(?:in\s+)?(?:the\s+)?(?:last|past)\s+(?P<n>\d{1,3}|few)\s+days" + _E,
        lambda m, t: (t - timedelta(days=_few(m.group("n"))), t),
    ),
    _rule(
        _B + r"(?:на\s+)?(?:прошлой|прошлую|предыдущей)\s+недел[еюи]" + _E,
        lambda _m, t: week(t, 1),
    ),
    _rule(_B + r"(?:на\s+)?позапрошлой\s+недел[еюи]" + _E, lambda _m, t: week(t, 2)),
    _rule(_B + r"(?:на\s+)?(?:этой|эту|текущей)\s+недел[еюи]" + _E, lambda _m, t: week(t, 0)),
    _rule(_B + _HE + r"שבוע\s+(?:שעבר|הקודם|שחלף)" + _E, lambda _m, t: week(t, 1)),
    _rule(_B + r"(?:ב|מ)?השבוע" + _E, lambda _m, t: week(t, 0)),
    _rule(_B + r"(?:last|previous)\s+month" + _E, lambda _m, t: months_back(t, 1)),
    _rule(_B + r"this\s+month" + _E, lambda _m, t: months_back(t, 0)),
    _rule(_B + r"(?:в\s+)?(?:прошлом|предыдущем)\s+месяце" + _E, lambda _m, t: months_back(t, 1)),
    _rule(_B + r"(?:в\s+)?этом\s+месяце" + _E, lambda _m, t: months_back(t, 0)),
    _rule(_B + _HE + r"חודש\s+(?:שעבר|הקודם)" + _E, lambda _m, t: months_back(t, 1)),
    _rule(_B + r"(?:ב|מ)?החודש" + _E, lambda _m, t: months_back(t, 0)),
    # Weekdays, after a word that makes them a day ("deploy friday" may be any Friday).
    _rule(
        _B + r"(?:last|on|this\s+past|past|previous)\s+(?P<day>" + alt(EN_DAYS)[1:] + _E,
        _weekday(EN_DAYS),
    ),
    _rule(
        _B
        + r"(?:во?\s+(?:(?:прошл|последн)\w*\s+)?|(?:прошл|последн)\w*\s+)(?P<day>"
        + alt(RU_DAYS[:2] + RU_DAYS[3:])[1:]
        + _E,
        _weekday(RU_DAYS),
    ),
    _rule(
        _B + r"в\s+(?:(?:прошл|последн)\w*\s+)?(?P<day>среду)" + _E,
        _weekday(RU_DAYS),
    ),
    _rule(
        _B
        + _HE
        + r"יום\s+(?:ה)?(?P<day>"
        + alt(HE_DAYS)[1:]
        + r"(?:\s+(?:שעבר|האחרון|הקודם))?"
        + _E,
        _weekday(HE_DAYS),
    ),
    _rule(
        _B + _HE + r"יום\s+(?P<day>" + alt(HE_DAY_LETTERS)[1:] + r"\s?['׳]",
        _weekday(HE_DAY_LETTERS),
    ),
    _rule(
        _B
        + r"(?:ו?[במ]|מה)שבת(?:\s+(?:שעברה|האחרונה|הקודמת))?"
        + _E
        + r"|"
        + _B
        + r"שבת\s+(?:שעברה|האחרונה|הקודמת)"
        + _E,
        lambda _m, t: weekday_before(5, t),
    ),
    # Months alone: "in March", "в июле", "ביולי", "March 2026".
    _rule(
        _B + r"(?P<month>" + alt(EN_MONTHS_ALONE)[1:] + r"\s+(?P<year>\d{4})" + _E,
        _month(EN_MONTHS_ALONE),
    ),
    _rule(
        _B
        + r"(?:in|during|since|from|of|last|this|early|late|mid)[\s-]+(?P<month>"
        + alt(EN_MONTHS_ALONE)[1:]
        + r"(?:\s+(?P<year>\d{4}))?"
        + _E,
        _month(EN_MONTHS_ALONE),
    ),
    _rule(
        _B + r"(?:(?:во?|с|до|к)\s+)?" + _RU_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _month(RU_MONTHS),
    ),
    _rule(_B + _HE_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E, _month(HE_MONTHS)),
)


def _few(value: str) -> int:
    return 3 if value.lower() == "few" else int(value)


def _units_ago_one(m: re.Match[str], today: date) -> tuple[date, date]:
    if m.group("unit").lower().startswith("недел"):
        return around(today - timedelta(weeks=1), today, 3)
    return months_back(today, 1)


def _hebrew_ago(unit: str, today: date) -> tuple[date, date]:
    if unit == "יומיים":
        return today - timedelta(days=2), today - timedelta(days=2)
    if unit in ("שבוע", "שבועיים"):
        weeks = 2 if unit == "שבועיים" else 1
        return around(today - timedelta(weeks=weeks), today, 3)
    return months_back(today, 2 if unit == "חודשיים" else 1)


def read_dates(text: str, today: date) -> DatesSaid | None:
    """The date ranges `text` says (None: it says none). Never raises on odd input."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, DateRange]] = []
    for pattern, read in _RULES:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(start < b and a < end for a, b in taken):
                continue
            days = read(m, today)
            if days is None or days[0] > today:
                continue
            taken.append((start, end))
            found.append((start, DateRange(days[0], min(days[1], today), m.group(0).strip())))
    if not found:
        return None
    inside = {w.lower() for a, b in taken for w in _WORD.findall(text[a:b])}
    outside = {
        w.lower()
        for w in _WORD.findall(
            "".join(" " if any(a <= i < b for a, b in taken) else c for i, c in enumerate(text))
        )
    }
    ranges = tuple(r for _, r in sorted(found, key=lambda f: f[0]))
    return DatesSaid(tuple(dict.fromkeys(ranges)), frozenset(inside - outside))
