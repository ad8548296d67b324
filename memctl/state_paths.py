"""Paths read from `.memctl/` state (proposals, snapshots), checked before memctl reads,
writes or deletes the file they name: a cloned vault can bring a tracked `.memctl/`."""

from __future__ import annotations

from pathlib import Path

from memctl.vault import MEMORY_DIR, UnsafeStatePath, Vault


def state_path(vault: Vault, value: object, *, what: str, under: str = MEMORY_DIR) -> Path:
    """The file a path read from `.memctl/` state names, if it is safe to act on.

    `.memctl/` is local state, but a cloned vault can bring a tracked one, so every path
    read from it is checked here before anything reads, writes or deletes it: a
    vault-relative POSIX path to a `.md` file under `under` (default memory/), without
    `..`, `.` or empty parts, no part of it a symbolic link, resolving inside the vault.
    Anything else raises UnsafeStatePath naming `what` (the state file) and the path.
    """

    def refuse(why: str) -> UnsafeStatePath:
        return UnsafeStatePath(
            f"{what} names {value!r}, {why}; memctl did not write that: it touched nothing. "
            f"Delete {what} if you did not put it there"
        )

    if not isinstance(value, str) or not value:
        raise refuse("which is not a path")
    parts = value.split("/")
    if (
        value.startswith("/")
        or "\\" in value
        or "\x00" in value
        or ":" in parts[0]
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise refuse("which is not a plain vault-relative path")
    if parts[: len(under.split("/"))] != under.split("/") or len(parts) <= len(under.split("/")):
        raise refuse(f"which is not under {under}/")
    if not value.endswith(".md"):
        raise refuse("which is not a markdown file")
    path = vault.root
    for part in parts:
        path = path / part
        if path.is_symlink():
            raise refuse("which goes through a symbolic link")
    if not path.resolve().is_relative_to(vault.root.resolve()):
        raise refuse("which resolves outside the vault")
    return path
