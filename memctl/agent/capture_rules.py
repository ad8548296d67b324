"""Pure parts of auto-capture: reading a conversation, the validation gate, memory items.

No I/O here: the pipeline (`capture.py`) feeds text in and gets data out, so the gates
are tested directly, in English, Hebrew and Russian.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from memctl.index.note_meta import parse_front_matter
from memctl.notes import parse_decisions
from memctl.tokens import estimate_tokens, truncate_to_tokens
from memctl.vault import ARCHIVE_DIR

# High-importance memories get the contradiction check (core 1.0, decisions 0.7 by the
# chunker's defaults); daily notes and the archive are allowed to drift.
HIGH_IMPORTANCE = 0.7
IMPORTANCE = {"core": 1.0, "decision": 0.7, "daily": 0.5, "archive": 0.4}
TRANSCRIPT_TOKENS = 24_000  # what the extractor sees; the most recent part wins

# Where UPDATE and DELETE archive the memory they replace (never read back as a memory).
SUPERSEDED = f"{ARCHIVE_DIR}/superseded.md"


# Every memory captured from an agent session ends with this mark, so a person sees where
# it came from and capture counts what a session already wrote (its per-session cap).
_SESSION_MARK = re.compile(r"\s*\(session ([\w.-]{1,64})\)\s*$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)


def short_session(session_id: str) -> str:
    """A session id as the mark shows it: a UUID's first 8 hex digits, else its safe chars."""
    if _UUID.match(session_id):
        return session_id[:8].lower()
    return re.sub(r"[^\w.-]", "", session_id)[:64] or "unnamed"


def session_mark(session_id: str) -> str:
    return f"(session {short_session(session_id)})"


def marked_session(text: str) -> str | None:
    """The short session id a memory's mark names, if it has one."""
    found = _SESSION_MARK.search(text)
    return found.group(1) if found else None


def without_session_mark(text: str) -> str:
    return _SESSION_MARK.sub("", text)


def conversation_text(raw: str) -> str:
    """Anthropic messages JSON (a list, or an object with `messages`) as a transcript;
    anything that is not such JSON is taken as a plain-text conversation."""
    stripped = raw.strip()
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            return raw
        from memctl.agent.history import render_transcript, validate_messages

        return render_transcript(validate_messages(data))
    return raw


def clip_transcript(text: str, budget: int = TRANSCRIPT_TOKENS) -> tuple[str, bool]:
    """The last `budget` tokens of the transcript (recent turns hold the freshest facts)."""
    if estimate_tokens(text) <= budget:
        return text, False
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = estimate_tokens(line)
        if used + cost > budget:
            if not kept:
                kept.append(truncate_to_tokens(line, budget)[0])
            break
        kept.append(line)
        used += cost
    return "".join(reversed(kept)), True


_FILLER = re.compile(
    r"^\W*(ok(ay)?|thanks?( you)?|thx|great|cool|sure|yes|no|hi|hello|bye|got it|sounds good|"
    r"спасибо|ок|окей|хорошо|да|нет|привет|пока|понятно|"
    r"תודה|אוקיי|בסדר|כן|לא|שלום|היי|מעולה|סבבה)\W*$",
    re.IGNORECASE,
)
_TRANSIENT = re.compile(
    r"\b(right now|at the moment|currently|for now|this morning|this afternoon|tonight|"
    r"in a minute|brb|i'?m (now )?(looking|working|checking|running|trying)|"
    r"сейчас|в данный момент|прямо сейчас|пока что|сегодня утром|"
    r"כרגע|עכשיו|בינתיים|הבוקר)\b",
    re.IGNORECASE,
)


def validation_reason(text: str, *, durable: bool = True) -> str | None:
    """Why a candidate fact is not worth keeping (filler, transient, too short), or None."""
    flat = " ".join(text.split())
    if not flat:
        return "empty"
    if _FILLER.match(flat):
        return "filler"
    words = re.findall(r"\w+", flat)
    if len(words) < 3:
        return "too short to stand alone"
    if not durable:
        return "transient (marked by the extractor)"
    if _TRANSIENT.search(flat):
        return "transient state"
    return None


@dataclass(frozen=True)
class MemoryItem:
    """One existing memory: a daily-note bullet, a decision, a core or archive line."""

    id: str
    path: str
    line_start: int
    line_end: int
    text: str
    source: str
    weight: float | None = None  # the file's front-matter `importance:`, when it sets one

    @property
    def importance(self) -> float:
        return self.weight if self.weight is not None else IMPORTANCE.get(self.source, 0.5)

    def ref(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "text": self.text,
            "source": self.source,
        }


_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+\S")


def bullet_items(text: str) -> list[tuple[int, int, str]]:
    """Top-level list items with their continuation lines: (line_start, line_end, text)."""
    lines = text.splitlines()
    items: list[tuple[int, int, str]] = []
    i = 0
    while i < len(lines):
        match = _BULLET.match(lines[i])
        if not match or match.group(1):
            i += 1
            continue
        end = i
        while (
            end + 1 < len(lines)
            and lines[end + 1].startswith((" ", "\t"))
            and lines[end + 1].strip()
        ):
            end += 1
        items.append((i + 1, end + 1, "\n".join(lines[i : end + 1])))
        i = end + 1
    return items


def memory_items(path: str, source: str, text: str) -> list[MemoryItem]:
    """The memories in one vault file: decisions whole, everything else bullet by bullet.

    A file's front matter `importance:` (the same the index reads) overrides the default
    by source, so a pinned archive file still gets the contradiction check.
    """
    weight = parse_front_matter(text.splitlines()).importance
    if source == "decision":
        found = [(d.line_start, d.line_end, d.text) for d in parse_decisions(text)]
    else:
        found = bullet_items(text)
    return [MemoryItem(f"{path}:{s}", path, s, e, body, source, weight) for s, e, body in found]


def remove_block(text: str, block: str) -> str | None:
    """`text` without one occurrence of the exact lines `block` (and one blank line after a
    removed multi-line block); None when the block is no longer there (edited since)."""
    lines = text.splitlines(keepends=True)
    wanted = block.splitlines()
    n = len(wanted)
    for i in range(len(lines) - n + 1):
        if [line.rstrip("\r\n") for line in lines[i : i + n]] == wanted:
            end = i + n
            if n > 1 and end < len(lines) and not lines[end].strip():
                end += 1
            return "".join(lines[:i] + lines[end:])
    return None


def superseded_entry(day: str, item: MemoryItem, action: str, pointer: str, reason: str) -> str:
    """The archive record of a memory replaced (UPDATE) or retracted (DELETE) by capture."""
    verb = "replaced" if action == "UPDATE" else "retracted"
    body = item.text.strip()
    return (
        f"## {day} — {verb} by capture (was {item.path}:{item.line_start})\n\n"
        f"{body}\n\n"
        f"{'Replaced by' if action == 'UPDATE' else 'Because of'}: {pointer}\n"
        f"Reason: {reason.strip() or 'not given'}\n"
    )


@dataclass
class Candidate:
    text: str
    kind: str
    title: str | None = None
    durable: bool = True
    outcome: str = (
        "pending"  # invalid | duplicate | ADD | UPDATE | DELETE | NOOP | CONFLICT | error
    )
    reason: str = ""
    similarity: float | None = None
    target: MemoryItem | None = None
    final_text: str | None = None
    written: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "title": self.title,
            "outcome": self.outcome,
            "reason": self.reason,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "target": self.target.ref() if self.target else None,
            "final_text": self.final_text,
            "written": self.written,
        }
