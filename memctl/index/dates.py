"""Dates for notes that name none: their last git commit, else their file time.

The chunker stays pure; sync asks this for a fallback date only for a daily or archive
note with no date in its name, front matter or first heading (note_meta.needs_fallback_date),
and passes it in. An undated note must still age: without a date it never decays, and a
stale archived fact would outrank today's note that replaced it.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

from memctl.git import git_output, run_git
from memctl.notes import parse_iso_date

GIT_TIMEOUT_SECONDS = 10.0


class FallbackDates:
    """Per vault-relative path: the date of its last commit (one `git log`, run on first need)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._commits: dict[str, date] | None = None

    def of(self, rel: str, mtime_ns: int) -> date:
        if self._commits is None:
            self._commits = last_commit_dates(self.root)
        committed = self._commits.get(rel)
        if committed is not None:
            return committed
        return datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).date()


def last_commit_dates(root: Path) -> dict[str, date]:
    """{path relative to `root`: date of the newest commit touching it}; {} outside git."""
    if not any((parent / ".git").exists() for parent in (root, *root.parents)):
        return {}
    try:
        done = run_git(
            root,
            "log",
            "--relative",
            "--format=@%cs",
            "--name-only",
            "--",
            "memory",
            timeout=GIT_TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if done.returncode != 0:
        return {}
    found: dict[str, date] = {}
    current: date | None = None
    for line in git_output(done).splitlines():
        if line.startswith("@"):
            current = parse_iso_date(line[1:].strip())
        elif line.strip() and current is not None:
            found.setdefault(line.strip(), current)  # newest first: keep the first seen
    return found
