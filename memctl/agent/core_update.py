"""`update_core_memory`: the same review and cap as promotion, for an agent's proposal.

Order matters for cost and safety: a cheap cap pre-check first (a full core.md is
refused before any LLM call), then the LLM review (`memctl.lifecycle.review`), then the
one writer (`memctl.lifecycle.hot.apply_core_addition`), which re-checks the cap under
the vault lock. Without an API key nothing is written: the agent is told to use
`remember` instead, because core.md only changes after review.
"""

from __future__ import annotations

from typing import Any

from memctl.agent.errors import ToolFailure
from memctl.lifecycle.hot import HotCapExceeded, apply_core_addition, line_count
from memctl.lifecycle.review import review_core_addition
from memctl.llm import LLM
from memctl.vault import Vault

_ARCHIVE_HINT = (
    "archive stale core lines first (`memctl demote`), or save this with remember instead"
)


def add_to_core(vault: Vault, section: str, text: str, *, llm: LLM | None) -> dict[str, Any]:
    settings = vault.settings
    known = {s.casefold(): s for s in settings.hot.sections}
    if section.strip().casefold() not in known:
        raise ToolFailure(
            "invalid_arguments",
            f"section: {section!r} is not a core memory section; choose one of "
            f"{', '.join(settings.hot.sections)}",
        )
    from memctl.memory import screen_secrets

    screen_secrets(vault, text)  # before the LLM review: a refused secret goes nowhere
    vault.check_writable(vault.core_path)
    core_text = vault.read_memory(vault.core_path)
    if core_text is None:
        raise ToolFailure("refused", f"core.md cannot be read: {'; '.join(vault.take_notices())}")
    if line_count(core_text) >= settings.hot.cap_lines:
        raise ToolFailure(
            "refused",
            f"core.md is full ({line_count(core_text)} lines, cap {settings.hot.cap_lines}): "
            + _ARCHIVE_HINT,
        )
    review = review_core_addition(
        settings, known[section.strip().casefold()], text, llm=llm, core_text=core_text
    )
    if review.status == "unreviewed":
        raise ToolFailure(
            "unreviewed",
            f"not written: core memory changes need an LLM review ({review.reason}); "
            "save it with remember instead",
        )
    if review.status != "approved" or not review.section or not review.line:
        raise ToolFailure("rejected", f"core memory review rejected it: {review.reason}")
    try:
        edit = apply_core_addition(vault, review.section, review.line)
    except HotCapExceeded as exc:
        raise cap_refusal(exc) from None
    return {
        "path": vault.rel(vault.core_path),
        "section": edit.section,
        "added": edit.added,
        "changed": bool(edit.added),
        "lines": edit.line_count,
        "cap": edit.cap,
        "review": review.reason,
    }


def cap_refusal(exc: HotCapExceeded) -> ToolFailure:
    """What an agent is told when its write would pass core.md's cap (every core writer)."""
    return ToolFailure("refused", f"refused: {exc}; {_ARCHIVE_HINT}")
