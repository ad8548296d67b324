"""Writing a judged capture candidate: ADD writes it; UPDATE and DELETE first archive the
old memory in memory/archive/superseded.md with a pointer to what replaced it, and only
then remove it from where it was (so a capture never loses a memory)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memctl import memory
from memctl.agent.capture_rules import SUPERSEDED, Candidate, remove_block, superseded_entry
from memctl.notes import default_title
from memctl.vault import Vault, append_block, update_file


def write_new(vault: Vault, cand: Candidate, now: datetime, mark: str = "") -> dict[str, Any]:
    text = cand.final_text or cand.text
    if mark:
        text = f"{text} {mark}"
    if cand.kind == "decision":
        title = cand.title or default_title(text)
        path = memory.add_decision(vault, title, text, day=now.date())
        return {"path": vault.rel(path), "kind": "decision", "title": title}
    path = memory.add_note(vault, text, at=now)
    return {"path": vault.rel(path), "kind": "note"}


def retire(vault: Vault, cand: Candidate, pointer: str, now: datetime) -> dict[str, Any]:
    """Archive the target with a pointer, then remove it from where it was."""
    item = cand.target
    assert item is not None
    entry = superseded_entry(now.date().isoformat(), item, cand.outcome, pointer, cand.reason)
    archive = vault.root / SUPERSEDED

    def add_entry(before: str) -> str:
        if before and not before.endswith("\n\n"):
            before = before.rstrip("\n") + "\n\n"
        return append_block(before, entry)

    removed: list[bool] = []

    def drop(before: str) -> str:
        after = remove_block(before, item.text)
        removed[:] = [after is not None]
        return before if after is None else after

    with vault.lock():
        update_file(archive, add_entry, create="# Superseded memories\n\n")
        update_file(vault.check_writable(vault.root / item.path), drop)
    out = {"archived_to": SUPERSEDED, "removed_from": item.path if removed[0] else None}
    if not removed[0]:
        out["notice"] = (
            f"{item.path} changed since it was read: the old text was archived but left in place"
        )
    return out


def apply(vault: Vault, cand: Candidate, now: datetime, mark: str = "") -> None:
    """Write what the judge chose; `mark` (a session mark) ends the written text."""
    if cand.outcome == "ADD":
        cand.written = write_new(vault, cand, now, mark)
    elif cand.outcome == "UPDATE":
        written = write_new(vault, cand, now, mark)
        pointer = f"{written['path']} ({now.date().isoformat()}): {cand.final_text or cand.text}"
        cand.written = {**written, **retire(vault, cand, pointer, now)}
    elif cand.outcome == "DELETE":
        cand.written = retire(
            vault, cand, f"captured on {now.date().isoformat()}: {cand.text}", now
        )
