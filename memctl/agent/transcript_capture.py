"""Capture from an agent's transcript file (Claude Code, Codex, a messages list, text):
by rule without an LLM, or through capture's LLM gates with one.

Either way: `<private>` text is removed before anything else sees it; secrets follow
`[security] secrets`; a transcript on `[capture] deny_paths` (or a session that ran in a
folder on it) is not captured; every memory goes to today's daily note ending with the
session's mark; a session writes at most `[capture] max_per_session` memories over all its
captures; and the turns a session already had captured are not read again (a transcript
captured twice adds nothing; the vault's near-duplicate gate covers the rest).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from memctl import clock, memory
from memctl.agent.capture_neighbours import Neighbourhood, load_memories
from memctl.agent.capture_rules import (
    Candidate,
    MemoryItem,
    marked_session,
    session_mark,
    short_session,
)
from memctl.agent.transcript_formats import Transcript, Turn, read_transcript
from memctl.agent.transcript_rules import find_memories
from memctl.agent.transcript_values import values
from memctl.errors import MemctlError, UsageError
from memctl.files import atomic_write_text
from memctl.llm import LLM
from memctl.secrets import find_secrets, redact_text, strip_private
from memctl.vault import Vault

STATE_FILE = "captured-sessions.json"
_STATE_SESSIONS = 1000  # the most recent sessions remembered in the state file
WRITTEN = ("ADD", "UPDATE", "DELETE")


@dataclass
class TranscriptCaptureReport:
    transcript: str
    dry_run: bool
    format: str | None = None
    session_id: str | None = None
    method: str = "none"  # rules | llm | none (nothing read)
    turns: int = 0
    new_turns: int = 0  # turns not captured before (the rest were, in an earlier run)
    skipped: str | None = None  # why the transcript was not captured at all
    candidates: list[Candidate] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    llm_calls: int = 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.candidates:
            out[c.outcome] = out.get(c.outcome, 0) + 1
        return out

    @property
    def written(self) -> list[Candidate]:
        return [c for c in self.candidates if c.written]

    def to_dict(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "format": self.format,
            "session_id": self.session_id,
            "method": self.method,
            "dry_run": self.dry_run,
            "turns": self.turns,
            "new_turns": self.new_turns,
            "skipped": self.skipped,
            "counts": self.counts(),
            "candidates": [_shown(c.to_dict()) for c in self.candidates],
            "llm_calls": self.llm_calls,
            "notices": self.notices,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def _shown(data: dict[str, Any]) -> dict[str, Any]:
    """A candidate as reported: a secret in it never reaches the output."""
    for key in ("text", "final_text"):
        if isinstance(data.get(key), str):
            data[key] = redact_text(data[key])
    return data


def denied(path: str, patterns: tuple[str, ...]) -> str | None:
    """The `[capture] deny_paths` pattern `path` falls under, if any: a folder (or file)
    covers what is inside it; a glob matches the whole path, or (without a slash) any one
    of its folders' names."""
    where = os.path.abspath(os.path.expanduser(path))
    for pattern in patterns:
        if _covers(os.path.expanduser(pattern.strip()), where):
            return pattern
    return None


def _covers(pattern: str, where: str) -> bool:
    if not any(c in pattern for c in "*?["):
        folder = os.path.abspath(pattern).rstrip("/")
        return where == folder or where.startswith(folder + "/")
    if fnmatch.fnmatch(where, pattern) or fnmatch.fnmatch(where, pattern.rstrip("/") + "/*"):
        return True
    return "/" not in pattern and any(fnmatch.fnmatch(p, pattern) for p in Path(where).parts)


