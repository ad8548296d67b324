"""Index metrics for `memctl status`: size per tier, freshness, pending embeddings."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl.vault import Vault, tier_of

if TYPE_CHECKING:
    from memctl.index.usage import IndexCounts

# A long-lived process (`memctl ui`, `serve`) asks for the status of an index that rarely
# changed since: counting 100k chunks per tier costs ~80 ms, the rest of a status ~40. The
# counts, model and last sync of a SQLite index are kept while its files' stats (index.db
# and its WAL, where every commit lands) stay the same; the vault walk is never kept.
_kept: dict[Path, tuple[tuple[int, ...], IndexCounts, str, str | None]] = {}
_kept_lock = threading.Lock()


def forget_kept() -> None:
    """Forget every index's kept counts: the next status counts them, as a new process
    would (a bench timing what `memctl status` costs on its own)."""
    with _kept_lock:
        _kept.clear()


def _signature(index: Path) -> tuple[int, ...]:
    out: list[int] = []
    for path in (index, index.with_name(index.name + "-wal")):
        try:
            st = os.stat(path)
        except OSError:
            out += [0, 0, 0]
        else:
            out += [st.st_ino, st.st_size, st.st_mtime_ns]
    return tuple(out)


@dataclass(frozen=True)
class IndexStatus:
    """`stale_files`: files added, changed or removed since the last sync (by a stat walk:
    nothing is read); `last_sync` ISO or None."""

    exists: bool
    path: str = ""
    chunks: int = 0
    chunks_by_tier: dict[str, int] = field(default_factory=dict)  # hot, warm, cold
    files: int = 0
    pending_embeddings: int = 0
    stale_files: int = 0
    model: str = ""
    last_sync: str | None = None

    @property
    def action(self) -> str | None:
        """What the owner should run so search has words and vectors for everything."""
        if not self.exists:
            return "the index is not built yet: run `memctl index`"
        if self.pending_embeddings:
            return (
                f"{self.pending_embeddings} chunks wait for embeddings (searched by words only "
                "until then): run `memctl index`, or keep `memctl watch &` running"
            )
        return None

    def to_dict(self) -> dict[str, Any]:
        """`status --json`'s `index` (without `action`): only `exists` when there is none."""
        if not self.exists:
            return {"exists": False}
        return {
            "exists": True,
            "path": self.path,
            "chunks": self.chunks,
            "chunks_by_tier": self.chunks_by_tier,
            "files": self.files,
            "pending_embeddings": self.pending_embeddings,
            "stale_files": self.stale_files,
            "model": self.model,
            "last_sync": self.last_sync,
        }


def index_status(vault: Vault) -> IndexStatus:
    from memctl.index.backend import backend_of, database_url, has_index, open_store
    from memctl.index.store import index_path
    from memctl.secrets import redact_url

    if not has_index(vault):
        return IndexStatus(exists=False)
    shared = backend_of(vault) == "postgres"
    where = redact_url(database_url(vault)) if shared else vault.rel(index_path(vault))
    local = None if shared else index_path(vault)
    signature = _signature(local) if local is not None else ()
    with open_store(vault) as store:
        known = store.file_states()
        with _kept_lock:
            kept = _kept.get(local) if local is not None else None
        if kept is not None and kept[0] == signature:
            counts, model, last_sync = kept[1], kept[2], kept[3]
        else:
            counts, model, last_sync = store.counts(), store.model_id, store.meta("last_sync")
            if local is not None:
                with _kept_lock:
                    _kept[local] = (signature, counts, model, last_sync)
        return IndexStatus(
            exists=True,
            path=where,
            chunks=counts["chunks"],
            chunks_by_tier=counts["chunks_by_tier"],
            files=counts["files"],
            pending_embeddings=counts["pending_embeddings"],
            stale_files=_stale_files(vault, known),
            model=model,
            last_sync=last_sync,
        )


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
