"""Anthropic's client-side memory tool (`memory_20250818`) with the vault behind it.

`/memories` is the vault's `memory/` folder. Its paths are confined as load_memory's are
(memctl.excerpt: only tier files, core.md, decisions.md, daily/ and archive/; no `..`,
no absolute path elsewhere, no NUL, no link leaving memory/), and no write goes through
a link. Every write takes the vault lock and goes through `update_file` (atomic, never
over an editor's save); core.md keeps its cap with the message update_core_memory gives;
`delete` moves a daily note to the archive as demote does (nothing is lost; core.md and
decisions.md are edited, not deleted); after each write the index catches up.

Results and errors are plain strings, as the tool's protocol has them: a bad command
raises `MemoryToolError`, whose message is what the model is told.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memctl.agent.errors import ToolFailure
from memctl.agent.memory_view import (
    COMMANDS,
    ROOT,
    WIDTH,
    MemoryToolError,
    existing_file,
    folder,
    new_file,
    tool_path,
    vault_rel,
    view,
    writable,
)
from memctl.errors import MemctlError
from memctl.vault import (
    CORE,
    DAILY_DIR,
    DECISIONS,
    MEMORY_DIR,
    Vault,
    shown,
    source_of,
    update_file,
)

# -- writes -----------------------------------------------------------------------------


def _text(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise MemoryToolError(f"{what}: must be text")
    if "\x00" in text:
        raise MemoryToolError(f"{what}: holds a NUL byte")
    return text


def _screen(vault: Vault, text: object, what: str) -> str:
    """New text, screened for secrets as `remember` screens it (text being replaced is not:
    removing a secret must stay possible)."""
    from memctl.memory import screen_secrets

    screen_secrets(vault, _text(text, what))
    return str(text)


def _capped(vault: Vault, rel: str, change: Callable[[str], str]) -> Callable[[str], str]:
    """`change`, refused as update_core_memory refuses it when core.md would pass its cap."""
    if rel != CORE:
        return change
    from memctl.agent.core_update import cap_refusal
    from memctl.lifecycle.hot import HotCapExceeded, check_cap

    cap = vault.settings.hot.cap_lines

    def checked(before: str) -> str:
        after = change(before)
        try:
            check_cap(before, after, cap)
        except HotCapExceeded as exc:
            raise cap_refusal(exc) from None
        return after

    return checked


def _write(vault: Vault, path: Path, change: Callable[[str], str], create: str | None) -> str:
    rel = vault.rel(path)
    with vault.lock():
        writable(vault, path)
        written = update_file(path, _capped(vault, rel, change), create=create)
    catch_up_index(vault)
    return written


def catch_up_index(vault: Vault) -> None:
    """Bring the index's words up to date with the write (vectors follow on the next
    search or `memctl index`); a busy or broken index is a notice, not a lost write."""
    from memctl.index.sync import ensure_fresh

    try:
        report = ensure_fresh(vault)
    except MemctlError as exc:
        vault.notice(f"written, but the index was not updated ({exc}): run `memctl index`")
        return
    if report.skipped:
        vault.notice(f"written; the index catches up shortly ({report.skipped})")


def create(vault: Vault, path: str, file_text: object) -> str:
    text = _screen(vault, file_text, "file_text")
    target = new_file(vault, vault_rel(path))
    body = text if text.endswith("\n") or not text else text + "\n"

    def unchanged(before: str) -> str:
        # `before` is `body` for the new file; a file saved meanwhile by someone else is
        # kept as it is, and the call refused below.
        return before

    if _write(vault, target, unchanged, body) != body:
        raise MemoryToolError(f"File {path} already exists (it was just created elsewhere)")
    return f"File created successfully at: {path}"


def _lines_of(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at != -1:
        found.append(text.count("\n", 0, at) + 1)
        at = text.find(needle, at + 1)
    return found


def str_replace(vault: Vault, path: str, old_str: object, new_str: object) -> str:
    old = _text(old_str, "old_str")
    new = _screen(vault, new_str, "new_str")
    if not old:
        raise MemoryToolError("old_str: must not be empty")
    target = existing_file(vault, vault_rel(path))
    changed_at: list[int] = []

    def change(before: str) -> str:
        lines = _lines_of(before, old)
        if not lines:
            raise MemoryToolError(
                f"No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            )
        if len(lines) > 1:
            raise MemoryToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{old}` in "
                f"lines: {', '.join(map(str, lines))}. Please ensure it is unique"
            )
        changed_at[:] = lines
        return before.replace(old, new, 1)

    written = shown(_write(vault, target, change, None)).split("\n")
    first = max(changed_at[0] - 2, 1)
    last = min(changed_at[0] + new.count("\n") + 2, len(written))
    snippet = [f"{str(n).rjust(WIDTH)}\t{written[n - 1]}" for n in range(first, last + 1)]
    return (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        + "\n".join(snippet)
    )


def insert(vault: Vault, path: str, insert_line: object, insert_text: object) -> str:
    text = _screen(vault, insert_text, "insert_text")
    if not isinstance(insert_line, int) or isinstance(insert_line, bool):
        raise MemoryToolError("insert_line: must be a whole number")
    target = existing_file(vault, vault_rel(path))

    def change(before: str) -> str:
        lines = before.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not 0 <= insert_line <= len(lines):
            raise MemoryToolError(
                f"Invalid `insert_line` parameter: {insert_line}. It should be within the "
                f"range [0, {len(lines)}]."
            )
        lines[insert_line:insert_line] = text.rstrip("\n").split("\n")
        return "\n".join(lines) + "\n"

    _write(vault, target, change, None)
    return f"The file {path} has been edited."


def delete(vault: Vault, path: str) -> str:
    """A daily note moves to the archive (as demote moves it); nothing is deleted."""
    from memctl.lifecycle.moves import ARCHIVE_DAILY, MoveConflict, merge_file, move_file

    rel = vault_rel(path)
    if rel == MEMORY_DIR or folder(vault, rel) is not None:
        raise MemoryToolError(f"{path} is a folder: delete its files one at a time")
    source = source_of(rel)
    if source in ("core", "decision"):
        name = "core.md" if rel == CORE else "decisions.md"
        raise MemoryToolError(
            f"{name} is a tier memctl keeps and cannot be deleted: edit its lines with "
            "str_replace (`memctl demote` archives stale ones)"
        )
    if source == "archive":
        raise MemoryToolError(
            f"{path} is already in the archive (COLD); archived memories are deleted only by "
            "`memctl prune` after review"
        )
    target = existing_file(vault, rel)
    destination = ARCHIVE_DAILY + rel[len(DAILY_DIR) :]
    with vault.lock():
        writable(vault, target)
        writable(vault, vault.root / destination)
        try:
            move_file(vault, rel, destination)
        except MoveConflict:
            merge_file(vault, rel, destination)  # the archived note of the same day
    catch_up_index(vault)
    return f"Successfully deleted {path} (moved to {tool_path(destination)}: nothing is lost)"


def rename(vault: Vault, old_path: str, new_path: str) -> str:
    from memctl.lifecycle.moves import move_file

    old_rel, new_rel = vault_rel(old_path, "old_path"), vault_rel(new_path, "new_path")
    for rel in (old_rel, new_rel):
        if rel in (CORE, DECISIONS):
            raise MemoryToolError(
                f"{tool_path(rel)} keeps its name: memctl reads the tiers from it"
            )
    source = existing_file(vault, old_rel)
    destination = new_file(vault, new_rel)
    with vault.lock():
        writable(vault, source)
        writable(vault, destination)
        move_file(vault, old_rel, new_rel)
    catch_up_index(vault)
    return f"Successfully renamed {old_path} to {new_path}"


# -- one command ------------------------------------------------------------------------

_NEEDS = {
    "view": ("path",),
    "create": ("path", "file_text"),
    "str_replace": ("path", "old_str", "new_str"),
    "insert": ("path", "insert_line", "insert_text"),
    "delete": ("path",),
    "rename": ("old_path", "new_path"),
}


def memory_command(vault: Vault, command: Mapping[str, Any]) -> str:
    """Run one memory tool command (its input as the model sent it); the result string.

    Raises `MemoryToolError` with the message for the model (a usage error, a refused
    secret, a cap, a concurrent edit are all turned into one).
    """
    name = command.get("command")
    if name not in _NEEDS:
        raise MemoryToolError(f"command: {name!r} is not one of {', '.join(COMMANDS)}")
    missing = [key for key in _NEEDS[name] if command.get(key) is None]
    if missing:
        raise MemoryToolError(f"{name}: {', '.join(missing)} required")
    try:
        result = _run(vault, name, command)
    except MemoryToolError:
        raise
    except ToolFailure as exc:  # core.md's cap, in update_core_memory's words
        raise MemoryToolError(str(exc)) from None
    except MemctlError as exc:
        raise MemoryToolError(str(exc)) from None
    notices = vault.take_notices()
    return "\n".join([result, *(f"Note: {n}" for n in notices)])


def _run(vault: Vault, name: str, c: Mapping[str, Any]) -> str:
    if name == "view":
        return view(vault, c["path"], c.get("view_range"))
    if name == "create":
        return create(vault, c["path"], c["file_text"])
    if name == "str_replace":
        return str_replace(vault, c["path"], c["old_str"], c["new_str"])
    if name == "insert":
        return insert(vault, c["path"], c["insert_line"], c["insert_text"])
    if name == "delete":
        return delete(vault, c["path"])
    return rename(vault, c["old_path"], c["new_path"])


__all__ = ["COMMANDS", "ROOT", "MemoryToolError", "memory_command", "tool_path", "vault_rel"]
