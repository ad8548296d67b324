"""The openai and command LLM providers: a real chat-completions server on 127.0.0.1 and
a real subprocess, through review, summaries and extraction's own code paths."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl import memory
from memctl.agent.capture import EXTRACT_SYSTEM, capture
from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.config import LLMSettings, Settings, settings_from_dict
from memctl.errors import UsageError
from memctl.llm import LLMError, get_llm, no_llm_notice
from memctl.llm.providers import CommandLLM, OpenAILLM, json_from_text
from memctl.vault import Vault, read_text
from tests.chat_server import ChatServer, chat_server, completion

__all__ = ["chat_server"]  # the fixture, imported to be found

VERDICT = {
    "type": "object",
    "properties": {"approve": {"type": "boolean"}, "reason": {"type": "string", "minLength": 1}},
    "required": ["approve", "reason"],
    "additionalProperties": False,
}


def _openai(base_url: str, **llm: object) -> Settings:
    fields = {"timeout_seconds": 2.0, "max_retries": 1, **llm}
    return replace(Settings(), llm=LLMSettings(provider="openai", base_url=base_url, **fields))  # type: ignore[arg-type]


@pytest.fixture
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's own config file (where the provider and its endpoint are set)."""
    path = tmp_path / "user-config" / "config.toml"
    path.parent.mkdir()
    monkeypatch.setenv("MEMCTL_CONFIG", str(path))
    return path


def _use_server(vault_dir: Path, server: ChatServer, user_config: Path) -> Vault:
    # Where memory goes is the user's choice; which model and how patient, the vault's.
    user_config.write_text(
        f'[llm]\nprovider = "openai"\nbase_url = "{server.base_url}"\n', encoding="utf-8"
    )
    (vault_dir / ".memctl.toml").write_text(
        '[llm]\nreview_model = "qwen3:4b"\nsummary_model = "qwen3:4b"\n'
        'extract_model = "qwen3:4b"\ntimeout_seconds = 5.0\nmax_retries = 1\n',
        encoding="utf-8",
    )
    return Vault(vault_dir)


# --- openai: the protocol --------------------------------------------------------------


def test_openai_without_endpoint_or_key_is_skipped_with_one_notice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = _openai("")
    assert get_llm(settings) is None
    assert no_llm_notice(settings).startswith("OPENAI_API_KEY is not set: LLM steps skipped")
    named = replace(settings, llm=replace(settings.llm, api_key_env="LOCAL_LLM_KEY"))
    assert no_llm_notice(named).startswith("LOCAL_LLM_KEY is not set")
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local")
    assert isinstance(get_llm(named), OpenAILLM)


