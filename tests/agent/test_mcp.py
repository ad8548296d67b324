"""`memctl mcp` end to end: the installed binary in a subprocess, driven by the SDK's client."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from memctl.vault import Vault
from tests.mcp_helpers import INIT, INITIALIZED, mcp_env, stdio_exchange
from tests.mcp_helpers import payload as _payload
from tests.processes import MEMCTL


async def _session_calls(vault_dir: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=MEMCTL, args=["--vault", str(vault_dir), "mcp"], env=mcp_env()
    )
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        out["tools"] = {t.name: t.input_schema for t in listed.tools}
        out["read_only"] = {t.name for t in listed.tools if t.annotations.read_only_hint}
        out["remember"] = _payload(
            await session.call_tool("remember", {"text": "הפריסה דורשת DNS — деплой ждёт"})
        )
        out["decision"] = _payload(
            await session.call_tool(
                "remember", {"text": "Use SQLite: one file", "kind": "decision", "title": "SQLite"}
            )
        )
        out["today"] = _payload(await session.call_tool("load_memory", {"what": "today"}))
        out["missing"] = _payload(await session.call_tool("remember", {}))
        out["no_args"] = _payload(await session.call_tool("load_memory", None))
        out["escape"] = _payload(
            await session.call_tool("load_memory", {"what": "date", "date": "../../../etc/passwd"})
        )
        out["extra"] = _payload(
            await session.call_tool("remember", {"text": "x", "path": "../../outside.md"})
        )
        out["unknown"] = _payload(await session.call_tool("rm_rf", {"x": 1}))
        out["huge"] = _payload(await session.call_tool("remember", {"text": "слово " * 50_000}))
        out["core"] = _payload(
            await session.call_tool("update_core_memory", {"section": "Identity", "text": "x"})
        )
        out["section"] = _payload(
            await session.call_tool(
                "load_memory", {"what": "file", "path": "memory/core.md", "heading": "Iron rules"}
            )
        )
        out["lines"] = _payload(
            await session.call_tool(
                "load_memory",
                {
                    "what": "file",
                    "path": "memory/daily/2026-11-22.md",
                    "line_start": 3,
                    "line_end": 3,
                },
            )
        )
        out["file_escape"] = _payload(
            await session.call_tool("load_memory", {"what": "file", "path": "../../etc/passwd"})
        )
        out["no_match"] = _payload(
            await session.call_tool("search_memory", {"query": "root:x:0 kubernetes autoscaler"})
        )
        # Still alive and answering after every bad call above.
        out["after"] = _payload(await session.call_tool("load_memory", {"what": "decisions"}))
    return out


def test_mcp_server_with_sdk_client(vault_dir: Path, tmp_path: Path) -> None:
    before_core = (vault_dir / "memory" / "core.md").read_bytes()
    # MiniLM: the model the relevance floor is calibrated for (see no_match below).
    (vault_dir / ".memctl.toml").write_text(
        '[embed]\nmodel = "sentence-transformers/all-MiniLM-L6-v2"\n', encoding="utf-8"
    )
    out = anyio.run(_session_calls, vault_dir)
    assert set(out["tools"]) == {
        "search_memory",
        "load_memory",
        "remember",
        "update_core_memory",
        "memory",
    }
    assert out["tools"]["remember"]["required"] == ["text"]
    assert out["read_only"] == {"search_memory", "load_memory"}
    assert out["remember"] == {
        "ok": True,
        "tool": "remember",
        "kind": "note",
        "path": "memory/daily/2026-11-22.md",
    }
    assert "הפריסה" in out["today"]["items"][0]["text"]
    assert out["decision"]["ok"]
    assert out["section"]["items"][0]["text"].startswith("## Iron rules")
    assert out["section"]["items"][0]["path"] == "memory/core.md"
    assert out["lines"]["items"][0]["line_start"] == out["lines"]["items"][0]["line_end"] == 3
    assert "הפריסה" in out["lines"]["items"][0]["text"]
    assert out["no_match"]["results"] == []
    assert out["no_match"]["notices"][0] == "no memory matches this query"
    for key in ("missing", "no_args", "escape", "extra", "file_escape"):
        assert out[key]["error"]["type"] == "invalid_arguments", key
    assert out["unknown"]["error"]["type"] == "unknown_tool"
    assert out["huge"]["error"]["type"] == "too_large"
    assert out["core"]["error"]["type"] == "unreviewed"  # no API key in tests
    assert out["after"]["items"][0]["text"].startswith("## 2026-11-22 — SQLite")
    # Nothing written outside memory/, and core.md untouched without a review.
    assert (vault_dir / "memory" / "core.md").read_bytes() == before_core
    assert not (tmp_path / "outside.md").exists()
    written = {p.relative_to(vault_dir).as_posix() for p in vault_dir.rglob("*.md")}
    assert {p for p in written if p.startswith("memory/daily/")} == {"memory/daily/2026-11-22.md"}
    assert all(p.startswith("memory/") or p == "README.md" for p in written), written
    assert Vault(vault_dir).daily_path(date(2026, 11, 22)).exists()


def test_mcp_server_survives_malformed_json(vault_dir: Path) -> None:
    """Garbage on stdin gets a JSON-RPC error (or is ignored); the server keeps serving."""
    lines = [
        "{this is not json",
        json.dumps(INIT),
        json.dumps(INITIALIZED),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    answered = stdio_exchange(vault_dir, lines, {2})
    by_id, stderr = answered.replies, answered.stderr
    assert "result" in by_id[1]
    assert {t["name"] for t in by_id[2]["result"]["tools"]} >= {"remember", "search_memory"}
    assert "Traceback" not in stderr
