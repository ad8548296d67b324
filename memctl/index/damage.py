"""Damaged SQLite files under `.memctl/`: tell them apart from busy ones and repair.

index.db is derived: when it is damaged, `memctl index --full` rebuilds it from the vault
whatever the live file holds, and every other command says so in one line. state.db is
not derived (embedding cache, usage counters, the reference log): a damaged one is moved
aside to `state.db.damaged-<UTC stamp>` (nothing of it is deleted: the history may still
be recoverable with `sqlite3 .recover`) and a fresh one is started, with a notice.

Damage is recognised from the file itself (not the SQLite header, or shorter than its
header says) and from SQLite's own words for it, never from "database is locked".
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from memctl.errors import MemctlError
from memctl.sqlite import connect, sqlite_module
from memctl.vault import Vault

HEADER = b"SQLite format 3\x00"
_MESSAGES = (
    "file is not a database",
    "database disk image is malformed",
    "malformed database schema",
    "file is encrypted",
)
REBUILD_HINT = "run `memctl index --full` to rebuild it from the vault"


class IndexDamaged(MemctlError):
    exit_code = 1


def is_damage(exc: BaseException) -> bool:
    """SQLite reporting a damaged file (not a busy or read-only one)."""
    error = getattr(sqlite_module(), "DatabaseError", None)
    return (
        error is not None
        and isinstance(exc, error)
        and any(m in str(exc).lower() for m in _MESSAGES)
    )


def is_read_only(exc: BaseException) -> bool:
    """SQLite unable to write (or create) a database file: a read-only file or folder."""
    error = getattr(sqlite_module(), "OperationalError", None)
    text = str(exc).lower()
    return (
        error is not None
        and isinstance(exc, error)
        and ("readonly database" in text or "unable to open database file" in text)
    )


def _wal_has_frames(path: Path) -> bool:
    try:
        return Path(str(path) + "-wal").stat().st_size > 0
    except FileNotFoundError:
        return False


def _header_damage(path: Path) -> str | None:
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(100)
    except FileNotFoundError:
        return None
    if size == 0:
        return None  # SQLite treats an empty file as a new, empty database
    if len(head) < 100 or not head.startswith(HEADER):
        return "not an SQLite database"
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The in-header size is trusted only when valid (bytes 92-95 match the change counter)
    # and no WAL frames wait: a checkpoint may be growing the file this very moment.
    truncated = head[24:28] == head[92:96] and pages and size < pages * page_size
    if truncated and not _wal_has_frames(path):
        return f"truncated: {size} of {pages * page_size} bytes"
    return None


def file_damage(path: Path) -> str | None:
    """Why the SQLite file at `path` is unusable, or None as far as a cheap look can tell
    (absent or empty files are fine: SQLite starts them afresh)."""
    why = _header_damage(path)
    if why and why.startswith("truncated"):
        time.sleep(0.05)  # look twice: a writer extending the file settles within this
        why = _header_damage(path)
    return why


def probe(path: Path, *, thorough: bool = False) -> str | None:
    """`file_damage`, then SQLite's own reading of the schema (`thorough`: every page)."""
    why = file_damage(path)
    if why or not path.exists():
        return why
    try:
        conn = connect(path, load_vec=False)
    except Exception as exc:
        if is_damage(exc):
            return str(exc)
        raise
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        if thorough:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                return "; ".join(rows[:3])
    except Exception as exc:
        if is_damage(exc):
            return str(exc)
        raise
    finally:
        conn.close()
    return None


def set_state_aside(vault: Vault, path: Path, *, thorough: bool = False) -> Path | None:
    """Move a damaged state.db (and its -wal/-shm) aside; None when it proves sound.

    Under the `state` lock with a fresh look inside it, so two processes finding the same
    damage move the damaged file once and never the fresh one that replaced it.
    """
    with vault.lock("state", timeout=30):
        why = probe(path, thorough=thorough)
        if why is None:
            return None
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        aside = path.with_name(f"{path.name}.damaged-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
        os.replace(path, aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.replace(Path(str(path) + suffix), Path(str(aside) + suffix))
    sys.stderr.write(
        f"memctl: notice: {path} was damaged ({why}); moved to {aside.name} (its usage "
        "history is kept there) and a fresh state.db started\n"
    )
    sys.stderr.flush()
    return aside
