"""Another local user, for the tests that need one (root with useradd; skipped elsewhere).

`as_peer(argv)` runs a command as that user (setpriv: no PAM, no login shell), with an
empty environment but PATH, so nothing of ours reaches it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess

import pytest

PEER = "memctl-peer"


def peer_ids() -> tuple[int, int] | None:
    """The peer's uid and gid, creating the user once; None where that cannot be done."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(PEER)
    except KeyError:
        if shutil.which("useradd") is None:
            return None
        done = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PEER],
            capture_output=True,
            check=False,
        )
        if done.returncode not in (0, 9):  # 9: created meanwhile by another process
            return None
        try:
            entry = pwd.getpwnam(PEER)
        except KeyError:
            return None
    if shutil.which("setpriv") is None:
        return None
    return entry.pw_uid, entry.pw_gid


def need_peer() -> tuple[int, int]:
    ids = peer_ids()
    if ids is None:
        pytest.skip("needs root with useradd and setpriv to act as a second local user")
    return ids


def as_peer(
    argv: list[str], *, timeout: float = 60, data: str | None = None
) -> subprocess.CompletedProcess[str]:
    uid, gid = need_peer()
    return subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *argv],
        env={"PATH": "/usr/bin:/bin", "HOME": "/"},
        cwd="/",
        input=data,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
