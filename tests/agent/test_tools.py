"""Tool schemas, handlers (errors as results), the result cap, and update_core_memory."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, datetime

import jsonschema
import pytest

from memctl import memory
from memctl.agent.tools import (
    REMEMBER_MAX_TOKENS,
    TOOL_SPECS,
    call_tool,
    cap_result,
    dumps,
    run_tool,
    tool_schemas,
)
from memctl.cli import app
from memctl.config import HotSettings, Settings
from memctl.llm import get_llm
from memctl.tokens import estimate_tokens
from memctl.vault import Vault
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

NOW = datetime(2026, 11, 22, 9, 30)


def test_schemas_are_valid_json_schema_and_single_verbs() -> None:
    for spec in TOOL_SPECS:
        jsonschema.Draft202012Validator.check_schema(spec.input_schema)
        assert spec.input_schema["additionalProperties"] is False
        assert len(spec.description) > 60
    assert [s["name"] for s in tool_schemas("anthropic")] == [
        "search_memory",
        "load_memory",
        "remember",
        "update_core_memory",
    ]
    assert all("inputSchema" in s for s in tool_schemas("mcp"))
    assert all("input_schema" in s for s in tool_schemas("anthropic"))


def test_remember_note_and_decision_in_three_languages(vault: Vault) -> None:
    for text in ("the deploy needs DNS first", "הפריסה דורשת DNS", "деплою нужен DNS"):
        result = call_tool(vault, "remember", {"text": text}, now=NOW)
        assert result == {
            "ok": True,
            "tool": "remember",
            "kind": "note",
            "path": "memory/daily/2026-11-22.md",
        }
    note = memory.load_daily(vault, date(2026, 11, 22))
    assert note is not None and "הפריסה" in note.text and "деплою" in note.text
    result = call_tool(
        vault, "remember", {"text": "Use SQLite: one file", "kind": "decision"}, now=NOW
    )
    assert result["ok"] and result["title"] == "Use SQLite: one file"
    assert "## 2026-11-22 — Use SQLite: one file" in vault.decisions_path.read_text()


@pytest.mark.parametrize(
    ("name", "args", "kind"),
    [
        ("remember", {}, "invalid_arguments"),
        ("remember", {"text": "x", "kind": "poem"}, "invalid_arguments"),
        ("remember", {"text": "   "}, "invalid_arguments"),
        ("remember", {"text": "x", "path": "/etc/passwd"}, "invalid_arguments"),
        ("remember", "not an object", "invalid_arguments"),
        ("load_memory", {"what": "date"}, "invalid_arguments"),
        ("load_memory", {"what": "date", "date": "../../etc/passwd"}, "invalid_arguments"),
        ("load_memory", {"what": "date", "date": "2026-02-30"}, "invalid_arguments"),
        ("update_core_memory", {"section": "Iron rules"}, "invalid_arguments"),
        ("update_core_memory", {"section": "Nope", "text": "x"}, "invalid_arguments"),
        ("search_memory", {"query": 7}, "invalid_arguments"),
        ("search_memory", {"query": "я" * 1001}, "invalid_arguments"),
        ("delete_everything", {}, "unknown_tool"),
    ],
)
def test_bad_calls_are_error_results(vault: Vault, name: str, args: object, kind: str) -> None:
    before = sorted(p.read_bytes() for p in vault.memory_files())
    result = call_tool(vault, name, args, now=NOW)
    assert result["ok"] is False
    assert result["error"]["type"] == kind
    assert result["error"]["message"]
    assert sorted(p.read_bytes() for p in vault.memory_files()) == before


def test_huge_remember_is_refused_with_a_hint(vault: Vault) -> None:
    huge = "слово " * (REMEMBER_MAX_TOKENS * 2)
    result = call_tool(vault, "remember", {"text": huge}, now=NOW)
    assert result["error"]["type"] == "too_large"
    assert "summary" in result["error"]["message"]
    assert not vault.daily_path(date(2026, 11, 22)).exists()


def test_load_memory_today_yesterday_date_decisions(vault: Vault) -> None:
    memory.add_note(vault, "вчера", day=date(2026, 11, 21))
    memory.add_decision(vault, "A", "first", day=date(2026, 11, 1))
    memory.add_decision(vault, "B", "second", day=date(2026, 11, 5))
    y = call_tool(vault, "load_memory", {"what": "yesterday"}, now=NOW)
    assert y["date"] == "2026-11-21" and "вчера" in y["items"][0]["text"]
    t = call_tool(vault, "load_memory", {"what": "today"}, now=NOW)
    assert t["ok"] and t["items"] == [] and t["notices"] == ["no daily note for 2026-11-22"]
    d = call_tool(vault, "load_memory", {"what": "date", "date": "2026-11-21"}, now=NOW)
    assert d["items"] == y["items"]
    dec = call_tool(vault, "load_memory", {"what": "decisions"}, now=NOW)
    assert [i["text"].splitlines()[0] for i in dec["items"]] == [
        "## 2026-11-05 — B",
        "## 2026-11-01 — A",
    ]


def test_results_are_stable_sorted_json(vault: Vault) -> None:
    text = run_tool(vault, "load_memory", {"what": "decisions"}, now=NOW)
    data = json.loads(text)
    assert text == json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def test_cap_drops_entries_then_cuts_text_with_notice() -> None:
    items = [{"path": f"p{i}", "text": "שורה ארוכה מאוד " * 300} for i in range(5)]
    result = {"ok": True, "tool": "load_memory", "items": items}
    assert estimate_tokens(dumps(result)) > 1000
    capped = cap_result(result, 1000)
    assert estimate_tokens(dumps(capped)) <= 1000
    assert capped["truncated"]["shown"] == 1 and capped["truncated"]["total"] == 5
    assert "the last entry's text is cut" in capped["truncated"]["notice"]
    assert capped["items"][0]["text"]  # something of the first entry is still shown
    assert items[0]["text"].startswith(capped["items"][0]["text"].rstrip())


def test_cap_keeps_whole_entries_when_they_fit() -> None:
    items = [{"path": f"p{i}", "text": "word " * 100} for i in range(10)]
    capped = cap_result({"ok": True, "tool": "t", "items": items}, 500)
    assert estimate_tokens(dumps(capped)) <= 500
    assert 1 <= capped["truncated"]["shown"] < 10
    assert all(e["text"] == "word " * 100 for e in capped["items"])


def test_small_result_is_untouched() -> None:
    result = {"ok": True, "tool": "t", "items": [{"text": "hi"}]}
    assert cap_result(result, 8000) is result


def test_cli_tools_call_caps_to_setting(runner, vault: Vault, vault_dir) -> None:
    memory.add_note(vault, "Привет " * 3000, day=date(2026, 11, 21))
    (vault_dir / ".memctl.toml").write_text("[agent]\ntool_result_tokens = 300\n")
    out = runner.invoke(
        app,
        [
            "--vault",
            str(vault_dir),
            "tools",
            "--call",
            "load_memory",
            "--args",
            '{"what": "date", "date": "2026-11-21"}',
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["truncated"]["budget_tokens"] == 300
    assert estimate_tokens(out.stdout.strip()) <= 300


def test_cli_tools_error_result_exits_1(runner, vault_dir) -> None:
    out = runner.invoke(app, ["--vault", str(vault_dir), "tools", "--call", "remember"])
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["type"] == "invalid_arguments"
    out = runner.invoke(
        app, ["--vault", str(vault_dir), "tools", "--call", "remember", "--args", "{not json"]
    )
    assert out.exit_code == 2 and "not valid JSON" in out.stderr


def test_cli_tools_prints_schemas(runner) -> None:
    out = runner.invoke(app, ["tools", "--format", "mcp"])
    assert out.exit_code == 0
    assert {t["name"] for t in json.loads(out.stdout)} >= {"remember", "search_memory"}


# update_core_memory: the lifecycle review and cap, with the real client on a mocked transport


def _approve(line: str, section: str = "Iron rules") -> dict:
    return tool_message(
        {"approve": True, "reason": "durable rule", "section": section, "line": line}
    )


def test_update_core_memory_reviewed_then_written(vault: Vault) -> None:
    api = ScriptedAPI([_approve("Никогда не пушить в пятницу")])
    llm = get_llm(fast_settings(), client=api.client())
    args = {"section": "iron rules", "text": "никогда не пушим в пятницу!!"}
    result = call_tool(vault, "update_core_memory", args, now=NOW, llm=llm)
    assert result["ok"], result
    assert result["added"] == ["- Никогда не пушить в пятницу"] and result["changed"]
    assert "- Никогда не пушить в пятницу" in vault.core_path.read_text()
    assert "никогда не пушим" in api.requests[0]["messages"][0]["content"]


def test_update_core_memory_rejected_by_review_writes_nothing(vault: Vault) -> None:
    before = vault.core_path.read_bytes()
    rejection = {
        "approve": False,
        "reason": "transient state",
        "section": "Active project",
        "line": "",
    }
    llm = get_llm(fast_settings(), client=ScriptedAPI([tool_message(rejection)]).client())
    args = {"section": "Active project", "text": "היום אני עובד על הבאג"}
    result = call_tool(vault, "update_core_memory", args, now=NOW, llm=llm)
    assert result["error"]["type"] == "rejected" and "transient" in result["error"]["message"]
    assert vault.core_path.read_bytes() == before


def test_update_core_memory_without_llm_is_not_written(vault: Vault) -> None:
    before = vault.core_path.read_bytes()
    result = call_tool(vault, "update_core_memory", {"section": "Identity", "text": "x"}, now=NOW)
    assert result["error"]["type"] == "unreviewed"
    assert "remember" in result["error"]["message"]
    assert vault.core_path.read_bytes() == before


def test_update_core_memory_full_core_refused_before_any_llm_call(vault_dir) -> None:
    vault = Vault(vault_dir, replace(Settings(), hot=HotSettings(cap_lines=12)))
    api = ScriptedAPI([])
    llm = get_llm(fast_settings(), client=api.client())
    args = {"section": "Identity", "text": "I am memctl"}
    result = call_tool(vault, "update_core_memory", args, now=NOW, llm=llm)
    assert result["error"]["type"] == "refused"
    assert "cap 12" in result["error"]["message"] and "archive" in result["error"]["message"]
    assert api.requests == []


def test_update_core_memory_over_cap_after_review_is_refused(vault_dir) -> None:
    vault = Vault(vault_dir, replace(Settings(), hot=HotSettings(cap_lines=13)))
    before = vault.core_path.read_bytes()
    llm = get_llm(
        fast_settings(), client=ScriptedAPI([_approve("I am memctl", "Identity")]).client()
    )
    args = {"section": "Identity", "text": "I am memctl"}
    result = call_tool(vault, "update_core_memory", args, now=NOW, llm=llm)
    assert result["error"]["type"] == "refused"
    assert "cap of 13" in result["error"]["message"]
    assert vault.core_path.read_bytes() == before
