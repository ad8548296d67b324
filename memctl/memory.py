"""Everyday vault operations: create a vault, add notes and decisions, read tiers."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import date, datetime
from importlib import resources
from pathlib import Path

from memctl import clock
from memctl.errors import MemctlError, UsageError
from memctl.git import checked, have_git, run_git
from memctl.notes import (
    Decision,
    format_decision,
    format_note_bullet,
    parse_decisions,
    recent_decisions,
)
from memctl.secrets import find_secrets
from memctl.vault import Vault, append_block, bad_byte_at, update_file

WARM_WHAT = ("core", "today", "warm", "decisions")

# `add` (and MCP `remember`) wait this long for the vault lock. maintain holds it only for
# its moves and a commit, seconds even on a big vault; the generous wait is so that a
# note is never refused because a nightly job happens to be busy.
ADD_LOCK_WAIT_SECONDS = 300.0


def template_dir() -> Path:
    """The vault template shipped with the package (a link to the repo's vault_template/)."""
    return Path(str(resources.files("memctl") / "vault_template"))


def init_vault(dest: Path, *, git: bool = False) -> list[str]:
    """Copy the template into `dest`, never overwriting; returns the created paths (relative)."""
    source = template_dir()
    if not source.is_dir():
        raise MemctlError(f"the vault template is missing from the installation ({source})")
    dest.mkdir(parents=True, exist_ok=True)
    created: list[str] = []
    for item in sorted(source.rglob("*")):
        rel = item.relative_to(source)
        target = dest / rel
        if item.is_dir():
            if not target.exists():
                target.mkdir(parents=True)
                created.append(rel.as_posix() + "/")
        elif not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(item, target)
            created.append(rel.as_posix())
    if git:
        _git_init(dest)
    return created


def _git_init(dest: Path) -> None:
    if not have_git():
        raise MemctlError("--git needs git on PATH")
    identity = ("-c", "user.name=memctl", "-c", "user.email=memctl@localhost")
    if not (dest / ".git").exists():
        checked(run_git(dest, "init", "-q"), "init")
    checked(run_git(dest, "add", "-A"), "add")
    checked(run_git(dest, *identity, "commit", "-q", "-m", "memctl: new vault"), "commit")


def _clean_text(text: str) -> str:
    if "\x00" in text:
        raise UsageError("text contains a NUL byte")
    if any("\ud800" <= c <= "\udfff" for c in text):
        raise UsageError("text holds a lone surrogate: not valid Unicode, nothing written")
    if not text.strip():
        raise UsageError("empty text: nothing to add")
    return text


def screen_secrets(vault: Vault, text: str) -> None:
    """Warn about (or, with `[security] secrets = "refuse"`, refuse) text that looks like
    it holds a secret, before it is written: the vault goes to git. Never echoes it."""
    hits = find_secrets(text)
    if not hits:
        return
    what = ", ".join(dict.fromkeys(f"a {h.kind} ({h.preview})" for h in hits))
    if vault.settings.security.secrets == "refuse":
        raise UsageError(
            f"not saved: the text looks like it holds {what} "
            '([security] secrets = "refuse"); keep secrets in a secret manager'
        )
    vault.notice(
        f"saved, but the text looks like it holds {what}: the vault goes to git; "
        "remove it (`memctl lint` lists it)"
    )


def add_note(
    vault: Vault, text: str, *, day: date | None = None, at: datetime | None = None
) -> Path:
    """Append `- HH:MM text` to the daily note of `day` (default today), creating it if needed."""
    text = _clean_text(text)
    screen_secrets(vault, text)
    moment = at or clock.now()
    day = day or moment.date()
    path = vault.daily_path(day)
    bullet = format_note_bullet(moment.strftime("%H:%M"), text)
    with vault.lock(timeout=ADD_LOCK_WAIT_SECONDS):
        vault.check_writable(path)
        written = update_file(
            path, lambda before: append_block(before, bullet), create=f"# {day.isoformat()}\n\n"
        )
    _report_bad_bytes(vault, path, written)
    return path


def _report_bad_bytes(vault: Vault, path: Path, written: str) -> None:
    at = bad_byte_at(written)
    if at is not None:
        vault.notice(
            f"{vault.rel(path)}: not valid UTF-8 at byte {at}; the new text was appended and "
            "the bad bytes kept as they were (fix them in an editor)"
        )


def add_decision(
    vault: Vault, title: str, text: str, *, day: date | None = None, markers: bool = True
) -> Path:
    """Append a dated `## YYYY-MM-DD — title` decision to decisions.md.

    `markers=False` (an agent's text) quotes supersession markers so they retire nothing.
    """
    if not title.strip():
        raise UsageError("a decision needs a title")
    text = _clean_text(text)
    screen_secrets(vault, f"{title}\n{text}")
    day = day or clock.today()
    block = format_decision(day, title, text, markers=markers)

    def change(before: str) -> str:
        if before and not before.endswith("\n\n"):
            before = before.rstrip("\n") + "\n\n"
        return before + block

    with vault.lock(timeout=ADD_LOCK_WAIT_SECONDS):
        vault.check_writable(vault.decisions_path)
        written = update_file(vault.decisions_path, change, create="# Decisions\n\n")
    _report_bad_bytes(vault, vault.decisions_path, written)
    return vault.decisions_path


@dataclass(frozen=True)
class TierText:
    """A piece of a tier as an agent would load it: where it comes from and its text."""

    path: str
    line_start: int
    line_end: int
    text: str


def _whole(vault: Vault, path: Path) -> TierText | None:
    """A whole file as a reader sees it; None when `Vault.read_memory` skips it (a notice says why)."""
    text = vault.read_memory(path)
    if text is None:
        return None
    return TierText(vault.rel(path), 1, max(1, len(text.splitlines())), text)


def load_core(vault: Vault) -> TierText | None:
    return _whole(vault, vault.core_path)


def load_daily(vault: Vault, day: date) -> TierText | None:
    path = vault.daily_path(day)
    return _whole(vault, path) if path.exists() or path.is_symlink() else None


def load_recent_daily(vault: Vault, count: int | None = None) -> list[TierText]:
    """The `count` most recent daily notes (by the date in the name), oldest first."""
    count = vault.settings.warm.daily_days if count is None else count
    notes = vault.daily_notes()
    notes = [(day, path) for day, path in notes if day <= clock.today()]
    loaded = [_whole(vault, path) for _, path in notes[-count:]] if count > 0 else []
    return [note for note in loaded if note is not None]


def load_decisions(vault: Vault) -> list[Decision]:
    if not vault.decisions_path.exists() and not vault.decisions_path.is_symlink():
        return []
    text = vault.read_memory(vault.decisions_path)
    return parse_decisions(text) if text is not None else []


def load_recent_decisions(vault: Vault, limit: int | None = None) -> list[TierText]:
    """The most recent dated decisions, newest first, as an agent auto-loads them."""
    limit = vault.settings.warm.decisions if limit is None else limit
    rel = vault.rel(vault.decisions_path)
    return [
        TierText(rel, d.line_start, d.line_end, d.text)
        for d in recent_decisions(load_decisions(vault), limit)
    ]


def show(vault: Vault, what: str) -> list[TierText]:
    """What `memctl show` prints: core, today, warm (2 daily notes + 20 decisions), decisions."""
    if what == "core":
        core = load_core(vault)
        return [core] if core else []
    if what == "today":
        note = load_daily(vault, clock.today())
        return [note] if note else []
    if what == "warm":
        return load_recent_daily(vault) + load_recent_decisions(vault)
    if what == "decisions":
        return load_recent_decisions(vault, limit=10**9)
    raise UsageError(f"unknown tier {what!r}: choose one of {', '.join(WARM_WHAT)}")
