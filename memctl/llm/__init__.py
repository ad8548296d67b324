"""The LLM memctl uses for review, judging and summaries, whichever provider runs it.

Every answer memctl acts on is structured and checked (memctl.llm.base); a bad answer is
an `LLMError`, which callers treat as a rejection, never a partial write.

`[llm] provider` picks who answers: "anthropic" (the Messages API, a forced tool call),
"openai" (any OpenAI-compatible chat endpoint by `base_url`: Ollama, llama.cpp, vLLM,
LM Studio) or "command" (a program reading the prompt on stdin); the last two live in
memctl.llm.providers. Retries with backoff on 429/5xx/timeouts are the SDKs' job; we
only configure them (`Settings.llm.max_retries`, `timeout_seconds`).
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from memctl.config import Settings
from memctl.llm.anthropic_api import AnthropicLLM as AnthropicLLM
from memctl.llm.base import LLM as LLM
from memctl.llm.base import LLMError as LLMError
from memctl.llm.base import LLMUsage as LLMUsage

if TYPE_CHECKING:
    import anthropic

# The SDKs and `jsonschema` are imported where used: importing an SDK takes ~1-3 s, and
# every CLI command imports this module.

_SKIPPED = "LLM steps skipped (proposals are listed, not reviewed)."
NO_KEY_NOTICE = f"ANTHROPIC_API_KEY is not set: {_SKIPPED}"
DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


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
            from memctl.llm.providers import command_llm, openai_llm

            if llm.provider == "command":
                return command_llm(settings)
            return openai_llm(settings, os.environ.get(_key_env(settings)))
        import anthropic

        client = anthropic.Anthropic(
            api_key=os.environ[_key_env(settings)], base_url=llm.base_url or None
        )
    configured = client.with_options(timeout=llm.timeout_seconds, max_retries=llm.max_retries)
    return AnthropicLLM(configured)
