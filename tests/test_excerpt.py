"""Reading around a hit: sections by heading, line ranges, confinement, the budget."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.errors import UsageError
from memctl.excerpt import excerpt_of, parse_spec, read_excerpt
from memctl.vault import Vault

TEXT = """# Decisions

## 2026-10-02 — Use SQLite

One file, no server.
WAL is enough.

### Details

Backups nightly.

## 2026-10-20 — Retry policy

Three attempts, then give up.
"""


def test_parse_spec() -> None:
    assert parse_spec("memory/x.md:3-9") == ("memory/x.md", (3, 9))
    assert parse_spec("memory/x.md:4") == ("memory/x.md", (4, 4))
    assert parse_spec("memory/x.md") == ("memory/x.md", None)


def test_section_runs_to_the_next_heading_of_its_level() -> None:
    piece = excerpt_of(TEXT, "memory/decisions.md", heading="2026-10-02 — Use SQLite")
    assert (piece.line_start, piece.line_end) == (3, 10)
    assert piece.text.startswith("## 2026-10-02") and piece.text.endswith("Backups nightly.")
    sub = excerpt_of(TEXT, "memory/decisions.md", heading="### details")
    assert sub.text == "### Details\n\nBackups nightly."
    # A heading path as search results show it ("A > B") names its last part.
    path = excerpt_of(TEXT, "d.md", heading="Decisions > 2026-10-20 — Retry policy")
    assert path.line_start == 12 and path.line_end == 14
    with pytest.raises(UsageError, match=r"no heading 'Nope'.*Use SQLite"):
        excerpt_of(TEXT, "d.md", heading="Nope")


def test_line_ranges_and_budget() -> None:
    piece = excerpt_of(TEXT, "d.md", lines=(5, 6))
    assert piece.text == "One file, no server.\nWAL is enough." and piece.total_lines == 14
    assert excerpt_of(TEXT, "d.md", lines=(13, 99)).line_end == 14
    with pytest.raises(UsageError, match="has 14 lines"):
        excerpt_of(TEXT, "d.md", lines=(20, 30))
    with pytest.raises(UsageError):
        excerpt_of(TEXT, "d.md", lines=(5, 2))
    cut = excerpt_of(TEXT, "d.md", budget=12)
    assert cut.truncated and cut.line_start == 1 and 1 <= cut.line_end < 14
    assert cut.text == "\n".join(TEXT.split("\n")[: cut.line_end])


def test_confined_to_memory_files(vault: Vault, tmp_path: Path) -> None:
    (vault.root / "secret.md").write_text("token")
    outside = tmp_path / "outside.md"
    outside.write_text("outside")
    os.symlink(outside, vault.root / "memory" / "archive" / "link.md")
    for bad in (
        "../secret.md",
        "/etc/passwd",
        "secret.md",
        "memory/archive/link.md",
        "memory/daily/none.md",
        ".memctl/index.db",
    ):
        with pytest.raises(UsageError):
            read_excerpt(vault, bad)
    assert read_excerpt(vault, "memory/core.md", lines=(1, 1)).text.startswith("# Core")


def test_tool_caps_and_points_at_the_rest(vault: Vault) -> None:
    body = "\n".join(f"- 09:{i % 60:02d} line {i} " + "word " * 30 for i in range(400))
    (vault.root / "memory" / "archive" / "big.md").write_text("# Big\n\n" + body + "\n")
    result = call_tool(
        vault,
        "load_memory",
        {"what": "file", "path": "memory/archive/big.md", "line_start": 1, "line_end": 402},
    )
    item = result["items"][0]
    assert result["ok"] and item.get("truncated") and item["line_end"] < 402
    assert f"line_start {item['line_end'] + 1}" in result["notices"][0]
    assert item["tokens"] <= vault.settings.agent.tool_result_tokens
    default = call_tool(vault, "load_memory", {"what": "file", "path": "memory/archive/big.md"})
    assert default["items"][0]["line_end"] == 40
    missing = call_tool(vault, "load_memory", {"what": "file"})
    assert missing["error"]["type"] == "invalid_arguments"


def test_cli_show_file_lines_and_heading(runner: CliRunner, vault_dir: Path) -> None:
    (vault_dir / "memory" / "decisions.md").write_text(TEXT)
    base = ["--vault", str(vault_dir), "show"]
    out = runner.invoke(app, [*base, "memory/decisions.md:5-6"])
    assert out.exit_code == 0, out.output
    assert "memory/decisions.md:5-6" in out.stdout and "WAL is enough." in out.stdout
    titled = runner.invoke(app, [*base, "decisions", "--heading", "Retry policy", "--json"])
    assert titled.exit_code == 0, titled.output
    part = json.loads(titled.stdout)["parts"][0]
    assert (part["line_start"], part["line_end"]) == (12, 14)
    several = runner.invoke(app, [*base, "decisions", "--heading", "2026-10"])
    assert several.exit_code == 2 and "several headings" in several.stderr
    section = json.loads(
        runner.invoke(
            app, [*base, "memory/decisions.md", "--heading", "2026-10-20 — Retry policy", "--json"]
        ).stdout
    )
    assert section["parts"][0]["line_start"] == 12
    bad = runner.invoke(app, [*base, "memory/../../etc/passwd:1-2"])
    assert bad.exit_code == 2
    worse = runner.invoke(app, [*base, "today", "--heading", "x"])
    assert worse.exit_code == 2
