"""search_memory and COLD context against a real (lexical-only, so fast) index."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

from memctl import memory
from memctl.agent.context import assemble
from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.index.sync import sync
from memctl.sqlite import connect
from memctl.vault import Vault

NOW = datetime(2026, 11, 22, 9, 30)


def _indexed(vault: Vault) -> Vault:
    archive = vault.archive_dir / "2025.md"
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_text(
        "# 2025\n\n- The DNS provider is Cloudflare\n\n- ספק הדואר הוא Fastmail\n\n"
        "- Резервные копии хранятся в Backblaze\n",
        encoding="utf-8",
    )
    memory.add_note(vault, "deploy blocked on DNS change", day=date(2026, 11, 22))
    sync(vault, embed=False, now=NOW)
    return vault


def _reference_kinds(vault: Vault) -> list[tuple[str, str]]:
    conn = connect(vault.root / ".memctl" / "state.db")
    try:
        return conn.execute("SELECT kind, path FROM reference_log ORDER BY id").fetchall()
    finally:
        conn.close()


def test_search_memory_returns_snippets_in_three_languages(vault: Vault, pinned_now) -> None:
    _indexed(vault)
    for query, expected in (
        ("DNS provider", "Cloudflare"),
        ("ספק הדואר", "Fastmail"),
        ("резервные копии", "Backblaze"),
    ):
        result = call_tool(vault, "search_memory", {"query": query, "k": 3}, now=NOW)
        assert result["ok"], result
        assert result["results"], query
        assert any(expected in r["snippet"] for r in result["results"]), (query, result)
        assert set(result["results"][0]) >= {"path", "line_start", "line_end", "snippet", "tier"}
    assert ("search", "memory/archive/2025.md") in _reference_kinds(vault)


def test_search_memory_blank_query_is_an_error_result(vault: Vault) -> None:
    result = call_tool(vault, "search_memory", {"query": "   "}, now=NOW)
    assert result["error"]["type"] == "invalid_arguments"
    result = call_tool(vault, "search_memory", {"query": "x", "k": 500}, now=NOW)
    assert result["error"]["type"] == "invalid_arguments"


def test_context_with_query_adds_cold_and_records_context_use(vault: Vault, pinned_now) -> None:
    _indexed(vault)
    result = assemble(vault, query="Cloudflare DNS provider", budget=100_000)
    cold = [b for b in result.blocks if b.kind == "cold"]
    assert cold and all(b.path == "memory/archive/2025.md" for b in cold)
    assert "Cloudflare" in cold[0].text
    kinds = _reference_kinds(vault)
    assert ("context", "memory/core.md") in kinds
    assert ("context", "memory/daily/2026-11-22.md") in kinds
    # COLD snippets come from search, which logs them itself; context logs HOT and WARM.
    assert ("context", "memory/archive/2025.md") not in kinds


def test_context_budget_drops_cold_after_warm(vault: Vault, pinned_now) -> None:
    _indexed(vault)
    full = assemble(vault, query="Cloudflare DNS provider", budget=100_000, record=False)
    fixed = sum(b.tokens for b in full.blocks if b.kind in ("hot", "tools", "date"))
    cold = sum(b.tokens for b in full.blocks if b.kind == "cold")
    tight = assemble(vault, query="Cloudflare DNS provider", budget=fixed + cold, record=False)
    assert [b.kind for b in tight.dropped] == ["warm"]
    assert tight.tokens <= fixed + cold
    tighter = assemble(vault, query="Cloudflare DNS provider", budget=fixed, record=False)
    assert [b.kind for b in tighter.dropped][-1] == "cold"
    assert not [b for b in tighter.blocks if b.kind in ("warm", "cold")]


def test_cli_context_query_json(runner, vault: Vault, vault_dir: Path, pinned_now) -> None:
    _indexed(vault)
    out = runner.invoke(
        app, ["--vault", str(vault_dir), "context", "-q", "Backblaze", "--format", "anthropic"]
    )
    assert out.exit_code == 0, out.output
    system = json.loads(out.stdout)["system"]
    assert "Backblaze" in system[-1]["text"] and "cache_control" not in system[-1]
