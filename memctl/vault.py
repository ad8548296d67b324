"""The markdown vault: where things live, which tier they belong to, who may read and
write what (links, paths from state), and locks.

Every write goes through `atomic_write_text` / `update_file` (memctl.files: temp file in
the same folder, fsync, rename or exchange) under the vault lock, so a crash leaves either
the old or the new file, two processes appending at once both land, and an editor's save
made meanwhile is kept.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Literal

from filelock import FileLock, Timeout

from memctl.config import Settings
from memctl.config_files import load_settings
from memctl.errors import LockBusy, UsageError, VaultNotFound
from memctl.files import ConcurrentEdit as ConcurrentEdit  # re-exported: the vault's write API
from memctl.files import append_block as append_block
from memctl.files import atomic_write_text as atomic_write_text
from memctl.files import bad_byte_at as bad_byte_at
from memctl.files import current_umask as current_umask
from memctl.files import read_exact as read_exact
from memctl.files import read_text as read_text
from memctl.files import shown as shown
from memctl.files import update_file as update_file

MEMORY_DIR = "memory"
STATE_DIR = ".memctl"
CORE = f"{MEMORY_DIR}/core.md"
DECISIONS = f"{MEMORY_DIR}/decisions.md"
DAILY_DIR = f"{MEMORY_DIR}/daily"
ARCHIVE_DIR = f"{MEMORY_DIR}/archive"
ENV_VAR = "MEMCTL_VAULT"

Tier = Literal["hot", "warm", "cold"]
Source = Literal["core", "daily", "decision", "archive"]
TIERS: tuple[Tier, ...] = ("hot", "warm", "cold")
SOURCES: tuple[Source, ...] = ("core", "daily", "decision", "archive")
TIER_OF_SOURCE: dict[Source, Tier] = {
    "core": "hot",
    "daily": "warm",
    "decision": "warm",
    "archive": "cold",
}


def tier_of(rel_path: str) -> Tier | None:
    """`hot`, `warm` or `cold` for a vault-relative markdown path; None if not a memory file."""
    source = source_of(rel_path)
    return None if source is None else TIER_OF_SOURCE[source]


def source_of(rel_path: str) -> Source | None:
    """`core`, `daily`, `decision` or `archive`; None for paths outside the memory tiers."""
    if not rel_path.endswith(".md"):
        return None
    if rel_path == CORE:
        return "core"
    if rel_path == DECISIONS:
        return "decision"
    if rel_path.startswith(DAILY_DIR + "/"):
        return "daily"
    if rel_path.startswith(ARCHIVE_DIR + "/"):
        return "archive"
    return None


@dataclass(frozen=True)
class Vault:
    root: Path
    _settings: Settings | None = field(default=None, compare=False, repr=False)
    _state_checked: list[bool] = field(default_factory=list, compare=False, repr=False)
    # What readers skipped or repaired on the way (a link leaving the vault, bad UTF-8):
    # the CLI prints them on stderr, context and tools return them as notices.
    notices: list[str] = field(default_factory=list, compare=False, repr=False)
    # An as-of snapshot shares the live vault's state.db (its embedding cache) by this
    # path, not by a link in its own .memctl/ (memctl follows no link there).
    shared_state_db: Path | None = field(default=None, compare=False, repr=False)

    def notice(self, message: str) -> None:
        if message not in self.notices:
            self.notices.append(message)

    def take_notices(self) -> list[str]:
        """The notices so far, handed to whoever reports them (and cleared)."""
        taken = list(self.notices)
        del self.notices[: len(taken)]
        return taken

    def _label(self, path: Path) -> str:
        try:
            return self.rel(path)
        except UsageError:
            return str(path)

    def leaves_vault(self, path: Path) -> bool:
        """Whether `path` (a file or a link, or a folder link on its way) resolves outside."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # a link loop
            return True
        return not real.is_relative_to(self.root.resolve())

    def read_memory(self, path: Path) -> str | None:
        """A memory file's text for a reader: the one rule every reader follows.

        A file or link that resolves outside the vault is skipped (None) with a notice: its
        contents never reach the context, `show`, `lint` or a tool result. Bytes that are not
        UTF-8 are read as U+FFFD with a notice naming the byte, as the index does, so one
        bad byte never hides the rest of a note (or HOT) from the agent.
        """
        label = self._label(path)
        if self.leaves_vault(path):
            self.notice(f"{label}: skipped, it is a link that leaves the vault")
            return None
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise UsageError(f"{path} does not exist") from None
        except IsADirectoryError:
            raise UsageError(f"{path} is a folder, not a file") from None
        except OSError as exc:
            self.notice(f"{label}: skipped, cannot read it ({exc.strerror or exc})")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.notice(
                f"{label}: not valid UTF-8 at byte {exc.start}; read with replacement "
                "characters (fix the file in an editor)"
            )
            return data.decode("utf-8", errors="replace")

    def check_writable(self, path: Path) -> Path:
        """`path`, if memctl may write it: no link on the way from the vault root (a rename
        would replace a file link, and a folder link would take the write elsewhere)."""
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            raise UsageError(f"{path} is outside the vault {self.root}") from None
        at = self.root
        for part in parts:
            at = at / part
            if at.is_symlink():
                raise UsageError(
                    f"{self._label(at)} is a symbolic link: memctl does not write through "
                    "links; replace it with the file itself"
                )
        return path

    @cached_property
    def settings(self) -> Settings:
        return self._settings if self._settings is not None else load_settings(self.root)

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def core_path(self) -> Path:
        return self.root / CORE

    @property
    def decisions_path(self) -> Path:
        return self.root / DECISIONS

    @property
    def daily_dir(self) -> Path:
        return self.root / DAILY_DIR

    @property
    def archive_dir(self) -> Path:
        return self.root / ARCHIVE_DIR

    @property
    def state_dir(self) -> Path:
        """`.memctl/`: the derived index and local state; never committed.

        It holds every memory (the index) and the query log, so it is never more open than
        the vault's notes: see `state_dir_mode`. Created with that mode, and tightened once
        per process if an existing one is more open.
        """
        path = self.root / STATE_DIR
        if path.is_symlink() and self.leaves_vault(path):
            # A cloned repository can track `.memctl` as a link: memctl would then create
            # and replace index.db, state.db, locks and journals in someone else's folder.
            raise UsageError(
                f"{path} is a link to a folder outside the vault; memctl keeps its state "
                "inside the vault: remove the link (the index is rebuilt by `memctl index`)"
            )
        path.mkdir(exist_ok=True)
        if not self._state_checked:
            try:
                wanted = state_dir_mode(self)
                current = stat.S_IMODE(path.stat().st_mode)
                if current & ~wanted:
                    os.chmod(path, current & wanted)
            except PermissionError:
                pass  # not ours to change (a shared vault owned by someone else)
            self._state_checked.append(True)
        return path

    def state_entry(self, *parts: str) -> Path:
        """`.memctl/PARTS`, checked before memctl reads, creates, replaces or removes it.

        `.memctl/` holds only what memctl made, and memctl makes no links there, so a
        link on the way below `.memctl/` came with a cloned repository: a lock would
        truncate its target, a database be written, a snapshot be written and pruned, a
        token be stored, through it. Refused with one line naming the link (exit 2);
        nothing is touched.
        """
        at = self.state_dir
        for part in parts:
            at = at / part
            if at.is_symlink():
                raise UnsafeStatePath(
                    f"{self._label(at)} is a symbolic link: memctl never follows a link in "
                    f"{STATE_DIR}/ (a cloned repository can commit one); it touched nothing. "
                    "Remove the link: memctl recreates what it needs"
                )
        return at

    def daily_path(self, day: date) -> Path:
        return self.daily_dir / f"{day.isoformat()}.md"

    def rel(self, path: Path) -> str:
        """Vault-relative POSIX path; a path that leaves the vault is a usage error."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            raise UsageError(f"{path} is outside the vault {self.root}") from None

    def resolve(self, rel_or_abs: str | Path) -> Path:
        """A user-given path, confined to the vault (symlinks resolved)."""
        candidate = Path(rel_or_abs)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = candidate.resolve()
        if not real.is_relative_to(self.root.resolve()):
            raise UsageError(f"{rel_or_abs} is outside the vault {self.root}")
        return candidate

    def memory_files(self) -> Iterator[Path]:
        """Markdown files under memory/, hidden files and folders skipped, in a stable order."""
        for _rel, path, _entry in self.memory_entries():
            yield Path(path)

    def memory_entries(self) -> Iterator[tuple[str, str, os.DirEntry[str]]]:
        """(vault-relative POSIX path, path, directory entry) of each file `memory_files`
        lists, in the same order: files of a folder by name, then its sub-folders.

        The stat walk before every search runs through here: scandir's entries and
        plain strings cost a third of os.walk plus pathlib at 10,000 files.
        """
        if not self.memory_dir.is_dir():
            return
        if self.leaves_vault(self.memory_dir):
            self.notice(f"{MEMORY_DIR}/: skipped, it is a link that leaves the vault")
            return
        cut = len(str(self.root)) + 1
        posix = os.sep == "/"

        def visit(folder: str) -> Iterator[tuple[str, str, os.DirEntry[str]]]:
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError:
                return  # as os.walk: an unreadable folder is skipped
            folders = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    continue
                if is_dir:
                    if not entry.is_symlink():  # as os.walk: links to folders not followed
                        folders.append(entry.path)
                elif entry.name.endswith(".md"):
                    rel = entry.path[cut:]
                    yield (rel if posix else rel.replace(os.sep, "/")), entry.path, entry
            for sub in folders:
                yield from visit(sub)

        yield from visit(str(self.memory_dir))

    def daily_notes(self) -> list[tuple[date, Path]]:
        """Daily notes with a real date in their name, oldest first."""
        from memctl.notes import daily_note_date

        if not self.daily_dir.is_dir():
            return []
        found = []
        for path in self.daily_dir.glob("*.md"):
            day = daily_note_date(path.name)
            if day is not None:
                found.append((day, path))
        return sorted(found)

    @contextlib.contextmanager
    def lock(self, name: str = "vault", timeout: float = 30.0) -> Iterator[None]:
        """An inter-process lock. `timeout=0` fails at once with LockBusy if it is held."""
        # filelock opens with O_TRUNC: through a committed link it would empty the target.
        lock = FileLock(str(self.state_entry(f"{name}.lock")))
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            raise LockBusy(
                f"another memctl process holds the {name} lock ({self.state_dir / name}.lock); "
                "try again when it finishes"
            ) from None
        try:
            yield
        finally:
            lock.release()


def state_dir_mode(vault: Vault) -> int:
    """`.memctl/`'s mode: memory/'s, minus what group or others may not do to core.md.

    One rule with the notes (which follow the umask): with umask 022 the notes are 0644
    and `.memctl/` 0755; with private notes (0600, or memory/ 0700) it is 0700; a
    group-shared vault (0664 notes, 2775 folders) stays shared so the group can search it.
    """
    try:
        folder = stat.S_IMODE(vault.memory_dir.stat().st_mode)
        note = stat.S_IMODE(vault.core_path.stat().st_mode)
    except OSError:
        return 0o777 & ~current_umask()
    mode = folder | 0o700
    for read, write, enter in (
        (stat.S_IRGRP, stat.S_IWGRP, stat.S_IXGRP),
        (stat.S_IROTH, stat.S_IWOTH, stat.S_IXOTH),
    ):
        if not note & read:
            mode &= ~(read | write | enter)
        elif not note & write:
            mode &= ~write
    return mode


def find_vault(
    explicit: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Vault:
    """`--vault`, then $MEMCTL_VAULT, then the nearest ancestor folder holding memory/core.md."""
    env = os.environ if env is None else env
    if explicit is not None:
        return _vault_at(explicit, "--vault")
    if env.get(ENV_VAR):
        return _vault_at(Path(env[ENV_VAR]), f"${ENV_VAR}")
    start = Path(os.path.abspath(cwd or Path.cwd()))
    for folder in (start, *start.parents):
        if (folder / CORE).is_file():
            return Vault(folder)
    raise VaultNotFound(
        f"no vault found: no --vault given, ${ENV_VAR} not set, and no {CORE} in {start} "
        "or any folder above it (run `memctl init`)"
    )


def _vault_at(path: Path, origin: str) -> Vault:
    root = Path(os.path.abspath(path.expanduser()))
    if not (root / CORE).is_file():
        raise VaultNotFound(f"{origin} {path} is not a vault: {root / CORE} does not exist")
    return Vault(root)


class UnsafeStatePath(UsageError):
    """A path in `.memctl/` state that memctl would not have written: refused, nothing touched."""
