"""The paraphrase check: which content words a question shares with its gold line.

Two words count as shared when any of their normalised forms meet: English suffixes, Hebrew
one- and two-letter prefixes (ו ב ה ל מ ש כ) and suffixes, Russian endings, a common stem
of four letters or more, or (Russian) the same first five letters. Stop words don't count.
Deliberately stricter than memctl's own stemming, so a paraphrase is one that words alone
cannot find.
"""

from __future__ import annotations

import re

_STOP_EN = set(
    """a an the and or but if then than so as of to in on at by for with from into onto about
over under up down out off again also just only own same other such very too not no nor yes
is are was were be been being am do does did done doing have has had having can could should
would will shall may might must i me my we us our ours you your he him his she her it its they
them their this that these those there here what which who whom whose when where why how any
all some each both more most few many much one get got let per what's who's it's we're don't
didn't doesn't isn't aren't s t""".split()
)
_STOP_HE = set(
    """של את על עם אם כי גם זה זו זאת הוא היא הם הן אני אנחנו אתה לנו לי לו לה להם מה מי מתי
איפה למה איך כמה האם יש אין לא כן או אבל רק עוד כל כבר עד אחרי לפני בין אצל מן אשר היה
הייתה היו יהיה אפשר צריך צריכים איזה איזו אילו שלנו שלו שלה שלהם אותו אותה אותם כך כמו יותר
מאוד ולא שבו שבה הזה הזאת""".split()
)
_STOP_RU = set(
    """и в во не на с со что как а но по к ко у из за от до о об же ли бы для это этот эта эти
то там тут когда где кто какой какая какие каким какую каком каких сколько почему зачем мы
нас нам наш наша наши нашей наших он она они его её ее их ему ей им я ты вы есть был была
были было будет ещё еще уже только все всё весь так также чтобы если или при про через после
перед над под между можно нужно надо тем тех том кому чего чем который которая которое
которые которую котором которых""".split()
)
STOP = _STOP_EN | _STOP_HE | _STOP_RU

_HE_PREFIX = set("ובהלמשכ")
_HE_FINALS = str.maketrans("ךםןףץ", "כמנפצ")
_HE_SUFFIXES = ("ים", "ות", "ה", "ת", "י", "ו")
_RU_ENDINGS = sorted(
    """ами ями ого его ому ему ыми ими ая яя ое ее ой ей ий ый ые ие ых их ом ем ам ям ах ях ов
ев ью ия а я о е ы и у ю ь й""".split(),
    key=len,
    reverse=True,
)
_EN_SUFFIXES = ("ing", "ed", "es", "s", "ly", "er")
_HEBREW = re.compile(r"[\u0590-\u05ff]")
_CYRILLIC = re.compile(r"[а-яё]", re.I)


def tokens(text: str) -> list[str]:
    return [t.lower() for t in re.findall(r"[^\W_]+", text)]


def script_of(text: str) -> str:
    """The language a line is written in, by its letters: he, ru or en."""
    if _HEBREW.search(text):
        return "he"
    if _CYRILLIC.search(text):
        return "ru"
    return "en"


def variants(word: str) -> set[str]:
    """Normalised forms of one word; two words match when their sets meet."""
    if any(ch.isdigit() for ch in word):
        return {word}
    if _HEBREW.match(word):
        base = word.translate(_HE_FINALS)
        bases = {base}
        for k in (1, 2):
            if len(base) - k >= 3 and all(c in _HE_PREFIX for c in base[:k]):
                bases.add(base[k:])
        out = set(bases)
        for b in bases:
            out.update(b[: -len(s)] for s in _HE_SUFFIXES if b.endswith(s) and len(b) - len(s) >= 3)
        return out
    if _CYRILLIC.match(word):
        w = word.replace("ё", "е")
        for ending in _RU_ENDINGS:
            if w.endswith(ending) and len(w) - len(ending) >= 3:
                return {w, w[: -len(ending)]}
        return {w}
    w = re.sub(r"'s$", "", word)
    return {w} | {w[: -len(s)] for s in _EN_SUFFIXES if w.endswith(s) and len(w) - len(s) >= 3}


def _same(q: str, line_word: str) -> bool:
    vq, vl = variants(q), variants(line_word)
    if vq & vl:
        return True
    if any(
        len(a) >= 4 and len(b) >= 4 and (a.startswith(b) or b.startswith(a)) for a in vq for b in vl
    ):
        return True
    return bool(
        _CYRILLIC.match(q)
        and _CYRILLIC.match(line_word)
        and min(len(q), len(line_word)) >= 5
        and q[:5] == line_word[:5]
    )


def shared_words(question: str, line: str) -> list[tuple[str, str]]:
    """(question word, line word) for each content word of the question found in the line."""
    line_words = [t for t in tokens(line) if t not in STOP]
    hits = []
    for q in (t for t in tokens(question) if t not in STOP):
        match = next((w for w in line_words if _same(q, w)), None)
        if match is not None:
            hits.append((q, match))
    return hits
