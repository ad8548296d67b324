"""Agent hooks: a hook's JSON input in, the context its output hands the agent out.

Claude Code, Codex, Gemini CLI and Cursor run a command at a session's start and at each
prompt, with a JSON object on stdin. `session-start` answers HOT + WARM (the context
`memctl context` assembles); `prompt` answers the COLD snippets that pass the relevance
floor for the prompt, or nothing at all, so a prompt memory knows nothing about costs
the agent nothing; `pre-compact` and `stop` capture the session's transcript into today's
note and answer nothing. Claude Code replaces a hook output over 10,000 characters with a short
preview, so every answer is fitted under that whole (the JSON, not only its text).

Parsing and rendering are pure; `session_start` and `prompt` read the vault.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from memctl.agent.context import AssembledContext, ContextBlock, assemble, drop_order
from memctl.errors import UsageError
from memctl.vault import Vault

Event = Literal["session-start", "prompt", "pre-compact", "stop"]
Agent = Literal["claude-code", "codex", "cursor", "gemini"]
EVENTS: tuple[Event, ...] = ("session-start", "prompt", "pre-compact", "stop")
AGENTS: tuple[Agent, ...] = ("claude-code", "codex", "cursor", "gemini")

MAX_OUTPUT_CHARS = 10_000  # Claude Code shows a preview instead of a larger output
MAX_INPUT_BYTES = 8 * 1024 * 1024  # a hook's JSON: a prompt, ids and paths, never this big
CUT_MARK = "\n[memctl: cut here to stay within the hook's 10,000 characters]\n"
PROMPT_HEADER = (
    "Archived memories (memctl COLD tier) that may bear on this prompt, with file:line; "
    "load_memory expands one:"
)
SESSION_HEADER = "Memory loaded by memctl at the session's start (HOT core, then WARM recent):"

# What each agent calls the event in its output (`hookEventName`); Cursor's output has
# no event name.
_EVENT_NAMES: dict[Agent, dict[str, str]] = {
    "claude-code": {"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
    "codex": {"session-start": "SessionStart", "prompt": "UserPromptSubmit"},
    "gemini": {"session-start": "SessionStart", "prompt": "BeforeAgent"},
    "cursor": {},
}

_STRING_KEYS = (
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "source",
    "prompt",
    "trigger",
    "conversation_id",
)


@dataclass(frozen=True)
class HookInput:
    """The keys memctl reads from a hook's JSON (each None when the agent left it out)."""

    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    hook_event_name: str | None = None
    source: str | None = None  # SessionStart: startup, resume, clear, compact
    prompt: str | None = None  # UserPromptSubmit, BeforeAgent, beforeSubmitPrompt
    trigger: str | None = None  # PreCompact: manual, auto
    stop_hook_active: bool = False  # Stop: a Stop hook already continued this turn
    conversation_id: str | None = None  # Cursor's session id

    @property
    def session(self) -> str | None:
        return self.session_id or self.conversation_id


def parse_input(data: bytes) -> HookInput:
    """A hook's stdin as HookInput; empty input is an empty object. Bad input: UsageError."""
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"the hook's input is over {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"the hook's input is not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        return HookInput()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"the hook's input is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    if not isinstance(raw, dict):
        raise UsageError("the hook's input is not a JSON object")
    return _from_mapping(raw)


def _from_mapping(raw: Mapping[str, Any]) -> HookInput:
    values: dict[str, Any] = {}
    for key in _STRING_KEYS:
        value = raw.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise UsageError(f"the hook's input has {key} of type {type(value).__name__}")
        values[key] = value
    active = raw.get("stop_hook_active")
    values["stop_hook_active"] = active is True
    return HookInput(**values)


def render(agent: Agent, event: Event, context: str) -> str:
    """The JSON the agent reads from the hook's stdout."""
    if agent == "cursor":
        return json.dumps({"additional_context": context}, ensure_ascii=False)
    name = _EVENT_NAMES[agent].get(event, event)
    output = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": context}}
    return json.dumps(output, ensure_ascii=False)


