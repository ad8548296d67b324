"""Capture's value rule: a new value (number, path, address, handle, owner) the user gives
a thing the vault already names, in English, Hebrew and Russian (pure; transcript_rules.py
runs it beside the other rules)."""

from __future__ import annotations

import re
from collections.abc import Sequence

HEBREW = re.compile(r"[\u0590-\u05FF]")
CYRILLIC = re.compile(r"[\u0400-\u04FF]")

# Words that say a thing changed: with one name the vault knows, a new value of it.
_CHANGE = re.compile(
    r"\b(?:is now|are now|now (?:is|are|lives|runs|listens|points|uses|belongs|sits|on|at|in)|"
    r"moved to|changed to|switched to|migrated to|renamed to|is no longer|are no longer|"
    r"was moved|has moved|have moved|took over|bumped to|upgraded to|new \w+ is|"
    r"теперь|переехал[аои]?|перенесли|перенес[её]н[аы]?|сменил(?:ся|ась|ось|ись|и)?|"
    r"изменил(?:ся|ась|ось|ись|и)|поменял(?:ся|ась|ось|ись|и)?|больше не|обновили до|"
    r"переименовал[аи]?|переименован[аоы]?|нов(?:ый|ая|ое|ые))\b"
    r"|(?:^|(?<=\s))ו?(?:עכשיו|מעכשיו|כעת|עבר(?:ה|ו)? ל|הועבר(?:ה|ו)? ל|השתנ(?:ה|תה) ל|"
    r"שונ(?:ה|תה) ל|הוחלפ?(?:ה)? ב|ה?חדש(?:ה)?|כבר לא|שודרג(?:ה)? ל)",
    re.IGNORECASE,
)
VALUE = re.compile(
    r"https?://\S+|`[^`\n]+`|[\w.+-]+@[\w-]+\.[\w.]+|(?<![\w@])@[\w-]{2,}"
    r"|(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]+)*|\b[\w.-]+(?:/[\w.@-]+)+"
    r"|\bv?\d+(?:[.:,_-]\d+)+\b|\b\d{2,}\b"
    r"|\b[\w-]+\.(?:com|io|dev|net|org|internal|local|lan|corp)\b|\b[\w.-]+/(?=\s|$)",
    re.IGNORECASE,
)
_OWNER = re.compile(
    r"(?:\b(?:owner(?: of [\w -]+?)?(?: is| now is|:)|owned by|maintained by|on-call(?: is)?|"
    r"владел(?:ец|ица)(?: \w+)?(?: —|:|\s+теперь|\s+—)?|ответственн(?:ый|ая)(?: за \w+)?|"
    r"дежурн(?:ый|ая))"
    r"|(?:^|(?<=\s))(?:ה?אחראי(?:ת)?(?: על [\w-]+)?|ה?בעלים(?: של [\w-]+)?)"
    r"(?:\s+(?:עכשיו|היא|הוא|זה|זו))?)\s+(@?[\w.-]+)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3,}")
_RU_ENDING = re.compile(
    r"(?:ами|ями|ого|его|ему|ому|ыми|ими|ой|ей|ом|ем|ах|ях|ов|ев|ая|яя|ое|ее|ые|ие|ый|ий|"
    r"а|я|у|ю|ы|и|е|о|ь)$"
)
_STOP = frozenset(
    "the and for with this that these those is are was were now our its not but from into "
    "you your they them their has have had will would should can could then than there here "
    "new old about also just what when where which who into onto over under still been "
    "это этот эта эти что как теперь наш наша наше наши его она они или для при про так уже "
    "был была было были есть новый новая новое новые сейчас будет тоже только "
    "של את זה זו הוא היא הם הן עם על עכשיו כבר לא כן אנחנו שלנו גם רק כל אבל חדש חדשה".split()
)


def stems(text: str) -> set[str]:
    """Content words reduced for matching across inflections and Hebrew prefixes."""
    found: set[str] = set()
    for word in _WORD.findall(text.casefold()):
        if word in _STOP:
            continue
        if HEBREW.match(word):
            found.add(word)
            if word[0] in "והבלכמש" and len(word) >= 4:
                found.add(word[1:])
                if word[1] in "הבלכמש" and len(word) >= 5:
                    found.add(word[2:])
        elif CYRILLIC.match(word):
            short = _RU_ENDING.sub("", word)
            found.add(short if len(short) >= 3 else word)
        else:
            found.add(word[:-1] if word.endswith("s") and len(word) >= 5 else word)
    return found - _STOP


def values(text: str) -> set[str]:
    """The values a sentence states: numbers, paths, addresses, handles, owners."""
    found = {v.casefold().strip("`.,") for v in VALUE.findall(text)}
    found |= {m.group(1).casefold() for m in _OWNER.finditer(text)}
    return {v for v in found if v}


class Named:
    """What the vault already names, and the values it gives each thing."""

    def __init__(self, memories: Sequence[str]) -> None:
        self.values: dict[str, set[str]] = {}
        for text in memories:
            found = values(text)
            if not found:
                continue
            for stem in stems(VALUE.sub(" ", text)):
                self.values.setdefault(stem, set()).update(found)

    def new_value(self, sentence: str) -> bool:
        """A new value of a thing the vault names: a change word and a shared name, or
        two shared names; and a value the vault does not already give them."""
        stated = values(sentence)
        if not stated:
            return False
        shared = [s for s in stems(VALUE.sub(" ", sentence)) if s in self.values]
        change = _CHANGE.search(sentence) is not None
        if not shared or (not change and len(shared) < 2):
            return False
        known = set().union(*(self.values[s] for s in shared))
        return bool(stated - known)
