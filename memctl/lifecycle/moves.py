"""Moving memories between tiers without ever losing or doubling one.

Two kinds of move:

- A whole file (a daily note to `memory/archive/daily/`): one `os.rename` on the same
  file system, atomic by itself. The content is not touched, so it stays byte for byte.
- A block cut out of a file (a decision out of decisions.md, a line out of core.md):
  1. the intent (source, destination, exact block) is written to `.memctl/moves.json`;
  2. the block is appended to the destination (atomic write);
  3. the block is removed from the source (atomic write, via `update_file`, so a person
     editing the file meanwhile keeps their edit);
  4. the intent is cleared.
  A crash between 2 and 3 leaves the block in both files for a moment; the next
  `demote`/`maintain` (`finish_pending_moves`) sees the journal and completes the move,
  so every memory ends up exactly once. A crash before 2 leaves it only at its source.

`FAULT` is a test hook: called with the step name ("journaled", "written", "removed")
after each step; `MEMCTL_FAULT_AT=<step>` makes a real process die there (`os._exit`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memctl.errors import MemctlError, UsageError
from memctl.notes import daily_note_date
from memctl.state_paths import state_path
from memctl.vault import (
    CORE,
    DAILY_DIR,
    DECISIONS,
    Vault,
    atomic_write_text,
    read_exact,
    shown,
    update_file,
)

JOURNAL = "moves.json"
ARCHIVE_DAILY = "memory/archive/daily"
ARCHIVE_DECISIONS = "memory/archive/decisions.md"
ARCHIVE_CORE = "memory/archive/core.md"
# The only block moves memctl makes; a journal naming any other route was not written by it.
ROUTES = {"decision": (DECISIONS, ARCHIVE_DECISIONS), "core-line": (CORE, ARCHIVE_CORE)}
_INTENT_KEYS = {"id", "kind", "source", "destination", "block", "header"}

FAULT: Callable[[str], None] | None = None


def _fault(step: str) -> None:
    if os.environ.get("MEMCTL_FAULT_AT") == step:
        os._exit(137)
    if FAULT is not None:
        FAULT(step)


class MoveConflict(MemctlError):
    exit_code = 1


# daily-merge: a backfilled daily note into the archived note of its day; prune: a COLD
# chunk deleted (no destination).
MoveKind = Literal["daily", "daily-merge", "decision", "core-line", "prune"]


@dataclass(frozen=True)
class Move:
    kind: MoveKind
    source: str  # vault-relative
    destination: str
    what: str  # a human label: the file name, the decision heading, the line

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "from": self.source, "to": self.destination, "what": self.what}


# -- whole files -----------------------------------------------------------------------------


def move_file(vault: Vault, source: str, destination: str) -> None:
    """Rename source to destination (caller holds the vault lock); never overwrites a different file."""
    src, dst = vault.root / source, vault.root / destination
    if dst.exists():
        if dst.read_bytes() != src.read_bytes():
            raise MoveConflict(
                f"cannot move {source}: {destination} already exists with other content"
            )
        # Same bytes already there (copied by hand): the move is done once the source goes.
        src.unlink()
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.rename(src, dst)
    _fsync_dirs(src.parent, dst.parent)


def _fsync_dirs(*folders: Path) -> None:
    if os.name != "posix":
        return
    for folder in dict.fromkeys(folders):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- blocks -----------------------------------------------------------------------------------


def find_block(text: str, block: str) -> int | None:
    """Offset of `block` in `text` as whole lines (not inside a longer line), or None."""
    start = 0
    while True:
        at = text.find(block, start)
        if at < 0:
            return None
        end = at + len(block)
        if (at == 0 or text[at - 1] == "\n") and (end == len(text) or text[end] == "\n"):
            return at
        start = at + 1


def cut_block(text: str, block: str) -> str:
    """`text` without `block` and the blank lines that followed it; unchanged if absent."""
    at = find_block(text, block)
    if at is None:
        return text
    end = at + len(block)
    while end < len(text) and text[end] == "\n":
        end += 1
    if end == len(text) and at > 0:
        # The last block: keep one newline at the end of what remains.
        head = text[:at].rstrip("\n") + "\n"
        return head
    return text[:at] + text[end:]


def append_to(text: str, addition: str) -> str:
    """`addition` after `text` with one blank line between, ending in a newline."""
    addition = addition if addition.endswith("\n") else addition + "\n"
    if not text.strip():
        return text + addition
    return text.rstrip("\n") + "\n\n" + addition


class Journal:
    """The pending block moves in `.memctl/moves.json` (written atomically)."""

    def __init__(self, vault: Vault) -> None:
        self.path = vault.state_entry(JOURNAL)

    def load(self) -> list[dict[str, Any]]:
        """The pending intents, each checked to be one memctl could have written.

        A damaged or foreign journal stops the run (exit 2) instead of being guessed at or
        dropped: it may record a move that left a block in both files.
        """
        if not self.path.exists():
            return []
        try:
            raw = json.loads(self.path.read_bytes().decode("utf-8"))
        except (ValueError, OSError) as exc:
            raise self._damaged(f"it cannot be read ({type(exc).__name__})") from None
        pending = raw.get("pending") if isinstance(raw, dict) else None
        if not isinstance(pending, list):
            raise self._damaged("it holds no list of pending moves")
        for intent in pending:
            self._check(intent)
        return pending

    def _check(self, intent: object) -> None:
        if (
            not isinstance(intent, dict)
            or set(intent) != _INTENT_KEYS
            or not all(isinstance(v, str) for v in intent.values())
        ):
            raise self._damaged("an entry is not a move memctl writes")
        if not _route_ok(intent["kind"], intent["source"], intent["destination"]):
            raise self._damaged(
                f"an entry moves {intent['source']!r} to {intent['destination']!r}, "
                "not a route memctl uses"
            )
        if intent["id"] != _intent_id(intent["source"], intent["block"]) or not intent["block"]:
            raise self._damaged("an entry's id does not match its content")

    def _damaged(self, why: str) -> UsageError:
        return UsageError(
            f"{self.path} is damaged or was not written by memctl ({why}); nothing was moved. "
            "Move it aside (to moves.json.bad) and run again: a move it held is redone without "
            "doubling (the destination is checked first); `memctl lint` shows a block left in "
            "both files as a near-duplicate"
        )

    def save(self, pending: list[dict[str, Any]]) -> None:
        if not pending:
            if self.path.exists():
                self.path.unlink()
            return
        # ensure_ascii: a block read with its bad bytes kept (lone surrogates) round-trips
        # as \udcXX escapes, and the journal stays valid UTF-8.
        atomic_write_text(self.path, json.dumps({"pending": pending}, ensure_ascii=True, indent=1))


def _route_ok(kind: MoveKind, source: str, destination: str) -> bool:
    """Whether memctl moves blocks from `source` to `destination` for `kind`."""
    if kind == "daily-merge":
        # A backfilled daily note into the archived note of the same day.
        name = source.rpartition("/")[2]
        return (
            daily_note_date(name) is not None
            and source == f"{DAILY_DIR}/{name}"
            and destination == f"{ARCHIVE_DAILY}/{name}"
        )
    return ROUTES.get(kind) == (source, destination)


def _intent_id(source: str, block: str) -> str:
    data = f"{source}\0{block}".encode("utf-8", errors="surrogateescape")  # bad bytes as read
    return hashlib.sha256(data).hexdigest()[:16]


def move_block(
    vault: Vault, source: str, destination: str, block: str, *, header: str, kind: MoveKind
) -> None:
    """Move `block` (exact lines of `source`) to the end of `destination` (caller holds the lock).

    `header` starts the destination file when it does not exist yet.
    """
    journal = Journal(vault)
    pending = journal.load()
    intent = {
        "id": _intent_id(source, block),
        "kind": kind,
        "source": source,
        "destination": destination,
        "block": block,
        "header": header,
    }
    pending = [p for p in pending if p["id"] != intent["id"]] + [intent]
    journal.save(pending)
    _fault("journaled")
    _complete(vault, intent)
    journal.save([p for p in journal.load() if p["id"] != intent["id"]])


def _complete(vault: Vault, intent: dict[str, Any]) -> str:
    src = state_path(vault, intent["source"], what=JOURNAL)
    dst = state_path(vault, intent["destination"], what=JOURNAL)
    block = intent["block"]
    # read_exact: a bad byte elsewhere in either file neither stops the move nor changes.
    in_src = src.exists() and find_block(read_exact(src), block) is not None
    in_dst = dst.exists() and find_block(read_exact(dst), block) is not None
    if not in_src:
        _drop_if_blank(vault, intent)
        return "done" if in_dst else "gone"
    if not in_dst:
        update_file(
            dst, lambda before: append_to(before, block), create=intent["header"], exact=True
        )
    _fault("written")
    update_file(src, lambda before: cut_block(before, block), exact=True)
    _fault("removed")
    _drop_if_blank(vault, intent)
    return "finished"


def _drop_if_blank(vault: Vault, intent: dict[str, Any]) -> None:
    """A merged daily note is deleted once its whole text is in the archive."""
    if intent.get("kind") != "daily-merge":
        return
    src = state_path(vault, intent["source"], what=JOURNAL)
    if src.exists() and not read_exact(src).strip():
        src.unlink()


def merge_file(vault: Vault, source: str, destination: str) -> None:
    """Append the whole of `source` to the existing `destination`, then delete `source`
    (caller holds the lock): a journalled block move, so a crash ends with the text once."""
    text = read_exact(vault.root / source)
    if not text.strip():
        (vault.root / source).unlink()
        return
    move_block(vault, source, destination, text, header="", kind="daily-merge")


def finish_pending_moves(vault: Vault) -> list[str]:
    """Complete moves a crash interrupted (caller holds the vault lock); returns what was done."""
    journal = Journal(vault)
    pending = journal.load()
    notes = []
    for intent in pending:
        outcome = _complete(vault, intent)
        first_line = shown(intent["block"].splitlines()[0]) if intent["block"] else ""
        if outcome == "finished":
            notes.append(
                f"finished an interrupted move of {first_line!r} to {intent['destination']}"
            )
        elif outcome == "gone":
            notes.append(
                f"an interrupted move of {first_line!r} found it in neither file; nothing to do"
            )
    journal.save([])
    return notes
