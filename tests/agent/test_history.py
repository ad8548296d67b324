"""History compaction: the pure split, the soft budget, and the summary via a mocked API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memctl.agent.history import (
    ACKNOWLEDGEMENT,
    SUMMARY_PREFIX,
    compact_history,
    has_tool_result,
    split_point,
)
from memctl.cli import app
from memctl.config import Settings
from memctl.errors import UsageError
from memctl.llm import get_llm
from memctl.tokens import estimate_tokens
from tests.llm_mock import ScriptedAPI, fast_settings, text_message


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_use(i: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "let me look"},
            {"type": "tool_use", "id": f"tu{i}", "name": "search_memory", "input": {"query": "q"}},
        ],
    }


def tool_result(i: int, body: str = "result") -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": f"tu{i}", "content": body}],
    }


def conversation(turns: int, filler: str = "word ") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for i in range(turns):
        messages.append(user(f"question {i} " + filler * 50))
        if i % 2:
            messages.append(tool_use(i))
            messages.append(tool_result(i, "שורה " * 40))
        messages.append(assistant(f"answer {i} " + "ответ " * 30))
    return messages


def _tool_pairs_intact(messages: list[dict[str, Any]]) -> bool:
    used: set[str] = set()
    for m in messages:
        for b in m["content"] if isinstance(m["content"], list) else []:
            if b.get("type") == "tool_use":
                used.add(b["id"])
            if b.get("type") == "tool_result" and b["tool_use_id"] not in used:
                return False
    return True


def test_split_keeps_at_least_n_and_starts_on_a_plain_user_turn() -> None:
    messages = conversation(10)
    cut = split_point(messages, 12)
    assert len(messages) - cut >= 12
    assert messages[cut]["role"] == "user" and not has_tool_result(messages[cut])
    assert _tool_pairs_intact(messages[cut:])


def test_split_moves_earlier_past_a_tool_result() -> None:
    messages = [user("a"), tool_use(1), tool_result(1), assistant("b"), user("c"), assistant("d")]
    # Keeping 4 would start at tool_result(1): the split moves back to user("a") -> nothing.
    assert split_point(messages, 4) == 0
    assert split_point(messages, 2) == 4


@given(st.lists(st.sampled_from(["plain", "tool"]), min_size=1, max_size=30), st.integers(1, 20))
def test_split_never_separates_tool_use_from_result(kinds: list[str], keep: int) -> None:
    messages: list[dict[str, Any]] = []
    for i, kind in enumerate(kinds):
        messages.append(user(f"u{i}"))
        if kind == "tool":
            messages += [tool_use(i), tool_result(i)]
        messages.append(assistant(f"a{i}"))
    cut = split_point(messages, keep)
    assert cut == 0 or len(messages) - cut >= keep
    assert _tool_pairs_intact(messages[cut:])


def test_below_soft_budget_nothing_happens_and_no_call() -> None:
    api = ScriptedAPI([])
    messages = conversation(3)
    result = compact_history(messages, get_llm(fast_settings(), client=api.client()), Settings())
    assert result.compacted is False and result.messages == messages
    assert api.requests == []


def test_compaction_summarises_head_and_keeps_tail_verbatim() -> None:
    api = ScriptedAPI([text_message("Пользователь спрашивал про DNS; решили использовать SQLite.")])
    messages = conversation(12)
    result = compact_history(
        messages, get_llm(fast_settings(), client=api.client()), Settings(), soft_budget=1000
    )
    assert result.compacted
    new = result.messages
    assert new[0]["role"] == "user" and new[0]["content"].startswith(SUMMARY_PREFIX)
    assert "SQLite" in new[0]["content"]
    assert new[1] == {"role": "assistant", "content": ACKNOWLEDGEMENT}
    tail = new[2:]
    assert tail == messages[len(messages) - len(tail) :]
    assert len(tail) >= 12
    assert _tool_pairs_intact(new)
    assert result.after_tokens < result.before_tokens
    sent = api.requests[0]
    assert sent["model"] == Settings().llm.summary_model
    prompt = sent["messages"][0]["content"]
    assert "question 0" in prompt and "[tool call search_memory" in prompt
    assert messages[-1]["content"][0]["text"] not in prompt  # the tail is not summarised


def test_compaction_needs_llm_only_when_there_is_work() -> None:
    assert compact_history(conversation(2), None, Settings()).compacted is False
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        compact_history(conversation(12), None, Settings(), soft_budget=10)


@pytest.mark.parametrize(
    "bad",
    [{"role": "x", "content": "y"}, "text", [{"role": "user"}], [{"role": "user", "content": [1]}]],
)
def test_bad_messages_are_usage_errors(bad: Any) -> None:
    with pytest.raises(UsageError):
        compact_history(bad if isinstance(bad, list) else [bad], None, Settings())


def test_cli_compact_history_below_budget_and_errors(runner, vault_dir, tmp_path) -> None:
    path = tmp_path / "conv.json"
    messages = conversation(2)
    path.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    out = runner.invoke(app, ["--vault", str(vault_dir), "compact-history", str(path)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == messages
    out = runner.invoke(app, ["--vault", str(vault_dir), "compact-history", "-"], input="{oops")
    assert out.exit_code == 2 and "not valid JSON" in out.stderr
    path.write_text(json.dumps(conversation(12)), encoding="utf-8")
    out = runner.invoke(app, ["compact-history", str(path), "--soft-budget", "10", "--json"])
    assert out.exit_code == 2 and "ANTHROPIC_API_KEY" in out.stderr


def test_a_head_too_long_for_one_call_keeps_its_start_and_end() -> None:
    api = ScriptedAPI([text_message("summary")])
    messages = []
    for i in range(260):
        messages.append(
            user(f"start-{i} " + "слово " * 2000 if i == 0 else f"q{i} " + "word " * 2000)
        )
        messages.append(assistant(f"a{i}"))
    messages[-14]["content"] = "the latest state " + "מילה " * 2000
    compact_history(messages, get_llm(fast_settings(), client=api.client()), Settings())
    prompt = api.requests[0]["messages"][0]["content"]
    assert "start-0" in prompt and "the latest state" in prompt
    assert "middle of the conversation omitted" in prompt
    assert estimate_tokens(prompt) < 125_000
