"""Issue 16: search and show as of a past commit (a vault with three commits)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.errors import UsageError
from memctl.memory import init_vault
from memctl.search.as_of import KEEP_SNAPSHOTS, resolve, search_as_of
from memctl.vault import Vault

ENV = {"MEMCTL_NOW": "2026-11-22T09:30:00"}


def _commit(root: Path, message: str, when: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True, env=env)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """Sept: rollout by region; Oct: rollout paused; Nov: rollout by percentage, core edited."""
    root = tmp_path_factory.mktemp("history") / "vault"
    init_vault(root)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    decisions = root / "memory" / "decisions.md"
    decisions.write_text(
        "# Decisions\n\n## 2026-09-10 — Rollout by region\n\nThe rollout goes region by region.\n"
    )
    _commit(root, "september", "2026-09-10T12:00:00")
    (root / "memory" / "daily").mkdir(exist_ok=True)
    (root / "memory" / "daily" / "2026-10-01.md").write_text(
        "# 2026-10-01\n\n- 10:00 The rollout is paused until the zebra audit ends.\n"
    )
    _commit(root, "october", "2026-10-01T18:00:00")
    decisions.write_text(
        decisions.read_text()
        + "\n## 2026-11-15 — Rollout by percentage\n\nThe rollout now goes 1%, 10%, 100%.\n"
    )
    core = root / "memory" / "core.md"
    core.write_text(core.read_text() + "\n- Rollout owner: Dana\n")
    _commit(root, "november", "2026-11-15T09:00:00")
    return Vault(root)


def test_resolve_dates_and_revisions(history: Vault) -> None:
    sept = resolve(history, "2026-09-30")
    octo = resolve(history, "2026-10-01")  # the day's own commits count
    assert sept.commit != octo.commit
    assert resolve(history, "HEAD~1").commit == octo.commit
    assert resolve(history, "2030-01-01").commit == resolve(history, "HEAD").commit
    with pytest.raises(UsageError, match="precedes the vault's git history"):
        resolve(history, "2026-01-01")
    with pytest.raises(UsageError, match="not a real date"):
        resolve(history, "2026-02-30")
    with pytest.raises(UsageError):
        resolve(history, "no-such-branch")


def test_search_answers_from_the_past(history: Vault) -> None:
    past = search_as_of(history, "2026-10-01", "zebra audit rollout paused")
    assert past.results and past.results[0].path == "memory/daily/2026-10-01.md"
    assert past.as_of == {"as_of": "2026-10-01", "commit": resolve(history, "2026-10-01").commit}
    before = search_as_of(history, "2026-09-15", "rollout percentage", use_floor=False)
    assert not any("1%, 10%" in r.snippet for r in before.results)
    now = search_as_of(history, "HEAD", "rollout percentage")
    assert any("1%, 10%" in r.snippet for r in now.results)
    # The snapshot is built once and reused, under .memctl/, not in memory/.
    snaps = list((history.state_dir / "as-of").iterdir())
    assert len(snaps) == 3
    again = search_as_of(history, "2026-10-01", "zebra")
    assert again.results and len(list((history.state_dir / "as-of").iterdir())) == 3
    assert KEEP_SNAPSHOTS >= 3


def test_cli_search_and_show_as_of(history: Vault) -> None:
    runner = CliRunner()
    out = runner.invoke(
        app,
        ["--vault", str(history.root), "search", "zebra audit", "--as-of", "2026-10-02", "--json"],
        env=ENV,
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["as_of"] == "2026-10-02" and len(data["commit"]) == 40
    assert data["results"][0]["path"] == "memory/daily/2026-10-01.md"
    core_then = runner.invoke(
        app, ["--vault", str(history.root), "show", "core", "--as-of", "2026-10-01", "--json"]
    )
    assert core_then.exit_code == 0, core_then.output
    then = json.loads(core_then.stdout)
    assert "Rollout owner" not in then["parts"][0]["text"] and then["as_of"] == "2026-10-01"
    core_now = runner.invoke(app, ["--vault", str(history.root), "show", "core", "--as-of", "HEAD"])
    assert "Rollout owner: Dana" in core_now.stdout
    early = runner.invoke(
        app, ["--vault", str(history.root), "search", "x", "--as-of", "2025-01-01"], env=ENV
    )
    assert early.exit_code == 2 and "precedes" in early.stderr
    missing = runner.invoke(
        app,
        [
            "--vault",
            str(history.root),
            "show",
            "memory/daily/2026-10-01.md",
            "--as-of",
            "2026-09-20",
        ],
    )
    assert missing.exit_code == 2 and "did not exist" in missing.stderr


def test_not_a_git_repository_is_a_clear_error(vault_dir: Path, runner: CliRunner) -> None:
    out = runner.invoke(app, ["--vault", str(vault_dir), "search", "x", "--as-of", "2026-10-01"])
    assert out.exit_code == 2 and "needs a git repository" in out.stderr


def test_search_memory_tool_as_of(history: Vault) -> None:
    from memctl.agent.tools import call_tool

    past = call_tool(history, "search_memory", {"query": "zebra audit", "as_of": "2026-10-02"})
    assert past["ok"], past
    assert past["as_of"] == "2026-10-02" and past["commit"] == resolve(history, "2026-10-01").commit
    assert past["results"][0]["path"] == "memory/daily/2026-10-01.md"
    before = call_tool(
        history, "search_memory", {"query": "rollout percentage", "as_of": "2026-09-15"}
    )
    assert before["ok"] and not any("1%, 10%" in r["snippet"] for r in before["results"])
    live = call_tool(history, "search_memory", {"query": "zebra audit"})
    assert live["ok"] and "as_of" not in live and "commit" not in live
    early = call_tool(history, "search_memory", {"query": "x", "as_of": "2025-01-01"})
    assert not early["ok"] and early["error"]["type"] == "refused"
    assert "precedes" in early["error"]["message"]
    flag = call_tool(history, "search_memory", {"query": "x", "as_of": "--output=/tmp/x"})
    assert not flag["ok"] and "not a date or a git revision" in flag["error"]["message"]
