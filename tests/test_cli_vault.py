"""init, add, show, status through the CLI, in-process and as the installed entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app

MEMCTL = str(Path(sys.executable).with_name("memctl"))


def run(runner: CliRunner, vault_dir: Path, *args: str, input: str | None = None):
    return runner.invoke(app, ["--vault", str(vault_dir), *args], input=input)


def test_init_creates_then_never_overwrites(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "agent"
    first = runner.invoke(app, ["init", str(target), "--json"])
    assert first.exit_code == 0, first.output
    created = json.loads(first.stdout)["created"]
    assert "memory/core.md" in created and ".gitignore" in created
    (target / "memory/core.md").write_text("# mine\n")
    second = runner.invoke(app, ["init", str(target), "--json"])
    assert json.loads(second.stdout)["created"] == []
    assert (target / "memory/core.md").read_text() == "# mine\n"


def test_init_git_makes_first_commit(runner: CliRunner, tmp_path: Path) -> None:
    target = tmp_path / "agent"
    result = runner.invoke(app, ["init", str(target), "--git"])
    assert result.exit_code == 0, result.output
    log = subprocess.run(
        ["git", "log", "--oneline"], cwd=target, capture_output=True, text=True, check=True
    )
    assert "memctl: new vault" in log.stdout
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=target, capture_output=True, text=True, check=True
    ).stdout
    assert "memory/core.md" in tracked


def test_add_note_in_three_languages(runner: CliRunner, vault_dir: Path, pinned_now: str) -> None:
    for text in ("deploy blocked on DNS", "הפריסה נתקעה על DNS", "деплой застрял на DNS"):
        assert run(runner, vault_dir, "add", text).exit_code == 0
    note = (vault_dir / "memory/daily/2026-11-22.md").read_text(encoding="utf-8")
    assert note == (
        "# 2026-11-22\n\n"
        "- 09:30 deploy blocked on DNS\n"
        "- 09:30 הפריסה נתקעה על DNS\n"
        "- 09:30 деплой застрял на DNS\n"
    )


def test_add_from_stdin_to_another_day(runner: CliRunner, vault_dir: Path, pinned_now: str) -> None:
    result = run(
        runner, vault_dir, "add", "-", "--date", "2026-11-20", input="from stdin\nline two\n"
    )
    assert result.exit_code == 0, result.output
    text = (vault_dir / "memory/daily/2026-11-20.md").read_text()
    assert text.endswith("- 09:30 from stdin\n  line two\n")


def test_add_keeps_a_file_without_trailing_newline(runner: CliRunner, vault_dir: Path) -> None:
    path = vault_dir / "memory/daily/2026-11-21.md"
    path.write_text("# 2026-11-21\n\n- 08:00 hand written, no newline")
    run(runner, vault_dir, "add", "--date", "2026-11-21", "next")
    lines = path.read_text().splitlines()
    assert lines[2] == "- 08:00 hand written, no newline"
    assert lines[3].endswith(" next")


def test_add_decision_and_show_decisions(
    runner: CliRunner, vault_dir: Path, pinned_now: str
) -> None:
    result = run(runner, vault_dir, "add", "--decision", "Use SQLite", "One file; WAL is enough.")
    assert result.exit_code == 0, result.output
    text = (vault_dir / "memory/decisions.md").read_text()
    assert "## 2026-11-22 — Use SQLite\n\nOne file; WAL is enough.\n" in text
    shown = json.loads(run(runner, vault_dir, "show", "decisions", "--json").stdout)
    assert shown["parts"][0]["text"].startswith("## 2026-11-22 — Use SQLite")


def test_show_warm_is_two_daily_notes_and_recent_decisions(
    runner: CliRunner, vault_dir: Path, pinned_now: str
) -> None:
    for day in ("2026-11-18", "2026-11-20", "2026-11-21", "2026-11-22"):
        run(runner, vault_dir, "add", "--date", day, f"note of {day}")
    for n in range(25):
        run(
            runner,
            vault_dir,
            "add",
            "--decision",
            f"decision {n}",
            "why",
        )
    shown = json.loads(run(runner, vault_dir, "show", "warm", "--json").stdout)
    paths = [p["path"] for p in shown["parts"]]
    assert paths[:2] == ["memory/daily/2026-11-21.md", "memory/daily/2026-11-22.md"]
    assert len(paths) == 2 + 20
    # Newest decision first; ties in date keep the later entry first.
    assert "decision 24" in shown["parts"][2]["text"]


def test_show_core_plain_text(runner: CliRunner, vault_dir: Path) -> None:
    result = run(runner, vault_dir, "show", "core")
    assert result.exit_code == 0
    assert "## Iron rules" in result.stdout


def test_status_json_without_index(runner: CliRunner, vault_dir: Path, pinned_now: str) -> None:
    run(runner, vault_dir, "add", "a note")
    result = run(runner, vault_dir, "status", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["hot"]["cap"] == 100 and report["hot"]["over_cap"] is False
    assert report["warm"]["daily_files"] == 1 and report["warm"]["today_exists"] is True
    assert report["cold"]["files"] == 0
    assert report["index"]["exists"] is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["add", ""], "empty text"),
        (["add", "   "], "empty text"),
        (["add", "x", "--date", "2026-02-30"], "is not a date"),
        (["add", "--decision", " ", "body"], "needs a title"),
        (["show", "yesterday"], "unknown tier"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(
    runner: CliRunner, vault_dir: Path, args: list[str], message: str
) -> None:
    before = {p: p.read_bytes() for p in vault_dir.rglob("*") if p.is_file()}
    result = run(runner, vault_dir, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
    after = {p: p.read_bytes() for p in vault_dir.rglob("*") if p.is_file()}
    assert after == before


def test_non_utf8_core_is_shown_with_a_notice(runner: CliRunner, vault_dir: Path) -> None:
    (vault_dir / "memory/core.md").write_bytes(b"# core\n\xff\n")
    result = run(runner, vault_dir, "show", "core")
    assert result.exit_code == 0
    assert "# core" in result.stdout and "\ufffd" in result.stdout
    assert "core.md: not valid UTF-8 at byte 7" in result.stderr


def test_missing_vault_via_entry_point(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MEMCTL_VAULT"}
    done = subprocess.run([MEMCTL, "status"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert done.returncode == 2
    assert done.stderr.startswith("memctl: error: no vault found")
    assert "Traceback" not in done.stderr


def test_env_var_discovery_via_entry_point(vault_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "MEMCTL_VAULT": str(vault_dir), "MEMCTL_NOW": "2026-11-22T10:00:00"}
    done = subprocess.run(
        [MEMCTL, "add", "via env"], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "- 10:00 via env" in (vault_dir / "memory/daily/2026-11-22.md").read_text()


def test_concurrent_adds_from_two_processes_all_land(vault_dir: Path) -> None:
    env = {**os.environ, "MEMCTL_VAULT": str(vault_dir), "MEMCTL_NOW": "2026-11-22T10:00:00"}
    script = (
        "import sys\n"
        "from memctl.memory import add_note\n"
        "from memctl.vault import find_vault\n"
        "v = find_vault()\n"
        "for i in range(40):\n"
        "    add_note(v, f'{sys.argv[1]}-{i}')\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, name], env=env) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    lines = (vault_dir / "memory/daily/2026-11-22.md").read_text().splitlines()
    written = sorted(line.split(" ", 2)[2] for line in lines if line.startswith("- "))
    assert written == sorted(f"{n}-{i}" for n in ("a", "b") for i in range(40))


def test_option_in_the_wrong_place_is_a_usage_error(runner: CliRunner, vault_dir: Path) -> None:
    # --vault is global: after the command it is an unknown option, reported as usage (exit 2).
    result = runner.invoke(app, ["status", "--vault", str(vault_dir)])
    assert result.exit_code == 2
    assert "No such option: --vault" in result.output
    assert "internal error" not in result.output
