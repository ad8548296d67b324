"""maintain end to end: moves, proposals, review once, lint, report, one git commit, idempotent."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.store import Store
from memctl.lifecycle.maintain import maintain
from memctl.llm import get_llm
from memctl.memory import init_vault
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import DECISIONS, snapshot, write
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

NOW = datetime(2026, 11, 22, 3, 0)
OLD_NOTE = "# 2026-09-01\n\n- 09:00 released v0.9\n- 10:00 שחרור הצליח\n"


@pytest.fixture
def git_vault(tmp_path: Path) -> Vault:
    root = tmp_path / "agent"
    init_vault(root, git=True)
    vault = Vault(root)
    write(vault, "memory/daily/2026-09-01.md", OLD_NOTE, datetime(2026, 9, 1, 18))
    write(vault, "memory/daily/2026-11-21.md", "# 2026-11-21\n\n- 09:00 Работаю над lifecycle\n")
    write(vault, "memory/decisions.md", DECISIONS)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "content"],
        cwd=root,
        check=True,
    )
    return vault


def git_log(vault: Vault) -> list[str]:
    out = subprocess.run(
        ["git", "log", "--format=%s"], cwd=vault.root, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def test_maintain_twice_changes_nothing_the_second_time(git_vault: Vault) -> None:
    first = maintain(git_vault, now=NOW, embed=False, commit=True)
    assert {(m["kind"], m["from"]) for m in first.moves} == {
        ("daily", "memory/daily/2026-09-01.md"),
        ("decision", "memory/decisions.md"),
    }
    assert first.exit_code == 0 and first.commit
    assert (
        git_log(git_vault)[0]
        == "memctl maintain 2026-11-22: archived 1 daily note(s), 2 superseded decision(s)"
    )
    assert read_text(git_vault.root / "memory/archive/daily/2026-09-01.md") == OLD_NOTE
    assert first.tiers["hot_lines"] == len(read_text(git_vault.core_path).splitlines())
    assert first.tiers["moves_made"] == 3 and first.tiers["warm_files"] == 2
    # The moved note stays searchable: the index holds it at its new path.
    with Store.open(git_vault) as store:
        paths = {r[0] for r in store.conn.execute("SELECT DISTINCT path FROM chunks")}
    assert (
        "memory/archive/daily/2026-09-01.md" in paths and "memory/daily/2026-09-01.md" not in paths
    )
    before = snapshot(git_vault)
    second = maintain(git_vault, now=NOW, embed=False, commit=True)
    assert second.moves == [] and second.commit is None
    assert snapshot(git_vault) == before
    assert len(git_log(git_vault)) == 3  # template, content, one maintain commit
    subprocess.run(
        ["git", "revert", "--no-edit", "HEAD"],
        cwd=git_vault.root,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
        },
    )
    assert read_text(git_vault.decisions_path) == DECISIONS  # one revert undoes the whole run


def test_review_happens_once_and_hot_lines_age(git_vault: Vault) -> None:
    core = read_text(git_vault.core_path).replace(
        "## Active project\n", "## Active project\n\n- Проект: миграция на Postgres\n"
    )
    write(git_vault, "memory/core.md", core)
    maintain(git_vault, now=NOW - timedelta(days=40), embed=False)  # first sight of the core line
    with Store.open(git_vault) as store:
        row = store.conn.execute(
            "SELECT hash, path FROM chunks WHERE text LIKE '%Работаю%'"
        ).fetchone()
        store.record_references([(row[0], row[1])] * 1, "search", "q", NOW - timedelta(hours=1))
        for hours in range(2, 6):
            store.record_references(
                [(row[0], row[1])], "tool", "load_memory:today", NOW - timedelta(hours=hours)
            )
    api = ScriptedAPI(
        [
            tool_message(
                {
                    "approve": False,
                    "reason": "transient state",
                    "section": "Active project",
                    "line": "",
                }
            )
        ]
    )
    llm = get_llm(fast_settings(), client=api.client())
    report = maintain(git_vault, now=NOW, embed=False, llm=llm)
    assert report.reviewed == 1 and len(api.requests) == 1
    assert report.promotions == []  # rejected proposals are not waiting
    assert [p["text"] for p in report.hot_archive] == ["- Проект: миграция на Postgres"]
    again = maintain(git_vault, now=NOW, embed=False, llm=llm)
    assert again.reviewed == 0 and len(api.requests) == 1


def test_archive_a_hot_line_by_id(
    git_vault: Vault, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    core = read_text(git_vault.core_path).replace(
        "## Open blockers\n", "## Open blockers\n\n- אני גרה בחיפה\n"
    )
    write(git_vault, "memory/core.md", core)
    maintain(git_vault, now=NOW - timedelta(days=31), embed=False)
    monkeypatch.setenv("MEMCTL_NOW", NOW.isoformat())
    listed = runner.invoke(app, ["--vault", str(git_vault.root), "demote", "--json"])
    [hot] = json.loads(listed.stdout)["hot"]
    done = runner.invoke(
        app, ["--vault", str(git_vault.root), "demote", "--hot", hot["id"], "--json"]
    )
    assert done.exit_code == 0, done.output
    assert "אני גרה בחיפה" not in read_text(git_vault.core_path)
    assert read_text(git_vault.root / "memory/archive/core.md").count("- אני גרה בחיפה\n") == 1


def test_prune_old_archive_chunks(
    git_vault: Vault, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        git_vault,
        "memory/archive/daily/2026-03-02.md",
        "# 2026-03-02\n\n- 09:00 старая заметка про DNS\n",
    )
    maintain(git_vault, now=NOW, embed=False)
    monkeypatch.setenv("MEMCTL_NOW", NOW.isoformat())
    listed = json.loads(
        runner.invoke(app, ["--vault", str(git_vault.root), "prune", "--json"]).stdout
    )["proposals"]
    assert {p["path"] for p in listed} == {"memory/archive/daily/2026-03-02.md"}
    done = runner.invoke(app, ["--vault", str(git_vault.root), "prune", "--apply", "--json"])
    assert done.exit_code == 0, done.output
    assert not (git_vault.root / "memory/archive/daily/2026-03-02.md").exists()
    # The 2026-09-01 note archived by maintain is younger than six months: kept.
    assert (git_vault.root / "memory/archive/daily/2026-09-01.md").exists()


def test_cli_exit_code_when_hot_over_cap(
    git_vault: Vault, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMCTL_NOW", NOW.isoformat())
    args = ["--vault", str(git_vault.root), "maintain", "--no-embed", "--json"]
    ok = runner.invoke(app, args)
    assert ok.exit_code == 0, ok.output
    assert ok.stderr.count("ANTHROPIC_API_KEY is not set") == 1
    core = read_text(git_vault.core_path) + "".join(f"- line {i}\n" for i in range(100))
    write(git_vault, "memory/core.md", core)
    over = runner.invoke(app, args)
    assert over.exit_code == 1
    report = json.loads(over.stdout)
    assert report["tiers"]["hot_lines"] > 100
    assert any(f["code"] == "hot-over-cap" for f in report["lint"]["findings"])


def test_proposal_book_keeps_reviews_and_renews_archived_lines(vault: Vault) -> None:
    from memctl.lifecycle.proposals import Proposal, ProposalBook

    def prop(kind: str, pid: str) -> Proposal:
        return Proposal(pid, kind, "proposed", "memory/core.md", 3, 3, "h", "- שורה")

    book = ProposalBook(vault)
    assert [p.id for p in book.refresh("archive", [prop("archive", "H1")])] == ["H1"]
    book.get("H1").status = "applied"
    book.refresh("promote", [prop("promote", "P1")])
    book.get("P1").status = "rejected"
    book.save()
    again = ProposalBook(vault)
    assert again.refresh("promote", [prop("promote", "P1")]) == []  # a rejection sticks
    assert again.get("P1").status == "rejected"
    assert [p.id for p in again.refresh("archive", [prop("archive", "H1")])] == ["H1"]
    assert again.get("H1").status == "proposed"
    again.refresh("archive", [])
    assert "H1" not in again.items  # no longer a candidate, never decided: dropped
    assert again.save() and not ProposalBook(vault).save()


def test_commit_takes_only_what_maintain_changed(git_vault: Vault) -> None:
    core = read_text(git_vault.core_path) + "- a person's edit, not yet committed\n"
    write(git_vault, "memory/core.md", core)
    report = maintain(git_vault, now=NOW, embed=False, commit=True)
    assert report.commit
    changed = subprocess.run(
        ["git", "show", "--no-renames", "--name-only", "--format=", "HEAD"],
        cwd=git_vault.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert set(changed) == {
        "memory/daily/2026-09-01.md",
        "memory/archive/daily/2026-09-01.md",
        "memory/decisions.md",
        "memory/archive/decisions.md",
    }
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=git_vault.root, capture_output=True, text=True
    )
    assert "memory/core.md" in status.stdout


def test_commit_without_git_changes_nothing(vault: Vault) -> None:
    from memctl.errors import MemctlError

    write(vault, "memory/daily/2026-09-01.md", OLD_NOTE, datetime(2026, 9, 1, 18))
    with pytest.raises(MemctlError, match="not in a git repository"):
        maintain(vault, now=NOW, sync_index=False, commit=True)
    assert (vault.root / "memory/daily/2026-09-01.md").exists()


def test_cold_chunks_newer_than_the_prune_age_are_counted_not_loaded(git_vault: Vault) -> None:
    """The usage load leaves out COLD chunks dated after the prune cutoff's day (no rule
    can pick them); prune still finds a chunk of the cutoff day, and the COLD count in
    the report still counts every COLD chunk."""
    from memctl.lifecycle.evidence import load_chunk_uses

    cutoff = NOW - timedelta(days=git_vault.settings.lifecycle.prune_after_days)
    for day in (cutoff.date(), cutoff.date() + timedelta(days=1)):
        write(git_vault, f"memory/archive/daily/{day}.md", f"# {day}\n\n- 09:00 note of {day}\n")
    report = maintain(git_vault, now=NOW, embed=False)
    assert [p["path"] for p in report.prunes] == [f"memory/archive/daily/{cutoff.date()}.md"]
    loaded = {u.path for u in load_chunk_uses(git_vault, NOW) if u.tier == "cold"}
    assert f"memory/archive/daily/{cutoff.date()}.md" in loaded
    assert f"memory/archive/daily/{cutoff.date() + timedelta(days=1)}.md" not in loaded
    with Store.open(git_vault) as store:
        cold = store.counts()["chunks_by_tier"]["cold"]
    assert report.to_dict()["cold"]["chunks"] == cold >= 3  # the two notes and the archived one
