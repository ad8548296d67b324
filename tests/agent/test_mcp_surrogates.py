"""Issue 15 item 14 over MCP: a request holding a lone surrogate ("\\ud800", valid JSON,
not encodable text) gets an answer, so the client never hangs; the server keeps serving."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mcp_helpers import INIT, INITIALIZED, stdio_exchange


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
        json.dumps(INITIALIZED),
        _call(2, "remember", '{"text": "note \\ud800 here"}'),
        _call(3, "search_memory", '{"query": "\\udc80x"}'),
        _call(4, "remember", '{"text": "ok", "kind": "decision", "title": "t\\ud800"}'),
        _call(5, "load_memory", '{"what": "today"}'),
    ]
    answered = stdio_exchange(vault_dir, lines, {2, 3, 4, 5})
    by_id, stderr = answered.replies, answered.stderr
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
