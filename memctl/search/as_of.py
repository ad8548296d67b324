"""Search the vault as committed at a past moment (`memctl search --as-of`).

The vault's memory/ at that commit is extracted once into `.memctl/as-of/<commit>/`,
indexed there (vectors come from the live embedding cache: the snapshot's state.db is
a link to the live one, so unchanged texts are not embedded again) and reused by every
later search of the same commit. At most `KEEP_SNAPSHOTS` snapshots and `MAX_BYTES` on
disk are kept; the least recently used go first. Searches of a snapshot leave no trace
in the usage log: the past is read, not used.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memctl.errors import MemctlError, UsageError
from memctl.git import failure_line, git_output, have_git, run_git
from memctl.vault import MEMORY_DIR, Vault

KEEP_SNAPSHOTS = 5
MAX_BYTES = 512 * 1024 * 1024
SNAPSHOTS = "as-of"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_READY = ".ready"
_SNAPSHOT_NAME = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class Revision:
    asked: str  # what the user gave: a date or a revision
    commit: str  # full sha
    prefix: str  # the vault's folder inside the repository ("" at its root)

    def to_dict(self) -> dict[str, str]:
        return {"as_of": self.asked, "commit": self.commit}


def _git(root: Path, *args: str) -> str:
    if not have_git():
        raise UsageError("--as-of needs git on PATH")
    done = run_git(root, *args)
    if done.returncode != 0:
        raise _GitError(failure_line(done))
    return git_output(done)


class _GitError(Exception):
    pass


def resolve(vault: Vault, when: str) -> Revision:
    """The commit of `when` (YYYY-MM-DD: the last commit made on or before that day; else
    any git revision), with a one-line error when there is no such moment."""
    root = vault.root
    try:
        prefix = _git(root, "rev-parse", "--show-prefix")
    except _GitError:
        raise UsageError(f"--as-of needs a git repository: {root} is not in one") from None
    when = when.strip()
    if not when:
        raise UsageError("--as-of needs a date (YYYY-MM-DD) or a git revision")
    try:
        if _DATE.match(when):
            _check_date(when)
            commit = _git(root, "rev-list", "-1", f"--before={when} 23:59:59", "HEAD")
            if not commit:
                first = _git(root, "log", "--reverse", "--format=%cs", "HEAD").splitlines()
                start = first[0] if first else "?"
                raise UsageError(
                    f"--as-of {when} precedes the vault's git history (it starts {start})"
                )
        else:
            if when.startswith("-"):
                raise UsageError(f"--as-of: {when!r} is not a date or a git revision")
            try:
                commit = _git(root, "rev-parse", "--verify", "--quiet", f"{when}^{{commit}}")
            except _GitError:
                # --quiet: git says nothing when the revision does not exist.
                raise UsageError(
                    f"--as-of {when}: unknown revision: no commit, branch or tag of that name "
                    "in this repository (or give a date, YYYY-MM-DD)"
                ) from None
    except _GitError as exc:
        raise UsageError(f"--as-of {when}: {exc}") from None
    if not commit:
        raise UsageError(f"--as-of {when}: no such git revision")
    return Revision(asked=when, commit=commit, prefix=prefix)


def _check_date(text: str) -> None:
    from datetime import date

    try:
        date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--as-of {text} is not a real date") from None


def read_file_at(vault: Vault, revision: Revision, rel: str) -> str:
    """One vault file's text as committed (core.md for `memctl show core --as-of`)."""
    try:
        return _git(vault.root, "show", f"{revision.commit}:{revision.prefix}{rel}")
    except _GitError:
        raise UsageError(
            f"{rel} did not exist at {revision.asked} ({revision.commit[:12]})"
        ) from None


