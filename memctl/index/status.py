"""Index metrics for `memctl status`."""

from __future__ import annotations

from typing import Any

from memctl.vault import Vault

INDEX_FILE = "index.db"


def index_status(vault: Vault) -> dict[str, Any]:
    path = vault.root / ".memctl" / INDEX_FILE
    if not path.exists():
        return {"exists": False}
    raise NotImplementedError  # filled in by the index work (issue 3)
