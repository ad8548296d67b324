"""The Anthropic client memctl uses for review, judging and summaries.

Every LLM answer memctl acts on is structured: `complete_json` forces a single tool
call whose input must match a JSON schema, and anything else (prose, a missing field,
a truncated answer) raises `LLMError`. Callers treat `LLMError` as a rejection, so a
bad answer can never turn into a partial write.

Retries with backoff on 429/5xx/timeouts are the SDK's job; we only configure them
(`Settings.llm.max_retries`, `timeout_seconds`) instead of re-implementing them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memctl.config import Settings
from memctl.errors import MemctlError

if TYPE_CHECKING:
    import anthropic

# `anthropic` and `jsonschema` are imported where used: importing the SDK takes ~3 s,
# and every CLI command imports this module.

NO_KEY_NOTICE = (
    "ANTHROPIC_API_KEY is not set: LLM steps skipped (proposals are listed, not reviewed)."
)

_TOOL_NAME = "answer"


class LLMError(MemctlError):
    """The model could not be reached, or its answer did not match what was asked for."""


@dataclass(frozen=True)
class LLMUsage:
    input_tokens: int = 0
    output_tokens: int = 0


class LLM:
    """A thin, strict wrapper around `anthropic.Anthropic`."""

    def __init__(self, client: anthropic.Anthropic) -> None:
        self.client = client
        self.calls = 0
        self.usage = LLMUsage()

    def _create(self, **kwargs: Any) -> Any:
        import anthropic

        self.calls += 1
        try:
            message = self.client.messages.create(**kwargs)
        except anthropic.APITimeoutError:
            raise LLMError("LLM request timed out (after retries)") from None
        except anthropic.APIConnectionError as exc:
            raise LLMError(f"LLM unreachable: {exc}") from None
        except anthropic.APIStatusError as exc:
            raise LLMError(f"LLM request failed: HTTP {exc.status_code}") from None
        except anthropic.AnthropicError as exc:
            raise LLMError(f"LLM request failed: {exc}") from None
        usage = getattr(message, "usage", None)
        if usage is not None:
            self.usage = LLMUsage(
                self.usage.input_tokens + (usage.input_tokens or 0),
                self.usage.output_tokens + (usage.output_tokens or 0),
            )
        if message.stop_reason == "max_tokens":
            raise LLMError("LLM answer was cut off (max_tokens reached)")
        return message

    def complete_json(
        self,
        model: str,
        system: str,
        prompt: str,
        schema: dict[str, Any],
        max_tokens: int = 1024,
    ) -> dict[str, Any]:
        """Ask for one structured answer matching `schema` (a JSON schema of an object).

        Raises `LLMError` unless the answer is exactly one call of the forced tool whose
        input validates against `schema`.
        """
        import jsonschema

        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"invalid schema for complete_json: {exc.message}") from None
        message = self._create(
            model=model,
            system=system,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": prompt}],
            tools=[
                {
                    "name": _TOOL_NAME,
                    "description": "Give your answer by calling this tool exactly once.",
                    "input_schema": schema,
                }
            ],
            tool_choice={"type": "tool", "name": _TOOL_NAME},
        )
        calls = [
            block
            for block in message.content
            if getattr(block, "type", None) == "tool_use" and block.name == _TOOL_NAME
        ]
        if len(calls) != 1:
            raise LLMError(
                f"LLM answer malformed: expected one '{_TOOL_NAME}' call, got {len(calls)}"
            )
        answer = calls[0].input
        if not isinstance(answer, dict):
            raise LLMError("LLM answer malformed: tool input is not an object")
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(answer), key=lambda e: list(e.path)
        )
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "answer"
            raise LLMError(f"LLM answer malformed: {where}: {errors[0].message}")
        return answer

    def complete_text(self, model: str, system: str, prompt: str, max_tokens: int = 1024) -> str:
        """Ask for free text (summaries). An empty answer is an error, not an empty summary."""
        message = self._create(
            model=model,
            system=system,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": prompt}],
        )
        text = "".join(
            block.text for block in message.content if getattr(block, "type", None) == "text"
        ).strip()
        if not text:
            raise LLMError("LLM answer malformed: no text")
        return text


def get_llm(settings: Settings, client: anthropic.Anthropic | None = None) -> LLM | None:
    """The configured client, or None when there is no API key and no injected client.

    An injected client (tests, embedding apps) still gets memctl's timeout and retry
    settings, so `.memctl.toml` is the one place they are tuned.
    """
    if client is None:
        if not os.environ.get("ANTHROPIC_API_KEY"):
            return None
        import anthropic

        client = anthropic.Anthropic()
    configured = client.with_options(
        timeout=settings.llm.timeout_seconds, max_retries=settings.llm.max_retries
    )
    return LLM(configured)
