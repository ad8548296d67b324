"""A real `anthropic.Anthropic` client whose HTTP transport is scripted by the test.

anthropic 2.x is built on `httpx2` (it rejects plain `httpx` objects), so the mock
transport comes from there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anthropic
import httpx2 as httpx

from memctl.config import LLMSettings, Settings

Handler = Callable[[httpx.Request], httpx.Response]


def tool_message(payload: dict[str, Any], *, name: str = "answer") -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": payload}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def text_message(text: str, *, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class ScriptedAPI:
    """Answers each request with the next scripted reply and records what was sent."""

    def __init__(self, replies: list[dict[str, Any] | int | Exception] | None = None) -> None:
        self.replies = list(replies or [])
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        if self.responder is not None and not self.replies:
            return httpx.Response(200, json=self.responder(body))
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, int):
            # retry-after-ms keeps the SDK's real backoff path but makes it instant.
            return httpx.Response(
                reply,
                json={"type": "error", "error": {"type": "api_error", "message": "boom"}},
                headers={"retry-after-ms": "1"},
            )
        return httpx.Response(200, json=reply)

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(
            api_key="test", http_client=httpx.Client(transport=httpx.MockTransport(self))
        )


def fast_settings(settings: Settings | None = None, *, retries: int = 1) -> Settings:
    base = settings or Settings()
    return replace(base, llm=LLMSettings(timeout_seconds=2.0, max_retries=retries))
