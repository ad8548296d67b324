"""The kind of value a question asks for, and whether a fact holds one (pure), for the
relevance floor.

"What is Boris's hourly rate?" asked of a vault that never states it kept Boris's "database
dumps every 6 hours" and "lowered the sample rate" bullets at evidence 0.98: the name and
a word that looks like the asked-for thing in another sense. Word overlap, names and
scripts cannot tell those from an answer (docs/lab/search.md, the floor's rounds); what
tells them is the value: a question asking how much something costs is answered by a
fact holding an amount, one asking for a phone number by a fact holding one. The kinds
are a closed class of question forms in each language (how many / сколько / כמה, which
version / какая версия / איזו גרסה, phone number / телефон / טלפון, password / пароль /
סיסמה, what time / во сколько / באיזו שעה, price / цена / מחיר), never a list of a vault's
topics; a question of no such form asks for nothing this module judges.

A fact's value is read without a daily bullet's `HH:MM` prefix and without dates, so the
time a note was written and the day it is about never pass for an amount. Quantities said
in words count as numbers (a conversation says "twice", "three of them": LoCoMo's
transcripts do).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from enum import Enum

from memctl.lexical.parse import HEBREW_PREFIXES
from memctl.search.floor.judged import Judged
from memctl.search.floor.rule import FloorThresholds
from memctl.search.floor.words import TermHits
from memctl.tokens import words as word_runs


class Asked(Enum):
    """What kind of value a question asks for."""

    COUNT = "count"  # how many, how much: a number (digits or words) or an amount
    PAY = "pay"  # a salary, a wage, an hourly rate: an amount of money
    AMOUNT = "amount"  # a price, a cost: an amount of money or a share (10% of the fare)
    VERSION = "version"  # which version: 7, 8.1.2, v3
    PHONE = "phone"  # a phone number
    SECRET = "secret"  # a password, a PIN: a token, or the fact names the secret itself
    TIME = "time"  # what time: a clock time said inside the fact


# Each kind's question forms, tested on the lowercased question in this order (the first
# that matches wins: "сколько стоит" asks for an amount before "сколько" asks for a
# count, "во сколько" for a time). Hebrew forms allow the prefix letters (ב, ה, ו, ל, מ, ש).
_HE = rf"(?:[{HEBREW_PREFIXES}]{{0,2}})"
_FORMS: tuple[tuple[Asked, re.Pattern[str]], ...] = (
    (
        Asked.TIME,
        re.compile(
            r"\bwhat time\b(?! of)|\bat what hour\b|\bво сколько\b|\bв котором часу\b"
            rf"|(?<!\w){_HE}איזו שעה(?!\w)|(?<!\w){_HE}באיזה שעה(?!\w)"
        ),
    ),
    (
        Asked.PHONE,
        re.compile(
            r"\b(?:tele)?phone (?:number|no)\b|\bnumber to call\b|\bномер\w* телефон\w*"
            r"|\bтелефон\w* (?:у|для)\b|\bкакой телефон\b"
            rf"|(?<!\w){_HE}מספר {_HE}טלפון\w*|(?<!\w){_HE}טלפון של(?!\w)"
        ),
    ),
    (
        Asked.SECRET,
        re.compile(
            r"\bpasswords?\b|\bpasscodes?\b|\bpin code\b|\bпарол\w*|(?<!\w)" + _HE + r"סיסמ[הא]\w*"
        ),
    ),
    (
        Asked.VERSION,
        re.compile(
            r"\bversions?\b|\bверси\w*|(?<!\w)" + _HE + r"גרס[הת]\w*|(?<!\w)" + _HE + r"גירס\w*"
        ),
    ),
    (
        Asked.PAY,
        re.compile(
            r"\bhourly rate\b|\bsalary\b|\bwages?\b|\bзарплат\w*"
            rf"|(?<!\w){_HE}משכורת\w*|(?<!\w){_HE}תעריף\w*"
        ),
    ),
    (
        Asked.AMOUNT,
        re.compile(
            r"\bprices?\b|\bhow much (?:\w+ )*?(?:cost|costs|pay|paid|charge|charged)\b"
            r"|\b(?:does|did|do|will|would)\b(?: \S+)*? cost\b"
            r"|\bсколько (?:\w+ )?сто(?:ит|ил|или|ила|ило)\b|\bцен[аыуе]\b|\bстоимост\w*"
            rf"|(?<!\w){_HE}מחיר\w*|(?<!\w)כמה (?:\w+ )?(?:עולה|עולים|עלה|עלתה|עלו)(?!\w)"
        ),
    ),
    (
        Asked.COUNT,
        re.compile(r"\bhow many\b|\bhow much\b|\bсколько\b|(?<!\w)" + _HE + r"כמה(?!\w)"),
    ),
)


def asked_for(question: str) -> Asked | None:
    """The kind of value `question` asks for (None: none this module judges)."""
    text = question.lower()
    for kind, form in _FORMS:
        if form.search(text):
            return kind
    return None


# A daily bullet's prefix (`- 08:40 `): when the note was written, not a value it states.
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(?:\d{1,2}:\d{2}\s+)?")
# Dates (2026-10-25, 25.10.2026, 25/10/26) and ids with digits (GC-213, LOT-23-CS,
# `EXP-311`): a number inside them is no amount.
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b")
_ID = re.compile(r"\b[^\W\d_]+-\d[\w-]*|`[^`]*`")
_CLOCK = re.compile(r"(?<![\d:.])\d{1,2}:\d{2}(?![\d:])|\b\d{1,2}\s?(?:am|pm)\b|\bo'clock\b")
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])|(?<![\w.,])\d+(?=\s?%)")
_CURRENCY_SIGN = "₪$€£₽"
_CURRENCY_WORD = (
    r"(?:ils|nis|usd|eur|euros?|dollars?|shekels?|cents?|pounds?|francs?|forints?|lari|rupees?"
    r"|руб\w*|р\.|долл\w*|евро|шекел\w*|лари|сум\w*|гривн\w*|франк\w*|форинт\w*|фунт\w*"
    r"|ש[\"״]ח|שקל\w*|דולר\w*|יורו|אירו|אגורות)(?!\w)"
)
# A currency's code after or before a number, as written (EUR, GEL, UZS): any three capitals.
_CODE = re.compile(r"\d\s?[A-Z]{3}\b|\b[A-Z]{3}\s?\d")
# A multiplier between a number and its currency ("3 million dollars", "2 тыс. руб").
_MULTIPLIER = r"(?:(?:k|thousand|million|billion|тыс\.?|млн\.?|млрд\.?|אלף|מיליון)\s)?"
_AMOUNT = re.compile(
    rf"[{_CURRENCY_SIGN}]\s?\d|\d\s?[{_CURRENCY_SIGN}]"
    rf"|(?:\d|\b[^\W\d_]+)\s?{_MULTIPLIER}{_CURRENCY_WORD}"
    r"|(?<!\w)(?:ils|nis|usd|eur)\s?\d"
)
_PERCENT = re.compile(r"\d\s?(?:%|percent\b|per cent\b|процент\w*|אחוז\w*)")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d\s().-]{7,}\d(?!\w)")
_VERSION = re.compile(
    r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.]*\d)|\bv\d+\b"
    r"|\b[A-Z][\w.+#-]*\s\d{1,3}(?:\.\d+)*(?![\w.]|\s?(?:%|°|[KMGT]B\b|k?g\b|m?s\b|h\b|[mk]?m\b|l\b))"
    r"|(?:version|версия|версии|גרסה|גרסת)\s\d"
)
_TOKEN = re.compile(r"`[^`\s]{4,}`|(?<!\S)(?=\S*\d)(?=\S*[^\W\d_])[\w!@#$%^&*-]{6,}(?!\S)")
_SECRET_WORDS = re.compile(r"\bpasswords?\b|\bpasscodes?\b|\bpin\b|\bпарол\w*|סיסמ[הא]\w*")
# Quantities said in words, in the three languages: a conversation says "twice".
_NUMBER_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve twenty thirty forty
    fifty hundred hundreds thousand thousands dozen dozens once twice thrice couple few
    several both none half
    один одна одно два две три четыре пять шесть семь восемь девять десять двадцать сто
    тысяча тысячи дважды трижды пара несколько оба обе половина полтора полторы двое трое
    четверо пятеро шестеро семеро десяток дюжина
    אחד אחת שניים שתיים שני שתי שלושה שלוש ארבעה ארבע חמישה חמש שישה שש שבעה שבע שמונה
    תשעה תשע עשרה עשר עשרים מאה מאות אלף אלפים פעמיים כמה זוג תריסר""".split()
)


