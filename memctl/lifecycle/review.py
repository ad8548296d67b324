"""LLM review of what may enter core.md (promotion candidates and agent-proposed additions).

The reviewer must reject transient state, stale dates, shell commands, score metadata
and anything that belongs in WARM. Its answer is a forced tool call validated against
a schema; any failure (malformed answer, timeout, 5xx after retries) is a rejection
with the error as its reason, never a write.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from memctl.config import Settings
from memctl.llm import LLM, LLMError, no_llm_notice

REVIEW_SYSTEM = """\
You guard the HOT memory (core.md) of an AI agent: at most 100 lines, loaded into every \
call, so each line must stay true and useful for months.
Approve only durable facts that fit one of the sections: {sections}.
Reject, with a short reason:
- transient state (what is happening today, work in progress, "currently", moods);
- stale or specific dates and deadlines that will soon be past;
- shell commands, code snippets, file paths of temporary work;
- score metadata (search scores, ranks, counts, token numbers);
- anything that belongs in WARM instead (daily notes, dated decisions, logs, history).
When you approve, rewrite the item as ONE short line (no leading dash, no date) for the \
section you choose, in the item's own language (English, Hebrew or Russian).
Answer by calling the `answer` tool."""


# unreviewed: no LLM to ask (propose only).
ReviewStatus = Literal["approved", "rejected", "unreviewed"]


@dataclass(frozen=True)
class Review:
    status: ReviewStatus
    reason: str
    section: str | None = None
    line: str | None = None
    model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def review_schema(sections: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "approve": {"type": "boolean"},
            "reason": {"type": "string", "minLength": 1, "maxLength": 500},
            "section": {"type": "string", "enum": list(sections)},
            "line": {"type": "string", "maxLength": 300, "pattern": "^[^\\n]*$"},
        },
        "required": ["approve", "reason", "section", "line"],
        "additionalProperties": False,
    }


def _ask(llm: LLM, settings: Settings, prompt: str) -> Review:
    model = settings.llm.review_model
    sections = settings.hot.sections
    try:
        answer = llm.complete_json(
            model,
            REVIEW_SYSTEM.format(sections=", ".join(sections)),
            prompt,
            review_schema(sections),
            max_tokens=400,
        )
    except LLMError as exc:
        return Review("rejected", f"review failed, treated as a rejection: {exc}", model=model)
    line = answer["line"].strip().lstrip("-* ").strip()
    if answer["approve"] and not line:
        return Review("rejected", "reviewer approved but gave no line to write", model=model)
    status: ReviewStatus = "approved" if answer["approve"] else "rejected"
    return Review(status, answer["reason"].strip(), answer["section"], line or None, model)


def review_candidate(
    llm: LLM,
    settings: Settings,
    *,
    text: str,
    path: str,
    references: int,
    window_days: int,
    section_hint: str,
) -> Review:
    """Ask whether a frequently referenced WARM chunk belongs in core.md."""
    prompt = (
        f"Candidate for core.md, from {path}, referenced {references} times in the last "
        f"{window_days} days. Suggested section: {section_hint}.\n\n"
        f"<candidate>\n{text}\n</candidate>"
    )
    return _ask(llm, settings, prompt)


def review_core_addition(
    settings: Settings,
    section: str,
    text: str,
    *,
    llm: LLM | None,
    core_text: str = "",
) -> Review:
    """Review an addition an agent proposes for `section` of core.md.

    With an LLM: "approved" (with the line to write and its section) or "rejected" (with the
    reason; also on any LLM failure). Without one: "unreviewed" and the no_llm_notice as
    the reason, i.e. propose only; a person decides.
    """
    if llm is None:
        return Review("unreviewed", no_llm_notice(settings), section, text.strip())
    prompt = (
        f"An agent proposes adding this to the '{section}' section of core.md.\n\n"
        f"<current_core>\n{core_text}\n</current_core>\n\n<proposed>\n{text}\n</proposed>\n\n"
        "Also reject it if core.md already says the same thing."
    )
    return _ask(llm, settings, prompt)
