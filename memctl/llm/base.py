"""What every LLM provider is: one JSON object checked against a schema, or text.

Every LLM answer memctl acts on is structured: `complete_json` asks for one answer that
must match a JSON schema, and anything else (prose, a missing field, a truncated answer)
raises `LLMError`. Callers treat `LLMError` as a rejection, so a bad answer can never
turn into a partial write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memctl.errors import MemctlError
from memctl.secrets import strip_private


class LLMError(MemctlError):
    """The model could not be reached, or its answer did not match what was asked for."""


@dataclass(frozen=True)
class LLMUsage:
    input_tokens: int = 0
    output_tokens: int = 0


class LLM:
    """What every provider answers: one JSON object checked against a schema, or text."""

    def __init__(self) -> None:
        self.calls = 0
        self.usage = LLMUsage()

    def _count(self, input_tokens: int | None, output_tokens: int | None) -> None:
        self.usage = LLMUsage(
            self.usage.input_tokens + (input_tokens or 0),
            self.usage.output_tokens + (output_tokens or 0),
        )

    def _answer_json(
        self, model: str, system: str, prompt: str, schema: dict[str, Any], max_tokens: int
    ) -> object:
        raise NotImplementedError

    def _answer_text(self, model: str, system: str, prompt: str, max_tokens: int) -> str:
        raise NotImplementedError

    def complete_json(
        self,
        model: str,
        system: str,
        prompt: str,
        schema: dict[str, Any],
        max_tokens: int = 1024,
    ) -> dict[str, Any]:
        """Ask for one structured answer matching `schema` (a JSON schema of an object).

        Raises `LLMError` unless the answer is one JSON object that validates against it.
        """
        import jsonschema

        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"invalid schema for complete_json: {exc.message}") from None
        self.calls += 1
        system, prompt = _without_private(system, prompt)
        answer = self._answer_json(model, system, prompt, schema, max_tokens)
        if not isinstance(answer, dict):
            raise LLMError("LLM answer malformed: not a JSON object")
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(answer), key=lambda e: list(e.path)
        )
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "answer"
            raise LLMError(f"LLM answer malformed: {where}: {errors[0].message}")
        return answer

    def complete_text(self, model: str, system: str, prompt: str, max_tokens: int = 1024) -> str:
        """Ask for free text (summaries). An empty answer is an error, not an empty summary."""
        self.calls += 1
        system, prompt = _without_private(system, prompt)
        text = self._answer_text(model, system, prompt, max_tokens).strip()
        if not text:
            raise LLMError("LLM answer malformed: no text")
        return text


def _without_private(system: str, prompt: str) -> tuple[str, str]:
    # The one door to every provider: a note's <private> span (review, summaries, capture)
    # never leaves the machine, whichever step built the prompt.
    return strip_private(system), strip_private(prompt)
