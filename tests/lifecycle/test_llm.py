"""memctl.llm through the real anthropic client with a scripted HTTP transport."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from memctl.config import Settings
from memctl.llm import LLMError, get_llm
from tests.llm_mock import ScriptedAPI, fast_settings, text_message, tool_message

VERDICT = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean"},
        "reason": {"type": "string", "minLength": 1},
    },
    "required": ["approve", "reason"],
    "additionalProperties": False,
}


def _ask(api: ScriptedAPI, retries: int = 1) -> dict:
    llm = get_llm(fast_settings(retries=retries), client=api.client())
    assert llm is not None
    return llm.complete_json(
        "claude-haiku-4-5", "You review.", "Промоутировать? מה דעתך?", VERDICT, 200
    )


def test_no_key_and_no_client_means_no_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert get_llm(Settings()) is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    assert get_llm(Settings()) is not None


def test_approve_forces_the_tool_and_returns_its_input() -> None:
    api = ScriptedAPI([tool_message({"approve": True, "reason": "stable iron rule"})])
    assert _ask(api) == {"approve": True, "reason": "stable iron rule"}
    sent = api.requests[0]
    assert sent["tool_choice"] == {"type": "tool", "name": "answer"}
    assert sent["tools"][0]["input_schema"] == VERDICT
    assert sent["model"] == "claude-haiku-4-5"
    assert "Промоутировать" in sent["messages"][0]["content"]


def test_reject_is_a_normal_answer() -> None:
    api = ScriptedAPI([tool_message({"approve": False, "reason": "transient state"})])
    assert _ask(api)["approve"] is False


@pytest.mark.parametrize(
    "reply",
    [
        tool_message({"approve": "yes", "reason": "x"}),  # wrong type
        tool_message({"approve": True}),  # missing field
        tool_message({"approve": True, "reason": "x", "extra": 1}),  # unexpected field
        tool_message({"approve": True, "reason": "x"}, name="other"),  # wrong tool
        text_message("I approve."),  # prose instead of a tool call
    ],
)
def test_malformed_answer_raises(reply: dict) -> None:
    with pytest.raises(LLMError, match="malformed"):
        _ask(ScriptedAPI([reply]))


def test_truncated_answer_raises() -> None:
    llm = get_llm(
        fast_settings(),
        client=ScriptedAPI([text_message("half", stop_reason="max_tokens")]).client(),
    )
    assert llm is not None
    with pytest.raises(LLMError, match="cut off"):
        llm.complete_text("m", "s", "p", 5)


def test_500_is_retried_by_the_sdk_then_succeeds() -> None:
    api = ScriptedAPI([500, tool_message({"approve": True, "reason": "ok"})])
    assert _ask(api, retries=2)["approve"] is True
    assert len(api.requests) == 2


def test_persistent_500_raises_after_configured_retries() -> None:
    api = ScriptedAPI([500, 500, 500, 500])
    with pytest.raises(LLMError, match="HTTP 500"):
        _ask(api, retries=1)
    assert len(api.requests) == 2  # one try + one retry, as configured


def test_429_is_retried() -> None:
    api = ScriptedAPI([429, tool_message({"approve": False, "reason": "stale"})])
    assert _ask(api, retries=1)["reason"] == "stale"


def test_timeout_raises_llm_error() -> None:
    api = ScriptedAPI([httpx.ReadTimeout("slow")])
    with pytest.raises(LLMError, match="timed out"):
        _ask(api, retries=0)


def test_complete_text_returns_text_in_any_script() -> None:
    api = ScriptedAPI([text_message("Итог месяца: SQLite. סיכום: הכל טוב.")])
    llm = get_llm(fast_settings(), client=api.client())
    assert llm is not None
    assert llm.complete_text("m", "s", "p", 100).startswith("Итог")
    assert llm.calls == 1 and llm.usage.output_tokens == 5
