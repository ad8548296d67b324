"""The installed `memctl` serving MCP, for tests: over stdio with raw JSON-RPC lines, or
over streamable HTTP (`memctl mcp --http`, `memctl serve --mcp-port`), and a tool
result's JSON payload."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.processes import MEMCTL, stop, until

NOW = "2026-11-22T09:30:00"

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
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def mcp_env() -> dict[str, str]:
    """What a stdio server runs with on top of this environment: the clock pinned, offline."""
    return {"MEMCTL_NOW": NOW, "HF_HUB_OFFLINE": "1"}


def payload(result: Any) -> dict[str, Any]:
    """A tool call's JSON result; its `ok` and the MCP error flag must agree."""
    data = json.loads(result.content[0].text)
    assert result.is_error is (not data["ok"])
    return data


@dataclass
class Exchange:
    replies: dict[Any, Any]  # by JSON-RPC id
    stderr: str


def stdio_exchange(vault_dir: Path, lines: Iterable[str], ids: set[int]) -> Exchange:
    """Write `lines` to `memctl mcp` on stdin and read replies until every id in `ids`
    has one; stdin stays open until then (closing it first would end the session)."""
    server = subprocess.Popen(
        [MEMCTL, "--vault", str(vault_dir), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **mcp_env()},
    )
    watchdog = threading.Timer(60, server.kill)
    watchdog.start()
    by_id: dict[Any, Any] = {}
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        while not ids <= set(by_id):
            line = server.stdout.readline()
            assert line, f"server closed its output early; answered {sorted(map(str, by_id))}"
            reply = json.loads(line)
            by_id[reply.get("id")] = reply
        server.stdin.close()
        stderr = server.stderr.read() if server.stderr else ""
        server.wait(timeout=30)
    finally:
        watchdog.cancel()
        if server.poll() is None:
            server.kill()
    return Exchange(by_id, stderr)


@dataclass
class HttpServer:
    proc: subprocess.Popen[str]
    url: str = ""
    lines: list[str] = field(default_factory=list)  # stderr, complete once the block ends

    token: str = ""  # the bearer token it requires

    @property
    def log(self) -> str:
        return "".join(self.lines)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@contextmanager
def serving_mcp_http(root: Path, env: dict[str, str], *args: str) -> Iterator[HttpServer]:
    """`memctl --vault ROOT ARGS...` (a command that serves MCP over HTTP and says so on
    stderr); yields once it serves, with its URL; stopped with SIGTERM on exit."""
    proc = subprocess.Popen(
        [MEMCTL, "--vault", str(root), *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    server = HttpServer(proc)
    reader = threading.Thread(target=lambda: server.lines.extend(proc.stderr or []), daemon=True)
    reader.start()
    try:
        assert until(
            lambda: any("serving MCP" in line for line in server.lines) or proc.poll() is not None,
            90,
        )
        found = re.search(r"(http://\S+/mcp)", server.log)
        assert found and proc.poll() is None, server.log
        server.url = found.group(1)
        shown = re.search(r"Authorization: Bearer (\S+)", server.log)
        kept = root / ".memctl" / "http.token"
        server.token = (
            shown.group(1)
            if shown
            else env.get("MEMCTL_MCP_TOKEN") or kept.read_text(encoding="utf-8").strip()
        )
        yield server
    finally:
        stop(proc)
        reader.join(5)
