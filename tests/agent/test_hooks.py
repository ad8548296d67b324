"""memctl hook: an agent's hook JSON in, its documented output shape out, failing open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.context import ContextBlock
from memctl.agent.hooks import (
    CUT_MARK,
    MAX_INPUT_BYTES,
    MAX_OUTPUT_CHARS,
    HookInput,
    fit_output,
    parse_input,
    prompt_query,
    render,
)
from memctl.cli import app
from memctl.errors import UsageError
from memctl.vault import Vault


def _session_input(**extra: object) -> str:
    """What Claude Code sends a SessionStart hook (its documented keys)."""
    return json.dumps(
        {
            "session_id": "abc123",
            "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
            "cwd": "/home/u/p",
            "permission_mode": "default",
            "hook_event_name": "SessionStart",
            "source": "startup",
            "model": "claude-sonnet-4-5",
            **extra,
        }
    )


def _prompt_input(prompt: str) -> str:
    return json.dumps(
        {
            "session_id": "abc123",
            "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
            "cwd": "/home/u/p",
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        },
        ensure_ascii=False,
    )


# -- pure parts ----------------------------------------------------------------------------


def test_parse_input_reads_the_documented_keys_and_tolerates_missing_ones() -> None:
    hook = parse_input(_session_input().encode())
    assert hook.session == "abc123" and hook.source == "startup"
    assert hook.transcript_path and hook.transcript_path.endswith(".jsonl")
    assert parse_input(b"") == HookInput()
    assert parse_input(b'{"prompt": "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"}').prompt == "שלום"
    assert parse_input(b'{"stop_hook_active": true}').stop_hook_active is True
    assert parse_input(b'{"conversation_id": "c1"}').session == "c1"  # Cursor's key


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b'{"prompt": ', "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"prompt": 5}', "prompt of type int"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b" " * (MAX_INPUT_BYTES + 1), "over 8 MiB"),
    ],
)
def test_parse_input_refuses_bad_input_in_one_line(data: bytes, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_input(data)


def test_render_gives_each_agent_its_own_shape() -> None:
    claude = json.loads(render("claude-code", "prompt", "ctx"))
    assert claude == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}
    }
    gemini = json.loads(render("gemini", "prompt", "ctx"))
    assert gemini["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    codex = json.loads(render("codex", "session-start", "ctx"))
    assert codex["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert json.loads(render("cursor", "session-start", "ctx")) == {"additional_context": "ctx"}


def _warm(day: int, text: str) -> ContextBlock:
    from datetime import date

    return ContextBlock(
        "warm", "WARM daily note", text, f"memory/daily/2026-11-{day:02d}.md", 1, 9,
        day=date(2026, 11, day),
    )  # fmt: skip


def test_fit_output_drops_oldest_warm_first_and_stays_within_the_limit() -> None:
    hot = ContextBlock("hot", "HOT memory: core", "- Dana leads\n", "memory/core.md", 1, 1)
    # Quotes, newlines and three scripts: JSON escapes make the output longer than the text.
    line = 'Решили "SQLite" — החלטנו\n'
    old, new = _warm(20, line * 200), _warm(21, line * 200)

    def rendered(text: str) -> str:
        return render("claude-code", "session-start", text)

    output, dropped = fit_output("header", [hot, old, new], rendered)
    assert len(output) <= MAX_OUTPUT_CHARS - 1
    assert dropped == [old]
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert "Dana leads" in context and "2026-11-21" in context


def test_fit_output_cuts_an_over_long_core_at_a_line_with_a_mark() -> None:
    hot = ContextBlock("hot", "HOT memory: core", 'ядро "x"\n' * 3000, "memory/core.md", 1, 3000)

    def rendered(text: str) -> str:
        return render("cursor", "session-start", text)

    output, _ = fit_output("header", [hot], rendered)
    assert MAX_OUTPUT_CHARS - 40 < len(output) <= MAX_OUTPUT_CHARS - 1
    context = json.loads(output)["additional_context"]
    assert context.endswith(CUT_MARK)
    assert context[: -len(CUT_MARK)].endswith('ядро "x"')  # cut between lines


def test_prompt_query_is_keywords_sized() -> None:
    assert prompt_query("  why\n  sqlite? ", 1000) == "why sqlite?"
    long = "слово " * 400
    query = prompt_query(long, 1000)
    assert len(query) <= 1000 and query.endswith("слово")


# -- the command ---------------------------------------------------------------------------


def _hook(
    runner: CliRunner, root: Path, *args: str, stdin: str | bytes = ""
) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--vault", str(root), "hook", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_session_start_answers_hot_and_warm_in_claude_codes_shape(
    runner: CliRunner, vault: Vault
) -> None:
    runner.invoke(app, ["--vault", str(vault.root), "add", "deploy blocked on the DNS change"])
    code, out, err = _hook(runner, vault.root, "session-start", stdin=_session_input())
    assert code == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    assert "HOT memory: core (memory/core.md:" in answer["additionalContext"]
    assert "deploy blocked on the DNS change" in answer["additionalContext"]  # WARM


def test_session_start_never_passes_ten_thousand_characters(
    runner: CliRunner, vault: Vault
) -> None:
    daily = vault.root / "memory" / "daily"
    daily.mkdir(parents=True, exist_ok=True)
    from datetime import timedelta

    from memctl import clock

    # Two days of notes: within the 8,000-token budget, well over 10,000 characters.
    for back in (1, 0):
        day = (clock.today() - timedelta(days=back)).isoformat()
        lines = [f'- 10:{n:02d} {day} שורה {n}: решение "{n}" deploy' for n in range(150)]
        (daily / f"{day}.md").write_text(f"# {day}\n\n" + "\n".join(lines) + "\n")
    code, out, err = _hook(runner, vault.root, "session-start", stdin=_session_input())
    assert code == 0
    assert len(out) <= MAX_OUTPUT_CHARS
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "HOT memory" in context and clock.today().isoformat() in context
    assert (clock.today() - timedelta(days=1)).isoformat() not in context
    assert "budget 8000 tokens: dropped" not in err
    assert "1 WARM block(s) left out to stay within 10,000 characters" in err


@pytest.mark.parametrize(
    ("prompt", "where"),
    [
        ("when does the TLS certificate for falcon.dev expire?", "archive/2025-06-14.md:"),
        ("когда отпуск Ивана?", "archive/2025-08-02.md:"),
        ("מתי החופשה של דנה?", "archive/2025-08-02.md:"),
    ],
)
def test_prompt_answers_cold_snippets_with_file_and_line(
    runner: CliRunner, fixture_copy: Vault, prompt: str, where: str
) -> None:
    code, out, err = _hook(runner, fixture_copy.root, "prompt", stdin=_prompt_input(prompt))
    assert code == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    assert where in answer["additionalContext"]
    assert "memory/daily/" not in answer["additionalContext"]  # COLD only: WARM came at start


def test_prompt_prints_nothing_when_nothing_passes_the_floor(
    runner: CliRunner, fixture_copy: Vault
) -> None:
    stdin = _prompt_input("what is the capital of France?")
    code, out, err = _hook(runner, fixture_copy.root, "prompt", stdin=stdin)
    assert (code, out, err) == (0, "", "")


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        (["prompt"], '{"prompt": "dns', "not valid JSON"),
        (["prompt"], "[]", "not a JSON object"),
        (["prompt"], '{"session_id": "s"}', "has no prompt"),
        (["prompt"], b"\xff", "not valid UTF-8"),
        (["session-start"], '{"source": 3}', "source of type int"),
        (["post-compact"], "{}", "choose session-start, prompt, pre-compact, stop"),
        ([], "{}", "choose session-start, prompt, pre-compact, stop"),
        (["prompt", "--agent", "vim"], "{}", "--agent 'vim'"),
        (["prompt", "--bogus"], "{}", "unexpected '--bogus'"),
    ],
)
def test_bad_input_is_one_line_and_exit_zero(
    runner: CliRunner, fixture_copy: Vault, args: list[str], stdin: str | bytes, said: str
) -> None:
    before = {p: p.read_bytes() for p in fixture_copy.root.rglob("*.md")}
    code, out, err = _hook(runner, fixture_copy.root, *args, stdin=stdin)
    assert code == 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err, err
    assert {p: p.read_bytes() for p in fixture_copy.root.rglob("*.md")} == before


def test_no_vault_fails_open(runner: CliRunner, tmp_path: Path) -> None:
    code, out, err = _hook(runner, tmp_path / "nowhere", "session-start", stdin="{}")
    assert code == 0 and out == ""
    assert err.startswith("memctl: hook session-start:") and len(err.splitlines()) == 1
