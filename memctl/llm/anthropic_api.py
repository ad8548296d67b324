"""Anthropic's Messages API as an LLM: JSON by a forced tool call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memctl.llm.base import LLM, LLMError

if TYPE_CHECKING:
    import anthropic

_TOOL_NAME = "answer"


class AnthropicLLM(LLM):
    """A thin, strict wrapper around `anthropic.Anthropic`: JSON by a forced tool call."""

    def __init__(self, client: anthropic.Anthropic) -> None:
        super().__init__()
        self.client = client

    def _create(self, **kwargs: Any) -> Any:
        import anthropic

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
            self._count(usage.input_tokens, usage.output_tokens)
        if message.stop_reason == "max_tokens":
            raise LLMError("LLM answer was cut off (max_tokens reached)")
        return message

    def _answer_json(
        self, model: str, system: str, prompt: str, schema: dict[str, Any], max_tokens: int
    ) -> object:
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
        answer: object = calls[0].input
        return answer

    def _answer_text(self, model: str, system: str, prompt: str, max_tokens: int) -> str:
        message = self._create(
            model=model,
            system=system,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": prompt}],
        )
        return "".join(
            block.text for block in message.content if getattr(block, "type", None) == "text"
        )
