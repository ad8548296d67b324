"""memctl install: merged into each agent's configuration, backed up, diffed, undone exactly."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl import clock
from memctl.agent.install_targets import is_ours
from memctl.cli import app
from memctl.vault import Vault
from tests.agent.transcripts import write_codex_session, write_transcript
from tests.processes import MEMCTL

# What a user already has in each file: other servers, other hooks, their own layout.
EXISTING: dict[str, dict[str, str]] = {
    "claude-code": {
        ".mcp.json": '{\n    "mcpServers": {"github": {"command": "gh-mcp", "args": []}}\n}\n',
        ".claude/settings.json": (
            '{\n  "permissions": {"allow": ["Bash(ls)"]},\n'
            '  "hooks": {"SessionStart": [{"hooks": [{"type": "command", '
            '"command": "echo שלום"}]}]}\n}\n'
        ),
    },
    "codex": {
        ".codex/config.toml": (
            '# my Codex setup\nmodel = "gpt-5"  # the default\n\n'
            '[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["--ro"]\n'
        ),
        ".codex/hooks.json": '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n',
    },
    "cursor": {
        ".cursor/mcp.json": '{"mcpServers": {"пример": {"url": "http://localhost:9/mcp"}}}\n',
        ".cursor/hooks.json": '{\n\t"version": 1,\n\t"hooks": {"stop": [{"command": "./audit.sh"}]}\n}\n',
    },
    "gemini": {
        ".gemini/settings.json": (
            '{\n  "theme": "GitHub",\n  "mcpServers": {"x": {"httpUrl": "http://h/mcp"}},\n'
            '  "hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "lint"}]}]}\n}\n'
        ),
    },
}


def _install(
    runner: CliRunner, vault: Vault, target: str, *extra: str, scope: str = "project"
) -> tuple[int, str, str]:
    args = ["--vault", str(vault.root), "install", "--target", target, "--scope", scope, *extra]
    result = runner.invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project folder (the working directory) and a home folder."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    return project, home


def _write(base: Path, files: dict[str, str]) -> dict[Path, bytes]:
    written = {}
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written[path] = path.read_bytes()
    return written


def _load(path: Path) -> dict[str, object]:
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("target", ["claude-code", "codex", "cursor", "gemini"])
def test_install_merges_backs_up_and_uninstall_restores_every_byte(
    runner: CliRunner, vault: Vault, places: tuple[Path, Path], target: str
) -> None:
    project, _ = places
    before = _write(project, EXISTING[target])

    code, out, err = _install(runner, vault, target, "--dry-run")
    assert code == 0, err
    assert "+++" in out and "memctl" in out and "hook session-start" in out
    assert {p: p.read_bytes() for p in before} == before  # --dry-run wrote nothing
    assert not any(p.name.endswith(".memctl-backup") for p in project.rglob("*"))

    code, _, err = _install(runner, vault, target)
    assert code == 0, err
    for path, old in before.items():
        assert Path(str(path) + ".memctl-backup").read_bytes() == old
        data, was = _load(path), _load_bytes(path, old)
        _assert_kept(was, data)  # every key the user had is still there, unchanged
    text = "".join(p.read_text(encoding="utf-8") for p in before)
    assert str(vault.root) in text and "hook session-start" in text

    code, _, err = _install(runner, vault, target)  # again: nothing changes
    assert code == 0 and "unchanged" in err

    code, _, err = _install(runner, vault, target, "--uninstall")
    assert code == 0, err
    assert {p: p.read_bytes() for p in before} == before
    assert not any(p.name.endswith(".memctl-backup") for p in project.rglob("*"))


def _load_bytes(path: Path, data: bytes) -> dict[str, object]:
    if path.suffix == ".toml":
        return tomllib.loads(data.decode())
    loaded: dict[str, object] = json.loads(data)
    return loaded


def _assert_kept(was: object, now: object) -> None:
    """Everything in `was` is in `now`: dict keys recursively, list items as a prefix."""
    if isinstance(was, dict):
        assert isinstance(now, dict)
        for key, value in was.items():
            assert key in now
            _assert_kept(value, now[key])
    elif isinstance(was, list):
        assert isinstance(now, list) and now[: len(was)] == was
    else:
        assert now == was


def test_codex_toml_keeps_comments_and_layout(
    runner: CliRunner, vault: Vault, places: tuple[Path, Path]
) -> None:
    project, _ = places
    _write(project, EXISTING["codex"])
    code, _, err = _install(runner, vault, "codex")
    assert code == 0, err
    text = (project / ".codex" / "config.toml").read_text()
    assert text.startswith(EXISTING["codex"][".codex/config.toml"])  # appended, not rewritten
    server = tomllib.loads(text)["mcp_servers"]["memctl"]
    assert server["args"] == ["--vault", str(vault.root), "mcp"]


def test_files_it_creates_are_deleted_by_uninstall(
    runner: CliRunner, vault: Vault, places: tuple[Path, Path]
) -> None:
    project, home = places
    code, _, err = _install(runner, vault, "claude-code", scope="user")
    assert code == 0, err
    assert (home / ".claude.json").is_file() and (home / ".claude" / "settings.json").is_file()
    assert not list(project.iterdir())
    code, _, err = _install(runner, vault, "claude-code", "--uninstall", scope="user")
    assert code == 0, err
    assert not (home / ".claude.json").exists()
    assert not (home / ".claude" / "settings.json").exists()


def test_uninstall_after_other_edits_removes_only_memctls_entries(
    runner: CliRunner, vault: Vault, places: tuple[Path, Path]
) -> None:
    project, _ = places
    _write(project, EXISTING["gemini"])
    assert _install(runner, vault, "gemini")[0] == 0
    path = project / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    data["theme"] = "Dracula"  # the user changed something meanwhile
    path.write_text(json.dumps(data))
    assert _install(runner, vault, "gemini", "--uninstall")[0] == 0
    after = json.loads(path.read_text())
    assert after["theme"] == "Dracula"
    assert "memctl" not in after["mcpServers"] and "x" in after["mcpServers"]
    assert list(after["hooks"]) == ["BeforeAgent"]
    assert not any(is_ours(h["command"]) for g in after["hooks"]["BeforeAgent"] for h in g["hooks"])


@pytest.mark.parametrize(
    ("rel", "text", "said"),
    [
        (".claude/settings.json", '{"hooks": ', "not valid JSON"),
        (".claude/settings.json", "[]", "does not hold a JSON object"),
        (".claude/settings.json", '{"hooks": []}', "hooks is not a JSON object"),
        (".mcp.json", b"\xff{}", "not valid UTF-8"),
    ],
)
def test_a_broken_config_is_refused_in_one_line_and_nothing_is_written(
    runner: CliRunner,
    vault: Vault,
    places: tuple[Path, Path],
    rel: str,
    text: str | bytes,
    said: str,
) -> None:
    project, _ = places
    path = project / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    listing = sorted(project.rglob("*"))
    code, _, err = _install(runner, vault, "claude-code")
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and said in err, err
    assert sorted(project.rglob("*")) == listing  # the other file was not written either


def test_bad_options_are_usage_errors(runner: CliRunner, vault: Vault) -> None:
    assert _install(runner, vault, "vim")[0] == 2
    code, _, err = _install(runner, vault, "codex", scope="system")
    assert code == 2 and "--scope 'system'" in err


# Per target: the hooks file install writes (under the project, or the home for Codex), its
# session-start and prompt events, and where the context is in the hook's output.
E2E = {
    "claude-code": (".claude/settings.json", "SessionStart", "UserPromptSubmit"),
    "codex": ("HOME/.codex/hooks.json", "SessionStart", "UserPromptSubmit"),
    "gemini": (".gemini/settings.json", "SessionStart", "BeforeAgent"),
    "cursor": (".cursor/hooks.json", "sessionStart", None),
}


def _commands(groups: list[dict[str, object]]) -> list[str]:
    found = []
    for group in groups:
        inner = group.get("hooks", [group])
        assert isinstance(inner, list)
        found += [str(h["command"]) for h in inner]
    return found


@pytest.mark.parametrize("target", list(E2E))
def test_end_to_end_the_installed_hooks_answer_as_each_agent_expects(
    vault: Vault,
    places: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:
    """Install, then run the very commands the agent would run, in a session's order."""
    project, home = places
    # The memctl on PATH is what install writes into the hooks (this checkout's).
    monkeypatch.setenv("PATH", f"{Path(MEMCTL).parent}{os.pathsep}{os.environ['PATH']}")
    runner.invoke(app, ["--vault", str(vault.root), "add", "Dana prefers SQLite, חד-משמעית"])
    assert (
        runner.invoke(app, ["--vault", str(vault.root), "install", "--target", target]).exit_code
        == 0
    )
    rel, start_event, prompt_event = E2E[target]
    hooks_file = home / rel[5:] if rel.startswith("HOME/") else project / rel
    hooks = json.loads(hooks_file.read_text())["hooks"]
    env = {**os.environ, "MEMCTL_RESIDENT": "0"}
    session = {
        "session_id": "e2e",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": start_event,
        "source": "startup",
    }

    def run(command: str, payload: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            shlex.split(command), input=json.dumps(payload, ensure_ascii=False),
            capture_output=True, text=True, env=env, cwd=project, timeout=120,
        )  # fmt: skip

    [start] = _commands(hooks[start_event])
    done = run(start, session)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    if target == "cursor":
        context = answer["additional_context"]
    else:
        assert answer["hookSpecificOutput"]["hookEventName"] == start_event
        context = answer["hookSpecificOutput"]["additionalContext"]
    assert "Dana prefers SQLite, חד-משמעית" in context
    if prompt_event is None:
        assert set(hooks) == {start_event}  # Cursor's prompt hook cannot add context
        return
    [prompt] = _commands(hooks[prompt_event])
    ask = {**session, "hook_event_name": prompt_event, "prompt": "מה עם הפריסה?"}
    done = run(prompt, ask)
    assert done.returncode == 0 and done.stdout == "", done.stderr  # no archive: silence
    if "Stop" not in hooks:
        return  # Gemini CLI: capture is not registered (its transcript format is not read)
    # The turn ends: Stop captures the transcript the agent wrote, once however often it runs.
    if target == "codex":
        transcript = write_codex_session(project / "rollout-2026-11-28-e2e.jsonl")
    else:
        transcript = write_transcript(project / "e2e.jsonl")
    [stop] = _commands(hooks["Stop"])
    for _ in range(2):
        done = run(stop, {**session, "hook_event_name": "Stop", "transcript_path": str(transcript)})
        assert done.returncode == 0 and done.stdout == "", done.stderr
    note = (vault.root / "memory" / "daily" / f"{clock.today().isoformat()}.md").read_text()
    for needle in ("5433", "S3", "תל אביב"):
        assert note.count(needle) == 1, (needle, note)
    done = run(start, {**session, "source": "resume"})
    context = done.stdout
    for needle in ("5433", "S3", "תל אביב"):
        assert needle in context


def test_the_claude_code_plugin_folder_registers_the_same_hooks() -> None:
    repo = Path(__file__).resolve().parents[2]
    plugin = json.loads((repo / ".claude-plugin" / "plugin.json").read_text())
    assert plugin["name"] == "memctl" and plugin["version"]
    hooks = json.loads((repo / "hooks" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "PreCompact", "Stop"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert commands == [
        f"memctl hook {e}" for e in ("session-start", "prompt", "pre-compact", "stop")
    ]
    assert all(is_ours(c) for c in commands)
    server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["memctl"]
    assert server == {"command": "memctl", "args": ["mcp"]}
