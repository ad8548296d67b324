"""Dates a query says ("yesterday", "last Tuesday", "in July", "14 июля", "ביולי") read as
day ranges, in English, Hebrew and Russian (pure: `today` is passed in, no I/O).

A search boosts the chunks dated inside the ranges (search/query/dated.py); the words that
said a date are no longer matched as keywords, so "yesterday" does not drag in every note
that happens to contain the word. Past dates are meant: a month or weekday named without
a year is its latest occurrence on or before today (a weekday: before today).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

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

# --- names ---------------------------------------------------------------------------

_EN_MONTHS = (
    "jan(?:uary)?",
    "feb(?:ruary)?",
    "mar(?:ch)?",
    "apr(?:il)?",
    "may",
    "june?",
    "july?",
    "aug(?:ust)?",
    "sep(?:t(?:ember)?)?",
    "oct(?:ober)?",
    "nov(?:ember)?",
    "dec(?:ember)?",
)
# Full names only where a month stands alone ("in March"): "may", "mar" are other words too.
_EN_MONTHS_ALONE = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_HE_MONTHS = (
    "ינואר",
    "פברואר",
    "מר[צס]",
    "אפריל",
    "מאי",
    "יוני",
    "יולי",
    "אוגוסט",
    "ספטמבר",
    "אוקטובר",
    "נובמבר",
    "דצמבר",
)
# Russian months in every case: январь, января, январе, январём ...
_RU_MONTHS = (
    "январ[ьяеюё]м?",
    "феврал[ьяеюё]м?",
    "март(?:а|е|у|ом)?",
    "апрел[ьяеюё]м?",
    "ма(?:й|я|е|ю|ем)",
    "июн[ьяеюё]м?",
    "июл[ьяеюё]м?",
    "август(?:а|е|у|ом)?",
    "сентябр[ьяеюё]м?",
    "октябр[ьяеюё]м?",
    "ноябр[ьяеюё]м?",
    "декабр[ьяеюё]м?",
)
_EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Hebrew weekdays follow "יום" (שני alone is also "second"); שבת stands alone.
_HE_DAYS = ("שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת", "ראשון")
_HE_DAY_LETTERS = ("ב", "ג", "ד", "ה", "ו", "ש", "א")
# Russian weekdays in every case; Wednesday only as "в среду" ("среда", "среду" alone are
# also "environment": "настроить среду").
_RU_DAYS = (
    "понедельник(?:а|у|ом|е)?",
    "вторник(?:а|у|ом|е)?",
    "среду",
    "четверг(?:а|у|ом|е)?",
    "пятниц(?:а|у|ы|е|ей)",
    "суббот(?:а|у|ы|е|ой)",
    "воскресень(?:е|я|ю|ем)",
)

_NUMBERS = {
    **dict.fromkeys(("a", "an", "one", "один", "одну", "один"), 1),
    **dict.fromkeys(("two", "два", "две"), 2),
    **dict.fromkeys(("three", "три"), 3),
    **dict.fromkeys(("four", "четыре"), 4),
    **dict.fromkeys(("five", "пять"), 5),
    **dict.fromkeys(("six", "шесть"), 6),
    **dict.fromkeys(("seven", "семь"), 7),
    **dict.fromkeys(("ten", "десять"), 10),
}
_NUMBER = r"(\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"


def _alt(names: Iterable[str]) -> str:
    return "(" + "|".join(f"(?:{n})" for n in names) + ")"


def _which(names: tuple[str, ...], word: str) -> int:
    """The index of the first pattern in `names` matching all of `word`."""
    for i, name in enumerate(names):
        if re.fullmatch(name, word):
            return i
    raise ValueError(word)  # pragma: no cover - the caller matched one of them


# --- calendar arithmetic ---------------------------------------------------------------


def _month_range(year: int, month: int) -> tuple[date, date]:
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return first, following - timedelta(days=1)


def _latest_month(month: int, today: date, year: int | None) -> tuple[date, date]:
    if year is None:
        year = today.year if month <= today.month else today.year - 1
    return _month_range(year, month)


def _latest_day(day: int, month: int, today: date, year: int | None) -> tuple[date, date] | None:
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


def _weekday_before(weekday: int, today: date) -> tuple[date, date]:
    """The latest `weekday` (0 = Monday) strictly before today."""
    back = (today.weekday() - weekday - 1) % 7 + 1
    day = today - timedelta(days=back)
    return day, day


def _week(today: date, weeks_back: int) -> tuple[date, date]:
    """A calendar week, from its Sunday (the Israeli week) to its Sunday (the European
    one): both conventions are inside. 0 is this week, up to today."""
    monday = today - timedelta(days=today.weekday()) - timedelta(weeks=weeks_back)
    start = monday - timedelta(days=1)
    end = min(monday + timedelta(days=6), today)
    return start, end


def _around(day: date, today: date, half: int) -> tuple[date, date]:
    return day - timedelta(days=half), min(day + timedelta(days=half), today)


def _months_back(today: date, back: int) -> tuple[date, date]:
    index = today.year * 12 + today.month - 1 - back
    start, end = _month_range(index // 12, index % 12 + 1)
    return start, min(end, today)


def _year(value: str | None) -> int | None:
    if not value:
        return None
    year = int(value)
    return year + 2000 if year < 100 else year


def _count(value: str) -> int:
    return int(value) if value.isdigit() else _NUMBERS[value]


# --- the rules ------------------------------------------------------------------------

Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], tuple[date, date] | None]]


def _days_ago(n: int) -> Callable[[re.Match[str], date], tuple[date, date]]:
    return lambda _m, today: (today - timedelta(days=n), today - timedelta(days=n))


def _rule(pattern: str, read: Callable[[re.Match[str], date], tuple[date, date] | None]) -> Rule:
    return re.compile(pattern, re.IGNORECASE), read


def _numeric(m: re.Match[str], today: date) -> tuple[date, date] | None:
    return _latest_day(int(m.group(1)), int(m.group(2)), today, _year(m.group(3)))


def _iso(m: re.Match[str], today: date) -> tuple[date, date] | None:
    return _latest_day(int(m.group(3)), int(m.group(2)), today, int(m.group(1)))


def _day_month(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date] | None]:
    def read(m: re.Match[str], today: date) -> tuple[date, date] | None:
        month = _which(names, m.group("month").lower()) + 1
        return _latest_day(int(m.group("day")), month, today, _year(m.group("year")))

    return read


def _month(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date]]:
    def read(m: re.Match[str], today: date) -> tuple[date, date]:
        month = _which(names, m.group("month").lower()) + 1
        return _latest_month(month, today, _year(m.group("year")))

    return read


def _weekday(names: tuple[str, ...]) -> Callable[[re.Match[str], date], tuple[date, date]]:
    def read(m: re.Match[str], today: date) -> tuple[date, date]:
        return _weekday_before(_which(names, m.group("day").lower()), today)

    return read


def _units_ago(m: re.Match[str], today: date) -> tuple[date, date]:
    n, unit = _count(m.group("n").lower()), m.group("unit").lower()
    if unit.startswith(("day", "дн", "ден", "יומ", "ימ")):
        return _days_ago(n)(m, today)
    if unit.startswith(("week", "недел", "שבוע")):
        return _around(today - timedelta(weeks=n), today, 3)
    return _months_back(today, n)


_EN_DAY_MONTH = (
    _B
    + r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>"
    + _alt(_EN_MONTHS)[1:]
    + r"\.?(?:,?\s+(?P<year>\d{4}))?"
    + _E
)
_EN_MONTH_DAY = (
    _B + r"(?P<month>" + _alt(_EN_MONTHS)[1:] + r"\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:,?\s+(?P<year>\d{4}))?" + _E
)
_HE_MONTH = _HE + r"(?:חודש\s+)?(?P<month>" + _alt(_HE_MONTHS)[1:]
_RU_MONTH = r"(?P<month>" + _alt(_RU_MONTHS)[1:]

_RULES: tuple[Rule, ...] = (
    # Written dates: 2026-07-14, 14.07, 14.07.2026, 14/07/26 (day first, as written in
    # Israel and Russia; both parts two digits, so "3.12" stays a version number).
    _rule(r"(?<![\w.])(\d{4})-(\d{1,2})-(\d{1,2})(?![\w])", _iso),
    _rule(r"(?<![\w./])(\d{2})[./](\d{2})(?:[./](\d{4}|\d{2}))?(?![\w/]|\.\d)", _numeric),
    _rule(_EN_DAY_MONTH, _day_month(_EN_MONTHS)),
    _rule(_EN_MONTH_DAY, _day_month(_EN_MONTHS)),
    _rule(
        _B + r"(?:[ובלמה][-־]?)?(?P<day>\d{1,2})\s+" + _HE_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _day_month(_HE_MONTHS),
    ),
    _rule(
        _B + r"(?P<day>\d{1,2})(?:-?го)?\s+" + _RU_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _day_month(_RU_MONTHS),
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
        _B + r"(?P<n>" + _NUMBER[1:] + r"\s+(?P<unit>days?|weeks?|months?)\s+ago" + _E,
        _units_ago,
    ),
    _rule(
        _B + r"(?P<n>" + _NUMBER[1:] + r"\s+(?P<unit>дн\w*|ден\w*|недел\w*|месяц\w*)\s+назад" + _E,
        _units_ago,
    ),
    _rule(_B + r"(?P<unit>недел\w*|месяц)\s+назад" + _E, lambda m, t: _units_ago_one(m, t)),
    _rule(_B + r"(?:מ?לפני)\s+(?P<n>\d{1,3})\s+(?P<unit>ימים|שבועות|חודשים)" + _E, _units_ago),
    _rule(
        _B + r"(?:מ?לפני)\s+(?P<unit>יומיים|שבועיים|חודשיים|שבוע|חודש)" + _E,
        lambda m, t: _hebrew_ago(m.group("unit"), t),
    ),
    # Weeks, months, years.
    _rule(_B + r"(?:the\s+)?(?:last|past|previous)\s+week" + _E, lambda _m, t: _week(t, 1)),
    _rule(_B + r"this\s+week" + _E, lambda _m, t: _week(t, 0)),
    _rule(
        _B + r"(?:in\s+)?(?:the\s+)?(?:last|past)\s+(?P<n>\d{1,3}|few)\s+days" + _E,
        lambda m, t: (t - timedelta(days=_few(m.group("n"))), t),
    ),
    _rule(
        _B + r"(?:на\s+)?(?:прошлой|прошлую|предыдущей)\s+недел[еюи]" + _E,
        lambda _m, t: _week(t, 1),
    ),
    _rule(_B + r"(?:на\s+)?позапрошлой\s+недел[еюи]" + _E, lambda _m, t: _week(t, 2)),
    _rule(_B + r"(?:на\s+)?(?:этой|эту|текущей)\s+недел[еюи]" + _E, lambda _m, t: _week(t, 0)),
    _rule(_B + _HE + r"שבוע\s+(?:שעבר|הקודם|שחלף)" + _E, lambda _m, t: _week(t, 1)),
    _rule(_B + r"(?:ב|מ)?השבוע" + _E, lambda _m, t: _week(t, 0)),
    _rule(_B + r"(?:last|previous)\s+month" + _E, lambda _m, t: _months_back(t, 1)),
    _rule(_B + r"this\s+month" + _E, lambda _m, t: _months_back(t, 0)),
    _rule(_B + r"(?:в\s+)?(?:прошлом|предыдущем)\s+месяце" + _E, lambda _m, t: _months_back(t, 1)),
    _rule(_B + r"(?:в\s+)?этом\s+месяце" + _E, lambda _m, t: _months_back(t, 0)),
    _rule(_B + _HE + r"חודש\s+(?:שעבר|הקודם)" + _E, lambda _m, t: _months_back(t, 1)),
    _rule(_B + r"(?:ב|מ)?החודש" + _E, lambda _m, t: _months_back(t, 0)),
    # Weekdays, after a word that makes them a day ("deploy friday" may be any Friday).
    _rule(
        _B + r"(?:last|on|this\s+past|past|previous)\s+(?P<day>" + _alt(_EN_DAYS)[1:] + _E,
        _weekday(_EN_DAYS),
    ),
    _rule(
        _B
        + r"(?:во?\s+(?:(?:прошл|последн)\w*\s+)?|(?:прошл|последн)\w*\s+)(?P<day>"
        + _alt(_RU_DAYS[:2] + _RU_DAYS[3:])[1:]
        + _E,
        _weekday(_RU_DAYS),
    ),
    _rule(
        _B + r"в\s+(?:(?:прошл|последн)\w*\s+)?(?P<day>среду)" + _E,
        _weekday(_RU_DAYS),
    ),
    _rule(
        _B
        + _HE
        + r"יום\s+(?:ה)?(?P<day>"
        + _alt(_HE_DAYS)[1:]
        + r"(?:\s+(?:שעבר|האחרון|הקודם))?"
        + _E,
        _weekday(_HE_DAYS),
    ),
    _rule(
        _B + _HE + r"יום\s+(?P<day>" + _alt(_HE_DAY_LETTERS)[1:] + r"\s?['׳]",
        _weekday(_HE_DAY_LETTERS),
    ),
    _rule(
        _B
        + r"(?:ו?[במ]|מה)שבת(?:\s+(?:שעברה|האחרונה|הקודמת))?"
        + _E
        + r"|"
        + _B
        + r"שבת\s+(?:שעברה|האחרונה|הקודמת)"
        + _E,
        lambda _m, t: _weekday_before(5, t),
    ),
    # Months alone: "in March", "в июле", "ביולי", "March 2026".
    _rule(
        _B + r"(?P<month>" + _alt(_EN_MONTHS_ALONE)[1:] + r"\s+(?P<year>\d{4})" + _E,
        _month(_EN_MONTHS_ALONE),
    ),
    _rule(
        _B
        + r"(?:in|during|since|from|of|last|this|early|late|mid)[\s-]+(?P<month>"
        + _alt(_EN_MONTHS_ALONE)[1:]
        + r"(?:\s+(?P<year>\d{4}))?"
        + _E,
        _month(_EN_MONTHS_ALONE),
    ),
    _rule(
        _B + r"(?:(?:во?|с|до|к)\s+)?" + _RU_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E,
        _month(_RU_MONTHS),
    ),
    _rule(_B + _HE_MONTH + r"(?:\s+(?P<year>\d{4}))?" + _E, _month(_HE_MONTHS)),
)


def _few(value: str) -> int:
    return 3 if value.lower() == "few" else int(value)


def _units_ago_one(m: re.Match[str], today: date) -> tuple[date, date]:
    if m.group("unit").lower().startswith("недел"):
        return _around(today - timedelta(weeks=1), today, 3)
    return _months_back(today, 1)


def _hebrew_ago(unit: str, today: date) -> tuple[date, date]:
    if unit == "יומיים":
        return today - timedelta(days=2), today - timedelta(days=2)
    if unit in ("שבוע", "שבועיים"):
        weeks = 2 if unit == "שבועיים" else 1
        return _around(today - timedelta(weeks=weeks), today, 3)
    return _months_back(today, 2 if unit == "חודשיים" else 1)


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