def _plain(fact: str) -> str:
    """The fact without its bullet's time prefix, its dates and its ids."""
    text = _BULLET.sub("", fact, count=1)
    return _ID.sub(" ", _DATE.sub(" ", text))


def holds(kind: Asked, fact: str, said: Callable[[str], bool] | None = None) -> bool:
    """Whether `fact` (a line, a bullet, a sentence) states a value of `kind`; `said`:
    whether a word is one the query says, when known (a version must then be of something
    the query names: "Rails 7", not "Elasticsearch 7" for a question about Rails)."""
    text = _plain(fact)
    if kind is Asked.VERSION and said is not None:
        return _a_version_of(text, said)
    if kind is Asked.PAY:
        return _an_amount(text)
    if kind is Asked.AMOUNT:
        return _an_amount(text) or bool(_PERCENT.search(text.lower()))
    if kind is Asked.PHONE:
        return any(sum(c.isdigit() for c in m.group()) >= 9 for m in _PHONE.finditer(text))
    if kind is Asked.VERSION:
        return bool(_VERSION.search(text))
    if kind is Asked.TIME:
        return bool(_CLOCK.search(text.lower()))
    if kind is Asked.SECRET:
        return bool(_SECRET_WORDS.search(fact.lower()) or _TOKEN.search(_BULLET.sub("", fact)))
    return bool(_NUMBER.search(text)) or _said_in_words(text)


