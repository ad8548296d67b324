"""`maintain --commit`: one git commit of exactly the changes memctl made.

The commit is built in a temporary index (GIT_INDEX_FILE) from HEAD plus memctl's own
moves replayed onto HEAD's content, never from the working tree's state of a file:

- a whole daily note moved to the archive: the source leaves the tree, the destination
  enters it with the note's bytes;
- a block moved out of a file (a decision, a core.md line, a merged backfill): the block
  is cut from HEAD's version of its source and appended to HEAD's version of its
  destination, so a person's other uncommitted hunks in those files stay theirs,
  uncommitted, in the working tree.

A note that was never committed (the normal case when only maintain commits) has nothing
in HEAD to delete; it is first recorded as written in its own commit, so `git revert` of
the run's commit gives the note back where it was instead of dropping it. The branch is
advanced with a compare-and-swap (`update-ref NEW OLD`), and the person's real index is
updated only for paths where it still matched HEAD, so nothing they staged is lost.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memctl.errors import MemctlError
from memctl.git import checked, have_git, run_git
from memctl.lifecycle.moves import append_to, cut_block, find_block
from memctl.vault import Vault

ZERO = "0" * 40
FILE_MODE = "100644"


@dataclass(frozen=True)
class Change:
    """One move memctl made: `block` empty for a whole-file rename."""

    source: str  # vault-relative
    destination: str
    block: str = ""
    header: str = ""
    whole_source: bool = False  # the block was the source's whole text (a merged note)


def require_git(vault: Vault) -> None:
    if not have_git() or run_git(vault.root, "rev-parse", "--is-inside-work-tree").returncode:
        raise MemctlError(
            f"--commit: {vault.root} is not in a git repository (git init it, or drop --commit)"
        )


class _Repo:
    def __init__(self, vault: Vault, index: Path) -> None:
        self.vault = vault
        self.top = Path(checked(run_git(vault.root, "rev-parse", "--show-toplevel"), "rev-parse"))
        prefix = vault.root.resolve().relative_to(self.top.resolve()).as_posix()
        self.prefix = "" if prefix == "." else prefix + "/"
        self.env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        head = run_git(self.top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
        self.head = head.stdout.decode().strip() if head.returncode == 0 else None
        self.identity = (
            []
            if run_git(self.top, "config", "user.email").stdout.strip()
            else ["-c", "user.name=memctl", "-c", "user.email=memctl@localhost"]
        )

    def path(self, rel: str) -> str:
        return self.prefix + rel

    def head_entry(self, rel: str) -> tuple[str, str] | None:
        """(mode, blob) of `rel` in HEAD, or None."""
        if self.head is None:
            return None
        out = checked(
            run_git(self.top, "ls-tree", "-z", self.head, "--", self.path(rel)), "ls-tree"
        )
        if not out:
            return None
        meta = out.split("\t", 1)[0].split()
        return meta[0], meta[2]

    def index_entry(self, rel: str) -> tuple[str, str] | None:
        """(mode, blob) of `rel` in the person's own index, or None."""
        out = checked(run_git(self.top, "ls-files", "-s", "-z", "--", self.path(rel)), "ls-files")
        if not out:
            return None
        meta = out.split("\t", 1)[0].split()
        return meta[0], meta[1]

    def blob(self, sha: str) -> bytes:
        done = run_git(self.top, "cat-file", "blob", sha)
        checked(done, "cat-file")
        return done.stdout

    def write_blob(self, data: bytes) -> str:
        return checked(run_git(self.top, "hash-object", "-w", "--stdin", data=data), "hash-object")

    def stage(self, entries: dict[str, tuple[str, str] | None], env: Mapping[str, str]) -> None:
        lines = "".join(
            f"{e[0]} {e[1]}\t{self.path(rel)}\n" if e else f"0 {ZERO}\t{self.path(rel)}\n"
            for rel, e in entries.items()
        )
        checked(
            run_git(self.top, "update-index", "--index-info", env=env, data=lines.encode()),
            "update-index",
        )

    def commit_tree(self, parent: str | None, message: str) -> tuple[str, str]:
        tree = checked(run_git(self.top, "write-tree", env=self.env), "write-tree")
        parents = ["-p", parent] if parent else []
        commit = checked(
            run_git(self.top, *self.identity, "commit-tree", tree, *parents, "-m", message),
            "commit-tree",
        )
        return tree, commit

    def tree_of(self, commit: str | None) -> str | None:
        if commit is None:
            return None
        return checked(run_git(self.top, "rev-parse", f"{commit}^{{tree}}"), "rev-parse")


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def commit_changes(
    vault: Vault, changes: list[Change], message: str, record_message: str
) -> str | None:
    """Commit `changes` replayed onto HEAD (see the module docstring); the short hash of
    the commit, or None when they change nothing in HEAD."""
    require_git(vault)
    if not changes:
        return None
    with tempfile.TemporaryDirectory(prefix="memctl-git-") as tmp:
        repo = _Repo(vault, Path(tmp) / "index")
        checked(
            run_git(
                repo.top, "read-tree", *([repo.head] if repo.head else ["--empty"]), env=repo.env
            ),
            "read-tree",
        )
        replay = _Replay(vault, repo)
        for change in changes:
            replay.apply(change)
        state, record = replay.state, replay.record
        parent = repo.head
        if record:
            repo.stage({rel: _entry(repo, rel, data) for rel, data in record.items()}, repo.env)
            _, parent = repo.commit_tree(parent, record_message)
        final = {rel: _entry(repo, rel, data) for rel, data in state.items()}
        repo.stage(final, repo.env)
        tree, commit = repo.commit_tree(parent, message)
        if tree == repo.tree_of(parent):
            if parent is None or parent == repo.head:
                return None
            commit = parent
        checked(
            run_git(
                repo.top,
                "update-ref",
                "-m",
                message.splitlines()[0],
                "HEAD",
                commit,
                repo.head or "",
            ),
            "update-ref",
        )
        # The person's own index: where it still matched HEAD, it now matches the new
        # commit; a path they had staged something in keeps their staged version.
        own = {}
        for rel in {**record, **state}:
            if repo.index_entry(rel) == repo.head_entry(rel):
                own[rel] = final.get(rel, _entry(repo, rel, record.get(rel)))
        if own:
            repo.stage(own, os.environ)
        return checked(run_git(repo.top, "rev-parse", "--short", "HEAD"), "rev-parse")


