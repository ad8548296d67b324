"""What a query's words show in a snippet, for the floor (pure): question words left out,
IDF weights, the weighted share of the words a text holds or the vault lacks."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from memctl.lexical.parse import HEBREW_PREFIXES
from memctl.tokens import words as word_runs

# Words that ask rather than say what about ("when", "how many", "which"): no answer
# contains them, so they would count as missing from every vault and dilute coverage.
# English ones are stopwords already; Hebrew ones also come with a prefix (באיזו).
QUESTION_WORDS = frozenset(
    """מתי איפה היכן כמה איזה איזו אילו מדוע למה איך כיצד מהו מהי מהם מהן מיהו מיהי מיהם
    במה למי ממי где кто когда сколько почему зачем чем чего кого кому кем чему куда откуда
    какой какая какое какие каком какую каких каким какими какого какова каково каковы""".split()
)


def asks(word: str) -> bool:
    """A question word, or one behind Hebrew prefix letters (באיזו, לכמה)."""
    if word in QUESTION_WORDS:
        return True
    return any(
        all(c in HEBREW_PREFIXES for c in word[:cut]) and word[cut:] in QUESTION_WORDS
        for cut in (1, 2)
    )


def names(raw: str, words: Sequence[str], *, capitals: bool = True) -> frozenset[int]:
    """Which of the query's `words` (indexes) it capitalises where a sentence does not
    begin: a name, a product; `capitals` False leaves out words all in capitals (the
    parts of an identifier such as SHEKELGATE_TERMINAL, an acronym)."""
    tokens = re.findall(r"[^\W\d_]+", raw)
    capital = {
        t.lower()
        for t in tokens[1:]
        if t[:1].isupper() and t != "I" and (capitals or not t.isupper())
    }
    return frozenset(i for i, w in enumerate(words) if w in capital)


_SPEAKER = re.compile(r"^\s*(?:[-*+]\s+)?\*\*([^*:\n]{1,40}):\*\*", re.MULTILINE)


def speaker_words(text: str) -> frozenset[str]:
    """The words of the speakers' labels (`**Caroline:**`) of a transcript's lines."""
    return frozenset(
        w.lower() for label in _SPEAKER.findall(text) for w in re.findall(r"[^\W\d_]+", label)
    )


# A bullet's speaker label: one word before a colon at its start, after its time if it has
# one (`- 11:30 ליאת: ...`, `- Boris: ...`, `- **Boris**: ...`, a transcript's
# `- **Caroline:** ...`). Hebrew has no capitals: this is how a vault shows a name in it.
_LABEL = re.compile(
    r"^\s*[-*+]\s+(?:\d{1,2}:\d{2}\s+)?(?:\*\*)?([^\W\d_]+)(?:\*\*:|:\*\*|:)(?!\S)",
    re.MULTILINE,
)


@functools.lru_cache(maxsize=4096)
def label_words(text: str) -> frozenset[str]:
    """The words a text's bullets use as speaker labels (lowercased): people's names.
    Kept by text: the floor asks it of each chosen chunk, mostly the same ones again."""
    return frozenset(w.lower() for w in _LABEL.findall(text))


def unknown_name(raw: str, words: Sequence[str], present: Sequence[bool]) -> bool:
    """Whether the query capitalises a word (not its first: a name, a product) that the
    vault never mentions: the question is about someone or something else."""
    return any(not present[i] for i in names(raw, words))


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


# A text's distinct words, and each of its sentences' (those with words), as
# sentence_coverage splits it: a function of the text alone, so a caller may keep it.
Sentences = tuple[frozenset[str], tuple[frozenset[str], ...]]


def sentences(text: str) -> Sentences:
    parts = tuple(p for p in (frozenset(word_runs(s)) for s in _SENTENCE_END.split(text)) if p)
    return frozenset().union(*parts), parts


class TermHits:
    """Which of one query's terms each word matches (each word tested once per query)."""

    def __init__(self, terms: Sequence[WeightedTerm]) -> None:
        self.terms = terms
        self.of: dict[str, tuple[int, ...]] = {}
        self.hit: set[str] = set()  # the words that match a term

    def test(self, words: Iterable[str]) -> None:
        of = self.of
        for word in words:
            if word not in of:
                which = of[word] = tuple(i for i, t in enumerate(self.terms) if t.matches(word))
                if which:
                    self.hit.add(word)

    def coverage(self, words: Iterable[str]) -> float:
        """coverage(self.terms, words), from the words' kept tests (the same sum)."""
        terms = self.terms
        total = sum(t.weight for t in terms)
        if total <= 0:
            return 1.0
        words = list(words)
        self.test(words)
        found: set[int] = set()
        for word in self.hit.intersection(words):
            found.update(self.of[word])
        return sum(t.weight for i, t in enumerate(terms) if i in found) / total


def sentence_coverage(terms: Sequence[WeightedTerm], text: str) -> float:
    """The coverage of the text's best sentence (or line): where a paragraph states the
    answer, the question's words come together in one sentence; a near-answer on the
    same subject shares as many words, scattered (HeQ's foreign questions: the same
    Hebrew tech news and Wikipedia subjects as the vault)."""
    return best_sentence(TermHits(terms), sentences(text))


def best_sentence(hits: TermHits, split: Sentences, maybe: Iterable[str] | None = None) -> float:
    """sentence_coverage of a text from its `sentences` (the max of coverage() over them,
    the same sums): only the words that match a term are looked at per sentence.
    `maybe`: the text's words that may match a term (a superset of those that do, such
    as the snippets' matcher finds; default: all of them), the only ones tested."""
    return best_sentence_terms(hits, split, maybe)[0]


def best_sentence_terms(
    hits: TermHits, split: Sentences, maybe: Iterable[str] | None = None
) -> tuple[float, frozenset[int]]:
    """best_sentence, and which of the terms (their indexes) that sentence holds."""
    terms = hits.terms
    total = sum(t.weight for t in terms)
    distinct, parts = split
    if total <= 0:
        return (1.0 if parts else 0.0), frozenset()
    hits.test(distinct if maybe is None else maybe)
    best, held = 0.0, frozenset[int]()
    for words in parts:
        common = hits.hit.intersection(words)
        if not common:
            continue
        found: set[int] = set()
        for word in common:
            found.update(hits.of[word])
        if len(found) == len(terms):
            return 1.0, frozenset(found)  # every term in one sentence: the most there is
        value = sum(t.weight for i, t in enumerate(terms) if i in found) / total
        if value > best:
            best, held = value, frozenset(found)
    return best, held


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
