"""Whether a resident process serves a vault (for `memctl status`); stale files removed."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from memctl.errors import LockBusy
from memctl.resident import address
from memctl.vault import Vault


def resident_status(vault: Vault) -> dict[str, Any]:
    """`{"running": true, "pid", "memctl", "address", "differs"}` or `{"running": false}`.

    `differs`: the compared variables (MEMCTL_*, ANTHROPIC_*) this process has set otherwise
    than the resident one, whose commands therefore run in-process. A socket or info file
    nobody answers on, while nobody holds serve.lock, is left by a process that died (or was
    never this user's): it is removed here (`stale_removed`). While serve.lock is held and
    nobody answers, the process is starting or stopped (`answering` false).
    """
    root = str(vault.root)
    if not address.listening(root):
        return {"running": False}
    pong = address.ping(root, env=os.environ)
    if pong is not None:
        differs = pong.get("differs")
        return {
            "running": True,
            "pid": pong.get("pid"),
            "memctl": pong.get("memctl"),
            "address": pong.get("address"),
            "differs": [str(n) for n in differs] if isinstance(differs, list) else [],
        }
    try:
        with vault.lock(address.LOCK_NAME, timeout=0):
            for path in (address.socket_path(root), address.info_path(root)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
    except LockBusy:
        return {"running": True, "pid": None, "memctl": None, "address": None, "answering": False}
    return {"running": False, "stale_removed": True}
