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
import unicodedata
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
# A capitalised word after a word, a digit or a comma on the same line: a name's place.
_NAMED = re.compile(r"(?<=[\w,)»\"] )([^\W\d_][^\W_]*)", re.UNICODE)
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


def written_as_name(text: str, word: str) -> bool:
    """Whether `text` writes `word` (folded) with a capital letter inside a sentence, as a
    name is written (not first on its line or after a full stop)."""
    for found in _NAMED.finditer(text):
        name = found.group(1)
        if name[0].isupper() and _fold(name) == word:
            return True
    return False


def _fold(word: str) -> str:
    """vocab.fold's folding (vocab imports this module): lowercase, no diacritics."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


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


# A word's script and its keys: what a cache of them holds (memctl.lexical.vocab keeps one
# beside the vocabulary, PostgreSQL a table beside its lexemes).
Keyed = tuple[str, tuple[str, ...]]
# Changes whenever key() or keys() would key a word otherwise: a cache keyed by another
# version is keyed again.
KEYS_VERSION = 1


def keyed(term: str) -> Keyed | None:
    """A vault word's script and keys of MIN_KEY+ consonants (None: a word of none of the
    three scripts, or too short to cross)."""
    if len(term) < MIN_KEY or term.isdigit():
        return None
    script = script_of(term)
    if script is None:
        return None
    return script, tuple(found for found in keys(term) if len(found) >= MIN_KEY)


def crossed_scripts(script: str) -> tuple[str, ...]:
    """The scripts a word of `script` crosses into: Latin and one other. Hebrew and
    Cyrillic met each other's words by chance (בנהר → вебинар, полиции → פוליסה) more
    often than by name."""
    return ("he", "ru") if script == "en" else ("en",)


# The vault words holding a key, with their scripts (an in-memory map, a cache file's
# lines, a table: whichever the index keeps).
Lookup = Callable[[str], Iterable[tuple[str, str]]]


def forms(word: str, lookup: Lookup, named: Callable[[str], bool] = lambda term: True) -> list[str]:
    """Vault words of another script spelling the same name as `word` (folded), closest
    first, at most MAX_FORMS; `lookup`: the vault's words of a key, `named`: whether a vault
    word is a name (is_name), asked of the closest only."""
    script = script_of(word)
    wanted = key(word)
    if script is None or len(wanted) < MIN_KEY:
        return []
    others = crossed_scripts(script)
    spelled = latin(word)
    likely: list[tuple[float, str]] = []
    for other, term in lookup(wanted):
        if other not in others:
            continue
        likeness = fuzz.ratio(spelled, latin(term))
        # Hebrew has no vowels to compare: the key alone decides.
        if "he" not in (script, other) and likeness < MIN_SPELLING:
            continue
        likely.append((likeness, term))
    likely.sort(key=lambda pair: (-pair[0], pair[1]))
    kept: list[str] = []
    for _, term in likely:
        if len(kept) < MAX_FORMS and named(term):
            kept.append(term)
    return kept


class Crossings:
    """Vault words held in memory by key, keyed when made (~7 µs a word)."""

    def __init__(self, terms: Iterable[str]) -> None:
        self._by_key: dict[str, list[tuple[str, str]]] = {}
        for term in terms:
            found = keyed(term)
            if found is not None:
                for one in found[1]:
                    self._by_key.setdefault(one, []).append((found[0], term))

    def forms(self, word: str, named: Callable[[str], bool] = lambda term: True) -> list[str]:
        """The vault's spellings of `word` in another script (forms())."""
        return forms(word, lambda wanted: self._by_key.get(wanted, ()), named)
