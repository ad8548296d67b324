"""Names across scripts: a query word the index does not hold, written in another script
than the vault's word for it («Борис», בוריס for Boris; Postgres for «Постгрес»).

Both words are spelled in Latin letters (anyascii, a maintained transliteration library)
and reduced to a key of consonant classes, since Hebrew writes few vowels and the three
languages spell one sound differently (v/b, f/p, sh/s, kh/ch/k). A vault word in another
script whose key equals the query word's becomes an extra form of that word in the words
list. Only words unknown to the index in every form reach this (the typo corrector's
path), and only vault words of another script are looked at, so a query whose words the
vault holds costs nothing here. Pure: the vault's words come from memctl.lexical.vocab.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from rapidfuzz import fuzz

MIN_KEY = 3  # consonants: "brs" (Boris) is a name's key; two match half the vault
LONG_KEY = 5  # consonants: an ordinary word's this long key is a name's (prlmn, pstgrs)
MAX_FORMS = 2  # vault words one query word may bring in
# A Cyrillic word keeps its vowels: its Latin spelling must also resemble the vault word's
# (борис/boris 100, шардоне/chardonnay 67, сорт/sort 100 but сорт is common, see below).
MIN_SPELLING = 60.0

_SCRIPTS = (
    ("en", re.compile(r"^[a-z]+$")),
    ("he", re.compile(r"^[\u0590-\u05FF]+$")),
    ("ru", re.compile(r"^[\u0400-\u04FF]+$")),
)
# Hebrew's vowel letters (matres lectionis) and gutturals that Latin spellings leave out;
# a doubled vav is the consonant v. Het is written kh or ch in Latin, not h.
_HEBREW_VOWELS = str.maketrans({"ו": None, "י": None, "א": None, "ע": None, "ה": None})
_DIGRAPHS = {
    "shch": "s",
    "sch": "s",
    "tch": "k",
    "sh": "s",
    "zh": "Z",
    "ch": "k",
    "kh": "k",
    "ck": "k",
    "ph": "p",
    "th": "t",
    "tz": "C",
    "x": "ks",
    "ce": "se",
    "ci": "si",
    "cy": "sy",
}
# One letter per class; vowels, y, h and the apostrophes of soft signs are dropped. The
# sibilants keep three classes, as Hebrew and Russian spell them apart: s/sh (ס ש с ш),
# z/zh (ז з ж) and ts (צ ц), the last two as capitals no other rule writes.
_CLASSES = str.maketrans(
    {
        "c": "k",
        "q": "k",
        "j": "g",
        "v": "b",
        "w": "b",
        "f": "p",
        "z": "Z",
        **{vowel: None for vowel in "aeiouyh'"},
    }
)


_RAW_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HEBREW_LETTER = re.compile("[\u0590-\u05ff]")
_SIBILANTS = str.maketrans({"ц": "C", "צ": "C", "ץ": "C", "ж": "Z", "ז": "Z"})
# Endings an ordinary Hebrew word takes, by kind: feminine; plural; a verb's persons or a
# possessive. A final letter takes its ordinary form before one (המון → המונים).
_HEBREW_ENDINGS = (("ה", "ת", "ית"), ("ים", "ות", "יים", "יות"), ("ו", "נו", "תי", "תם"))
_FINAL_LETTERS = str.maketrans("ךםןףץ", "כמנפצ")


def script_of(word: str) -> str | None:
    """'en', 'he' or 'ru' for a (folded) word wholly in one of the three scripts."""
    if word.isascii():
        return "en" if word.isalpha() and word.islower() else None
    for script, letters in _SCRIPTS[1:]:
        if letters.match(word):
            return script
    return None


def latin(word: str) -> str:
    """The (folded) word in Latin letters (Hebrew's vowel letters dropped first)."""
    if word.isascii():
        return word
    from anyascii import anyascii

    if _HEBREW_LETTER.search(word):
        word = word.replace("וו", "ב").replace("ח", "ך").translate(_HEBREW_VOWELS)
    return "".join(ch for ch in anyascii(word) if ch.isalpha() or ch == "'")


def key(word: str) -> str:
    """The word's consonant classes: Boris, Борис and בוריס all give 'brs'."""
    spelled = latin(word if word.isascii() else word.translate(_SIBILANTS))
    for digraph, single in _DIGRAPHS.items():  # longest first; str.replace is ~20x a regex
        if digraph in spelled:
            spelled = spelled.replace(digraph, single)
    spelled = spelled.translate(_CLASSES)
    return "".join(ch for i, ch in enumerate(spelled) if not i or ch != spelled[i - 1])


def keys(word: str) -> tuple[str, ...]:
    """The word's keys: a Latin "ch" is also read as French "sh" (Chardonnay, шардоне)."""
    first = key(word)
    if "ch" not in word or not word.isascii():
        return (first,)
    second = key(word.replace("ch", "sh"))
    return (first,) if second == first else (first, second)


def asks_name(forms: Sequence[str], raw: str, common: Callable[[str], bool]) -> bool:
    """Whether a query word (`forms`: it first, then its Hebrew prefix-stripped forms) may
    be a name to look for in another script: a Hebrew word none of whose forms is an
    inflected ordinary word, no ordinary word of its language, or one the query
    capitalises (Bukhara, Борис). "messed" met מאשדוד by its consonants before this."""
    word = forms[0]
    if script_of(word) == "he":
        return not any(hebrew_word(form, common) for form in forms)
    if not common(word):
        return True
    return any(found[0].isupper() and found.lower() == word for found in _RAW_WORD.findall(raw))


def hebrew_word(word: str, common: Callable[[str], bool]) -> bool:
    """Whether a Hebrew word is an ordinary word, not a name: the language's ordinary words
    also hold it inflected in two ways (נדרש: נדרשת, נדרשים; בוטל: בוטלה, בוטלו; המון:
    המונה, המונים), where the names wordfreq knows stand alone (בוריס, אשדוד, פרלמן).
    Hebrew has no capitals to tell a name by; without this, כשהמון met shmona, ובוטל
    bottle, נדרש andrassy and פרטי porto by their consonants."""
    if not common(word):
        return False
    base = word[:-1] + word[-1].translate(_FINAL_LETTERS)
    kinds = sum(any(common(base + end) for end in ends) for ends in _HEBREW_ENDINGS)
    return kinds >= 2


def is_name(term: str, common: Callable[[str], bool], capitalised: Callable[[str], bool]) -> bool:
    """Whether a vault word may stand for a query word of another script: no ordinary word
    of its language (Postgres, Vetropack), a long one whose consonants hardly agree by
    chance (פרלמן), or one the vault writes with a capital inside a sentence (Boris, Борис:
    names are ordinary words to wordfreq); a Hebrew word, with no capitals to tell, never
    when it is an inflected ordinary word (hebrew_word). Without this, ordinary words
    whose few consonants happen to agree crossed: דרשו → doors, магазине → magazine."""
    if script_of(term) == "he":
        return (not common(term) or len(key(term)) >= LONG_KEY) and not hebrew_word(term, common)
    return not common(term) or len(key(term)) >= LONG_KEY or capitalised(term)


class Crossings:
    """The vault's words by script, keyed on first use per script (~3 µs a word)."""

    def __init__(self, terms: Iterable[str]) -> None:
        self._words: dict[str, list[str]] = {"en": [], "he": [], "ru": []}
        for term in terms:
            if len(term) >= MIN_KEY and not term.isdigit():
                script = script_of(term)
                if script is not None:
                    self._words[script].append(term)
        self._keys: dict[str, dict[str, list[str]]] = {}

    def scripts(self) -> set[str]:
        """The scripts the vault writes words in."""
        return {script for script, words in self._words.items() if words}

    def forms(self, word: str, named: Callable[[str], bool] = lambda term: True) -> list[str]:
        """Vault words of another script spelling the same name as `word`, closest first;
        `named`: whether a vault word is a name (is_name), asked of the closest only."""
        script = script_of(word)
        if script is None or not self.scripts() & ({"he", "ru"} if script == "en" else {"en"}):
            return []
        wanted = key(word)
        if len(wanted) < MIN_KEY:
            return []
        spelled = latin(word)
        found: list[tuple[float, str]] = []
        # Latin and one other script: Hebrew and Cyrillic met each other's words by chance
        # (בנהר → вебинар, полиции → פוליסה) more often than by name.
        for other in self.scripts() & ({"he", "ru"} if script == "en" else {"en"}):
            for term in self._keyed(other).get(wanted, ()):
                likeness = fuzz.ratio(spelled, latin(term))
                # Hebrew has no vowels to compare: the key alone decides.
                if "he" not in (script, other) and likeness < MIN_SPELLING:
                    continue
                found.append((likeness, term))
        found.sort(key=lambda pair: (-pair[0], pair[1]))
        kept: list[str] = []
        for _, term in found:
            if len(kept) < MAX_FORMS and named(term):
                kept.append(term)
        return kept

    def _keyed(self, script: str) -> dict[str, list[str]]:
        keyed = self._keys.get(script)
        if keyed is None:
            keyed = self._keys[script] = {}
            for term in self._words[script]:
                for found in keys(term):
                    if len(found) >= MIN_KEY:
                        keyed.setdefault(found, []).append(term)
        return keyed
