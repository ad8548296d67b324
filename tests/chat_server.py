"""A real HTTP server on 127.0.0.1 (random port, in a thread) that speaks the OpenAI
chat-completions protocol, for the `openai` LLM provider's tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Reply = dict[str, Any] | int | float  # a completion, an HTTP status, or seconds to hang


def completion(content: str, *, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1764316800,
        "model": "local-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    }


class ChatServer:
    """Answers each POST /v1/chat/completions with the next scripted reply (or the
    responder's), and records each request's body and headers."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.responder: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                if self.path != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "no such route"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                reply: Reply = (
                    server.replies.pop(0)
                    if server.replies
                    else server.responder(body)
                    if server.responder
                    else 500
                )
                if isinstance(reply, float):
                    time.sleep(reply)
                    reply = completion("late")
                if isinstance(reply, int):
                    self._send(reply, {"error": {"message": "boom", "type": "server_error"}})
                    return
                self._send(200, reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                # The SDK's real backoff path, made instant.
                self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(data)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()
