"""What `memctl import` reads: Claude Code's auto memory, a CLAUDE.md, a ChatGPT export
and a folder of markdown notes, each turned into planned vault writes (`Piece`s).

Reading only; memctl.agent.importing deduplicates and writes. Every destination is built
here from sanitised names under `memory/`, never taken from the source as a path.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal

from memctl.errors import UsageError
from memctl.files import read_bytes
from memctl.index.note_meta import parse_front_matter
from memctl.notes import daily_note_date

Kind = Literal["claude-memory", "claude-md", "chatgpt", "notes"]
KINDS: tuple[Kind, ...] = ("claude-memory", "claude-md", "chatgpt", "notes")
IMPORTED = "memory/archive/imported"
CHATGPT = "memory/archive/chatgpt"
_UNSAFE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True)
class Piece:
    """One planned write: a new archive file (`day` dates it), or lines for a day's note."""

    origin: str  # the source file (and conversation) it came from, for the report
    text: str
    day: date | None
    destination: str | None = None  # a new file's vault-relative path; None: the day's note
    # A transcript is a record: kept whole (deduplicated as a file, by its conversation id),
    # never thinned line by line.
    by_line: bool = True


def detect(source: Path) -> Kind:
    if source.is_dir():
        return "claude-memory" if (source / "MEMORY.md").is_file() else "notes"
    if source.suffix.lower() == ".json":
        return "chatgpt"
    if source.suffix.lower() == ".md":
        return "claude-md"
    raise UsageError(f"{source}: cannot tell what to import; give --kind ({', '.join(KINDS)})")


def slug(name: str, limit: int = 60) -> str:
    """A file-name part safe on every system, keeping letters of any script."""
    cleaned = _UNSAFE.sub("-", name).strip("-.")[:limit].strip("-.")
    return cleaned or "untitled"


def _text(path: Path) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not valid UTF-8 (byte {exc.start})") from None


def _file_day(path: Path, text: str) -> date:
    front = parse_front_matter(text.splitlines())
    if front.date is not None:
        return front.date
    named = daily_note_date(path.name)
    if named is not None:
        return named
    return datetime.fromtimestamp(path.stat().st_mtime).date()


def dated(text: str, day: date, origin: str) -> str:
    """`text` with front matter naming its date and origin (the index dates it by that);
    a date it already names is kept."""
    lines = text.splitlines()
    front = parse_front_matter(lines)
    if front.end_line and front.date is not None:
        return text
    stamp = [f"date: {day.isoformat()}", f"imported_from: {json.dumps(origin, ensure_ascii=False)}"]
    if front.end_line:
        return "\n".join([lines[0], *stamp, *lines[1:]]) + "\n"
    return "\n".join(["---", *stamp, "---", "", text.rstrip("\n")]) + "\n"


def _markdown_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    for top, dirs, files in os.walk(folder):  # links to folders are not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(
            Path(top) / f for f in sorted(files) if f.endswith(".md") and not f.startswith(".")
        )
    return found


def _archive_piece(path: Path, root: Path, base: str) -> Piece:
    text = _text(path)
    day = _file_day(path, text)
    rel = "/".join(slug(part, 120) for part in path.relative_to(root).parts)
    return Piece(str(path), dated(text, day, str(path)), day, f"{base}/{rel}")


def claude_memory(folder: Path) -> list[Piece]:
    """Claude Code's auto memory (`MEMORY.md` and its topic files): undated facts, kept as
    files in the archive under the project's name, dated by their file time."""
    project = folder.parent.name if folder.name == "memory" else folder.name
    base = f"{IMPORTED}/claude-code/{slug(project)}"
    return [_archive_piece(path, folder, base) for path in _markdown_files(folder)]


def claude_md(path: Path) -> list[Piece]:
    """A CLAUDE.md: the project's instructions, archived under its folder's name."""
    base = f"{IMPORTED}/claude-md/{slug(path.resolve().parent.name)}"
    return [_archive_piece(path, path.parent, base)]


def notes(folder: Path) -> list[Piece]:
    """A folder of markdown notes: a note named for a day (`2026-11-20.md`) joins that
    day's note; any other is archived under the folder's name, dated."""
    pieces = []
    base = f"{IMPORTED}/{slug(folder.resolve().name)}"
    for path in _markdown_files(folder):
        day = daily_note_date(path.name)
        if day is None:
            pieces.append(_archive_piece(path, folder, base))
            continue
        body = _text(path).splitlines()
        body = body[parse_front_matter(body).end_line :]
        pieces.append(Piece(str(path), "\n".join(body), day))
    return pieces


# -- ChatGPT's conversations.json ---------------------------------------------------------


def _turns(conversation: dict[str, Any]) -> list[tuple[str, str, float | None]]:
    """(role, text, time) of the conversation's current branch, oldest first."""
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict):
        return []
    node_id = conversation.get("current_node")
    chain = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id] if isinstance(mapping[node_id], dict) else {}
        chain.append(node)
        node_id = node.get("parent")
    turns = []
    for node in reversed(chain):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        role = (message.get("author") or {}).get("role")
        content = message.get("content") or {}
        parts = content.get("parts") if isinstance(content, dict) else None
        if role not in ("user", "assistant") or not isinstance(parts, list):
            continue
        text = "\n".join(p for p in parts if isinstance(p, str)).strip()
        if text:
            when = message.get("create_time")
            turns.append((role, text, when if isinstance(when, int | float) else None))
    return turns


def _day_of(stamp: object) -> date | None:
    if not isinstance(stamp, int | float) or isinstance(stamp, bool):
        return None
    try:
        return datetime.fromtimestamp(stamp, UTC).date()
    except (OverflowError, OSError, ValueError):
        return None


def chatgpt(path: Path) -> list[Piece]:
    """ChatGPT's export: each conversation's current branch becomes one dated archive file
    (`memory/archive/chatgpt/DATE-title-ID.md`), its turns under `### user` / `### assistant`."""
    try:
        data = json.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, list):
        raise UsageError(f"{path}: not a ChatGPT export (a list of conversations expected)")
    pieces = []
    for number, conversation in enumerate(data, start=1):
        if not isinstance(conversation, dict):
            continue
        turns = _turns(conversation)
        if not turns:
            continue
        title = str(conversation.get("title") or "Untitled").strip() or "Untitled"
        ident = str(conversation.get("conversation_id") or conversation.get("id") or number)
        day = _day_of(conversation.get("create_time")) or _day_of(turns[0][2]) or date(1970, 1, 1)
        body = [f"# {title}", ""]
        for role, text, _when in turns:
            body += [f"### {role}", "", text, ""]
        origin = f"{path} ({title})"
        name = f"{day.isoformat()}-{slug(title, 50)}-{slug(ident, 12)}.md"
        text = dated("\n".join(body), day, origin)
        pieces.append(Piece(origin, text, day, f"{CHATGPT}/{name}", by_line=False))
    return pieces


def read_source(source: Path, kind: Kind | None = None) -> tuple[Kind, list[Piece]]:
    if not source.exists():
        raise UsageError(f"{source} does not exist")
    kind = kind or detect(source)
    wants_dir = kind in ("claude-memory", "notes")
    if wants_dir != source.is_dir():
        raise UsageError(f"{source}: --kind {kind} reads a {'folder' if wants_dir else 'file'}")
    readers = {
        "claude-memory": claude_memory,
        "claude-md": claude_md,
        "chatgpt": chatgpt,
        "notes": notes,
    }
    return kind, readers[kind](source)