def _entry(repo: _Repo, rel: str, data: bytes | None) -> tuple[str, str] | None:
    """`rel`'s index entry for `data` (its mode in HEAD kept); None: the path leaves."""
    if data is None:
        return None
    old = repo.head_entry(rel)
    return (old[0] if old else FILE_MODE), repo.write_blob(data)


class _Replay:
    """memctl's moves replayed onto HEAD's content: each file the commit writes
    (`state`, None for a file that leaves the tree), and each note HEAD never held that
    is first recorded as written (`record`)."""

    def __init__(self, vault: Vault, repo: _Repo) -> None:
        self.vault, self.repo = vault, repo
        self.state: dict[str, bytes | None] = {}
        self.record: dict[str, bytes] = {}

    def current(self, rel: str) -> bytes | None:
        """`rel` as the replay has it so far: HEAD's version, then each change's."""
        if rel not in self.state:
            entry = self.repo.head_entry(rel)
            self.state[rel] = self.repo.blob(entry[1]) if entry else None
        return self.state[rel]

    def apply(self, change: Change) -> None:
        if not change.block:
            self._renamed(change)
        else:
            self._block_moved(change)

    def _renamed(self, change: Change) -> None:
        """A whole file moved: the destination's bytes as written, the source gone."""
        moved = self.vault.root / change.destination
        data = moved.read_bytes() if moved.exists() else None
        if self.current(change.source) is None and data is not None:
            self.record[change.source] = data
        self.state[change.source] = None
        if data is not None:
            self.state[change.destination] = data

    def _block_moved(self, change: Change) -> None:
        """A block cut from HEAD's source and appended to HEAD's destination (a new
        destination as written, or as the header and the block)."""
        state = self.state
        source = self.current(change.source)
        if source is None and change.whole_source:
            self.record[change.source] = source = _bytes(change.block)
        if source is not None:
            cut = cut_block(_text(source), change.block)
            state[change.source] = None if change.whole_source and not cut.strip() else _bytes(cut)
        target = self.current(change.destination)
        if target is None:
            on_disk = self.vault.root / change.destination
            state[change.destination] = (
                on_disk.read_bytes()
                if on_disk.exists()
                else _bytes(append_to(change.header, change.block))
            )
        elif find_block(_text(target), change.block) is None:
            state[change.destination] = _bytes(append_to(_text(target), change.block))