def fit_output(
    header: str,
    blocks: list[ContextBlock],
    rendered: Callable[[str], str],
    limit: int = MAX_OUTPUT_CHARS - 1,  # the newline printed after it counts too
) -> tuple[str, list[ContextBlock]]:
    """The rendered output within `limit` characters, and the blocks dropped for it.

    WARM goes first (oldest day first), then COLD (worst first), the order a token budget
    drops them in; when the never-dropped blocks alone are too long (an over-cap core.md)
    the text is cut at a line with a mark saying so.
    """
    kept = list(blocks)
    dropped: list[ContextBlock] = []

    def text(of: list[ContextBlock]) -> str:
        return "\n".join([header, *(b.render() for b in of)])

    for victim in drop_order(kept):
        if len(rendered(text(kept))) <= limit:
            break
        kept.remove(victim)
        dropped.append(victim)
    full = text(kept)
    if len(rendered(full)) <= limit:
        return rendered(full), dropped
    # JSON escapes make the length grow unevenly with the text: search for the longest cut.
    low, high = 0, len(full)
    while low < high:
        middle = (low + high + 1) // 2
        if len(rendered(_cut(full, middle))) <= limit:
            low = middle
        else:
            high = middle - 1
    return rendered(_cut(full, low)), dropped


def _cut(text: str, size: int) -> str:
    head = text[:size]
    line_end = head.rfind("\n")
    return (head[:line_end] if line_end > 0 else head) + CUT_MARK


@dataclass
class HookAnswer:
    """What a hook prints: `output` on stdout (None: nothing at all), notices on stderr."""

    output: str | None
    notices: list[str]


def session_start(vault: Vault, hook: HookInput, agent: Agent) -> HookAnswer:
    """HOT + WARM under the context budget and within the output's character limit."""
    context: AssembledContext = assemble(vault)
    output, dropped = fit_output(
        SESSION_HEADER, context.blocks, lambda text: render(agent, "session-start", text)
    )
    notices = list(context.notices)
    if dropped:
        notices.append(
            f"{len(dropped)} WARM block(s) left out to stay within {MAX_OUTPUT_CHARS:,} characters"
        )
    return HookAnswer(output, notices)


def prompt_query(prompt: str, limit: int) -> str:
    """The prompt as a search query: its first `limit` characters, cut between words."""
    text = " ".join(prompt.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    return head[:space] if space > 0 else head


def prompt(vault: Vault, hook: HookInput, agent: Agent, *, k: int = 5) -> HookAnswer:
    """The COLD snippets past the relevance floor for the prompt; no output when none pass."""
    from memctl.agent.context import cold_blocks
    from memctl.agent.tool_specs import MAX_QUERY_CHARS

    if hook.prompt is None:
        return HookAnswer(None, ["the hook's input has no prompt; nothing added"])
    query = prompt_query(hook.prompt, MAX_QUERY_CHARS)
    if not query:
        return HookAnswer(None, [])
    blocks, notices = cold_blocks(vault, query, k=k)
    # The floor's count of what it left out is noise on every prompt: kept only in the log.
    notices = [n for n in notices if "below the relevance floor" not in n]
    if not blocks:
        return HookAnswer(None, notices)
    output, _ = fit_output(PROMPT_HEADER, blocks, lambda text: render(agent, "prompt", text))
    return HookAnswer(output, notices)


def capture(vault: Vault, hook: HookInput) -> HookAnswer:
    """The session's transcript captured into today's note; no output (a Stop hook's
    stdout never reaches the model). By rule, unless `[capture] extract = "llm"`: a hook
    runs at every turn's end, under the agent's timeout."""
    from pathlib import Path

    from memctl.agent.transcript_capture import capture_transcript

    if not hook.transcript_path:
        return HookAnswer(None, ["the hook's input has no transcript_path"])
    extract = "llm" if vault.settings.capture.extract == "llm" else "rules"
    report = capture_transcript(
        vault, Path(hook.transcript_path), session_id=hook.session, extract=extract
    )
    notices = [*report.notices, *([report.skipped] if report.skipped else [])]
    return HookAnswer(None, notices)
