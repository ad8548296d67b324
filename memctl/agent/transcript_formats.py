"""Reading the conversations agents write (pure: text in, turns out).

Formats, detected from the text itself:
- Claude Code transcript JSONL (the file a hook's `transcript_path` names): one event per
  line; `user` and `assistant` events carry a `message` whose content is a string or blocks;
- Codex CLI session rollouts (`~/.codex/sessions/.../rollout-*.jsonl`): `{timestamp, type,
  payload}` lines, messages in `response_item` payloads (and the older layout with bare
  `message` items after a metadata line);
- an Anthropic messages list (a JSON list, or an object with `messages`);
- plain text, with `user:` / `assistant:` line prefixes or as one user turn.

Only words people and agents said become turns: tool calls, tool results, thinking,
images, sub-agent (sidechain) turns and the agents' injected boilerplate are left out. An
event of a type this module does not know is skipped; a known one missing what it must
have, or a line that is not JSON (a truncated write), is a `UsageError` naming the line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from memctl.errors import UsageError

CLAUDE_CODE = "claude-code"
CODEX = "codex"
MESSAGES = "anthropic-messages"
PLAIN = "text"

_CLAUDE_TYPES = {
    "user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation",
    "attachment", "progress", "custom-title", "tag",
}  # fmt: skip
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
# What agents put in a "user" turn that the user did not type.
_INJECTED = re.compile(
    r"^\s*(?:<(?:environment_context|user_instructions|user_shell_command|turn_aborted|"
    r"INSTRUCTIONS|permissions instructions|command-name|command-message|command-args|"
    r"local-command-stdout|local-command-stderr|system-reminder|user-prompt-submit-hook)\b"
    r"|# AGENTS\.md instructions|Caveat: The messages below were generated)",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^\s*(user|human|me|assistant|ai|agent|claude|codex)\s*:\s?", re.I)


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str
    line: int  # 1-based line of the source where the turn starts
    id: str | None = None


@dataclass
class Transcript:
    format: str
    turns: list[Turn] = field(default_factory=list)
    session_id: str | None = None
    cwd: str | None = None


def _fail(name: str, line: int, why: str) -> UsageError:
    return UsageError(f"{name}: line {line}: {why}; nothing was captured")


def _block_texts(content: Any, kinds: tuple[str, ...]) -> list[str] | None:
    """The text blocks of a content list (None when it is not a list of objects)."""
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        return None
    return [str(b.get("text", "")) for b in content if b.get("type") in kinds]


def _said(texts: list[str]) -> str:
    return "\n\n".join(t for t in texts if t.strip() and not _INJECTED.match(t)).strip()


def _json_lines(text: str, name: str) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise _fail(name, number, "not valid JSON (a truncated or corrupt line)") from None
        if not isinstance(row, dict):
            raise _fail(name, number, "not a JSON object")
        rows.append((number, row))
    return rows


def _claude_code(rows: list[tuple[int, dict[str, Any]]], name: str) -> Transcript:
    out = Transcript(CLAUDE_CODE)
    for number, row in rows:
        kind = row.get("type")
        out.session_id = out.session_id or _str(row.get("sessionId"))
        out.cwd = out.cwd or _str(row.get("cwd"))
        if kind not in ("user", "assistant"):
            continue
        message = row.get("message")
        if not isinstance(message, dict) or "content" not in message:
            raise _fail(name, number, f"a {kind} event without message.content")
        if row.get("isSidechain") or row.get("isMeta") or row.get("isCompactSummary"):
            continue  # a sub-agent's exchange, or text the agent injected
        content = message["content"]
        if isinstance(content, str):
            text = _said([content])
        else:
            texts = _block_texts(content, ("text",))
            if texts is None:
                raise _fail(name, number, "message.content is neither text nor a list of blocks")
            text = _said(texts)
        if text:
            out.turns.append(Turn(kind, text, number, _str(row.get("uuid"))))
    return out


def _codex(rows: list[tuple[int, dict[str, Any]]], name: str) -> Transcript:
    out = Transcript(CODEX)
    for number, row in rows:
        kind = row.get("type")
        if kind in _CODEX_TYPES:
            payload = row.get("payload")
            if not isinstance(payload, dict):
                raise _fail(name, number, f"a {kind} line without a payload object")
            if kind == "session_meta":
                out.session_id = out.session_id or _str(payload.get("id"))
                out.cwd = out.cwd or _str(payload.get("cwd"))
                continue
            if kind != "response_item":
                continue  # event_msg repeats the messages; turn_context is settings
            row, kind = payload, payload.get("type")
        elif "instructions" in row and "id" in row and kind is None:
            out.session_id = out.session_id or _str(row.get("id"))  # the older first line
            continue
        if kind != "message":
            continue  # reasoning, function calls and their output
        role = row.get("role")
        texts = _block_texts(row.get("content"), ("input_text", "output_text", "text"))
        if not isinstance(role, str) or texts is None:
            raise _fail(name, number, "a message without a role and a list of content blocks")
        if role in ("user", "assistant"):
            text = _said(texts)
            if text:
                out.turns.append(Turn(role, text, number, _str(row.get("id"))))
    return out


def _messages(data: Any) -> Transcript:
    from memctl.agent.history import validate_messages

    out = Transcript(MESSAGES)
    for i, message in enumerate(validate_messages(data), start=1):
        content = message["content"]
        texts = [content] if isinstance(content, str) else _block_texts(content, ("text",))
        text = _said(texts or [])
        if text:
            out.turns.append(Turn(message["role"], text, i))
    return out


def _plain(text: str) -> Transcript:
    out = Transcript(PLAIN)
    role, start = "user", 1
    lines: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        speaker = _SPEAKER.match(line)
        if speaker:
            if "".join(lines).strip():
                out.turns.append(Turn(role, "\n".join(lines).strip(), start))
            who = speaker.group(1).casefold()
            role = "user" if who in ("user", "human", "me") else "assistant"
            start, lines = number, [line[speaker.end() :]]
        else:
            lines.append(line)
    if "".join(lines).strip():
        out.turns.append(Turn(role, "\n".join(lines).strip(), start))
    return out


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def detect_format(text: str) -> str:
    """Which of the formats above `text` is in (from its first JSON line or its shape)."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return MESSAGES
    if not stripped.startswith("{"):
        return PLAIN
    first = stripped.split("\n", 1)[0]
    try:
        row = json.loads(first)
    except json.JSONDecodeError:
        return MESSAGES  # a pretty-printed object: `{"messages": [...]}`
    if not isinstance(row, dict):
        return PLAIN
    if "messages" in row and "type" not in row:
        return MESSAGES
    kind = row.get("type")
    if kind in _CODEX_TYPES or "payload" in row or ("instructions" in row and "id" in row):
        return CODEX
    if kind == "message" and "role" in row:
        return CODEX
    return CLAUDE_CODE


def read_transcript(text: str, name: str = "transcript") -> Transcript:
    """The turns of a conversation in any of the formats above; `name` is for errors."""
    fmt = detect_format(text)
    if fmt == PLAIN:
        return _plain(text)
    if fmt == MESSAGES:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"{name}: not valid JSON ({exc.msg} at line {exc.lineno}); nothing was captured"
            ) from None
        return _messages(data)
    rows = _json_lines(text, name)
    if fmt == CODEX:
        return _codex(rows, name)
    if not any(row.get("type") in _CLAUDE_TYPES for _, row in rows):
        raise UsageError(
            f"{name}: JSON lines, but neither a Claude Code transcript nor a Codex session; "
            "nothing was captured"
        )
    return _claude_code(rows, name)