def snapshot(vault: Vault, revision: Revision) -> Vault:
    """The indexed snapshot of `revision`, built once (see the module docstring)."""
    from memctl.index.sync import sync

    # Every path below .memctl/ is checked for links (a cloned repository can commit
    # `.memctl/as-of -> ../..`): snapshots are written and pruned only in memctl's own folder.
    name = revision.commit[:16]
    base = vault.state_entry(SNAPSHOTS)
    base.mkdir(exist_ok=True)
    final = vault.state_entry(SNAPSHOTS, name)
    if _ready(vault, name):
        os.utime(final / _READY)
        return Vault(final, _settings=vault.settings)
    with vault.lock(f"as-of-{name}", timeout=120):
        if _ready(vault, name):
            return Vault(final, _settings=vault.settings)
        shutil.rmtree(final, ignore_errors=True)
        final.mkdir()
        _extract(vault, revision, final)
        state = final / ".memctl"
        state.mkdir()
        live_state = vault.state_entry("state.db")
        if live_state.exists():
            # SQLite follows the link, so its -wal sits beside the live file.
            with contextlib.suppress(OSError):
                os.symlink(live_state, state / "state.db")
        snap = Vault(final, _settings=vault.settings)
        sync(snap, full=False)
        (final / _READY).write_text(revision.commit, encoding="utf-8")
    _prune(base, keep=final)
    return Vault(final, _settings=vault.settings)


def _ready(vault: Vault, name: str) -> bool:
    """Whether snapshot `name` was built (its folder and `.ready` plain, not links)."""
    return vault.state_entry(SNAPSHOTS, name, _READY).is_file()


def _extract(vault: Vault, revision: Revision, dest: Path) -> None:
    tree = f"{revision.prefix}{MEMORY_DIR}"
    done = run_git(vault.root, "archive", "--format=tar", revision.commit, "--", tree)
    if done.returncode != 0:
        raise UsageError(f"memory/ did not exist at {revision.asked} ({revision.commit[:12]})")
    at = f"at {revision.asked} ({revision.commit[:12]})"

    def confined(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        # The data filter refuses a link that is absolute or leaves the snapshot; such a
        # link is skipped, as readers of the live vault skip it, and the rest extracted.
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError:
            vault.notice(f"{member.name} {at}: skipped, it is a link that leaves the vault")
            return None

    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        members = []
        for member in tar.getmembers():
            if not member.name.startswith(revision.prefix):
                continue
            member.name = member.name[len(revision.prefix) :]
            members.append(member)
        tar.extractall(dest, members=members, filter=confined)
    if not (dest / MEMORY_DIR).is_dir():
        raise UsageError(f"memory/ did not exist at {revision.asked} ({revision.commit[:12]})")


def _size(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total


def _prune(base: Path, keep: Path) -> None:
    """Least recently used snapshots go first, beyond KEEP_SNAPSHOTS or MAX_BYTES.

    Only plain folders named as memctl names snapshots are candidates: nothing is ever
    removed through a link, nor anything memctl did not make.
    """
    snaps = []
    with os.scandir(base) as listing:
        for entry in listing:
            if not _SNAPSHOT_NAME.match(entry.name) or not entry.is_dir(follow_symlinks=False):
                continue
            folder = Path(entry.path)
            ready = folder / _READY
            used = time.time()
            with contextlib.suppress(OSError):
                if not ready.is_symlink():
                    used = ready.stat().st_mtime
            snaps.append((used, folder))
    snaps.sort(reverse=True)
    total = 0
    for n, (_used, folder) in enumerate(snaps):
        total += _size(folder)
        if folder != keep and (n >= KEEP_SNAPSHOTS or total > MAX_BYTES):
            shutil.rmtree(folder, ignore_errors=True)


def search_as_of(vault: Vault, when: str, query: str, **kwargs: Any) -> Any:
    """search() over the vault as committed at `when`; the response carries as_of/commit."""
    from memctl.search.hybrid import Searcher

    revision = resolve(vault, when)
    try:
        snap = snapshot(vault, revision)
    except OSError as exc:
        raise MemctlError(f"cannot build the --as-of snapshot: {exc}") from None
    with Searcher(snap, fresh=False) as searcher:
        response = searcher.search(query, log=False, **kwargs)
    response.as_of = revision.to_dict()
    return response
