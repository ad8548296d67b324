"""Issue 15 item 14 over MCP: a request holding a lone surrogate ("\\ud800", valid JSON,
not encodable text) gets an answer, so the client never hangs; the server keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.agent.test_mcp import MEMCTL, _env

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


def _call(id_: int, name: str, arguments: str) -> str:
    # Written by hand: json.dumps would escape the surrogate the same way, but the point is
    # the raw "\ud800" escape a client may send.
    return (
        f'{{"jsonrpc": "2.0", "id": {id_}, "method": "tools/call", '
        f'"params": {{"name": "{name}", "arguments": {arguments}}}}}'
    )


def test_lone_surrogates_get_an_error_answer_and_the_server_keeps_serving(
    vault_dir: Path,
) -> None:
    lines = [
        json.dumps(INIT),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _call(2, "remember", '{"text": "note \\ud800 here"}'),
        _call(3, "search_memory", '{"query": "\\udc80x"}'),
        _call(4, "remember", '{"text": "ok", "kind": "decision", "title": "t\\ud800"}'),
        _call(5, "load_memory", '{"what": "today"}'),
    ]
    server = subprocess.Popen(
        [MEMCTL, "--vault", str(vault_dir), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **_env()},
    )
    watchdog = threading.Timer(60, server.kill)
    watchdog.start()
    by_id: dict[Any, Any] = {}
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        while not {2, 3, 4, 5} <= set(by_id):
            line = server.stdout.readline()
            assert line, f"server closed its output early; answered {sorted(by_id)}"
            reply = json.loads(line)
            by_id[reply.get("id")] = reply
        server.stdin.close()
        stderr = server.stderr.read() if server.stderr else ""
        server.wait(timeout=30)
    finally:
        watchdog.cancel()
        if server.poll() is None:
            server.kill()
    for id_ in (2, 3, 4):
        reply = by_id[id_]
        result = reply.get("result")
        assert "error" in reply or (result and result["isError"]), reply
        if result:
            payload = json.loads(result["content"][0]["text"])
            assert payload["error"]["type"] == "invalid_arguments"
            assert "not valid text" in payload["error"]["message"]
    assert by_id[5]["result"]["isError"] is False
    assert "Traceback" not in stderr
    # Nothing was written by the refused calls.
    assert not list((vault_dir / "memory/daily").glob("*.md"))
