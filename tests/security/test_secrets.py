"""Item 3: secrets are found (new formats), redacted in every report, and caught at write time."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.agent.tools import call_tool
from memctl.cli import app
from memctl.memory import init_vault
from memctl.secrets import find_secrets, redact_text
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import write

GITHUB = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
URL_PASSWORD = "postgres://admin:Sup3rS3cretPw@db.internal/app"
NOW = datetime(2026, 11, 22, 9, 30)


@pytest.mark.parametrize(
    "line,secret",
    [
        ("gitlab token glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCdEfGhIjKlMnOpQrSt"),
        ("npm publish token npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "npm_AbCdEfGhIjKl"),
        ("run mysql -u root -pS3cretPass42 orbit", "S3cretPass42"),
        ("mysqldump --password=S3cretPass42 orbit", "S3cretPass42"),
        ("the staging password is Orbit2026!", "Orbit2026!"),
        ("The password was hunter22 until Monday", "hunter22"),
        ("wifi passphrase: 'correct horse battery staple'", "correct horse battery"),
        ('the password is "blue sky 42 over"', "blue sky 42"),
        ("пароль от стенда — Kx9qq2zz", "Kx9qq2zz"),
        ("пароль: «синий кит 42»", "синий кит 42"),
        ("הסיסמה היא Orbit2026", "Orbit2026"),
        ("סיסמה: 'שמש ירח 42'", "שמש ירח 42"),
    ],
)
def test_detector_gaps_are_closed(line: str, secret: str) -> None:
    hits = find_secrets(f"# note\n{line}\n")
    assert hits and hits[0].line == 2, line
    assert secret not in redact_text(line)
    assert all(secret not in h.preview for h in hits)


BENIGN = [
    "the password is stored in the vault manager",
    "the password is in 1Password",
    "password was changed yesterday by Dana",
    "mysql -u root -p orbit   (it prompts)",
    "mysql -h db -P 3306 -u app -p",
    "reset the passphrase: ask Irina",
    "пароль хранится в менеджере",
    "пароль был изменён вчера",
    "הסיסמה נמצאת בכספת",
    "הסיסמה היא בכספת של הצוות",
    "npm install left-pad; npm_config_cache is set in CI",
    "glpat tokens rotate every 90 days",
    'we said "password" three times in the retro',
]


@pytest.mark.parametrize("line", BENIGN)
def test_no_false_positive(line: str) -> None:
    assert find_secrets(line) == [], line
    assert redact_text(line) == line


def test_fixture_and_demo_vaults_are_clean(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    demo = tmp_path / "demo"
    init_vault(demo)
    subprocess.run(
        [sys.executable, str(root / "scripts/demo_notes.py"), str(demo)],
        check=True,
        capture_output=True,
    )
    files = [*(root / "tests/search/fixture_vault").rglob("*.md"), *demo.rglob("*.md")]
    assert len(files) > 10
    for path in files:
        assert find_secrets(path.read_text("utf-8")) == [], path


def test_lint_and_maintain_never_print_a_secret(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    line = f"- deploy uses {GITHUB} and {URL_PASSWORD} for the orbit billing migration"
    write(vault, "memory/core.md", read_text(vault.core_path) + line + "\n" + "- x\n" * 120)
    write(vault, "memory/daily/2026-11-21.md", f"# 2026-11-21\n\n{line}\n")
    write(vault, "memory/archive/old.md", f"# old\n\n{line} again\n")
    write(
        vault,
        "memory/daily/2026-11-22.md",
        f"# 2026-11-22\n\n- 10:00 never deploy with {GITHUB} on fridays\n"
        f"- 11:00 always deploy with {GITHUB} on fridays\n",
    )
    args = ["--vault", str(vault.root)]
    outputs = []
    for command in (
        ["lint"],
        ["lint", "--json"],
        ["maintain", "--no-embed"],
        ["maintain", "--no-embed", "--json"],
    ):
        result = runner.invoke(app, [*args, *command])
        assert result.exit_code == 1, result.output
        outputs.append(result.output)
        if "--json" in command:
            json.loads(result.stdout)
    report = json.loads(runner.invoke(app, [*args, "lint", "--json"]).stdout)
    assert {"near-duplicate", "contradiction", "hot-over-cap", "secret"} <= {
        f["code"] for f in report["findings"]
    }
    for output in outputs:
        assert "abcdefghijklmnop" not in output
        assert "Sup3rS3cret" not in output


def test_add_warns_by_default(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    result = runner.invoke(app, ["--vault", str(vault.root), "add", f"token {GITHUB}"])
    assert result.exit_code == 0
    assert "GitHub token" in result.stderr and GITHUB not in result.stderr
    assert GITHUB in read_text(vault.root / "memory/daily/2026-11-22.md")
    remembered = call_tool(vault, "remember", {"text": "db " + URL_PASSWORD}, now=NOW)
    assert remembered["ok"] and any("password" in n for n in remembered["notices"])
    assert "Sup3rS3cret" not in json.dumps(remembered)


def test_refuse_mode_writes_nothing(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    (vault.root / ".memctl.toml").write_text('[security]\nsecrets = "refuse"\n', "utf-8")
    before = read_text(vault.core_path)
    result = runner.invoke(
        app, ["--vault", str(vault.root), "add", "--decision", "Keys", f"token {GITHUB}"]
    )
    assert result.exit_code == 2 and "refuse" in result.output and GITHUB not in result.output
    assert "Keys" not in read_text(vault.decisions_path)
    vault = Vault(vault.root)
    for name, args in (
        ("remember", {"text": "the staging password is Orbit2026!"}),
        ("update_core_memory", {"section": "Iron rules", "text": f"use {GITHUB}"}),
    ):
        out = call_tool(vault, name, args, now=NOW)
        assert not out["ok"] and out["error"]["type"] == "refused", out
        assert "Orbit2026" not in json.dumps(out) and GITHUB not in json.dumps(out)
    assert read_text(vault.core_path) == before
    assert not (vault.root / "memory/daily/2026-11-22.md").exists()


def test_bad_setting_is_a_usage_error(vault: Vault, runner: CliRunner) -> None:
    (vault.root / ".memctl.toml").write_text('[security]\nsecrets = "maybe"\n', "utf-8")
    result = runner.invoke(app, ["--vault", str(vault.root), "add", f"x {GITHUB}"])
    assert result.exit_code == 2 and "[security] secrets" in result.output
