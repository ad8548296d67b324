"""promote: candidates from real references in the index, review, apply under the cap."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.lifecycle import evidence
from memctl.lifecycle.promote import propose_promotions, review_promotions
from memctl.lifecycle.proposals import ProposalBook
from memctl.llm import get_llm
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import write
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

NOW = datetime(2026, 11, 22, 9, 30)
NOTE = "# 2026-11-20\n\n- 10:00 Никогда не запускать миграции в пятницу\n\n## Other\n\n- 11:00 lunch with Noa\n"


def referenced(vault: Vault, times: int, *, days_ago: int = 1) -> str:
    """Index the vault and log `times` search references to the Russian rule; returns its hash."""
    write(vault, "memory/daily/2026-11-20.md", NOTE)
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        row = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE text LIKE '%миграции%'"
        ).fetchone()
        for i in range(times):
            store.record_references(
                [(row[0], row[1])], "search", "миграции", NOW - timedelta(days=days_ago, hours=i)
            )
    return row[0]


def promote(runner: CliRunner, vault: Vault, *args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["--vault", str(vault.root), "promote", "--json", *args])


def test_threshold_and_window(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    referenced(vault, 3)
    assert json.loads(promote(runner, vault).stdout)["proposals"] == []
    with Store.open(vault) as store:
        row = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE text LIKE '%миграции%'"
        ).fetchone()
        store.record_references(
            [(row[0], row[1])], "context", None, NOW - timedelta(days=9)
        )  # outside window
    assert json.loads(promote(runner, vault).stdout)["proposals"] == []
    with Store.open(vault) as store:
        store.record_references([(row[0], row[1])], "tool", None, NOW - timedelta(days=2))
    [proposal] = json.loads(promote(runner, vault).stdout)["proposals"]
    assert proposal["evidence"]["references"] == 4
    assert proposal["section"] == "Iron rules"
    assert proposal["line"] == "- Никогда не запускать миграции в пятницу"
    assert proposal["path"] == "memory/daily/2026-11-20.md"


def test_auto_loaded_context_alone_proposes_nothing(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    """An agent loads recent WARM every turn: that is no sign a note deserves HOT."""
    referenced(vault, 0)
    with Store.open(vault) as store:
        rows = store.conn.execute("SELECT hash, path FROM chunks WHERE tier = 'warm'").fetchall()
        for turn in range(20):
            store.record_references(rows, "context", None, NOW - timedelta(hours=turn))
    assert json.loads(promote(runner, vault).stdout)["proposals"] == []


def test_a_busy_daily_chunk_is_narrowed_to_the_bullet_its_searches_found(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    note = (
        "# 2026-11-20\n\n- 09:00 lunch with Noa at the usual place\n"
        "- 09:30 деплой-ключ для staging лежит в 1Password, сейф Infra\n"
        "- 10:00 המפגש עם דנה נדחה ליום חמישי\n- 10:30 printer on floor 3 is broken again\n"
    )
    write(vault, "memory/daily/2026-11-20.md", note)
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        [row] = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE path = 'memory/daily/2026-11-20.md'"
        ).fetchall()
        for i, query in enumerate(
            ["деплой-ключ staging", "где ключ staging", "1Password Infra", "staging"]
        ):
            store.record_references([row], "search", query, NOW - timedelta(hours=i + 1))
    [proposal] = json.loads(promote(runner, vault).stdout)["proposals"]
    assert proposal["line"] == "- деплой-ключ для staging лежит в 1Password, сейф Infra"
    assert "lunch" in proposal["text"]  # the evidence still shows the whole chunk


def test_apply_by_id_writes_core_once(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    referenced(vault, 5)
    pid = json.loads(promote(runner, vault).stdout)["proposals"][0]["id"]
    before = read_text(vault.core_path)
    done = promote(runner, vault, "--apply", pid)
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["applied"][0]["section"] == "Iron rules"
    after = read_text(vault.core_path)
    assert after == before.replace(
        "## Iron rules\n", "## Iron rules\n\n- Никогда не запускать миграции в пятницу\n"
    )
    # The daily note is untouched (promotion copies into HOT; WARM keeps its record).
    assert read_text(vault.root / "memory/daily/2026-11-20.md") == NOTE
    again = promote(runner, vault, "--apply", pid)
    assert (
        again.exit_code == 1
        and json.loads(again.stdout)["refused"][0]["reason"] == "already applied"
    )
    assert json.loads(again.stdout)["proposals"] == []


def test_review_then_apply_approved(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    referenced(vault, 5)
    book = ProposalBook(vault)
    propose_promotions(vault, book, evidence.load_chunk_uses(vault, NOW), NOW)
    api = ScriptedAPI(
        [
            tool_message(
                {
                    "approve": True,
                    "reason": "standing rule",
                    "section": "Iron rules",
                    "line": "Миграции — никогда по пятницам",
                }
            )
        ]
    )
    reviewed = review_promotions(vault, book, get_llm(fast_settings(), client=api.client()), NOW)
    book.save()
    assert [p.status for p in reviewed] == ["approved"]
    assert "Никогда не запускать" in api.requests[0]["messages"][0]["content"]
    done = promote(runner, vault, "--apply-approved")
    assert done.exit_code == 0, done.output
    assert "- Миграции — никогда по пятницам\n" in read_text(vault.core_path)
    # Reviewed once: a second review pass asks nothing (no scripted reply is left).
    assert (
        review_promotions(
            vault, ProposalBook(vault), get_llm(fast_settings(), client=api.client()), NOW
        )
        == []
    )


def test_malformed_review_rejects_and_nothing_is_written(vault: Vault, pinned_now: str) -> None:
    referenced(vault, 5)
    book = ProposalBook(vault)
    propose_promotions(vault, book, evidence.load_chunk_uses(vault, NOW), NOW)
    before = read_text(vault.core_path)
    api = ScriptedAPI([tool_message({"approve": True})])
    [p] = review_promotions(vault, book, get_llm(fast_settings(), client=api.client()), NOW)
    assert p.status == "rejected" and "malformed" in p.review["reason"]
    assert read_text(vault.core_path) == before


def test_over_cap_is_refused_naming_lines(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    referenced(vault, 5)
    core = read_text(vault.core_path)
    filler = "".join(f"- תזכורת {i}\n" for i in range(100 - len(core.splitlines())))
    write(
        vault,
        "memory/core.md",
        core.replace("## Active project\n", "## Active project\n" + filler, 1),
    )
    lines = read_text(vault.core_path).splitlines()
    assert len(lines) == 100
    pid = json.loads(promote(runner, vault).stdout)["proposals"][0]["id"]
    refused = promote(runner, vault, "--apply", pid)
    assert refused.exit_code == 1
    reason = json.loads(refused.stdout)["refused"][0]["reason"]
    assert "over its cap of 100" in reason and "line " in reason and "תזכורת" in reason
    assert read_text(vault.core_path).splitlines() == lines


def test_review_without_key_is_one_notice(vault: Vault, runner: CliRunner, pinned_now: str) -> None:
    referenced(vault, 5)
    result = promote(runner, vault, "--review")
    assert result.exit_code == 0
    assert result.stderr.count("ANTHROPIC_API_KEY is not set") == 1
    assert json.loads(result.stdout)["proposals"][0]["status"] == "proposed"


def test_section_override_and_usage_errors(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    referenced(vault, 5)
    pid = json.loads(promote(runner, vault).stdout)["proposals"][0]["id"]
    bad = promote(runner, vault, "--apply", pid, "--section", "Hobbies")
    assert bad.exit_code == 2 and "unknown core.md section" in bad.stderr
    assert promote(runner, vault, "--apply", "P00000000").exit_code == 2
    ok = promote(
        runner,
        vault,
        "--apply",
        pid,
        "--section",
        "open blockers",
        "--text",
        "Ждём окно для миграций",
    )
    assert ok.exit_code == 0, ok.output
    assert "## Open blockers\n\n- Ждём окно для миграций\n" in read_text(vault.core_path)


@pytest.mark.parametrize("days_ago", [8])
def test_old_references_do_not_count(
    vault: Vault, runner: CliRunner, pinned_now: str, days_ago: int
) -> None:
    referenced(vault, 10, days_ago=days_ago)
    assert json.loads(promote(runner, vault).stdout)["proposals"] == []


def test_lint_does_not_flag_a_promotion_as_a_duplicate(
    vault: Vault, runner: CliRunner, pinned_now: str
) -> None:
    referenced(vault, 5)
    text = "Никогда не запускать миграции в пятницу"
    write(
        vault,
        "memory/core.md",
        read_text(vault.core_path).replace(
            "## Active project\n", f"## Active project\n\n- {text}\n"
        ),
    )
    args = ["--vault", str(vault.root), "lint", "--json"]
    assert {f["code"] for f in json.loads(runner.invoke(app, args).stdout)["findings"]} == {
        "near-duplicate"
    }
    write(vault, "memory/core.md", read_text(vault.core_path).replace(f"\n- {text}\n", "\n"))
    pid = json.loads(promote(runner, vault).stdout)["proposals"][0]["id"]
    assert promote(runner, vault, "--apply", pid).exit_code == 0
    assert json.loads(runner.invoke(app, args).stdout)["findings"] == []


def test_cli_review_and_apply_approved_in_one_run(
    vault: Vault, runner: CliRunner, pinned_now: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memctl.cli import lifecycle_cmds

    referenced(vault, 5)
    api = ScriptedAPI(
        [
            tool_message(
                {
                    "approve": True,
                    "reason": "a standing rule",
                    "section": "Iron rules",
                    "line": "No migrations on Fridays",
                }
            )
        ]
    )
    monkeypatch.setattr(
        lifecycle_cmds, "get_llm", lambda settings: get_llm(fast_settings(), client=api.client())
    )
    done = promote(runner, vault, "--review", "--apply-approved")
    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert [(p["review"]["status"], p["status"]) for p in out["reviewed"]] == [
        ("approved", "applied")
    ]
    assert out["applied"][0]["added"] == ["- No migrations on Fridays"]
    assert "## Iron rules\n\n- No migrations on Fridays\n" in read_text(vault.core_path)
