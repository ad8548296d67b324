"""Month and weekday names and counting words in English, Hebrew and Russian, as the
pieces of the patterns dates.py reads a query's dates with (pure)."""

from __future__ import annotations

import re
from collections.abc import Iterable

EN_MONTHS = (
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
EN_MONTHS_ALONE = (
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
HE_MONTHS = (
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
RU_MONTHS = (
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
EN_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Hebrew weekdays follow "יום" (שני alone is also "second"); שבת stands alone.
HE_DAYS = ("שני", "שלישי", "רביעי", "חמישי", "שישי", "שבת", "ראשון")
HE_DAY_LETTERS = ("ב", "ג", "ד", "ה", "ו", "ש", "א")
# Russian weekdays in every case; Wednesday only as "в среду" ("среда", "среду" alone are
# also "environment": "настроить среду").
RU_DAYS = (
    "понедельник(?:а|у|ом|е)?",
    "вторник(?:а|у|ом|е)?",
    "среду",
    "четверг(?:а|у|ом|е)?",
    "пятниц(?:а|у|ы|е|ей)",
    "суббот(?:а|у|ы|е|ой)",
    "воскресень(?:е|я|ю|ем)",
)

NUMBERS = {
    **dict.fromkeys(("a", "an", "one", "один", "одну", "один"), 1),
    **dict.fromkeys(("two", "два", "две"), 2),
    **dict.fromkeys(("three", "три"), 3),
    **dict.fromkeys(("four", "четыре"), 4),
    **dict.fromkeys(("five", "пять"), 5),
    **dict.fromkeys(("six", "шесть"), 6),
    **dict.fromkeys(("seven", "семь"), 7),
    **dict.fromkeys(("ten", "десять"), 10),
}
NUMBER = r"(\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"


def alt(names: Iterable[str]) -> str:
    return "(" + "|".join(f"(?:{n})" for n in names) + ")"


def which(names: tuple[str, ...], word: str) -> int:
    """The index of the first pattern in `names` matching all of `word`."""
    for i, name in enumerate(names):
        if re.fullmatch(name, word):
            return i
    raise ValueError(word)  # pragma: no cover - the caller matched one of them


def count(value: str) -> int:
    return int(value) if value.isdigit() else NUMBERS[value]
