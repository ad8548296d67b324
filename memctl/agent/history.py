"""History compaction for an Anthropic messages list.

The last N messages stay untouched; the head is summarised by a cheap model into one
user message plus an assistant acknowledgement. The split (`split_point`, pure) only
moves earlier, never later, and never lands where a tool_result would lose its
tool_use: the first kept message is a user turn that carries no tool_result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memctl.config import Settings
from memctl.errors import UsageError
from memctl.llm import LLM
from memctl.tokens import estimate_tokens, truncate_to_tokens

SUMMARY_PREFIX = "Summary of the earlier part of this conversation (compacted by memctl):\n\n"
ACKNOWLEDGEMENT = (
    "Understood. I have the summary of our earlier conversation and will continue from it."
)
SUMMARY_SYSTEM = (
    "You compact a conversation between a user and an AI assistant. Write a faithful, "
    "dense summary the assistant can continue from: goals, decisions and their reasons, "
    "facts learned, files and identifiers mentioned, tool results that still matter, and "
    "open questions or next steps. Keep names, numbers and quotes exact; keep the "
    "language the conversation used. No preamble."
)
# Per-block cap when rendering the head for the summariser: a 50k-token tool dump
# says little more than its first few hundred tokens.
_BLOCK_TOKENS = 600
_HEAD_TOKENS = 120_000


def validate_messages(messages: Any) -> list[dict[str, Any]]:
    """An Anthropic messages list, or a UsageError naming the first bad entry."""
    if isinstance(messages, dict) and "messages" in messages:
        messages = messages["messages"]
    if not isinstance(messages, list):
        raise UsageError("expected a JSON list of messages (or an object with a 'messages' list)")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise UsageError(f"message {i}: needs a 'role' of user or assistant")
        content = message.get("content")
        if not isinstance(content, str | list):
            raise UsageError(f"message {i}: 'content' must be a string or a list of blocks")
        if isinstance(content, list) and not all(isinstance(b, dict) for b in content):
            raise UsageError(f"message {i}: every content block must be an object")
    return messages


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def has_tool_result(message: dict[str, Any]) -> bool:
    return any(b.get("type") == "tool_result" for b in _blocks(message))


def split_point(messages: list[dict[str, Any]], keep: int) -> int:
    """Index of the first kept message (0 = nothing to compact).

    At least `keep` messages are kept; the split moves earlier until the first kept
    message is a user turn without tool_result blocks, so no tool_use is separated from
    its tool_result and the compacted list still alternates user/assistant.
    """
    cut = max(0, len(messages) - keep)
    while cut > 0:
        first = messages[cut]
        if first.get("role") == "user" and not has_tool_result(first):
            return cut
        cut -= 1
    return 0


def messages_tokens(messages: list[dict[str, Any]]) -> int:
    return estimate_tokens(json.dumps(messages, ensure_ascii=False))


def render_transcript(messages: list[dict[str, Any]]) -> str:
    """The head as plain text for the summariser; each block capped."""
    out: list[str] = []
    for message in messages:
        role = message["role"].upper()
        content = message["content"]
        if isinstance(content, str):
            out.append(f"{role}: {truncate_to_tokens(content, _BLOCK_TOKENS)[0]}")
            continue
        for block in content:
            kind = block.get("type")
            if kind == "text":
                body = str(block.get("text", ""))
            elif kind == "tool_use":
                body = f"[tool call {block.get('name')}: {json.dumps(block.get('input'), ensure_ascii=False)}]"
            elif kind == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = " ".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
                body = f"[tool result{' (error)' if block.get('is_error') else ''}: {inner}]"
            else:
                body = f"[{kind} block]"
            out.append(f"{role}: {truncate_to_tokens(body, _BLOCK_TOKENS)[0]}")
    return "\n\n".join(out)


@dataclass
class Compaction:
    messages: list[dict[str, Any]]
    compacted: bool
    reason: str
    before_tokens: int
    after_tokens: int
    summarised_messages: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "compacted": self.compacted,
            "reason": self.reason,
            "before_tokens": self.before_tokens,
            "after_tokens": self.after_tokens,
            "summarised_messages": self.summarised_messages,
            "messages": self.messages,
        }


def _head_transcript(head: list[dict[str, Any]]) -> str:
    """The messages to summarise as one transcript, within what a cheap model reads."""
    transcript = render_transcript(head)
    if estimate_tokens(transcript) > _HEAD_TOKENS:
        # Past what a cheap model can read in one call: keep its start (goals, set-up)
        # and its end (the latest state); the middle is what compaction loses first.
        start, _ = truncate_to_tokens(transcript, _HEAD_TOKENS // 2)
        tail = transcript[-len(start) :]
        transcript = f"{start}\n\n[... middle of the conversation omitted ...]\n\n{tail}"
    return transcript


def compact_history(
    messages: list[dict[str, Any]],
    llm: LLM | None,
    settings: Settings,
    *,
    keep: int | None = None,
    soft_budget: int | None = None,
) -> Compaction:
    """Summarise the head of `messages` when they exceed the soft budget.

    Below the budget, or when nothing lies before the kept tail, the list is returned
    unchanged (and no model is called). A missing `llm` is an error only when there is
    something to summarise.
    """
    messages = validate_messages(messages)
    keep = settings.agent.history_keep_messages if keep is None else keep
    soft_budget = settings.agent.history_soft_budget_tokens if soft_budget is None else soft_budget
    before = messages_tokens(messages)
    if before <= soft_budget:
        return Compaction(
            messages,
            False,
            f"{before} tokens, within the soft budget of {soft_budget}",
            before,
            before,
            0,
        )
    cut = split_point(messages, keep)
    if cut == 0:
        return Compaction(
            messages,
            False,
            f"nothing before the last {keep} messages to compact",
            before,
            before,
            0,
        )
    if llm is None:
        from memctl.llm import no_llm_notice

        raise UsageError(f"compaction needs the LLM: {no_llm_notice(settings)}")
    summary = llm.complete_text(
        settings.llm.summary_model,
        SUMMARY_SYSTEM,
        "Summarise this conversation so far:\n\n" + _head_transcript(messages[:cut]),
        max_tokens=2048,
    )
    compacted = [
        {"role": "user", "content": SUMMARY_PREFIX + summary},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
        *messages[cut:],
    ]
    after = messages_tokens(compacted)
    return Compaction(compacted, True, f"summarised {cut} messages", before, after, cut)
