"""The LLM providers that answer in text: an OpenAI-compatible chat endpoint and a command.

Neither can force a tool call as the Anthropic path does, so a JSON answer is asked for
twice over (the schema in the instructions, and `response_format` where the endpoint
takes one) and parsed out of the text; memctl.llm validates it against the schema either
way. A local model that wraps its JSON in a code fence or a sentence is still read.
"""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING, Any

from memctl.config import Settings
from memctl.llm.base import LLM, LLMError

if TYPE_CHECKING:
    import openai

# `openai` is imported where used (its import takes ~1.3 s).

_MAX_ERROR_CHARS = 300


def json_instructions(system: str, schema: dict[str, Any]) -> str:
    """`system` and how to answer: one JSON object matching `schema`, nothing else."""
    return (
        f"{system}\n\nAnswer with one JSON object and nothing else (no prose, no code "
        f"fence). It must match this JSON schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )


def json_from_text(text: str) -> object:
    """The JSON object a model wrote, allowing a code fence or words around it."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[-1].rsplit("```", 1)[0].strip()
    try:
        answer: object = json.loads(stripped)
        return answer
    except json.JSONDecodeError:
        pass
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        try:
            answer = json.loads(stripped[start : end + 1])
            return answer
        except json.JSONDecodeError:
            pass
    raise LLMError("LLM answer malformed: not a JSON object")


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[-1] if lines else "no message"
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 1] + "…"


class OpenAILLM(LLM):
    """Any OpenAI-compatible `/chat/completions` endpoint, through the `openai` SDK."""

    def __init__(self, client: openai.OpenAI) -> None:
        super().__init__()
        self.client = client

    def _create(self, **kwargs: Any) -> str:
        import openai

        try:
            completion = self.client.chat.completions.create(**kwargs)
        except openai.APITimeoutError:
            raise LLMError("LLM request timed out (after retries)") from None
        except openai.APIConnectionError as exc:
            raise LLMError(f"LLM unreachable: {exc}") from None
        except openai.APIStatusError as exc:
            raise LLMError(f"LLM request failed: HTTP {exc.status_code}") from None
        except openai.OpenAIError as exc:
            raise LLMError(f"LLM request failed: {_one_line(str(exc))}") from None
        usage = completion.usage
        if usage is not None:
            self._count(usage.prompt_tokens, usage.completion_tokens)
        if not completion.choices:
            raise LLMError("LLM answer malformed: no choices")
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            raise LLMError("LLM answer was cut off (max_tokens reached)")
        return choice.message.content or ""

    def _answer_json(
        self, model: str, system: str, prompt: str, schema: dict[str, Any], max_tokens: int
    ) -> object:
        content = self._create(
            model=model,
            max_tokens=max_tokens,
            messages=[
                {"role": "system", "content": json_instructions(system, schema)},
                {"role": "user", "content": prompt},
            ],
            # Ollama, llama.cpp, vLLM and LM Studio constrain decoding to the schema.
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema},
            },
        )
        return json_from_text(content)

    def _answer_text(self, model: str, system: str, prompt: str, max_tokens: int) -> str:
        return self._create(
            model=model,
            max_tokens=max_tokens,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
        )


class CommandLLM(LLM):
    """A program that reads the prompt on stdin and answers on stdout (`claude -p`, a
    local model's CLI). Its argv comes from `[llm] command` (no shell); `{model}` in an
    argument is replaced by the model asked for."""

    def __init__(self, argv: tuple[str, ...], timeout: float) -> None:
        super().__init__()
        self.argv = argv
        self.timeout = timeout

    def _run(self, model: str, stdin_text: str) -> str:
        argv = [part.replace("{model}", model) for part in self.argv]
        try:
            done = subprocess.run(
                argv,
                input=stdin_text.encode("utf-8"),
                capture_output=True,
                timeout=self.timeout,
                check=False,
            )
        except FileNotFoundError:
            raise LLMError(f"LLM command not found: {argv[0]}") from None
        except subprocess.TimeoutExpired:
            raise LLMError(f"LLM command timed out after {self.timeout:g} s: {argv[0]}") from None
        except OSError as exc:
            raise LLMError(f"LLM command could not run: {argv[0]}: {exc.strerror}") from None
        if done.returncode != 0:
            why = _one_line(done.stderr.decode("utf-8", errors="replace"))
            raise LLMError(f"LLM command failed (exit {done.returncode}): {why}")
        return done.stdout.decode("utf-8", errors="replace")

    def _answer_json(
        self, model: str, system: str, prompt: str, schema: dict[str, Any], max_tokens: int
    ) -> object:
        return json_from_text(self._run(model, f"{json_instructions(system, schema)}\n\n{prompt}"))

    def _answer_text(self, model: str, system: str, prompt: str, max_tokens: int) -> str:
        return self._run(model, f"{system}\n\n{prompt}")


def openai_llm(settings: Settings, api_key: str | None) -> OpenAILLM:
    """The OpenAI-compatible client `[llm]` describes; a local server may need no key."""
    import openai

    llm = settings.llm
    client = openai.OpenAI(
        api_key=api_key or "no-key",
        base_url=llm.base_url or None,
        timeout=llm.timeout_seconds,
        max_retries=llm.max_retries,
    )
    return OpenAILLM(client)


def command_llm(settings: Settings) -> CommandLLM:
    return CommandLLM(settings.llm.command, settings.llm.timeout_seconds)
