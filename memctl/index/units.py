"""A chunk's units of meaning (its list items and sentence lines), each embedded beside
the chunk so a question about one fact meets that fact's own vector (pure: no I/O).

The chunker merges a section's blocks up to 200 tokens, so a day of unrelated `- HH:MM`
bullets is one vector, the average of its facts: a question about one bullet scores
lower against it than against an unrelated note naming the same person. A unit is one
list item (with its continuation) or, in a paragraph whose lines each end a sentence,
one line; a hard-wrapped paragraph stays one unit, so prose is never cut mid-sentence.
A chunk of fewer than two units has none: its own vector already is the fact's.

A unit is embedded with the nearest heading above it in the chunk (a date heading, or a
decision's date, is left out: it says nothing a question asks about), so "the price" under
"# Russian tours" still says what it is the price of.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memctl.index.chunker import block_spans, content_hash
from memctl.index.note_meta import HEADING

MAX_UNITS = 32  # a chunk of more (a long list of one-word items) keeps the first ones
MIN_WORDS = 3  # a shorter line ("- TODO", "Notes:") is not a fact of its own
# Past this many chunks in the index no fact is embedded, nor read by search
# (search/rank/meaning.LIFT_MAX_CHUNKS): there a fact's vector is a cold page of a ~1 GB
# state.db for next to nothing found, and the facts were ~2.8x the chunks' embedding time
# and ~5.6x their state.db (docs/lab/search.md, 2026-11-29).
UNITS_MAX_CHUNKS = 20_000
_SENTENCE_END = re.compile(r"""[.!?;:)\]»"'…]\s*$""")
_DATE_ONLY = re.compile(r"^[\W\d_]*$")
_MARKER = re.compile(r"^(?:[-*+]|\d{1,9}[.)])\s+(?:\d{1,2}:\d{2}\s+)?")
_LEADING_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\s*[—–-]*\s*")


@dataclass(frozen=True)
class Unit:
    """One fact of a chunk: its lines (0-based, inclusive, within the chunk's text), the
    text its vector is made of, and that text's hash (the embedding cache's key)."""

    start: int
    end: int
    text: str
    hash: str


def units_of(chunk_text: str) -> list[Unit]:
    """The chunk's units, or [] when it holds fewer than two."""
    lines = chunk_text.splitlines()
    spans: list[tuple[int, int, str]] = []  # (start, end, the heading above)
    title = ""
    for start, end, kind in block_spans(lines):
        if kind == "heading":
            match = HEADING.match(lines[start])
            heading = _LEADING_DATE.sub("", (match.group(2) or "").strip() if match else "")
            if not _DATE_ONLY.match(heading):
                title = heading  # a date heading under a titled note keeps the title
        elif kind == "item":
            spans.append((start, end, title))
        elif kind == "para":
            spans.extend((s, e, title) for s, e in _paragraph_units(lines, start, end))
        # a code fence is searched by its words, not embedded by parts
    units = []
    for start, end, heading in spans:
        # The list marker and a bullet's `HH:MM` say nothing a question asks about.
        body = _MARKER.sub("", "\n".join(lines[start : end + 1]).strip())
        if len(body.split()) < MIN_WORDS:
            continue
        text = f"{heading}: {body}" if heading else body
        units.append(Unit(start, end, text, content_hash(text)))
    return units[:MAX_UNITS] if len(units) >= 2 else []


def _paragraph_units(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """Each line of a paragraph whose lines all end a sentence; else the paragraph whole."""
    if start < end and all(_SENTENCE_END.search(lines[k]) for k in range(start, end)):
        return [(k, k) for k in range(start, end + 1)]
    return [(start, end)]
