"""Running git for a vault: one way to start it, one way to report its failure."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from memctl.errors import MemctlError


def have_git() -> bool:
    return shutil.which("git") is not None


def run_git(
    cwd: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    data: bytes | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in `cwd`, bytes in and out; a non-zero exit is the caller's to judge
    (OSError when git cannot start, TimeoutExpired past `timeout`)."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        input=data,
        env=env,
        timeout=timeout,
        check=False,
    )


def failure_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The last line git wrote on stderr (else stdout): the one that says what went wrong."""
    for stream in (done.stderr, done.stdout):
        lines = (stream or b"").decode("utf-8", "replace").strip().splitlines()
        if lines:
            return lines[-1]
    return "?"


def git_output(done: subprocess.CompletedProcess[bytes]) -> str:
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def checked(done: subprocess.CompletedProcess[bytes], what: str) -> str:
    """git's stdout, or MemctlError("git WHAT failed: <its last line>")."""
    if done.returncode != 0:
        raise MemctlError(f"git {what} failed: {failure_line(done)}")
    return git_output(done)
