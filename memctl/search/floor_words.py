"""What a query's words show in a snippet, for the floor (pure): question words left out,
IDF weights, the weighted share of the words a text holds or the vault lacks."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

# Words that ask rather than say what about ("when", "how many", "which"): no answer
# contains them, so they would count as missing from every vault and dilute coverage.
# English ones are stopwords already; Hebrew ones also come with a prefix (באיזו).
QUESTION_WORDS = frozenset(
    """מתי איפה היכן כמה איזה איזו אילו מדוע למה איך כיצד מהו מהי מהם מהן מיהו מיהי מיהם
    במה למי ממי где кто когда сколько почему зачем чем чего кого кому кем чему куда откуда
    какой какая какое какие каком какую каких каким какими какого какова каково каковы""".split()
)
_HEBREW_PREFIX_LETTERS = "והבכלמש"


def asks(word: str) -> bool:
    """A question word, or one behind Hebrew prefix letters (באיזו, לכמה)."""
    if word in QUESTION_WORDS:
        return True
    return any(
        all(c in _HEBREW_PREFIX_LETTERS for c in word[:cut]) and word[cut:] in QUESTION_WORDS
        for cut in (1, 2)
    )


def unknown_name(raw: str, words: Sequence[str], present: Sequence[bool]) -> bool:
    """Whether the query capitalises a word (not its first: a name, a product) that the
    vault never mentions: the question is about someone or something else."""
    tokens = re.findall(r"[^\W\d_]+", raw)
    names = {t.lower() for t in tokens[1:] if t[:1].isupper() and t != "I"}
    return any(w in names and not here for w, here in zip(words, present, strict=True))


def missing_share(terms: Sequence[WeightedTerm], present: Sequence[bool]) -> float:
    """The IDF-weighted share of the query's words found nowhere in the vault."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 0.0
    return sum(t.weight for t, here in zip(terms, present, strict=True) if not here) / total


def idf(df: int, rows: int) -> float:
    """BM25's IDF (always positive): a word absent from the vault weighs the most."""
    return math.log(1.0 + (rows - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class WeightedTerm:
    """One query word: its weight and the test of whether a snippet word is that word."""

    weight: float
    matches: Callable[[str], bool]


_SENTENCE_END = re.compile(r"[.!?;\n]+")
_WORD = re.compile(r"\w+", re.UNICODE)


def sentence_coverage(terms: Sequence[WeightedTerm], text: str) -> float:
    """The coverage of the text's best sentence (or line): where a paragraph states the
    answer, the question's words come together in one sentence; a near-answer on the
    same subject shares as many words, scattered (HeQ's foreign questions: the same
    Hebrew tech news and Wikipedia subjects as the vault)."""
    parts = (dict.fromkeys(_WORD.findall(part)) for part in _SENTENCE_END.split(text))
    return max((coverage(terms, words) for words in parts if words), default=0.0)


def coverage(terms: Sequence[WeightedTerm], words: Iterable[str]) -> float:
    """IDF-weighted share of query words found among `words` (1.0 when the query has no
    weighted word: there is nothing lexical to judge it by)."""
    total = sum(t.weight for t in terms)
    if total <= 0:
        return 1.0
    found = [False] * len(terms)
    left = len(terms)
    for word in words:
        for i, term in enumerate(terms):
            if not found[i] and term.matches(word):
                found[i] = True
                left -= 1
        if not left:
            break
    return sum(t.weight for t, hit in zip(terms, found, strict=True) if hit) / total
