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


def format_decision(day: date, title: str, body: str) -> str:
    title = " ".join(title.split())
    return f"## {day.isoformat()} — {title}\n\n{body.strip()}\n"
