"""What a killed process leaves behind, removed at the next run.

`atomic_write_text` writes `.NAME.XXXXXXXX.tmp` beside its target and renames it over
the target; a kill between the two leaves a hidden full copy of the file (tens of MB for
a big archive) that `git add -A` would commit. Every such write happens under the vault
lock, so whoever holds that lock knows no live writer owns one: they are removed then,
and only then. A note `update_file` had set aside (`.NAME.memctl-aside`) when a crash hit
is put back in place at the same moment, so an old note nobody writes again is not
left hidden. A killed `index --full` leaves `index.db.rebuild` (and its -wal/-shm),
which only a holder of the index lock can be writing.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from memctl.errors import LockBusy
from memctl.files import recover_aside
from memctl.vault import MEMORY_DIR, Vault

# mkstemp's names: the prefix, eight of [a-z0-9_], the suffix. Editors' files never match.
TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
REBUILD = "index.db.rebuild"


ASIDE_SUFFIX = ".memctl-aside"


def _temp_files(folder: Path, recursive: bool) -> list[Path]:
    found: list[Path] = []
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return found
    for entry in entries:
        if entry.is_symlink():
            continue
        if entry.is_dir():
            if recursive:
                found += _temp_files(Path(entry.path), True)
        elif TEMP_NAME.match(entry.name) or (
            entry.name.startswith(".") and entry.name.endswith(ASIDE_SUFFIX)
        ):
            found.append(Path(entry.path))
    return found


def remove_temp_files(vault: Vault) -> list[str]:
    """Remove atomic-write leftovers under memory/ and .memctl/ (caller holds the vault
    lock); returns their vault-relative paths."""
    removed = []
    candidates = _temp_files(vault.root / MEMORY_DIR, True) + _temp_files(vault.state_dir, False)
    for path in candidates:
        if path.name.endswith(ASIDE_SUFFIX):
            # A note `update_file` had set aside when a crash hit: it goes back in place
            # (unless a newer file is there), never deleted unseen.
            recover_aside(path.parent / path.name[1 : -len(ASIDE_SUFFIX)])
            removed.append(path.relative_to(vault.root).as_posix())
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path.relative_to(vault.root).as_posix())
    return removed


def remove_stale_temp_files(vault: Vault) -> list[str]:
    """`remove_temp_files` if the vault lock is free right now; nothing when it is held
    (its holder may be writing one of them)."""
    try:
        with vault.lock(timeout=0):
            return remove_temp_files(vault)
    except LockBusy:
        return []


def remove_rebuild_files(vault: Vault) -> list[str]:
    """Remove a killed full rebuild's files (caller holds the index lock)."""
    removed = []
    for suffix in ("", "-wal", "-shm", "-journal"):
        path = vault.state_dir / (REBUILD + suffix)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path.relative_to(vault.root).as_posix())
    return removed


def notice(removed: list[str]) -> str:
    return f"removed {len(removed)} file(s) left by an interrupted write: " + ", ".join(removed)
