"""Which script a query and a result are written in (pure), for the relevance floor:
e5 scores within one language and across two differently, so the floor holds a result in
another script than its query (a Russian question, an English note) to its own bar."""

from __future__ import annotations

import functools
import re

_SCRIPTS = {
    "latin": re.compile(r"[A-Za-z\u00C0-\u024F]"),
    "hebrew": re.compile(r"[\u0590-\u05FF]"),
    "cyrillic": re.compile(r"[\u0400-\u04FF]"),
}


@functools.lru_cache(maxsize=4096)
def script_of(text: str) -> str | None:
    """The script most of the text's letters are written in (None: no letters of these).
    Kept by text: the floor asks it of each result's chunk, mostly the same chunks again
    (three scans of the text, ~20 us a chunk)."""
    if text.isascii():
        # Only Latin letters can be in it (the others' counts are 0, and the first of
        # equal counts wins): one search for a letter, not three scans.
        return "latin" if _SCRIPTS["latin"].search(text) else None
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS.items()}
    name, count = max(counts.items(), key=lambda item: item[1])
    return name if count else None


# A query in Hebrew or Russian often names a product or a person in Latin letters ("מהו
# PUBG?", "באיזו שנה הוקם Cyber Observer?"): counted by letters it would be a Latin query,
# every Hebrew result a cross-script one, held to the lenient cross-lingual bar (HeQ's
# foreign questions of that kind all kept five results). Latin wins only below this share.
QUERY_SCRIPT_SHARE = 0.25


def query_script(text: str) -> str | None:
    """The script a query is asked in: the non-Latin script with the most letters when it
    holds at least QUERY_SCRIPT_SHARE of them (the Latin ones are then names), else the
    script most of its letters are written in."""
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS.items()}
    total = sum(counts.values())
    other, count = max(
        ((name, n) for name, n in counts.items() if name != "latin"), key=lambda item: item[1]
    )
    if total and count >= QUERY_SCRIPT_SHARE * total:
        return other
    return script_of(text)


def cross_script(query_script: str | None, text: str) -> bool:
    """A result written in another script than the query (a cross-lingual answer)."""
    other = script_of(text)
    return query_script is not None and other is not None and other != query_script
