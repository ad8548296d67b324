"""The memory tool's paths and its `view` command: `/memories/...` to the vault's tier
files, confined as load_memory confines them (memctl.excerpt), and what the model sees.
"""

from __future__ import annotations

import os
from pathlib import Path

from memctl.errors import MemctlError, UsageError
from memctl.excerpt import memory_file, memory_path
from memctl.tokens import estimate_tokens
from memctl.vault import ARCHIVE_DIR, DAILY_DIR, MEMORY_DIR, Vault, tier_of

ROOT = "/memories"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
WIDTH = 6  # line numbers as the SDK's own file backend prints them
_WHERE = (
    "memory files are /memories/core.md, /memories/decisions.md, "
    "/memories/daily/*.md and /memories/archive/**/*.md"
)


class MemoryToolError(MemctlError):
    """A memory command that cannot run; its message is the tool result the model sees."""


def vault_rel(path: object, what: str = "path") -> str:
    """The vault-relative path a `/memories/...` path names (`memory/...`)."""
    if not isinstance(path, str) or not path:
        raise MemoryToolError(f"{what}: give a path under {ROOT}")
    if "\x00" in path:
        raise MemoryToolError(f"{what}: the path holds a NUL byte")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise MemoryToolError(f"{what}: {path!r} is outside {ROOT}; every path starts with {ROOT}")
    rest = path[len(ROOT) :].rstrip("/").removeprefix("/")
    parts = rest.split("/") if rest else []
    if "\\" in path or any(part in ("", ".", "..") for part in parts):
        raise MemoryToolError(f"{what}: {path!r}: no '..', '.' or empty parts in a memory path")
    return "/".join([MEMORY_DIR, *parts])


def tool_path(rel: str) -> str:
    """`memory/daily/x.md` as the model names it: `/memories/daily/x.md`."""
    return ROOT + rel[len(MEMORY_DIR) :]


def existing_file(vault: Vault, rel: str) -> Path:
    """An existing memory file, confined as load_memory confines it."""
    try:
        return memory_file(vault, rel)
    except UsageError as exc:
        if "no such memory file" in str(exc):
            raise MemoryToolError(
                f"The path {tool_path(rel)} does not exist. Please provide a valid path."
            ) from None
        raise MemoryToolError(_tool_message(exc)) from None


def _tool_message(exc: Exception) -> str:
    return str(exc).replace(f"'{MEMORY_DIR}/", f"'{ROOT}/") + (
        f" ({_WHERE})" if "not a memory file" in str(exc) else ""
    )


def new_file(vault: Vault, rel: str) -> Path:
    try:
        memory_path(rel)
    except UsageError as exc:
        raise MemoryToolError(_tool_message(exc)) from None
    path = vault.root / rel
    if os.path.lexists(path):
        raise MemoryToolError(f"File {tool_path(rel)} already exists")
    return path


def writable(vault: Vault, path: Path) -> Path:
    try:
        return vault.check_writable(path)
    except UsageError as exc:
        raise MemoryToolError(str(exc).replace(str(vault.root) + os.sep, "")) from None


# -- view ----------------------------------------------------------------------------------


def _size(count: int) -> str:
    if count < 1024:
        return f"{count}B"
    for unit, scale in (("K", 1024), ("M", 1024**2), ("G", 1024**3)):
        if count < scale * 1024 or unit == "G":
            value = count / scale
            return f"{value:.0f}{unit}" if value == int(value) else f"{value:.1f}{unit}"
    raise AssertionError("unreachable")


def folder(vault: Vault, rel: str) -> Path | None:
    """The memory folder `rel` names (memory/, daily/, archive/ and below), or None."""
    if rel != MEMORY_DIR and not (
        rel in (DAILY_DIR, ARCHIVE_DIR) or rel.startswith((DAILY_DIR + "/", ARCHIVE_DIR + "/"))
    ):
        return None
    path = vault.root / rel
    at = vault.root
    for part in Path(rel).parts:
        at = at / part
        if at.is_symlink():
            raise MemoryToolError(f"{tool_path(rel)} goes through a link: not shown")
    return path if path.is_dir() else None


def _listing(vault: Vault, rel: str, shown_as: str) -> str:
    prefix = rel + "/"
    rows: dict[str, str] = {}
    root = vault.root.resolve()
    for entry_rel, entry_path, entry in vault.memory_entries():
        if not entry_rel.startswith(prefix) or tier_of(entry_rel) is None:
            continue
        inner = entry_rel[len(prefix) :].split("/")
        for depth in (1, 2):
            if len(inner) > depth:  # the folders on its way, two levels deep
                rows.setdefault("/".join(inner[:depth]) + "/", "-")
        if len(inner) > 2:
            continue
        if entry.is_symlink() and not Path(entry_path).resolve().is_relative_to(root):
            continue  # a link leaving the vault is never shown, as readers skip it
        try:
            rows["/".join(inner)] = _size(entry.stat().st_size)
        except OSError:
            continue
    lines = [f"{size}\t{shown_as.rstrip('/')}/{name}" for name, size in sorted(rows.items())]
    header = (
        f"Here're the files and directories up to 2 levels deep in {shown_as}, "
        "excluding hidden items:"
    )
    return "\n".join([header, f"-\t{shown_as}", *lines])


def view(vault: Vault, path: str, view_range: object = None) -> str:
    rel = vault_rel(path)
    if tier_of(rel) is None:
        if folder(vault, rel) is not None:
            return _listing(vault, rel, path)
        if rel in (MEMORY_DIR, DAILY_DIR, ARCHIVE_DIR) or rel.startswith(
            (DAILY_DIR + "/", ARCHIVE_DIR + "/")
        ):
            raise MemoryToolError(f"The path {path} does not exist. Please provide a valid path.")
    text = vault.read_memory(existing_file(vault, rel))
    if text is None:  # a link leaving the vault: the notice says so
        raise MemoryToolError("; ".join(vault.take_notices()))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    start, end = 1, len(lines)
    if view_range is not None:
        if (
            not isinstance(view_range, list | tuple)
            or len(view_range) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in view_range)
        ):
            raise MemoryToolError("view_range: give [first line, last line] (-1: to the end)")
        start = max(1, view_range[0])
        end = len(lines) if view_range[1] == -1 else min(view_range[1], len(lines))
        if start > max(len(lines), 1) or end < start:
            raise MemoryToolError(f"view_range {list(view_range)}: {path} has {len(lines)} lines")
    budget = max(vault.settings.agent.tool_result_tokens - 100, 50)
    out = [f"Here's the content of {path} with line numbers:"]
    used = estimate_tokens(out[0])
    for number in range(start, end + 1):
        line = f"{str(number).rjust(WIDTH)}\t{lines[number - 1]}"
        used += estimate_tokens(line) + 1
        if used > budget and number > start:
            out.append(
                f"(cut at line {number - 1} of {len(lines)} by the tool-result budget: "
                f"view_range [{number}, -1] reads on)"
            )
            break
        out.append(line)
    return "\n".join(out)
