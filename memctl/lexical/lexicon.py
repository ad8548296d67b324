"""Words of English, Hebrew and Russian common enough that a query using one meant it: the
typo corrector leaves such a word alone rather than turn it into a vault word it resembles.

Without this, "how much may we spend" searched for "munich" and "sends", "guests" for
"gets", "dairy" for "daily": an ordinary word the vault happens not to hold was taken for a
misspelling of one it does, and the words list then ranked notes about Munich above the
answer. Which words are ordinary comes from wordfreq's counts (a word used at least once per
million words, zipf ≥ 3); a word list per language is derived from them once and kept in the
user's cache, so a search reads a small text file, not wordfreq's tables (~0.2-0.6 s each).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import os
import re
from pathlib import Path

from memctl.files import atomic_write_text, read_unlinked_text
from memctl.lexical.vocab import fold

# zipf 3: once per million words. The misspellings seen in questions ("staton", "medel",
# "competiton") sit below 2.1; the ordinary words mistaken for them above 3.2.
MIN_ZIPF = 3.0
_SCRIPTS = (
    ("he", re.compile(r"^[\u0590-\u05FF]+$")),
    ("ru", re.compile(r"^[\u0400-\u04FF]+$")),
    ("en", re.compile(r"^[a-z]+$")),
)


def language_of(word: str) -> str | None:
    """The language whose script spells the whole (folded) word; None for mixed or other."""
    for lang, script in _SCRIPTS:
        if script.match(word):
            return lang
    return None


def is_common(word: str) -> bool:
    """Whether a query word is an ordinary word of its language."""
    folded = fold(word)
    lang = language_of(folded)
    return lang is not None and folded in words_of(lang)


@functools.cache
def words_of(lang: str) -> frozenset[str]:
    """The language's common words, folded: read from the cache, made once from wordfreq.
    Empty when wordfreq is missing, so correction then works as it did without it."""
    try:
        version = importlib.metadata.version("wordfreq")
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    name = f"{lang}-{version}-z{MIN_ZIPF:g}.txt"
    path = _cache_folder() / name
    with contextlib.suppress(OSError, UnicodeDecodeError):
        return frozenset(read_unlinked_text(path).split())
    found = _derived(lang)
    # Not writable: every process derives it again, which costs time, not results.
    with contextlib.suppress(OSError):
        atomic_write_text(path, "\n".join(sorted(found)))
    return found


def _derived(lang: str) -> frozenset[str]:
    import wordfreq

    least = 10.0 ** (MIN_ZIPF - 9)  # zipf = log10(frequency per billion words)
    counts = wordfreq.get_frequency_dict(lang, wordlist="best")
    return frozenset(fold(word) for word, share in counts.items() if share >= least)


def _cache_folder() -> Path:
    # The user's own cache only: a shared temp folder could hold another user's list.
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memctl" / "lexicon"
