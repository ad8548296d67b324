"""The LLM memctl uses for review, judging and summaries, whichever provider runs it.

Every LLM answer memctl acts on is structured: `complete_json` asks for one answer that
must match a JSON schema, and anything else (prose, a missing field, a truncated answer)
raises `LLMError`. Callers treat `LLMError` as a rejection, so a bad answer can never
turn into a partial write.

`[llm] provider` picks who answers: "anthropic" (the Messages API, a forced tool call),
"openai" (any OpenAI-compatible chat endpoint by `base_url`: Ollama, llama.cpp, vLLM,
LM Studio) or "command" (a program reading the prompt on stdin); the last two live in
memctl.llm_providers. Retries with backoff on 429/5xx/timeouts are the SDKs' job; we
only configure them (`Settings.llm.max_retries`, `timeout_seconds`).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memctl.config import Settings
from memctl.errors import MemctlError

if TYPE_CHECKING:
    import anthropic

# The SDKs and `jsonschema` are imported where used: importing an SDK takes ~1-3 s, and
# every CLI command imports this module.

_SKIPPED = "LLM steps skipped (proposals are listed, not reviewed)."
NO_KEY_NOTICE = f"ANTHROPIC_API_KEY is not set: {_SKIPPED}"
DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

_TOOL_NAME = "answer"


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
        text = self._answer_text(model, system, prompt, max_tokens).strip()
        if not text:
            raise LLMError("LLM answer malformed: no text")
        return text


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


def _key_env(settings: Settings) -> str:
    llm = settings.llm
    return llm.api_key_env or DEFAULT_KEY_ENV.get(llm.provider, "")


def llm_unavailable(settings: Settings) -> str | None:
    """Why the configured provider cannot run here (the one notice), or None if it can."""
    llm = settings.llm
    if llm.provider == "command":
        if shutil.which(llm.command[0]) is None:
            return f"[llm] command {llm.command[0]!r} is not found: {_SKIPPED}"
        return None
    if llm.provider == "openai" and llm.base_url:
        return None  # a local server may need no key
    key_env = _key_env(settings)
    if not os.environ.get(key_env):
        return (
            NO_KEY_NOTICE if key_env == "ANTHROPIC_API_KEY" else f"{key_env} is not set: {_SKIPPED}"
        )
    return None


def no_llm_notice(settings: Settings) -> str:
    """The notice printed once when LLM steps are skipped (`get_llm` gave None)."""
    return llm_unavailable(settings) or NO_KEY_NOTICE


def no_llm_reason(settings: Settings) -> str:
    """Why there is no LLM, without the "steps skipped" tail: for a command that needs one."""
    notice = no_llm_notice(settings)
    return notice.removesuffix(_SKIPPED).rstrip(": ")


def get_llm(settings: Settings, client: anthropic.Anthropic | None = None) -> LLM | None:
    """The configured LLM, or None when its provider cannot run here (no key, no endpoint,
    no command) and no client is injected: then every LLM step is skipped with one notice.

    An injected Anthropic client (tests, embedding apps) is used whatever the provider, and
    still gets memctl's timeout and retry settings, so `.memctl.toml` is the one place they
    are tuned.
    """
    llm = settings.llm
    if client is None:
        if llm_unavailable(settings) is not None:
            return None
        if llm.provider != "anthropic":
            from memctl.llm_providers import command_llm, openai_llm

            if llm.provider == "command":
                return command_llm(settings)
            return openai_llm(settings, os.environ.get(_key_env(settings)))
        import anthropic

        client = anthropic.Anthropic(
            api_key=os.environ[_key_env(settings)], base_url=llm.base_url or None
        )
    configured = client.with_options(timeout=llm.timeout_seconds, max_retries=llm.max_retries)
    return AnthropicLLM(configured)
