"""Item 5: memory text never drives the terminal; JSON output stays exact."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from memctl.cli import app
from memctl.terminal import terminal_safe
from memctl.vault import Vault
from tests.lifecycle.helpers import write

NASTY = "deploy \x1b[2J\x1b[1;1H cleared \x1b]0;pwned\x07 title \x9b31m c1 \r overwrite \x08 [/oops] [bold]x"


def test_terminal_safe_keeps_text_and_layout() -> None:
    safe = terminal_safe("שלום\tмир\n" + NASTY)
    assert safe.startswith("שלום\tмир\n")
    assert not any(ord(c) < 32 and c not in "\n\t" for c in safe)
    assert not any(0x7F <= ord(c) <= 0x9F for c in safe)
    assert "␛[2J" in safe and "[/oops]" in safe


def test_show_and_search_print_no_control_characters(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    write(vault, "memory/daily/2026-11-22.md", f"# 2026-11-22\n\n- 09:00 {NASTY}\n")
    args = ["--vault", str(vault.root)]
    shown = runner.invoke(app, [*args, "show", "today"])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.output and "\x9b" not in shown.output and "\x07" not in shown.output
    assert "cleared" in shown.output and "[/oops] [bold]x" in shown.output
    exact = json.loads(runner.invoke(app, [*args, "show", "today", "--json"]).stdout)
    assert NASTY in exact["parts"][0]["text"]

    assert runner.invoke(app, [*args, "index", "--no-embed"]).exit_code == 0
    found = runner.invoke(app, [*args, "search", "deploy cleared", "--no-log"])
    assert found.exit_code == 0, found.output
    assert "cleared" in found.output
    assert "\x1b" not in found.output and "\x07" not in found.output
    as_json = json.loads(
        runner.invoke(app, [*args, "search", "deploy cleared", "--no-log", "--json"]).stdout
    )
    assert "\x1b[2J" in as_json["results"][0]["snippet"]

    context = runner.invoke(app, [*args, "context", "--no-tool-guide"])
    assert context.exit_code == 0, context.output
    assert "cleared" in context.output  # the prompt text itself, piped: exact
