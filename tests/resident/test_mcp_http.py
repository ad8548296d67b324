"""`memctl mcp --http`: the installed binary serving streamable HTTP, driven by the SDK's client."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from memctl.agent.tools import call_tool
from memctl.search import hybrid, warm
from memctl.vault import Vault
from tests.mcp_helpers import HttpServer, serving_mcp_http
from tests.processes import MEMCTL
from tests.resident.conftest import env_for, fresh_copy


@contextmanager
def mcp_http(root: Path, env: dict[str, str], *args: str) -> Iterator[HttpServer]:
    with serving_mcp_http(root, env, "mcp", "--http", "--port", "0", *args) as server:
        yield server


async def _calls(url: str, headers: dict[str, str] | None = None) -> list[dict[str, Any]]:
    out = []
    client = create_mcp_http_client(headers=headers)
    async with (
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} >= {"search_memory", "remember"}
        # Each query names something the fixture holds ("деплой" does not: the relevance
        # floor rightly answers it with no match).
        for query in ("sqlite", "утечка памяти", "קוברנטיס"):
            result = await session.call_tool("search_memory", {"query": query, "k": 3})
            out.append(json.loads(result.content[0].text))
        bad = await session.call_tool("search_memory", {"query": ""})
        assert bad.is_error
    return out


PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_search_memory_over_http(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    with mcp_http(root, env_for()) as server:
        assert server.url.startswith("http://127.0.0.1:")
        results = anyio.run(_calls, server.url, server.headers)
    assert all(r["ok"] and r["results"] for r in results)
    assert results[0]["results"][0]["path"] == "memory/decisions.md"


def test_a_token_is_required_when_set(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    with mcp_http(root, env_for(MEMCTL_MCP_TOKEN="s3cret-token")) as server:
        refused = httpx2.post(server.url, json=PING)
        assert refused.status_code == 401
        results = anyio.run(_calls, server.url, {"Authorization": "Bearer s3cret-token"})
    assert results[0]["ok"]
    assert "s3cret-token" not in server.log and "MEMCTL_MCP_TOKEN" in server.log
    assert not (root / ".memctl" / "http.token").exists()


def test_loopback_requires_a_token_made_once(tmp_path: Path, indexed_fixture: Vault) -> None:
    """Issue 32 item 3: loopback is open to every local user, so a server without a
    token given makes one, keeps it owner-only and prints it the first time only."""
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    token_file = root / ".memctl" / "http.token"
    with mcp_http(root, env_for()) as server:
        assert token_file.stat().st_mode & 0o777 == 0o600
        token = token_file.read_text().strip()
        assert server.token == token and f"Authorization: Bearer {token}" in server.log
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token}):
            assert httpx2.post(server.url, json=PING, headers=headers).status_code == 401
        results = anyio.run(_calls, server.url, server.headers)
    assert results[0]["ok"]
    with mcp_http(root, env_for()) as again:  # the same token; not printed again
        assert token not in again.log and ".memctl/http.token" in again.log
        assert httpx2.post(again.url, json=PING).status_code == 401
        assert anyio.run(_calls, again.url, {"Authorization": f"Bearer {token}"})[0]["ok"]


def test_beyond_loopback_the_same_token(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    with mcp_http(root, env_for(), "--host", "0.0.0.0") as server:
        token_file = root / ".memctl" / "http.token"
        assert token_file.stat().st_mode & 0o077 == 0
        token = token_file.read_text().strip()
        local = server.url.replace("0.0.0.0", "127.0.0.1")
        assert httpx2.post(local, json={}).status_code == 401
        results = anyio.run(_calls, local, {"Authorization": f"Bearer {token}"})
    assert results[0]["ok"]


def test_one_warm_searcher_serves_every_call(
    fixture_copy: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    searcher = hybrid.Searcher(fixture_copy)
    warm.register(warm.WarmSearcher(searcher))
    opened: list[object] = []
    real_init = hybrid.Searcher.__init__

    def counting(self: hybrid.Searcher, *args: Any, **kwargs: Any) -> None:
        opened.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(hybrid.Searcher, "__init__", counting)
    try:
        first = call_tool(Vault(fixture_copy.root), "search_memory", {"query": "sqlite"})
        store = searcher._store
        second = call_tool(Vault(fixture_copy.root), "search_memory", {"query": "dns"})
    finally:
        warm.unregister(fixture_copy)
        searcher.close()
    assert first["ok"] and second["ok"]
    assert opened == [] and store is not None
    assert searcher._query_vectors.model_loaded  # the model was loaded once, by the warm one


def test_the_resident_process_serves_mcp_too(tmp_path: Path, indexed_fixture: Vault) -> None:
    """`memctl serve --mcp-port 0`: one process, one warm state, both doors."""
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for()
    with serving_mcp_http(root, env, "serve", "--mcp-port", "0") as server:
        assert httpx2.post(server.url, json=PING).status_code == 401
        results = anyio.run(_calls, server.url, server.headers)
        served = subprocess.run(
            [MEMCTL, "--vault", str(root), "search", "sqlite", "--no-log"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    assert results[0]["ok"] and results[0]["results"][0]["path"] == "memory/decisions.md"
    assert "decisions.md" in served.stdout
    assert server.proc.returncode == 0
    assert "stopped" in server.log and "Traceback" not in server.log
