"""core.md editing: pure insertion, the cap, and edits made concurrently by a person."""

from __future__ import annotations

import pytest

from memctl import files
from memctl.errors import UsageError
from memctl.lifecycle.hot import (
    HotCapExceeded,
    apply_core_addition,
    content_lines,
    insert_into_section,
    missing_sections,
)
from memctl.vault import Vault, read_text

CORE = "# Core\n\n## Identity\n\n- I am Dana\n\n## Iron rules\n\n## Active project\n- memctl\n"


def test_insert_at_end_of_section_keeps_every_other_byte() -> None:
    after = insert_into_section(CORE, "Identity", ["- Говорю по-русски"])
    assert after == CORE.replace("- I am Dana\n", "- I am Dana\n- Говорю по-русски\n")


def test_insert_into_empty_section_and_missing_section() -> None:
    after = insert_into_section(CORE, "Iron rules", ["- לעולם לא לדחוף ל-main"])
    assert "## Iron rules\n\n- לעולם לא לדחוף ל-main\n\n## Active project" in after
    created = insert_into_section(CORE, "Open blockers", ["- waiting on DNS"])
    assert created == CORE + "\n## Open blockers\n\n- waiting on DNS\n"


def test_insert_is_idempotent() -> None:
    once = insert_into_section(CORE, "Active project", ["- ship v1"])
    assert insert_into_section(once, "Active project", ["- ship v1"]) == once


def test_content_lines_skip_comments_and_headings() -> None:
    text = "# Core\n<!-- a\ncomment -->\n## Identity\n- me\n"
    assert [(c.number, c.text, c.section) for c in content_lines(text)] == [(5, "- me", "Identity")]
    assert missing_sections(text, ("Identity", "Iron rules")) == ["Iron rules"]


def test_apply_writes_into_section(vault: Vault) -> None:
    edit = apply_core_addition(vault, "iron rules", "Never push to main\nНикогда не удалять архив")
    text = read_text(vault.core_path)
    assert edit.section == "Iron rules"
    assert edit.added == ["- Never push to main", "- Никогда не удалять архив"]
    assert "## Iron rules\n\n- Never push to main\n- Никогда не удалять архив\n" in text
    again = apply_core_addition(vault, "Iron rules", "Never push to main")
    assert again.added == []


def test_apply_refuses_over_cap_and_names_lines(vault: Vault) -> None:
    filler = "\n".join(f"- fact {i}" for i in range(200))
    before = read_text(vault.core_path)
    limit = 100 - len(before.splitlines()) - 1
    apply_core_addition(vault, "Active project", "\n".join(filler.splitlines()[:limit]))
    full = read_text(vault.core_path)
    assert len(full.splitlines()) == 100
    with pytest.raises(
        HotCapExceeded, match=r"over its cap of 100 by 2.*line \d+: - fact 0"
    ) as info:
        apply_core_addition(vault, "Identity", "שם: דנה")
    assert info.value.over_by == 2  # the empty section also gains a blank line
    assert read_text(vault.core_path) == full


def test_apply_rejects_unknown_section_and_headings(vault: Vault) -> None:
    with pytest.raises(UsageError, match=r"unknown core\.md section"):
        apply_core_addition(vault, "Hobbies", "chess")
    with pytest.raises(UsageError, match="heading"):
        apply_core_addition(vault, "Identity", "## sneaky")


def test_person_editing_concurrently_loses_nothing(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person saves core.md between memctl's read and its write: both edits survive."""
    real_install = files._install
    calls = {"n": 0}

    def racing_install(path, *args):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1 and path == vault.core_path:
            text = read_text(path)
            path.write_text(text.replace("## Identity\n", "## Identity\n\n- edited by hand\n"))
        return real_install(path, *args)

    monkeypatch.setattr(files, "_install", racing_install)
    apply_core_addition(vault, "Active project", "memctl lifecycle")
    text = read_text(vault.core_path)
    assert "- edited by hand" in text and "- memctl lifecycle" in text
