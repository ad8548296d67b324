"""Bytes on disk: exact reads, atomic writes, and a read-modify-write that never loses
a save made meanwhile by a person's editor.

`update_file` is the one read-modify-write. The vault lock keeps memctl processes apart,
but an editor saving the same file takes no lock, so the file is identified when it is
read (device, inode, size, mtime of the very file read) and the new text goes in place
only if that file is still the one there, through steps that never destroy a file
(`_install`): no window exists in which an editor's save can be overwritten. Without
hard links (some network or FAT file systems) the identity is re-checked just before a
plain rename: a window of microseconds instead of the read + change + fsync it was.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memctl.errors import UsageError


def current_umask() -> int:
    """The process umask (read without changing it where /proc allows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_bytes(path: Path, shown: str | None = None) -> bytes:
    """A file's bytes; a missing, folder or unreadable file is a one-line error naming
    `shown` (the path as the user wrote it), else `path`."""
    name = shown if shown is not None else path
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{name} does not exist") from None
    except IsADirectoryError:
        raise UsageError(f"{name} is a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror}") from None


def read_text(path: Path) -> str:
    """A vault file as text; unreadable or non-UTF-8 files are a one-line error."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not valid UTF-8 (byte {exc.start})") from None


def read_unlinked_text(path: Path) -> str:
    """A cache's UTF-8 text, never read through a link (OSError then, as for no file): a
    cloned repository can commit a link where memctl keeps its own files."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, encoding="utf-8") as handle:
        return handle.read()


def read_exact(path: Path) -> str:
    """A file as text that round-trips every byte: bytes that are not UTF-8 become lone
    surrogates (surrogateescape) and are written back unchanged by `atomic_write_text`.
    For read-modify-write and block moves, which must not fail or corrupt on a bad byte."""
    return read_bytes(path).decode("utf-8", errors="surrogateescape")


_KEPT_BYTE = re.compile("[\udc80-\udcff]")


def bad_byte_at(text: str) -> int | None:
    """The byte offset of the first byte `read_exact` kept as is (not UTF-8), if any."""
    found = _KEPT_BYTE.search(text)
    if found is None:
        return None
    return len(text[: found.start()].encode("utf-8", errors="surrogateescape"))


def shown(text: str) -> str:
    """`read_exact` text for people and JSON: each kept bad byte shown as U+FFFD."""
    if _KEPT_BYTE.search(text) is None:
        return text
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def _encode(text: str, keep_bad_bytes: bool) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape" if keep_bad_bytes else "strict")
    except UnicodeEncodeError as exc:
        raise UsageError(
            f"text holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}): not valid "
            "Unicode, nothing written"
        ) from None


def atomic_write_text(path: Path, text: str, *, keep_bad_bytes: bool = False) -> None:
    """Replace `path` with `text`: temp file in the same folder, fsync, rename, fsync folder.

    `keep_bad_bytes`: write the bytes `read_exact` kept as lone surrogates back as they
    were; otherwise a lone surrogate is refused (it would turn into a byte nobody wrote).
    """
    data = _encode(text, keep_bad_bytes)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    tmp_name = _write_temp(path, data, mode)
    try:
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def _write_temp(path: Path, data: bytes, mode: int | None) -> str:
    """A fsynced temp file beside `path` holding `data`, with `mode`.

    An existing file's mode is kept; a new file follows the umask like any file an editor
    creates (mkstemp's 0600 would make memctl's notes private and a person's shared).
    """
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode if mode is not None else 0o666 & ~current_umask())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return tmp_name


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ConcurrentEdit(UsageError):
    exit_code = 1


_Identity = tuple[int, int, int, int]


