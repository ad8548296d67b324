"""Issue 32 item 3, as reported: another local user against a loopback MCP server.

`memctl mcp --http` and `serve --mcp-port` run by one user: another user read the vault
with load_memory/search_memory and wrote today's note with remember. The unix socket
refuses other uids; HTTP on loopback now asks for the vault's token, which only the
owner can read. Skipped where no second user can be made (not root, no useradd).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.vault import Vault
from tests.mcp_helpers import serving_mcp_http
from tests.resident.conftest import env_for, fresh_copy
from tests.security.second_user import as_peer, need_peer

# What the peer runs: an MCP initialize, then a remember, each answered by its status.
PEER_SCRIPT = r"""
import json, sys, urllib.request, urllib.error
url, token_file = sys.argv[1], sys.argv[2]
out = {}
try:
    open(token_file).read()
    out["token_read"] = True
except OSError:
    out["token_read"] = False
def post(body, headers):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "peer", "version": "1"}}}
call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    "name": "remember", "arguments": {"text": "PEER-WAS-HERE"}}}
out["initialize"] = post(init, {})
out["guessed"] = post(init, {"Authorization": "Bearer " + "A" * 43})
out["remember"] = post(call, {})
print(json.dumps(out))
"""


@pytest.mark.parametrize(
    "command", [("mcp", "--http", "--port", "0"), ("serve", "--mcp-port", "0")]
)
def test_another_local_user_is_refused(
    tmp_path: Path, indexed_fixture: Vault, command: tuple[str, ...]
) -> None:
    need_peer()
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    with serving_mcp_http(root, env_for(), *command) as server:
        peer = as_peer(
            [
                "/usr/bin/python3",
                "-I",
                "-c",
                PEER_SCRIPT,
                server.url,
                str(root / ".memctl" / "http.token"),
            ]
        )
        assert peer.returncode == 0, peer.stderr
        seen = json.loads(peer.stdout)
        import httpx2

        mine = httpx2.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={**server.headers, "Accept": "application/json, text/event-stream"},
        )
    assert seen == {"token_read": False, "initialize": 401, "guessed": 401, "remember": 401}
    assert mine.status_code != 401
    written = "".join(p.read_text() for p in (root / "memory").rglob("*.md"))
    assert "PEER-WAS-HERE" not in written
