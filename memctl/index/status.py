"""Index metrics for `memctl status`: size per tier, freshness, pending embeddings."""

from __future__ import annotations

from typing import Any

from memctl.vault import Vault, tier_of


def index_status(vault: Vault) -> dict[str, Any]:
    """Keys: exists, path, chunks, chunks_by_tier {hot, warm, cold}, files, stale_files
    (files added, changed or removed since the last sync, by a stat walk: nothing is read),
    pending_embeddings, model, last_sync (ISO or None)."""
    from memctl.index.backend import backend_of, database_url, has_index, open_store, redact
    from memctl.index.store import index_path

    if not has_index(vault):
        return {"exists": False}
    shared = backend_of(vault) == "postgres"
    where = redact(database_url(vault)) if shared else vault.rel(index_path(vault))
    with open_store(vault) as store:
        known = store.file_states()
        report: dict[str, Any] = {"exists": True, "path": where}
        report.update(store.counts())
        report["stale_files"] = _stale_files(vault, known)
        report["model"] = store.model_id
        report["last_sync"] = store.meta("last_sync")
    return report


def _stale_files(vault: Vault, known: dict[str, tuple[int, int, str]]) -> int:
    stale, seen = 0, set()
    for path in vault.memory_files():
        rel = path.relative_to(vault.root).as_posix()
        if tier_of(rel) is None:
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        seen.add(rel)
        previous = known.get(rel)
        if previous is None or (previous[0], previous[1]) != (st.st_size, st.st_mtime_ns):
            stale += 1
    return stale + len(set(known) - seen)
