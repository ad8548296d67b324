"""Context assembly: layout for the prompt cache, the budget policy, and the CLI."""

from __future__ import annotations

import json
from datetime import date

from memctl import memory
from memctl.agent.context import ContextBlock, assemble, fit_budget, order_blocks
from memctl.cli import app
from memctl.vault import Vault


def _warm(day: int, text: str = "x " * 40) -> ContextBlock:
    return ContextBlock(
        "warm",
        "WARM daily note",
        text,
        f"memory/daily/2026-11-{day:02d}.md",
        1,
        3,
        day=date(2026, 11, day),
    )


def _cold(rank: int) -> ContextBlock:
    return ContextBlock(
        "cold", "COLD snippet", "y " * 40, "memory/archive/a.md", rank + 1, rank + 1, rank=rank
    )


def test_budget_drops_warm_oldest_first_then_cold_worst_first() -> None:
    hot = ContextBlock("hot", "HOT memory: core", "core line", "memory/core.md", 1, 1)
    blocks = [hot, _warm(21), _warm(20), _cold(0), _cold(1)]
    each = _warm(20).tokens
    budget = hot.tokens + 2 * each + 1  # room for exactly two of the four big blocks
    kept, dropped, notices = fit_budget(blocks, budget)
    assert [b.day for b in dropped] == [date(2026, 11, 20), date(2026, 11, 21)]
    assert [b.kind for b in kept] == ["hot", "cold", "cold"]
    budget = hot.tokens + each + 1
    kept, dropped, _ = fit_budget(blocks, budget)
    assert [b.kind for b in dropped] == ["warm", "warm", "cold"]
    assert dropped[-1].rank == 1
    assert kept[-1].rank == 0
    _, _, notices = fit_budget(blocks, budget)
    assert "dropped 2 WARM and 1 COLD" in notices[-1]


def test_hot_is_never_cut_even_over_budget() -> None:
    hot = ContextBlock("hot", "HOT memory: core", "ядро " * 200, "memory/core.md", 1, 1)
    kept, dropped, notices = fit_budget([hot, _warm(21)], 10)
    assert kept == [hot]
    assert len(dropped) == 1
    assert any("over budget" in n for n in notices)


def test_within_budget_drops_nothing() -> None:
    blocks = [ContextBlock("hot", "h", "a"), _warm(21)]
    kept, dropped, notices = fit_budget(blocks, 10_000)
    assert kept == blocks and dropped == [] and notices == []


def test_order_puts_stable_prefix_first_and_date_last() -> None:
    blocks = [
        ContextBlock("date", "today", "Today is 2026-11-22."),
        _cold(1),
        _warm(21),
        _cold(0),
        ContextBlock("tools", "memory tools", "t"),
        ContextBlock("hot", "HOT memory: core", "c"),
    ]
    kinds = [(b.kind, b.rank) for b in order_blocks(blocks)]
    assert kinds == [("hot", 0), ("tools", 0), ("warm", 0), ("cold", 0), ("cold", 1), ("date", 0)]


def _fill(vault: Vault) -> None:
    memory.add_note(vault, "deploy blocked on DNS", day=date(2026, 11, 20))
    memory.add_note(vault, "שלום, הפריסה נתקעה", day=date(2026, 11, 21))
    memory.add_note(vault, "Привет, деплой прошёл", day=date(2026, 11, 22))
    memory.add_decision(vault, "Use SQLite", "one file, no server", day=date(2026, 11, 2))


def test_assemble_loads_hot_and_last_two_daily_notes(vault: Vault, pinned_now: str) -> None:
    _fill(vault)
    result = assemble(vault, budget=100_000)
    paths = [b.path for b in result.blocks]
    assert paths[0] == "memory/core.md"
    assert "memory/daily/2026-11-20.md" not in paths  # only the last two days are WARM
    assert paths.index("memory/decisions.md") < paths.index("memory/daily/2026-11-21.md")
    assert paths.index("memory/daily/2026-11-21.md") < paths.index("memory/daily/2026-11-22.md")
    text = result.text()
    assert "שלום" in text and "Привет" in text and "Use SQLite" in text
    assert text.rstrip().endswith("Today is 2026-11-22.")


def test_anthropic_layout_has_breakpoints_after_stable_layers(
    vault: Vault, pinned_now: str
) -> None:
    _fill(vault)
    system = assemble(vault, budget=100_000).anthropic_system()
    assert [("cache_control" in s) for s in system] == [True, True, False]
    assert "Core memory" in system[0]["text"] and "search_memory" in system[0]["text"]
    # Nothing that changes per day/turn sits in a cached block.
    assert "2026-11-22." not in system[0]["text"]
    assert "Today is" not in system[0]["text"] + system[1]["text"]
    assert "Today is 2026-11-22." in system[2]["text"]


def test_stable_prefix_is_byte_identical_across_days(vault: Vault, monkeypatch) -> None:
    monkeypatch.setenv("MEMCTL_NOW", "2026-11-22T09:00:00")
    first = assemble(vault).anthropic_system()
    monkeypatch.setenv("MEMCTL_NOW", "2026-11-23T17:45:00")
    second = assemble(vault).anthropic_system()
    assert first[0] == second[0]
    assert first[-1] != second[-1]


def test_cli_context_json_reports_dropped(runner, vault: Vault, vault_dir, pinned_now) -> None:
    _fill(vault)
    out = runner.invoke(app, ["--vault", str(vault_dir), "context", "--budget", "320", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["tokens"] <= 320 and data["dropped"]
    dropped = [d["path"] for d in data["dropped"]]
    # The decision (2026-11-02) is the oldest WARM block: it goes first.
    assert dropped[0] == "memory/decisions.md"
    assert "memory/core.md" in [b["path"] for b in data["blocks"]]
    assert "memctl.tokens" in data["token_method"]


def test_cli_context_anthropic_is_json_only(runner, vault_dir, pinned_now) -> None:
    out = runner.invoke(app, ["--vault", str(vault_dir), "context", "--format", "anthropic"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_cli_context_rejects_bad_format(runner, vault_dir) -> None:
    out = runner.invoke(app, ["--vault", str(vault_dir), "context", "--format", "xml"])
    assert out.exit_code == 2
    assert "choose text or anthropic" in out.stderr
    out = runner.invoke(app, ["--vault", str(vault_dir), "context", "-q", "x", "--cold", "0"])
    assert out.exit_code == 2 and "--cold" in out.stderr
    out = runner.invoke(app, ["--vault", str(vault_dir), "context", "--budget", "0"])
    assert out.exit_code == 2 and "--budget" in out.stderr


def test_help_of_agent_commands_exits_0(runner) -> None:
    for command in ("context", "tools", "mcp", "capture", "compact-history"):
        out = runner.invoke(app, [command, "--help"])
        assert out.exit_code == 0, (command, out.output)
        assert "Example" in out.stdout and "internal error" not in out.output
