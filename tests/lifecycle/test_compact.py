"""compact: archived daily notes rolled into months, losslessly and crash-safely."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle.compact import (
    SUMMARY_OPEN,
    compact,
    insert_note,
    note_day_at,
    pack_note,
    unpack_month,
    with_summary,
)
from memctl.llm import get_llm
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import write
from tests.llm_mock import ScriptedAPI, fast_settings, text_message

NOTES = {
    "2026-09-03.md": "# 2026-09-03\n\n- 09:00 שלום\n",
    "2026-09-01.md": "# 2026-09-01\n\n- 10:00 deployed\n- 11:00 нет перевода строки",
    "2026-10-02.md": "# 2026-10-02\n\n\n- 08:00 trailing blank lines\n\n\n",
}


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_pack_unpack_roundtrip_any_text(content: str) -> None:
    content = content.replace(
        "\r", ""
    )  # markdown files are read with universal newlines off; keep it simple
    text = insert_note("", "2026-09", "2026-09-01.md", content)
    if "<!-- memctl:end 2026-09-01.md -->" not in content:
        assert unpack_month(text)["2026-09-01.md"] == content


def test_insert_in_date_order_keeps_other_bytes() -> None:
    month = insert_note("", "2026-09", "2026-09-03.md", NOTES["2026-09-03.md"])
    month += "\nA line a person added by hand.\n"
    both = insert_note(month, "2026-09", "2026-09-01.md", NOTES["2026-09-01.md"])
    assert both.index("2026-09-01.md") < both.index("2026-09-03.md")
    assert "A line a person added by hand.\n" in both
    assert unpack_month(both) == {k: v for k, v in NOTES.items() if k.startswith("2026-09")}
    assert (
        note_day_at(both, both.splitlines().index("- 09:00 שלום") + 1).isoformat() == "2026-09-03"
    )
    summarized = with_summary(both, "- итог")
    assert unpack_month(summarized) == unpack_month(both)
    assert with_summary(summarized, "- new").count(SUMMARY_OPEN) == 1


def test_compact_rolls_and_is_idempotent(vault: Vault, runner: CliRunner) -> None:
    for name, content in NOTES.items():
        write(vault, f"memory/archive/daily/{name}", content)
    result = runner.invoke(app, ["--vault", str(vault.root), "compact", "--json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["rolled"]) == 3
    assert not list((vault.archive_dir / "daily").glob("*.md"))
    september = unpack_month(read_text(vault.archive_dir / "2026-09.md"))
    october = unpack_month(read_text(vault.archive_dir / "2026-10.md"))
    assert {**september, **october} == NOTES
    again = runner.invoke(app, ["--vault", str(vault.root), "compact", "--json"])
    assert json.loads(again.stdout)["rolled"] == []


def test_crash_after_month_written_is_finished_on_rerun(vault: Vault) -> None:
    """The month file has the note but the daily file survived (killed before unlink)."""
    name = "2026-09-01.md"
    write(vault, "memory/archive/2026-09.md", insert_note("", "2026-09", name, NOTES[name]))
    write(vault, f"memory/archive/daily/{name}", NOTES[name])
    report = compact(vault)
    assert report.rolled == [(f"memory/archive/daily/{name}", "memory/archive/2026-09.md")]
    assert read_text(vault.archive_dir / "2026-09.md").count("memctl:note 2026-09-01.md") == 1


def test_conflicting_copy_keeps_both(vault: Vault) -> None:
    name = "2026-09-01.md"
    write(vault, "memory/archive/2026-09.md", pack_note(name, "older text\n"))
    write(vault, f"memory/archive/daily/{name}", NOTES[name])
    report = compact(vault)
    assert report.conflicts and (vault.archive_dir / "daily" / name).exists()


def test_summarize_puts_summary_on_top_and_keeps_notes(vault: Vault) -> None:
    for name, content in NOTES.items():
        write(vault, f"memory/archive/daily/{name}", content)
    api = ScriptedAPI()
    api.responder = lambda body: text_message("- Развернули v1\n- פריסה הצליחה")
    report = compact(vault, llm=get_llm(fast_settings(), client=api.client()), summarize=True)
    assert report.summarized == ["2026-09.md", "2026-10.md"]
    text = read_text(vault.archive_dir / "2026-09.md")
    assert text.index(SUMMARY_OPEN) < text.index("memctl:note")
    assert "- Развернули v1" in text
    assert unpack_month(text) == {k: v for k, v in NOTES.items() if k.startswith("2026-09")}
    # A malformed (empty) summary is an error for that month, never a write.
    api.responder = lambda body: text_message("   ")
    write(vault, "memory/archive/daily/2026-09-04.md", "# 2026-09-04\n\n- 09:00 x\n")
    report = compact(vault, llm=get_llm(fast_settings(), client=api.client()), summarize=True)
    assert report.summary_errors and "- Развернули v1" in read_text(
        vault.archive_dir / "2026-09.md"
    )