def test_openai_json_answer_in_three_languages(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-from-env")
    chat_server.replies = [completion(json.dumps({"approve": True, "reason": "стабильно, יציב"}))]
    llm = get_llm(_openai(chat_server.base_url, api_key_env="MY_LLM_KEY"))
    assert isinstance(llm, OpenAILLM)
    answer = llm.complete_json("qwen3:4b", "You review.", "Промоутировать? מה דעתך?", VERDICT, 200)
    assert answer == {"approve": True, "reason": "стабильно, יציב"}
    sent = chat_server.requests[0]
    assert sent["model"] == "qwen3:4b" and sent["max_tokens"] == 200
    assert sent["response_format"]["json_schema"]["schema"] == VERDICT
    assert sent["messages"][0]["role"] == "system"
    assert json.dumps(VERDICT) in sent["messages"][0]["content"]
    assert sent["messages"][1] == {"role": "user", "content": "Промоутировать? מה דעתך?"}
    assert chat_server.headers[0]["authorization"] == "Bearer sk-from-env"
    assert llm.calls == 1 and (llm.usage.input_tokens, llm.usage.output_tokens) == (12, 7)


def test_openai_fenced_json_is_read_and_bad_json_is_malformed(chat_server: ChatServer) -> None:
    chat_server.replies = [
        completion('Sure:\n```json\n{"approve": false, "reason": "transient"}\n```'),
        completion("I approve."),
        completion('{"approve": "yes", "reason": "x"}'),
    ]
    llm = get_llm(_openai(chat_server.base_url))
    assert llm is not None
    assert llm.complete_json("m", "s", "p", VERDICT)["approve"] is False
    with pytest.raises(LLMError, match="malformed: not a JSON object"):
        llm.complete_json("m", "s", "p", VERDICT)
    with pytest.raises(LLMError, match="malformed: approve"):
        llm.complete_json("m", "s", "p", VERDICT)


def test_openai_retries_5xx_then_succeeds_and_gives_up_as_configured(
    chat_server: ChatServer,
) -> None:
    chat_server.replies = [500, completion("Итог: всё хорошо")]
    llm = get_llm(_openai(chat_server.base_url, max_retries=1))
    assert llm is not None
    assert llm.complete_text("m", "s", "p") == "Итог: всё хорошо"
    assert len(chat_server.requests) == 2
    chat_server.replies = [500, 503, 500]
    with pytest.raises(LLMError, match="HTTP 50"):
        llm.complete_text("m", "s", "p")
    assert len(chat_server.requests) == 4  # one try + one retry


def test_openai_timeout_truncation_and_unreachable(chat_server: ChatServer) -> None:
    llm = get_llm(_openai(chat_server.base_url, timeout_seconds=0.3, max_retries=0))
    assert llm is not None
    chat_server.replies = [1.5]
    with pytest.raises(LLMError, match="timed out"):
        llm.complete_text("m", "s", "p")
    chat_server.replies = [completion("half a sum", finish_reason="length")]
    with pytest.raises(LLMError, match="cut off"):
        llm.complete_text("m", "s", "p")
    gone = get_llm(_openai("http://127.0.0.1:9/v1", max_retries=0))
    assert gone is not None
    with pytest.raises(LLMError, match="unreachable"):
        gone.complete_text("m", "s", "p")


# --- openai: review, summaries, extraction through their own code paths ----------------


def test_update_core_memory_is_reviewed_by_the_local_model(
    chat_server: ChatServer, vault_dir: Path, user_config: Path
) -> None:
    vault = _use_server(vault_dir, chat_server, user_config)
    chat_server.replies = [
        completion(
            json.dumps(
                {"approve": True, "reason": "durable", "section": "Identity", "line": "שמי דנה"}
            )
        )
    ]
    result = call_tool(
        vault,
        "update_core_memory",
        {"section": "Identity", "text": "שמי דנה"},
        llm=get_llm(vault.settings),
    )
    assert result["ok"] is True, result
    assert "- שמי דנה" in read_text(vault.core_path)
    assert chat_server.requests[0]["model"] == "qwen3:4b"


def test_compact_summarize_cli_asks_the_local_model(
    chat_server: ChatServer, vault_dir: Path, user_config: Path
) -> None:
    _use_server(vault_dir, chat_server, user_config)
    month = vault_dir / "memory/archive/daily"
    month.mkdir(parents=True)
    (month / "2026-09-01.md").write_text("# 2026-09-01\n\n- 10:00 deployed\n", encoding="utf-8")
    (month / "2026-09-02.md").write_text("# 2026-09-02\n\n- 09:00 שלום\n", encoding="utf-8")
    chat_server.responder = lambda body: completion("- Развернули v1\n- פריסה הצליחה")
    out = CliRunner().invoke(app, ["--vault", str(vault_dir), "compact", "--summarize"])
    assert out.exit_code == 0, out.output
    assert "- Развернули v1" in read_text(vault_dir / "memory/archive/2026-09.md")
    assert chat_server.requests[0]["model"] == "qwen3:4b"
    assert "response_format" not in chat_server.requests[0]


def test_capture_extracts_with_the_local_model(
    chat_server: ChatServer, vault_dir: Path, user_config: Path
) -> None:
    vault = _use_server(vault_dir, chat_server, user_config)

    def respond(body: dict) -> dict:  # type: ignore[type-arg]
        system = body["messages"][0]["content"]
        assert system.startswith(EXTRACT_SYSTEM), system[:80]
        found = [
            {"text": "DNS живёт на Route53 с ноября", "kind": "fact", "durable": True},
        ]
        return completion(json.dumps({"memories": found}, ensure_ascii=False))

    chat_server.responder = respond
    conversation = [{"role": "user", "content": "Мы перенесли DNS на Route53. Спасибо!"}]
    llm = get_llm(vault.settings)
    assert llm is not None
    report = capture(vault, json.dumps(conversation, ensure_ascii=False), llm)
    assert [c.outcome for c in report.candidates] == ["ADD"]
    notes = memory.load_recent_daily(vault, 1)
    assert notes and "DNS живёт на Route53" in notes[0].text


# --- command: a real subprocess ---------------------------------------------------------

SCRIPT = """\
import json, sys, time
prompt = sys.stdin.read()
model = sys.argv[1]
if "FAIL" in prompt:
    sys.stderr.write("loading model\\nerror: model %s is not pulled\\n" % model)
    sys.exit(3)
if "SLOW" in prompt:
    time.sleep(5)
if "JSON schema" in prompt:
    print("```json")
    print(json.dumps({"approve": True, "reason": "модель " + model}, ensure_ascii=False))
    print("```")
else:
    print("סיכום: " + prompt.splitlines()[-1])
"""


def _command(tmp_path: Path, timeout: float = 5.0) -> Settings:
    script = tmp_path / "answer.py"
    script.write_text(SCRIPT, encoding="utf-8")
    return settings_from_dict(
        {
            "llm": {
                "provider": "command",
                "command": [sys.executable, str(script), "{model}"],
                "timeout_seconds": timeout,
            }
        }
    )


def test_command_answers_json_and_text_on_stdout(tmp_path: Path) -> None:
    llm = get_llm(_command(tmp_path))
    assert isinstance(llm, CommandLLM)
    answer = llm.complete_json("local-7b", "You review.", "Промоутировать?", VERDICT)
    assert answer == {"approve": True, "reason": "модель local-7b"}
    assert llm.complete_text("m", "Summarise.", "Итог: שלום") == "סיכום: Итог: שלום"
    assert llm.calls == 2


def test_command_failure_and_timeout_are_one_line_errors(tmp_path: Path) -> None:
    # The failing command gets time to start: on a loaded machine Python's own start-up
    # took longer than 0.5 s and the failure read as a timeout.
    llm = get_llm(_command(tmp_path, timeout=60))
    assert llm is not None
    with pytest.raises(LLMError) as failed:
        llm.complete_text("qwen", "s", "FAIL")
    assert str(failed.value) == "LLM command failed (exit 3): error: model qwen is not pulled"
    slow = get_llm(_command(tmp_path, timeout=0.5))
    assert slow is not None
    with pytest.raises(LLMError, match=r"timed out after 0\.5 s"):
        slow.complete_text("m", "s", "SLOW")


def test_command_not_installed_is_skipped_with_one_notice() -> None:
    settings = settings_from_dict(
        {"llm": {"provider": "command", "command": ["no-such-llm-cli-h33c", "-p"]}}
    )
    assert get_llm(settings) is None
    assert "'no-such-llm-cli-h33c' is not found: LLM steps skipped" in no_llm_notice(settings)


def test_json_from_text_reads_what_models_write() -> None:
    assert json_from_text('{"a": 1}') == {"a": 1}
    assert json_from_text('Вот ответ: {"a": "ב"} — готово') == {"a": "ב"}
    with pytest.raises(LLMError):
        json_from_text("no json here")


# --- configuration ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("llm", "message"),
    [
        ({"provider": "gpt"}, 'provider must be "anthropic", "openai" or "command"'),
        ({"provider": "command"}, 'provider "command" needs command'),
        ({"command": ["claude", " "]}, "command must not hold a blank argument"),
        ({"command": "claude -p"}, "command must be a list of strings"),
        ({"api_key_env": "sk-proj-abc123"}, "api_key_env must name an environment variable"),
        ({"base_url": "localhost:11434"}, "base_url must be an http:// or https:// address"),
        ({"base_url": "https://me:pw@llm.example/v1"}, "base_url holds a user or password"),
        ({"temperature": 0.2}, "unknown setting [llm] temperature"),
    ],
)
def test_llm_settings_are_checked(llm: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(UsageError) as info:
        settings_from_dict({"llm": llm})
    assert message in str(info.value)
    assert "sk-proj-abc123" not in str(info.value) and "pw@" not in str(info.value)


def test_cli_names_the_missing_openai_key_once(
    runner: CliRunner, vault_dir: Path, user_config: Path
) -> None:
    user_config.write_text('[llm]\nprovider = "openai"\n', encoding="utf-8")
    out = runner.invoke(app, ["--vault", str(vault_dir), "promote", "--review"])
    assert out.exit_code == 0, out.output
    assert out.stderr.count("OPENAI_API_KEY is not set: LLM steps skipped") == 1


# --- a vault cloned from someone else chooses none of it --------------------------------


@pytest.mark.parametrize(
    "setting",
    [
        '[llm]\nprovider = "command"\ncommand = ["sh", "-c", "touch {mark}"]\n',
        '[llm]\ncommand = ["sh", "-c", "touch {mark}"]\n',
        '[llm]\nprovider = "openai"\nbase_url = "{url}"\n',
        '[llm]\nbase_url = "{url}"\n',
        '[llm]\napi_key_env = "AWS_SECRET_ACCESS_KEY"\n',
    ],
)
def test_a_cloned_vault_cannot_choose_the_llm(
    setting: str,
    chat_server: ChatServer,
    vault_dir: Path,
    user_config: Path,
    tmp_path: Path,
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its committed .memctl.toml naming a command, an endpoint or the variable to send as
    the key: every command refuses in one line, nothing runs, nothing is sent."""
    mark = tmp_path / "ran"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    (vault_dir / ".memctl.toml").write_text(
        setting.format(mark=mark, url=chat_server.base_url), encoding="utf-8"
    )
    for args in (["promote", "--review"], ["search", "x"], ["compact", "--summarize"]):
        out = runner.invoke(app, ["--vault", str(vault_dir), *args])
        assert out.exit_code == 2, out.output
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "is read only from your own config" in lines[0], out.stderr
        assert str(user_config) in lines[0]
        assert "Traceback" not in out.output
    assert not mark.exists()
    assert chat_server.requests == []


def test_the_users_own_config_sets_the_provider_and_the_vault_the_rest(
    vault_dir: Path, user_config: Path
) -> None:
    user_config.write_text(
        '[llm]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'review_model = "user-model"\n[search]\nsnippet_tokens = 150\n',
        encoding="utf-8",
    )
    (vault_dir / ".memctl.toml").write_text(
        '[llm]\nreview_model = "vault-model"\n', encoding="utf-8"
    )
    settings = Vault(vault_dir).settings
    assert (settings.llm.provider, settings.llm.base_url) == ("openai", "http://127.0.0.1:9/v1")
    assert settings.llm.review_model == "vault-model"  # the vault's file wins where it may
    assert settings.search.snippet_tokens == 150  # the user's default for every vault


def test_the_users_config_errors_name_it(
    vault_dir: Path, user_config: Path, runner: CliRunner
) -> None:
    user_config.write_text('[llm]\nprovider = "gpt"\n', encoding="utf-8")
    out = runner.invoke(app, ["--vault", str(vault_dir), "status"])
    assert out.exit_code == 2
    assert out.stderr.strip() == (
        f'memctl: error: {user_config}: [llm] provider must be "anthropic", "openai" or "command"'
    ), out.stderr
    user_config.write_text("[llm\n", encoding="utf-8")
    out = runner.invoke(app, ["--vault", str(vault_dir), "status"])
    assert out.exit_code == 2 and f"{user_config}: invalid TOML" in out.stderr
