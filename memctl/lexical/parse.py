"""User text → safe search terms (pure, no I/O).

User text is never handed to FTS5 as syntax: every term is re-emitted as a quoted
string, so `AND`, `NEAR(`, `*`, `-`, parentheses and a lone `"` are plain words.
Terms carry light morphology so Hebrew prefixes (ו, ה, ב, ל, מ, ש, כ) and Russian
or English inflection still meet the unstemmed unicode61 index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

# Words split as the unicode61 tokenizer splits them (underscore separates), so df lookups hit.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Identifiers keep their dots and underscores so `get_vault` or `memctl.search` survive whole.
_IDENT = re.compile(r"[A-Za-z_][\w]*(?:[.:/-][A-Za-z_][\w]*)+|[A-Za-z]+_[\w]+|[a-z]+[A-Z]\w*")
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_HEBREW = re.compile(r"[\u0590-\u05FF]")
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")

HEBREW_PREFIXES = "והבכלמש"

# English words so common that they only add noise to an OR query; BM25's IDF alone is not
# enough at scale, because their long posting lists are what makes an OR query slow.
STOPWORDS = (
    frozenset(
        """a an and are as at be been but by can could did do does for from had has have he her
    his how i if in into is it its me my of on or our she so than that the their them then
    there these they this to was we were what when where which who whom why will with would
    you your about after before did does doing done any some all also just more most other
    over such only own same too very s t don should now""".split()
    )
    | frozenset(
        "и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по".split()
    )
    | frozenset(
        "ли её ее мне было вот от меня еще ещё нет о из ему когда даже ну ли если уже или ни быть был него до вас".split()
    )
    | frozenset("של את על עם זה זו הוא היא הם הן גם או כי לא מה מי אם כל אשר".split())
)

_RU_SUFFIXES = tuple(
    sorted(
        """ами ями ов ев ей ам ям ах ях ою ею ой ий ый ая яя ое ее ые ие ого его ому ему ую юю
        ым им ом ем ых их а я о е ы и у ю ь ть ться ет ют ит ат ят ешь ишь ем им ете ите ал ил
        ла ли ло ла ение ения ению ением ании ание""".split(),
        key=len,
        reverse=True,
    )
)
_EN_SUFFIXES = (
    "ingly",
    "ments",
    "ment",
    "ings",
    "ing",
    "edly",
    "ies",
    "ied",
    "ers",
    "ed",
    "es",
    "er",
    "ly",
    "s",
)


@dataclass(frozen=True)
class Term:
    """One query word and the forms it may take in the index."""

    text: str  # lowercased surface form
    variants: tuple[str, ...] = ()  # exact alternatives (Hebrew with a prefix stripped)
    stem: str | None = None  # matched as an FTS5 prefix ("stem"*)
    stopword: bool = False

    def forms(self) -> tuple[str, ...]:
        return (self.text, *self.variants)


@dataclass(frozen=True)
class Query:
    raw: str
    terms: tuple[Term, ...]
    identifiers: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()
    words: tuple[str, ...] = field(default=())  # every lowercased word, stopwords included

    @property
    def content_terms(self) -> tuple[Term, ...]:
        """Terms worth matching; if the query is all stopwords, keep them rather than nothing."""
        kept = tuple(t for t in self.terms if not t.stopword)
        return kept or self.terms

    def is_empty(self) -> bool:
        return not self.terms


def quote(term: str) -> str:
    """An FTS5 string literal: the only way user text reaches MATCH."""
    return '"' + term.replace('"', '""') + '"'


def hebrew_variants(word: str) -> tuple[str, ...]:
    """`word` with up to two one-letter Hebrew prefixes stripped (ובבית → בבית, בית)."""
    out: list[str] = []
    current = word
    for _ in range(2):
        if len(current) >= 4 and current[0] in HEBREW_PREFIXES:
            current = current[1:]
            out.append(current)
        else:
            break
    return tuple(out)


def stem(word: str) -> str | None:
    """A crude suffix-stripped prefix for Russian and English; None when too short to trust."""
    if _HEBREW.search(word) or word.isdigit():
        return None
    suffixes = _RU_SUFFIXES if _CYRILLIC.search(word) else _EN_SUFFIXES
    for suffix in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return None


def parse_query(text: str) -> Query:
    """Split user text into terms; never raises on odd input (empty text gives no terms)."""
    words = [w.lower() for w in _WORD.findall(text)]
    seen: set[str] = set()
    terms: list[Term] = []
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        variants = hebrew_variants(word) if _HEBREW.search(word) else ()
        base = stem(word)
        terms.append(
            Term(
                text=word,
                variants=variants,
                stem=base if base and base != word else None,
                stopword=word in STOPWORDS,
            )
        )
    identifiers = tuple(dict.fromkeys(m.group(0) for m in _IDENT.finditer(text)))
    dates = tuple(dict.fromkeys(m.group(0) for m in _DATE.finditer(text)))
    return Query(
        raw=text, terms=tuple(terms), identifiers=identifiers, dates=dates, words=tuple(words)
    )


def fts_expression(forms: Sequence[str], prefixes: Sequence[str] = ()) -> str:
    """An OR of quoted forms (and quoted prefixes); '' when there is nothing to match."""
    parts = [quote(f) for f in dict.fromkeys(forms) if f]
    parts += [quote(p) + "*" for p in dict.fromkeys(prefixes) if p]
    return " OR ".join(parts)