def read_transcript_file(path: Path, limit: int) -> str:
    """A transcript's text; a link, a non-regular file, one over `limit` bytes or one
    that is not UTF-8 is a one-line `UsageError` (nothing read further)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(f"{path} is a link: capture reads only the transcript file itself")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file: nothing was captured")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise UsageError(f"{path} is not a regular file: nothing was captured")
        data = handle.read(limit + 1)
    return decode_transcript(data, str(path), limit)


def decode_transcript(data: bytes, name: str, limit: int) -> str:
    if len(data) > limit:
        raise UsageError(
            f"{name} is larger than [capture] max_transcript_bytes ({limit:,} bytes): "
            "nothing was captured"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name} is not valid UTF-8 (byte {exc.start})") from None


def capture_transcript(
    vault: Vault,
    transcript: Path,
    *,
    session_id: str | None = None,
    dry_run: bool = False,
    extract: str | None = None,
    llm: LLM | None = None,
    now: datetime | None = None,
) -> TranscriptCaptureReport:
    """Capture a transcript file (format detected). `extract`: auto, rules or llm (default
    `[capture] extract`); `llm`: a client to use instead of the configured one."""
    settings = vault.settings.capture
    report = TranscriptCaptureReport(str(transcript), dry_run)
    pattern = denied(str(transcript), settings.deny_paths)
    if pattern is not None:
        report.skipped = f"the transcript is on [capture] deny_paths ({pattern}): not read"
        return report
    raw = read_transcript_file(transcript, settings.max_transcript_bytes)
    fallback = transcript.stem.removeprefix("rollout-")
    return capture_text(
        vault,
        raw,
        name=str(transcript),
        session_id=session_id,
        default_session=fallback,
        dry_run=dry_run,
        extract=extract,
        llm=llm,
        now=now,
        report=report,
    )


def capture_text(
    vault: Vault,
    raw: str,
    *,
    name: str = "standard input",
    session_id: str | None = None,
    default_session: str | None = None,
    dry_run: bool = False,
    extract: str | None = None,
    llm: LLM | None = None,
    now: datetime | None = None,
    report: TranscriptCaptureReport | None = None,
) -> TranscriptCaptureReport:
    """Capture a conversation already read (any format `read_transcript` knows)."""
    settings = vault.settings.capture
    report = report or TranscriptCaptureReport(name, dry_run)
    if not raw.strip():
        raise UsageError(f"{name} is empty: nothing to capture")
    parsed = read_transcript(raw, name)
    turns = [replace(t, text=strip_private(t.text)) for t in parsed.turns]
    report.format, report.turns = parsed.format, len(turns)
    if parsed.cwd and (pattern := denied(parsed.cwd, settings.deny_paths)):
        report.skipped = f"the session ran in a folder on [capture] deny_paths ({pattern})"
        return report
    sid = session_id or parsed.session_id or default_session or _content_id(turns)
    report.session_id = sid
    method = _method(vault, extract or settings.extract, llm)
    start = _already_captured(vault, sid, turns)
    report.new_turns = len(turns) - start
    if report.new_turns == 0:
        said = "nothing new since this session was last captured" if turns else "no turns"
        report.notices.append(said)
        return report
    now = now or clock.now()
    memories = load_memories(vault)
    done = sum(1 for m in memories if marked_session(m.text) == short_session(sid))
    room = max(0, settings.max_per_session - done)
    if method[0] == "llm":
        assert method[1] is not None
        _by_llm(vault, method[1], turns, start, sid, room, now, report)
    else:
        _by_rules(vault, memories, turns, start, sid, room, now, report)
    report.notices.extend(vault.take_notices())
    if not dry_run:
        _remember_captured(vault, sid, turns)
    return report


def _method(vault: Vault, extract: str, llm: LLM | None) -> tuple[str, LLM | None]:
    if extract not in ("auto", "rules", "llm"):
        raise UsageError(f"extract {extract!r}: choose auto, rules or llm")
    if extract == "rules":
        return "rules", None
    if llm is None:
        from memctl.llm import get_llm

        llm = get_llm(vault.settings)
    if llm is None and extract == "llm":
        from memctl.llm import no_llm_reason

        why = no_llm_reason(vault.settings)
        raise MemctlError(
            f"capture --extract llm needs the LLM and {why}: nothing was written", exit_code=2
        )
    return ("llm", llm) if llm is not None else ("rules", None)


def _by_rules(
    vault: Vault,
    memories: list[MemoryItem],
    turns: list[Turn],
    start: int,
    session_id: str,
    room: int,
    now: datetime,
    report: TranscriptCaptureReport,
) -> None:
    report.method = "rules"
    hits = [h for h in find_memories(turns, [m.text for m in memories]) if h.turn >= start]
    if not hits:
        return
    hood = Neighbourhood(vault, memories, report.notices)
    lifecycle, refuse = vault.settings.lifecycle, vault.settings.security.secrets == "refuse"
    mark = session_mark(session_id)
    for hit in hits:
        cand = Candidate(text=hit.text, kind=hit.kind, reason=f"rule: {hit.rule}")
        report.candidates.append(cand)
        secrets = find_secrets(hit.text)
        if secrets and refuse:
            cand.outcome = "refused"
            cand.reason = f'holds a {secrets[0].kind} ([security] secrets = "refuse")'
            continue
        neighbours = hood.nearest(hit.text)
        if neighbours:
            best, cosine, ratio = neighbours[0]
            cand.similarity = cosine if cosine >= 0 else ratio / 100
            same = cosine >= lifecycle.duplicate_cosine or ratio >= lifecycle.duplicate_ratio
            if same and values(hit.text) <= values(best.text):
                cand.outcome, cand.target = "duplicate", best
                cand.reason = f"near-duplicate of {best.path}:{best.line_start}"
                continue
        if room <= 0:
            cand.outcome, cand.reason = "capped", "the session's capture cap is reached"
            continue
        room -= 1
        cand.outcome, cand.final_text = "ADD", hit.text
        if not report.dry_run:
            path = memory.add_note(vault, f"{hit.text} {mark}", at=now)
            cand.written = {"path": vault.rel(path), "kind": "note"}
        hood.add(hit.text, (cand.written or {}).get("path", "(planned)"))


def _by_llm(
    vault: Vault,
    llm: LLM,
    turns: list[Turn],
    start: int,
    session_id: str,
    room: int,
    now: datetime,
    report: TranscriptCaptureReport,
) -> None:
    from memctl.agent.capture import capture

    report.method = "llm"
    # The turn before the new ones gives them context (what "yes" agreed to).
    shown = turns[max(0, start - 1) :]
    text = "\n\n".join(f"{t.role.upper()}: {t.text}" for t in shown)
    # A secret is never sent to a model, whatever [security] secrets says about storing.
    result = capture(
        vault,
        redact_text(text),
        llm,
        dry_run=report.dry_run,
        now=now,
        mark=session_mark(session_id),
        limit=room,
    )
    report.candidates.extend(result.candidates)
    report.notices.extend(result.notices)
    report.llm_calls += result.llm_calls


def _content_id(turns: list[Turn]) -> str:
    """A session id for a conversation that names none: from its first turns, so the same
    conversation, grown, keeps it."""
    head = json.dumps([(t.role, t.text) for t in turns[:2]], ensure_ascii=False)
    return "text-" + hashlib.sha256(head.encode()).hexdigest()[:8]


def _digest(turns: list[Turn]) -> str:
    data = json.dumps([(t.role, t.text) for t in turns], ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


def _load_state(vault: Vault) -> dict[str, Any]:
    path = vault.state_entry(STATE_FILE)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or damaged: everything is read again (dedupe still holds)
    return data if isinstance(data, dict) else {}


def _already_captured(vault: Vault, session_id: str, turns: list[Turn]) -> int:
    """How many leading turns of this session an earlier capture already read (0 when the
    transcript no longer starts with them: compacted or rewritten)."""
    entry = _load_state(vault).get(session_id)
    if not isinstance(entry, dict):
        return 0
    count = entry.get("turns")
    if not isinstance(count, int) or not 0 < count <= len(turns):
        return 0
    return count if entry.get("digest") == _digest(turns[:count]) else 0


def _remember_captured(vault: Vault, session_id: str, turns: list[Turn]) -> None:
    with vault.lock("capture"):
        state = _load_state(vault)
        state.pop(session_id, None)
        state[session_id] = {
            "turns": len(turns),
            "digest": _digest(turns),
            "at": clock.iso(clock.now()),
        }
        kept = dict(list(state.items())[-_STATE_SESSIONS:])
        atomic_write_text(vault.state_entry(STATE_FILE), json.dumps(kept, ensure_ascii=False))


__all__ = [
    "Transcript",
    "TranscriptCaptureReport",
    "capture_text",
    "capture_transcript",
    "decode_transcript",
    "denied",
    "read_transcript_file",
]