# A version after the word it is of ("Rails 7", "Rails version 7.1", "PostgreSQL 16.2").
_VERSION_OF = re.compile(r"([^\W\d_][\w.+#]*)\s(?:version\s|версии\s|גרסה\s)?v?\d+(?:\.\d+)*\b")
_SPELT_OUT = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+\b|\bv\d+\b")


def _a_version_of(text: str, said: Callable[[str], bool]) -> bool:
    """A version spelt out as one (8.1.2, v3), or a number after a word the query says."""
    if _SPELT_OUT.search(text):
        return True
    return any(said(match.group(1)) for match in _VERSION_OF.finditer(text))


def _an_amount(text: str) -> bool:
    """A currency sign by a number, or a currency word after a number (in digits or in
    words: "three million dollars") or a currency's code by a number."""
    if _CODE.search(text):
        return True
    for match in _AMOUNT.finditer(text.lower()):
        said = match.group()
        if said[:1].isdigit() or not said[:1].isalpha() or _said_in_words(said.split()[0]):
            return True
    return False


def _said_in_words(text: str) -> bool:
    return any(w in _NUMBER_WORDS for w in re.findall(r"[^\W\d_]+", text.lower()))


def any_holds(kind: Asked, facts: Iterable[str], said: Callable[[str], bool] | None = None) -> bool:
    """Whether one of `facts` states a value of `kind` (`said`: see holds)."""
    return any(holds(kind, fact, said) for fact in facts)


def matched_lines(hits: TermHits, text: str) -> list[str]:
    """The lines of `text` (a bullet, a sentence-sized line, a paragraph) that hold the
    most of the query's term weight: the facts the query's words matched (none when
    none holds a word: a paraphrase or a cross-lingual answer, matched by meaning)."""
    terms = hits.terms
    best, chosen = 0.0, []
    for line in text.splitlines():
        words = word_runs(line)
        if not words:
            continue
        hits.test(words)
        found: set[int] = set()
        for word in hits.hit.intersection(words):
            found.update(hits.of[word])
        value = sum(terms[i].weight for i in found)
        if value > best + 1e-12:
            best, chosen = value, [line]
        elif value > 0 and abs(value - best) <= 1e-12:
            chosen.append(line)
    return chosen


def unasked(kind: Asked | None, hits: TermHits, text: str, nearest: str | None) -> bool:
    """Whether the query asks for a value of `kind` and the result cannot give one: none
    of the lines of its snippet `text` that the query's words matched (matched_lines), nor
    its fact `nearest` the query in meaning, holds a value of that kind. With neither to
    look at, the whole snippet is the fact."""
    if kind is None:
        return False
    facts = matched_lines(hits, text)
    if nearest:
        facts.append(nearest)

    def said(word: str) -> bool:
        hits.test((word,))
        return bool(hits.of[word])

    return not any_holds(kind, facts or [text], said)


def held_to_the_floor(judged: dict[int, Judged], thresholds: FloorThresholds) -> dict[int, Judged]:
    """A result that cannot give the value its query asks for (Judged.unasked) is held to
    the floor at most, as a name alone is (against.names_alone): it may be the query's best
    result, never a later one (rule.keep), nor one carried by its meaning alone. A
    question the vault cannot answer then keeps at most one result however many notes
    know its subject, and a note holding the value is not outranked by one that does not."""
    out = dict(judged)
    lead = max(judged, key=lambda cid: judged[cid].evidence, default=None)
    for cid, seen in judged.items():
        if seen.unasked or seen.unknown:
            # Held results tie at the floor, where rule.keep would take the first in rank
            # order: the one with the most evidence stays the query's best.
            bar = thresholds.floor - (0.0 if cid == lead else _BEHIND)
            out[cid] = replace(seen, evidence=min(seen.evidence, bar), fact=False, nearest=False)
    return out


# Below the floor by less than rule.passes' tolerance: a result held there still passes
# where the floor alone is its bar (one dated inside the range the query says).
_BEHIND = 1e-10
