"""A hostile vault as it arrives by `git clone`: committed `.memctl/` entries and links.

`plant` builds the origin repository (the template's vault, with whatever the test
force-adds under `.memctl/` and `memory/`), `clone` checks it out beside sibling
repositories the test then expects untouched (`tree_of` records every file's bytes).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from memctl.memory import init_vault

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": "2026-11-20T12:00:00",
    "GIT_COMMITTER_DATE": "2026-11-20T12:00:00",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def plant(origin: Path, prepare: Callable[[Path], None]) -> Path:
    """A git repository holding a vault; `prepare(root)` plants files and links before
    everything (`.memctl/` included, past the template's .gitignore) is committed."""
    init_vault(origin)
    (origin / "memory" / "daily" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- 10:00 hello from the shared vault: the zebra rollout, привет, שלום\n",
        "utf-8",
    )
    git(origin, "init", "-q", "-b", "main")
    prepare(origin)
    git(origin, "add", "-A")
    git(origin, "add", "-f", "--", ".")  # what `.gitignore` keeps out, a hostile repo adds
    git(origin, "commit", "-qm", "shared vault")
    return origin


def clone(origin: Path, where: Path) -> Path:
    git(where.parent, "clone", "-q", str(origin), where.name)
    return where


def siblings(parent: Path, n: int = 4) -> None:
    """`n` repositories beside the clone, as in a folder of checkouts."""
    for i in range(n):
        repo = parent / f"repo{i}"
        (repo / "src").mkdir(parents=True)
        (repo / "src" / "main.py").write_text(f"print({i})\n", "utf-8")
        (repo / "README.md").write_text(f"# repo {i}\n", "utf-8")


def tree_of(folder: Path, skip: Path | None = None) -> dict[str, bytes]:
    """Every file (and link target) under `folder`, `skip` excluded."""
    found: dict[str, bytes] = {}
    for top, dirs, files in os.walk(folder):
        here = Path(top)
        if skip is not None and (here == skip or skip in here.parents):
            dirs[:] = []
            continue
        for name in [*files, *dirs]:
            path = here / name
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = b"-> " + os.fsencode(os.readlink(path))
            elif path.is_file():
                found[key] = path.read_bytes()
    return found
