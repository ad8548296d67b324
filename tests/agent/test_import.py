"""`memctl import`: Claude Code's auto memory, CLAUDE.md, a ChatGPT export and a notes
folder, into the vault: dated, deduplicated against it, reported, idempotent."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memctl import memory
from memctl.agent.import_sources import chatgpt, detect, slug
from memctl.agent.importing import import_into
from memctl.cli import app
from memctl.errors import UsageError
from memctl.index.backend import open_store
from memctl.vault import Vault, read_text

NOW = datetime(2026, 11, 22, 9, 30)


def _write(path: Path, text: str, day: date | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if day is not None:
        stamp = datetime(day.year, day.month, day.day, 12).timestamp()
        os.utime(path, (stamp, stamp))
    return path


def _vault_files(vault: Vault) -> dict[str, bytes]:
    return {
        p.relative_to(vault.root).as_posix(): p.read_bytes() for p in vault.memory_dir.rglob("*.md")
    }


@pytest.fixture
def claude_memory(tmp_path: Path) -> Path:
    folder = tmp_path / ".claude/projects/-home-dana-shop/memory"
    _write(
        folder / "MEMORY.md",
        "# Memory\n\n- The API uses FastAPI with Pydantic v2 models\n"
        "- Тесты запускаются через pytest -x -q\n- See debugging.md for Redis\n",
        date(2026, 10, 1),
    )
    _write(
        folder / "debugging.md",
        "# Debugging\n\n- Redis must run before the tests: docker compose up redis\n",
        date(2026, 10, 2),
    )
    return folder


def test_claude_code_memory_is_archived_dated_and_indexed(
    vault: Vault, claude_memory: Path
) -> None:
    report = import_into(vault, claude_memory, now=NOW)
    assert report.kind == "claude-memory"
    assert [(i.outcome, i.destination) for i in report.items] == [
        ("written", "memory/archive/imported/claude-code/home-dana-shop/MEMORY.md"),
        ("written", "memory/archive/imported/claude-code/home-dana-shop/debugging.md"),
    ]
    text = read_text(vault.root / report.items[0].destination)
    assert text.startswith("---\ndate: 2026-10-01\nimported_from: ")
    assert "- Тесты запускаются через pytest -x -q" in text
    with open_store(vault) as store:
        assert report.items[1].destination in store.file_states()


def test_a_second_run_writes_nothing(vault: Vault, claude_memory: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    _write(notes / "2026-11-21.md", "# 2026-11-21\n\n- 10:00 הפריסה הצליחה\nDeploy went fine.\n")
    for source in (claude_memory, notes):
        import_into(vault, source, now=NOW)
    before = _vault_files(vault)
    again = [import_into(vault, source, now=NOW) for source in (claude_memory, notes)]
    assert _vault_files(vault) == before
    assert [i.outcome for r in again for i in r.items] == ["exists", "exists", "duplicate"]


def test_facts_already_in_the_vault_are_left_out(vault: Vault, tmp_path: Path) -> None:
    memory.add_note(vault, "The API uses FastAPI with Pydantic v2 models", at=NOW)
    notes = tmp_path / "wiki"
    _write(
        notes / "api.md",
        "# API\n\nSome prose about the API.\n\n"
        "- The API uses FastAPI with pydantic v2 models.\n- Ответы кэшируются в Redis на 60 секунд\n",
        date(2026, 9, 9),
    )
    _write(notes / "same.md", "# Same\n\n- The API uses FastAPI with Pydantic v2 models\n")
    report = import_into(vault, notes, now=NOW)
    by_name = {Path(i.origin).name: i for i in report.items}
    assert by_name["api.md"].outcome == "written" and by_name["api.md"].duplicate_lines == 1
    written = read_text(vault.root / "memory/archive/imported/wiki/api.md")
    assert "Ответы кэшируются" in written and "Some prose" in written
    assert "FastAPI" not in written
    assert by_name["same.md"].outcome == "duplicate"
    assert not (vault.root / "memory/archive/imported/wiki/same.md").exists()


def test_day_notes_join_the_daily_note_or_the_archive(vault: Vault, tmp_path: Path) -> None:
    notes = tmp_path / "journal"
    _write(notes / "2026-11-21.md", "# 2026-11-21\n\n- Сегодня выкатили v2\n")
    _write(notes / "2026-01-05.md", "---\ntags: [old]\n---\n# 2026-01-05\n\n- שחרור 1.0\n")
    memory.add_note(vault, "already here", day=date(2026, 11, 21), at=NOW)
    report = import_into(vault, notes, now=NOW)
    assert {(i.destination, i.outcome) for i in report.items} == {
        ("memory/daily/2026-11-21.md", "appended"),
        ("memory/archive/daily/2026-01-05.md", "appended"),
    }
    recent = read_text(vault.root / "memory/daily/2026-11-21.md")
    assert "already here" in recent and recent.endswith("- Сегодня выкатили v2\n")
    assert read_text(vault.root / "memory/archive/daily/2026-01-05.md") == (
        "# 2026-01-05\n\n- שחרור 1.0\n"
    )


def _node(ident: str, parent: str | None, role: str | None, parts: list[Any], t: float) -> dict:  # type: ignore[type-arg]
    message = None
    if role is not None:
        message = {
            "id": ident,
            "author": {"role": role},
            "create_time": t,
            "content": {"content_type": "text", "parts": parts},
        }
    return {"id": ident, "message": message, "parent": parent, "children": []}


def _export(path: Path) -> Path:
    t = datetime(2025, 3, 14, 8, 0, tzinfo=UTC).timestamp()
    mapping = {
        "root": _node("root", None, None, [], t),
        "sys": _node("sys", "root", "system", ["You are ChatGPT"], t),
        "u1": _node("u1", "sys", "user", ["Как настроить DNS на Route53?"], t),
        "a_old": _node("a_old", "u1", "assistant", ["a discarded answer"], t),
        "a1": _node("a1", "u1", "assistant", ["Create a hosted zone.", {"image": 1}], t),
        "u2": _node("u2", "a1", "user", ["ותודה!"], t),
    }
    conversations = [
        {
            "title": "DNS на Route53",
            "create_time": t,
            "conversation_id": "0f3c9a2e-1111",
            "current_node": "u2",
            "mapping": mapping,
        },
        {"title": "empty", "create_time": t, "current_node": None, "mapping": {}},
    ]
    return _write(path, json.dumps(conversations, ensure_ascii=False))


def test_chatgpt_export_becomes_dated_archive_files(
    vault: Vault, tmp_path: Path, runner: CliRunner
) -> None:
    export = _export(tmp_path / "conversations.json")
    # A transcript is kept whole even where a line repeats a memory already in the vault.
    memory.add_note(vault, "Как настроить DNS на Route53?", at=NOW)
    pieces = chatgpt(export)
    assert len(pieces) == 1
    assert (
        pieces[0].destination == "memory/archive/chatgpt/2025-03-14-DNS-на-Route53-0f3c9a2e-111.md"
    )
    out = runner.invoke(app, ["--vault", str(vault.root), "import", str(export), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert (data["kind"], data["written"]) == ("chatgpt", 1)
    text = read_text(vault.root / pieces[0].destination)
    assert "date: 2025-03-14" in text and "# DNS на Route53" in text
    assert "### user\n\nКак настроить DNS на Route53?" in text
    assert "### assistant\n\nCreate a hosted zone." in text and "ותודה!" in text
    assert "discarded" not in text and "You are ChatGPT" not in text and "image" not in text
    again = runner.invoke(app, ["--vault", str(vault.root), "import", str(export)])
    assert again.exit_code == 0 and "exists" in again.stdout and "1 exists" in again.stderr


def test_claude_md_and_dry_run(vault: Vault, tmp_path: Path, runner: CliRunner) -> None:
    claude_md = _write(tmp_path / "shop/CLAUDE.md", "# Shop\n\n- Never push to main directly\n")
    before = _vault_files(vault)
    out = runner.invoke(app, ["--vault", str(vault.root), "import", str(claude_md), "--dry-run"])
    assert out.exit_code == 0, out.output
    assert "written   memory/archive/imported/claude-md/shop/CLAUDE.md" in out.stdout
    assert "plan (dry run): 1 written" in out.stderr
    assert _vault_files(vault) == before
    runner.invoke(app, ["--vault", str(vault.root), "import", str(claude_md)])
    assert "Never push" in read_text(
        vault.root / "memory/archive/imported/claude-md/shop/CLAUDE.md"
    )


def test_a_secret_is_refused_and_the_rest_imported(vault: Vault, tmp_path: Path) -> None:
    (vault.root / ".memctl.toml").write_text('[security]\nsecrets = "refuse"\n', encoding="utf-8")
    vault = Vault(vault.root)
    notes = tmp_path / "notes"
    _write(notes / "keys.md", "- key sk-ant-api03-" + "Q" * 90 + "\n")
    _write(notes / "ok.md", "- Ok note about the deploy pipeline\n")
    report = import_into(vault, notes, now=NOW)
    assert sorted(i.outcome for i in report.items) == ["refused", "written"]
    assert not (vault.root / "memory/archive/imported/notes/keys.md").exists()


def test_bad_sources_are_one_line_errors(vault: Vault, tmp_path: Path, runner: CliRunner) -> None:
    bad = _write(tmp_path / "conversations.json", "{not json")
    for args, message in (
        ([str(bad)], "not valid JSON"),
        ([str(tmp_path / "missing")], "does not exist"),
        ([str(bad), "--kind", "notes"], "--kind notes reads a folder"),
        ([str(bad), "--kind", "gpt"], "--kind must be one of"),
        ([str(vault.memory_dir)], "inside this vault's memory/"),
    ):
        out = runner.invoke(app, ["--vault", str(vault.root), "import", *args])
        assert out.exit_code == 2, (args, out.output)
        assert message in out.stderr and "Traceback" not in out.output
    with pytest.raises(UsageError, match="cannot tell"):
        detect(_write(tmp_path / "x.txt", "x"))
    assert slug("../../etc/passwd") == "etc-passwd" and slug("...") == "untitled"
