"""Do two statements say different things about the same subject? (pure, no I/O)

Shared by `memctl lint` (likely contradictions inside HOT and WARM) and search (the
newer of two conflicting memories ranks first), so both agree on what a conflict is:

- *opposite polarity*: the same statement, one of them negated ("we deploy on Fridays" /
  "we never deploy on Fridays");
- *different values*: the same subject with a different number, version, port, address
  or other token holding a digit ("billing runs on port 8080" / "billing moved to port
  9090", "Postgres 15" / "Postgres 16").

Words are compared by a short stem (the first 5 letters, after Hebrew prefix letters
ו ה ב כ ל מ ש, a Russian vowel ending or an English plural "s" is dropped), which is
enough to match "порт"/"порту", "לפורט"/"פורט", "כרטיס"/"הכרטיס" and "desk"/"desks"
without a stemmer per language. English, Hebrew and Russian are covered.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

NEGATION = re.compile(
    r"\b(?:not|no|never|don't|doesn't|isn't|aren't|won't|can't|cannot|shouldn't|mustn't)\b|"
    r"(?<!\w)(?:не|нет|никогда|нельзя|לא|אל|אין|אסור|אף\s?פעם)(?!\w)",
    re.IGNORECASE,
)
_NEGATION_WORDS = frozenset("not no never cannot нет не никогда нельзя לא אל אין אסור".split())


def is_negated(text: str) -> bool:
    """NEGATION.search(text), ~20x cheaper: a set lookup of the words, no regex alternation."""
    lowered = text.casefold()
    if "n't" in lowered or "n’t" in lowered or "אף פעם" in lowered or "אףפעם" in lowered:
        return True
    return not _NEGATION_WORDS.isdisjoint(_WORD.findall(lowered))


NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
# A value: a token holding a digit (8080, v2.1, 10.0.0.5, pg16, 2026-11-20 is a date, not one).
_VALUE = re.compile(r"(?<![\w.])(?:[^\W\d_]*\d[\w.:/-]*)(?![\w])", re.UNICODE)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{1,2}:\d{2}$")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_DIGIT = re.compile(r"\d")
_HEBREW_PREFIX = "והבכלמש"
_RUSSIAN_ENDINGS = "аеёиоуыэюяйь"
_STOP = frozenset(
    "the a an to of on in at is are was were be been and or for with from by it its this "
    "that as we our us you i my now then than into moved move moves changed change "
    "changes switched switch runs run running uses use used is will would has have had "
    "и в во на с со к ко по о об от до из за у а но что это как теперь уже был была было "
    "были будет мы наш наша наши переехал переехала переехали перенесли перенесён "
    "работает работают использует используем сейчас "
    "את של על עם זה זו הוא היא אנחנו עכשיו כבר עבר עברה עברו רץ רצה משתמש משתמשים".split()
)

_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?(?:\d{1,2}:\d{2}\s+)?")

STEM = 5
# Share of the smaller statement's subject words the other must hold: "billing service
# port" vs "auth service port" (2 of 3) is two subjects; an added verb ("upgraded") is not.
SUBJECT_OVERLAP = 0.75


@dataclass(frozen=True)
class Statement:
    """What a line says: its subject (stemmed words), its values, and its polarity."""

    subject: frozenset[str]
    values: frozenset[str]
    negated: bool


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    # Cached: a vault's lines repeat their words, and each line of a candidate is stemmed.
    word = word.casefold()
    if "\u0590" <= word[0] <= "\u05ff":
        # Every leading prefix letter down to three letters, also those of the word itself
        # ("כרטיס"): a prefixed form ("הכרטיס", "מהכרטיס") passes through the bare one,
        # so both get one stem.
        while len(word) > 3 and word[0] in _HEBREW_PREFIX:
            word = word[1:]
    elif len(word) > 3 and "\u0400" <= word[-1] <= "\u04ff":
        # Russian case endings: база/базу/базы, порт/порту, тестовая/тестовую.
        word = word.rstrip(_RUSSIAN_ENDINGS) or word
    elif len(word) > 3 and word[-1] == "s" and word[-2] not in "su'" and word.isascii():
        word = word[:-1]  # an English plural: "desks" / "desk", "rooms" / "room"
    return word[:STEM]


def parse(text: str) -> Statement:
    values: frozenset[str] = frozenset()
    plain = text
    if _DIGIT.search(text):  # most lines hold no digit: skip the value pattern
        values = frozenset(
            v.casefold().rstrip(".:/-")
            for v in _VALUE.findall(text)
            if not _DATE.match(v.rstrip(".:/-"))
        )
        plain = _VALUE.sub(" ", text)
    negated = is_negated(plain)
    if negated:
        plain = NEGATION.sub(" ", plain)
    subject = frozenset(
        _stem(w) for w in _WORD.findall(plain) if w.casefold() not in _STOP and len(w) > 1
    )
    return Statement(subject, values, negated)


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def conflict(a: Statement, b: Statement) -> str | None:
    """Why two statements cannot both hold now, or None.

    Different values need a shared subject of at least two words (one shared word, such
    as "port", is a topic, not a subject).
    """
    shared = a.subject & b.subject
    if len(shared) < 2 or _overlap(a.subject, b.subject) < SUBJECT_OVERLAP:
        return None
    if a.values and b.values and a.values != b.values and not (a.values & b.values):
        return "same subject, different values"
    if a.negated != b.negated and a.values == b.values and a.subject == b.subject:
        return "one says the opposite of the other"
    return None


def normalise_line(line: str) -> str:
    """Casefolded, with a list bullet, a check box and a leading time stamp stripped."""
    return " ".join(_BULLET.sub("", line).casefold().split())


class Line:
    """One statement line of a chunk; its subject words are parsed only when a check needs them."""

    __slots__ = ("_statement", "has_value", "negated", "norm")

    def __init__(self, norm: str) -> None:
        self.norm = norm
        self.has_value = bool(_DIGIT.search(norm))
        self.negated = is_negated(norm)
        self._statement: Statement | None = None

    @property
    def statement(self) -> Statement:
        if self._statement is None:
            self._statement = parse(self.norm)
        return self._statement


def parse_lines(text: str, max_lines: int = 12) -> list[Line]:
    """The statement lines of a chunk (headings and empty lines left out)."""
    return [Line(line) for line in _statement_lines(text)[:max_lines]]


def first_conflict(
    a: Sequence[Line], b: Sequence[Line], apart: Callable[[str, str], bool] | None = None
) -> str | None:
    """The first conflict between a line of `a` and a line of `b`, or None. `apart`: says
    two lines (normalised) are about two things, whatever their words share (search
    passes memctl.statement_values.qualified_apart: "сервер логов" / "сервер бэкапов")."""
    for la in a:
        for lb in b:
            # Both checks need values on both sides, or exactly one side negated.
            if not ((la.has_value and lb.has_value) or la.negated != lb.negated):
                continue
            sa, sb = la.statement, lb.statement
            if _overlap(sa.subject, sb.subject) < 0.5:
                continue  # cheap: neither check can hold without a shared subject
            reason = conflict(sa, sb) or polarity_or_number_conflict(la.norm, lb.norm)
            if reason and not (apart and apart(la.norm, lb.norm)):
                return reason
    return None


def lines_conflict(a_text: str, b_text: str, max_lines: int = 12) -> str | None:
    """The first conflict between a line of `a_text` and a line of `b_text`, or None."""
    return first_conflict(parse_lines(a_text, max_lines), parse_lines(b_text, max_lines))


def _statement_lines(text: str) -> list[str]:
    lines = (normalise_line(line) for line in text.splitlines() if not line.startswith("#"))
    return [line for line in lines if _WORD.search(line) and line != normalise_line("")]


def polarity_or_number_conflict(norm_a: str, norm_b: str) -> str | None:
    """Lint's near-identical check: the same sentence negated, or with another number.

    Stricter than `conflict` (the two lines must read alike, rapidfuzz ratio ≥ 85), which
    keeps lint's findings few on a big vault; `conflict` also catches a reworded update.
    """
    stripped_a = " ".join(NEGATION.sub(" ", norm_a).split())
    stripped_b = " ".join(NEGATION.sub(" ", norm_b).split())
    neg_a, neg_b = bool(NEGATION.search(norm_a)), bool(NEGATION.search(norm_b))
    if neg_a != neg_b and fuzz.ratio(stripped_a, stripped_b) >= 85:
        return "one says the opposite of the other"
    digits_a, digits_b = NUMBER.sub("#", stripped_a), NUMBER.sub("#", stripped_b)
    if neg_a == neg_b and digits_a == digits_b and stripped_a != stripped_b:
        return "same statement, different numbers"
    return None
