"""Pure parsing of the vault's markdown conventions (no I/O).

- decisions.md: one `## YYYY-MM-DD — title` heading per decision, body below.
- daily notes: `memory/daily/YYYY-MM-DD.md`, a `# YYYY-MM-DD` heading, `- HH:MM text` bullets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

DECISION_HEADING = re.compile(r"^##\s+(\d{4}-\d{2}-\d{2})\s*(?:[—–-]+\s*)?(.*?)\s*$")
ANY_H2 = re.compile(r"^##\s+(.*?)\s*$")
DAILY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.md$")


@dataclass(frozen=True)
class Decision:
    date: date | None  # None when the heading's date is not a real date
    raw_date: str | None
    title: str
    line_start: int  # 1-based, the heading line
    line_end: int  # inclusive, last line of the body (trailing blank lines excluded)
    text: str  # heading + body, exactly as in the file


def parse_iso_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def daily_note_date(filename: str) -> date | None:
    """The date a daily note's file name stands for, or None if it is not a real date."""
    match = DAILY_NAME.match(filename)
    return parse_iso_date(match.group(1)) if match else None


def parse_decisions(text: str) -> list[Decision]:
    """Split decisions.md into decisions: every `## ` heading starts one.

    A `## ` heading without a leading date is still returned (date None, raw_date None),
    so lint can report it as undated instead of it vanishing into its neighbour.
    """
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if ANY_H2.match(line)]
    decisions = []
    for n, start in enumerate(starts):
        end = (starts[n + 1] if n + 1 < len(starts) else len(lines)) - 1
        while end > start and not lines[end].strip():
            end -= 1
        heading = lines[start]
        dated = DECISION_HEADING.match(heading)
        if dated:
            raw, title = dated.group(1), dated.group(2)
            when = parse_iso_date(raw)
        else:
            raw, when = None, None
            title = ANY_H2.match(heading).group(1)  # type: ignore[union-attr]
        decisions.append(
            Decision(
                date=when,
                raw_date=raw,
                title=title,
                line_start=start + 1,
                line_end=end + 1,
                text="\n".join(lines[start : end + 1]),
            )
        )
    return decisions


def recent_decisions(decisions: list[Decision], limit: int) -> list[Decision]:
    """The `limit` most recent dated decisions, newest first (file order breaks ties: later wins)."""
    dated = [(d.date, i, d) for i, d in enumerate(decisions) if d.date is not None]
    dated.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [d for _, _, d in dated[:limit]]


def format_note_bullet(time_hhmm: str, text: str) -> str:
    """A daily-note bullet; continuation lines are indented so the bullet stays one list item."""
    first, *rest = text.strip().splitlines()
    lines = [f"- {time_hhmm} {first.rstrip()}"]
    lines.extend(f"  {line.rstrip()}" if line.strip() else "" for line in rest)
    return "\n".join(lines) + "\n"


TITLE_MAX = 120  # characters; a title is a name, the reasons go in the body

# A line markdown (and parse_decisions) would read as a heading: up to 3 spaces, 1-6 `#`.
_HEADING_LINE = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)")
# Lines the supersession rules read (memctl.lifecycle.rules): `Supersedes: ...`,
# `Superseded ...` and their Russian and Hebrew forms, and a title ending in `[superseded]`.
MARKER_LINE = re.compile(
    r"^\s*[-*]?\s*\**\s*(supersede[sd]?|заменено|заменяет|הוחלף|מחליף)", re.IGNORECASE
)
TITLE_MARKER = re.compile(r"[(\[]\s*(superseded|заменено|הוחלף)\s*[)\]]\s*$", re.IGNORECASE)


def format_decision(day: date, title: str, body: str, *, markers: bool = True) -> str:
    """A decisions.md block whose body and title cannot add structure.

    A body line that would read as a heading is escaped (`\\## ...`, shown as `## ...`), so
    text cannot start a second, back-dated decision. The title is one line of at most
    TITLE_MAX characters. With `markers=False` (text from an agent) supersession markers are
    quoted (`> Supersedes: ...`): an agent's words stay visible but retire nothing; a person
    removes the `> ` to make one count.
    """
    title = " ".join(title.split())
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1].rstrip() + "…"
    if not markers and TITLE_MARKER.search(title):
        title = TITLE_MARKER.sub(lambda m: f"“{m.group(0).strip()}”", title)
    lines = []
    for line in body.strip().splitlines():
        line = _HEADING_LINE.sub(r"\1\\\2", line)
        if not markers and MARKER_LINE.match(line):
            line = "> " + line
        lines.append(line)
    body_text = "\n".join(lines)
    return f"## {day.isoformat()} — {title}\n\n{body_text}\n"


def default_title(text: str, words: int = 8) -> str:
    """A decision's title when none was given: the first words of its first line."""
    first = text.strip().splitlines()[0]
    parts = first.split()
    title = " ".join(parts[:words])
    return title + ("…" if len(parts) > words else "")
