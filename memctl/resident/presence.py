"""Whether a resident process serves a vault (for `memctl status`); stale files removed."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from memctl.errors import LockBusy
from memctl.resident import address
from memctl.vault import Vault


def resident_status(vault: Vault) -> dict[str, Any]:
    """`{"running": true, "pid", "memctl", "address"}` or `{"running": false}`.

    A socket or info file nobody answers on, while nobody holds serve.lock, is left by
    a process that died: it is removed here (`stale_removed`).
    """
    root = str(vault.root)
    if not address.listening(root):
        return {"running": False}
    pong = address.ping(root)
    if pong is not None:
        return {
            "running": True,
            "pid": pong.get("pid"),
            "memctl": pong.get("memctl"),
            "address": pong.get("address"),
        }
    try:
        with vault.lock(address.LOCK_NAME, timeout=0):
            for path in (address.socket_path(root), address.info_path(root)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
    except LockBusy:
        return {"running": True, "pid": None, "memctl": None, "address": None}  # starting
    return {"running": False, "stale_removed": True}
