"""The words statements are read by, in English, Hebrew and Russian: weekdays and months
(a value a statement gives) and the verbs and adverbs saying a value changed ("moved to",
"теперь", "עכשיו"). Pure tables and patterns for memctl.statement_values, kept apart from
its parsing so that a word added for one language is found in one place."""

from __future__ import annotations

import re

from memctl.statement_words import is_stop, stem

# Weekdays and months: English and Russian by stem (statement_words.stem), Hebrew by the
# word itself (its weekdays are ordinals, "שני" is also "two": only "on ..." forms count).
_CALENDAR = {
    **dict.fromkeys("sunda воскр".split(), "day:1"),
    **dict.fromkeys("monda понед".split(), "day:2"),
    **dict.fromkeys("tuesd вторн".split(), "day:3"),
    **dict.fromkeys("wedne сред среда средо".split(), "day:4"),
    **dict.fromkeys("thurs четве".split(), "day:5"),
    **dict.fromkeys("frida пятни".split(), "day:6"),
    **dict.fromkeys("satur суббо".split(), "day:7"),
    **dict.fromkeys("janua январ".split(), "month:1"),
    **dict.fromkeys("febru февра".split(), "month:2"),
    **dict.fromkeys("march март".split(), "month:3"),
    **dict.fromkeys("april апрел".split(), "month:4"),
    **dict.fromkeys("мая май".split(), "month:5"),
    **dict.fromkeys("june июн июнь".split(), "month:6"),
    **dict.fromkeys("july июл июль".split(), "month:7"),
    **dict.fromkeys("augus авгус".split(), "month:8"),
    **dict.fromkeys("septe сентя".split(), "month:9"),
    **dict.fromkeys("octob октяб".split(), "month:10"),
    **dict.fromkeys("novem ноябр".split(), "month:11"),
    **dict.fromkeys("decem декаб".split(), "month:12"),
}
HE_DAYS = {d: f"day:{i}" for i, d in enumerate("ראשון שני שלישי רביעי חמישי שישי שבת".split(), 1)}
# "Day" before a Hebrew weekday, which alone is also an ordinal ("שני": second, two).
HE_DAY_WORDS = frozenset("יום ימי ביום בימי ליום לימי מיום ומיום כל".split())
_HE_MONTHS = {
    m: f"month:{i}"
    for i, m in enumerate(
        "ינואר פברואר מרץ אפריל מאי יוני יולי אוגוסט ספטמבר אוקטובר נובמבר דצמבר".split(), 1
    )
}


def calendar_value(token: str) -> str | None:
    """The weekday ("day:1" Sunday … "day:7") or month ("month:1" …) a token names, if any."""
    if "\u0590" <= token[0] <= "\u05ff":
        bare = token[1:] if token[0] == "ו" else token
        if bare[:1] == "ב" and bare[1:] in HE_DAYS:
            return HE_DAYS[bare[1:]]
        if bare == "שבת":
            return HE_DAYS[bare]
        return (
            _HE_MONTHS.get(bare) or _HE_MONTHS.get(bare[1:])
            if bare[:1] in "בלמע"
            else _HE_MONTHS.get(bare)
        )
    if is_stop(token):
        return None
    return _CALENDAR.get(stem(token))


# A verb of change: the word after its preposition is the new value.
CHANGE = re.compile(
    r"\b(?:moved|moves|switched|switches|swapped|changed|migrated|went|goes|upgraded)\b"
    r"[^.;]*?\b(?:to|for)\s+(?:the\s+)?([\w'’-]+)(?![\w'’-])(?!\s+\d)|"
    r"(?<!\w)(?:перешли|перешёл|перешла|переехали|переехал|переехала|перенесли|сменили|"
    r"поменяли)\s+(?:на|в|во)\s+([\w-]+)(?![\w-])(?!\s+\d)|"
    r"(?<!\w)(?:עבר|עברה|עברו|עברנו|הועבר|הועברה|הועברו)\s+ל-?([\u0590-\u05ff][\w-]*)(?![\w-])(?!\s+-?\d)",
    re.IGNORECASE | re.UNICODE,
)
# Words saying a value changed: a name counts as a new value only beside one of these.
UPDATE = re.compile(
    r"\b(?:now|from now|anymore|no longer|instead|switched|swapped|moved|migrated|replaced|"
    r"changed|rebuilt|from next|from this|since|starting|moves|slipped|postponed|delayed|"
    r"dropped|raised|rose|increased|decreased|went up|went down|goes up|go up|upgraded|"
    r"took over|takes over|taken over|"
    r"from (?:mon|tues|wednes|thurs|fri|satur|sun)day|from today|from tomorrow|"
    r"from (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december))\b|"
    r"(?<!\w)(?:теперь|отныне|вместо|больше не|перешли|перешёл|перевёл|перевели|переехал\w*|"
    r"перенесли|перенесён\w*|подорожал\w*|подешевел\w*|подняли|снизили|повысили|понизили|"
    r"увеличили|уменьшили|сократили|урезали|изменили|поменяли|обновили|перенёс|перенесла|"
    r"с (?:января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)|"
    r"сменили|заменили|с этого|со следующего|с понедельника|со вторника|со среды|с четверга|"
    r"с пятницы|с субботы|с воскресенья|с сегодняшнего)(?!\w)|"
    r"(?<!\w)(?:עכשיו|מעכשיו|מהיום|מהשבוע|מהחודש|במקום|כבר לא|עבר|עברה|עברו|עברנו|העברנו|הועבר|הועברה|הוחלף|החלפנו|נדחה|נדחתה|"
    r"העלינו|העלו|הועלה|הועלתה|הורדנו|הורידו|הורד|הורדה|שינינו|שונה|שונתה|עדכנו|עודכן|עודכנה|"
    r"הוקדם|הוקדמה|שדרגו|שדרגנו|שודרג|שודרגה|החל מ\w*|"
    r"מ(?:ינואר|פברואר|מרץ|אפריל|מאי|יוני|יולי|אוגוסט|ספטמבר|אוקטובר|נובמבר|דצמבר))(?!\w)",
    re.IGNORECASE,
)
