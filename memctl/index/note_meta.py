"""What a note says about itself: front matter, `#tags` and its own date (pure: no I/O).

The chunker reads these to stamp every chunk of a file; sync asks `needs_fallback_date`
before it looks up a git or file-time date for a note that names none (index/dates.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from memctl.notes import daily_note_date, parse_iso_date
from memctl.vault import source_of

HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
# A tag starts after whitespace or an opening bracket and holds at least one letter,
# so `#1` (an issue number), `a#b` and URL fragments are not tags.
_TAG = re.compile(r"(?:(?<=^)|(?<=[\s(\[{,;]))#([\w][\w/-]*)")
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class FrontMatter:
    end_line: int  # 0-based index of the line after the closing `---`; 0 without front matter
    date: date | None
    tags: tuple[str, ...]
    importance: float | None


def parse_front_matter(lines: list[str]) -> FrontMatter:
    """A small YAML subset: `key: value`, `tags: [a, b]` or `tags:` followed by `- a` lines."""
    empty = FrontMatter(0, None, (), None)
    if not lines or lines[0].strip() != "---":
        return empty
    close = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if close is None:
        return empty
    values: dict[str, str] = {}
    tags: list[str] = []
    current: str | None = None
    for raw in lines[1:close]:
        item = re.match(r"^\s+-\s+(.*)$", raw)
        if item and current == "tags":
            tags.append(_unquote(item.group(1)))
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", raw)
        if not pair:
            continue
        current = pair.group(1).lower()
        values[current] = pair.group(2).strip()
    raw_tags = values.get("tags", "")
    if raw_tags:
        tags.extend(_unquote(t) for t in raw_tags.strip("[]").split(","))
    when = parse_iso_date(_unquote(values.get("date", ""))[:10]) if values.get("date") else None
    importance: float | None = None
    if values.get("importance"):
        try:
            importance = min(1.0, max(0.0, float(_unquote(values["importance"]))))
        except ValueError:
            importance = None
    clean = tuple(dict.fromkeys(t.lstrip("#").casefold() for t in tags if t.strip("# ")))
    return FrontMatter(close + 1, when, clean, importance)


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def extract_tags(text: str) -> list[str]:
    """`#tag` words (any script), casefolded; pure digits are issue numbers, not tags."""
    found = []
    for match in _TAG.finditer(text):
        tag = match.group(1).rstrip("/-")
        if tag and not tag.isdigit() and not tag.replace("_", "").isdigit():
            found.append(tag.casefold())
    return list(dict.fromkeys(found))


# Operational notes are dated; core.md is always current and decisions carry their own.
UNDATED_FALLBACK_SOURCES = frozenset({"daily", "archive"})
_ISO_IN_TEXT = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)")


def first_heading_date(lines: list[str]) -> date | None:
    """A date written in the note's first heading ("# Billing notes, archived 2026-09-09")."""
    for line in lines:
        if not line.strip():
            continue
        if not HEADING.match(line):
            return None
        match = _ISO_IN_TEXT.search(line)
        return parse_iso_date(match.group(1)) if match else None
    return None


def needs_fallback_date(text: str, rel_path: str) -> bool:
    """Whether a note names no date of its own, so the caller should find one to pass in."""
    source = source_of(rel_path)
    if source not in UNDATED_FALLBACK_SOURCES:
        return False
    lines = text.splitlines()
    front = parse_front_matter(lines)
    body = lines[front.end_line :]
    if _named_date(rel_path, source, front) is not None or first_heading_date(body) is not None:
        return False
    # A roll-up of packed daily notes ("## 2026-09-07" sections, see lifecycle.compact)
    # is dated per section by the lifecycle rules; one file date would blur them.
    return not any(HEADING.match(line) and _ISO_IN_TEXT.search(line) for line in body)


def _named_date(rel_path: str, source: str, front: FrontMatter) -> str | None:
    name = rel_path.rsplit("/", 1)[-1]
    if source == "daily":
        day = daily_note_date(name)
        return day.isoformat() if day else (front.date.isoformat() if front.date else None)
    if source == "decision":
        return None  # each decision carries its own date
    if front.date is not None:
        return front.date.isoformat()
    # A demoted daily note keeps its dated name in the archive.
    match = _DATE_IN_NAME.search(name)
    day = parse_iso_date(match.group(1)) if match else None
    return day.isoformat() if day else None


def note_date(
    lines: list[str], rel_path: str, source: str, front: FrontMatter, fallback: date | None
) -> str | None:
    """The ISO date a file's chunks carry: its name or front matter, else (for a daily or
    archive note) a date in its first heading, else `fallback`; None for core and decisions."""
    named = _named_date(rel_path, source, front)
    if named is not None or source not in UNDATED_FALLBACK_SOURCES:
        return named
    day = first_heading_date(lines[front.end_line :]) or fallback
    return day.isoformat() if day else None