def _identity(st: os.stat_result) -> _Identity:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _read_identified(path: Path) -> tuple[_Identity, int, bytes] | None:
    """(identity, mode, bytes) of the very file read, or None if there is none."""
    try:
        with path.open("rb") as handle:
            st = os.fstat(handle.fileno())
            data = handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UsageError(f"{path} is a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return _identity(st), st.st_mode & 0o7777, data


_links_work: bool | None = None  # hard links on this file system (probed once)


def _aside(path: Path) -> Path:
    return path.parent / f".{path.name}.memctl-aside"


def _can_link(tmp_name: str) -> bool:
    global _links_work
    if _links_work is None:
        probe = tmp_name + ".link"
        try:
            os.link(tmp_name, probe)
            os.unlink(probe)
            _links_work = True
        except OSError:
            _links_work = False
    return _links_work


def recover_aside(path: Path) -> None:
    """Put back a file a crash left aside mid-install (see `_install`); a newer file at
    `path` wins and the older one aside is dropped."""
    aside = _aside(path)
    if not os.path.lexists(aside):
        return
    with contextlib.suppress(FileExistsError):
        os.link(aside, path)
    os.unlink(aside)


def _install(path: Path, data: bytes, seen: _Identity | None, mode: int | None) -> bool:
    """Put `data` at `path` if `path` is still the file identified as `seen` (None: no
    file yet). False, with nothing overwritten, when someone else saved first.

    Each step is one atomic call that never destroys a file: the current file is renamed
    aside (whoever's it is), checked, and the new one linked in place only if nothing
    appeared there meanwhile (link fails on an existing name, unlike rename). An editor's
    save that lands at any point is either the file taken aside (put back), or a file at
    `path` that the link refuses to replace. `path` is missing for a few microseconds, never
    stale; a crash in them leaves the file aside, put back by `recover_aside`.
    """
    tmp_name = _write_temp(path, data, mode)
    aside = _aside(path)
    try:
        if not _can_link(tmp_name):
            # No hard links here: re-check just before a plain rename (a window of
            # microseconds instead of the read + change + fsync it used to be).
            current = os.lstat(path) if os.path.lexists(path) else None
            if (None if current is None else _identity(current)) != seen:
                return False
            os.replace(tmp_name, path)
            return True
        if seen is not None:
            try:
                os.rename(path, aside)
            except FileNotFoundError:
                return False  # deleted meanwhile: start again from what is there now
            if _identity(os.lstat(aside)) != seen:
                with contextlib.suppress(FileExistsError):  # saved yet again: newest stays
                    os.link(aside, path)
                return False
        try:
            os.link(tmp_name, path)
        except FileExistsError:
            return False  # an editor saved while the file was aside: theirs stays
        return True
    finally:
        for leftover in (tmp_name, aside):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)
        _fsync_dir(path.parent)


def update_file(
    path: Path, change: Callable[[str], str], *, create: str | None = None, exact: bool = False
) -> str:
    """Read-modify-write that never loses a concurrent edit (see the module docstring).

    The caller holds the vault lock. `change` gets the text (bytes that are not UTF-8
    kept as lone surrogates and written back as they were) and may be called again on a
    newer text when a person saved meanwhile. `create` is the initial text when the file
    does not exist. `exact`: the change carries text read with `read_exact` from another
    file (a block move, a roll-up), so its lone surrogates are bytes to write back as they
    were. Returns the written text.
    """
    recover_aside(path)
    for attempt in range(50):
        found = _read_identified(path)
        if found is None:
            if create is None:
                raise UsageError(f"{path} does not exist")
            seen, mode, before = None, None, create
        else:
            seen, mode, raw = found
            before = raw.decode("utf-8", errors="surrogateescape")
        after = change(before)
        if after == before and seen is not None:
            return after
        # Bad bytes already in the file are kept byte for byte; new text must be Unicode
        # (a lone surrogate in it would otherwise be written as a byte nobody wrote).
        keep = exact or _KEPT_BYTE.search(before) is not None
        if keep and not exact and len(_KEPT_BYTE.findall(after)) > len(_KEPT_BYTE.findall(before)):
            raise UsageError("text holds a lone surrogate: not valid Unicode, nothing written")
        path.parent.mkdir(parents=True, exist_ok=True)
        if _install(path, _encode(after, keep), seen, mode):
            return after
        time.sleep(min(0.0005 * attempt, 0.01))  # let the editor finish its save
    raise ConcurrentEdit(f"{path} kept changing while memctl tried to update it; try again")


def append_block(before: str, block: str) -> str:
    """`before` + `block`, with exactly one newline between (the file's own content is kept)."""
    if before and not before.endswith("\n"):
        before += "\n"
    return before + block
