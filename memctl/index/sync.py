"""Vault -> index, incrementally: lexical rows first, vectors after.

1. Stat every memory file; only files whose size or mtime moved are read, and only
   those whose bytes changed are re-chunked.
2. Changed files are written in batches, one transaction each: a crash leaves the
   previous consistent index, and a changed file is keyword-searchable as soon as its
   batch commits. A chunk whose text is in the embedding cache gets its vector at once.
3. Remaining chunks are embedded in batches (one transaction per batch) under
   `embed.lock`, outside `index.lock`, so a long embedding run never keeps a later edit
   out of keyword search. The embedding loop re-reads the pending list, so it also
   embeds chunks that another process wrote meanwhile.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from memctl import clock
from memctl.errors import LockBusy
from memctl.index.backend import IndexBackend, backend_of, open_store
from memctl.index.chunker import Chunk, chunk_markdown
from memctl.index.dates import FallbackDates
from memctl.index.note_meta import needs_fallback_date
from memctl.leftovers import notice as leftover_notice
from memctl.leftovers import remove_rebuild_files, remove_stale_temp_files
from memctl.vault import Vault, tier_of

Progress = Callable[[str, int, int], None]  # (phase, done, total)

LOCK_WAIT_SECONDS = 5.0
_BATCH_FILES = 100
_BATCH_CHUNKS = 1000


@dataclass
class SyncReport:
    files_seen: int = 0
    files_unchanged: int = 0
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    chunks_total: int = 0
    chunks_written: int = 0
    cache_hits: int = 0
    embedded: int = 0
    pending_embeddings: int = 0
    model: str = ""
    model_changed: bool = False
    full: bool = False
    skipped: str | None = None  # why nothing was done (another indexer holds the lock)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FileRead:
    """One tier file as sync read it: its stat, its content's digest and its chunks."""

    rel: str
    size: int
    mtime_ns: int
    digest: str
    chunks: list[Chunk]


def sync(
    vault: Vault,
    *,
    embed: bool = True,
    full: bool = False,
    progress: Progress | None = None,
    wait: float = LOCK_WAIT_SECONDS,
    now: datetime | None = None,
    store: IndexBackend | None = None,
) -> SyncReport:
    """Bring the index up to date with the vault (see the module docstring).

    `store`: an index the caller holds open (maintain's run), used for every phase
    instead of opening one per phase; not closed here.
    """
    started = time.perf_counter()
    report = SyncReport(full=full)
    now = now or clock.now()
    with contextlib.ExitStack() as stack:

        def opened() -> IndexBackend:
            nonlocal store
            if store is None:
                store = stack.enter_context(open_store(vault))
            return store

        with vault.lock("index", timeout=wait):
            # What a killed run left: a rebuild file only this lock's holder could be
            # writing; on --full, also the atomic-write copies under memory/ (if the vault
            # lock is free).
            leftovers = remove_rebuild_files(vault) + (
                remove_stale_temp_files(vault) if full else []
            )
            if leftovers:
                report.warnings.append(leftover_notice(leftovers))
            if full and backend_of(vault) == "sqlite":
                from memctl.index.rebuild import rebuild_beside

                def build(fresh: IndexBackend) -> None:
                    _sync_lexical(vault, fresh, report, progress, now)
                    if embed:
                        _embed_pending(vault, fresh, report, progress, private=True)

                rebuild_beside(vault, build, report)
                report.seconds = round(time.perf_counter() - started, 3)
                return report
            if full:
                # A shared index is rebuilt in place: every file is re-read and its
                # chunks replaced batch by batch, so the team never searches an empty one.
                opened().forget_file_stats()  # type: ignore[attr-defined]
            _sync_lexical(vault, opened(), report, progress, now)
        if embed:
            _embed_pending(vault, opened(), report, progress)
        report.pending_embeddings = opened().pending_count()
        report.model = opened().model_id
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def embed_pending(
    vault: Vault,
    *,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
    batch_size: int | None = None,
) -> SyncReport:
    """Only the vector phase: embed whatever the lexical syncs left pending.

    `stop` is asked between batches, so a watcher can shut down without killing the
    model mid-batch (onnxruntime aborts the process if its thread dies at exit), and a
    search with a time budget stops within one batch of it (`batch_size` overrides
    [embed] batch_size for that).
    """
    started = time.perf_counter()
    report = SyncReport()
    with open_store(vault) as store:
        _embed_pending(vault, store, report, progress, stop=stop, batch_size=batch_size)
        report.pending_embeddings = store.pending_count()
        report.chunks_total = store.chunk_count()
        report.model = store.model_id
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def ensure_fresh(vault: Vault, *, now: datetime | None = None) -> SyncReport:
    """The cheap pre-search sync: a stat walk and lexical rows only; never waits.

    When another indexer holds the lock it is already bringing the index up to date,
    so this returns at once with `skipped` set instead of queueing behind it.
    """
    started = time.perf_counter()
    report = SyncReport()
    try:
        with vault.lock("index", timeout=0), open_store(vault) as store:
            _sync_lexical(vault, store, report, None, now or clock.now(), stamp=False)
            report.pending_embeddings = store.pending_count()
            report.model = store.model_id
    except LockBusy:
        report.skipped = "another memctl process is indexing"
    report.seconds = round(time.perf_counter() - started, 3)
    return report


# -- lexical phase -----------------------------------------------------------------------


def _sync_lexical(
    vault: Vault,
    store: IndexBackend,
    report: SyncReport,
    progress: Progress | None,
    now: datetime,
    *,
    stamp: bool = True,
) -> None:
    known = store.file_states()
    max_bytes = vault.settings.embed.max_file_bytes
    seen: set[str] = set()
    candidates: list[tuple[str, str, os.stat_result]] = []
    for rel, path, st in tier_files(vault, report):
        seen.add(rel)
        report.files_seen += 1
        previous = known.get(rel)
        if previous and previous[0] == st.st_size and previous[1] == st.st_mtime_ns:
            report.files_unchanged += 1
            continue
        candidates.append((rel, path, st))

    dates = FallbackDates(vault.root)
    batch: list[FileRead] = []
    touched: list[tuple[str, int, int]] = []
    batch_chunks = 0
    for done, (rel, path, st) in enumerate(candidates, 1):
        read = read_tier_file(rel, path, st, max_bytes, report, dates)
        if read is None:
            continue  # unreadable: keep what the index already holds for it
        previous = known.get(rel)
        if previous and previous[2] == read.digest:
            touched.append((rel, read.size, read.mtime_ns))
            report.files_unchanged += 1
            continue
        batch.append(read)
        batch_chunks += len(read.chunks)
        if len(batch) >= _BATCH_FILES or batch_chunks >= _BATCH_CHUNKS:
            _write_batch(store, batch, touched, report, now)
            batch, touched, batch_chunks = [], [], 0
        if progress:
            progress("reading", done, len(candidates))
    removed = sorted(set(known) - seen)
    if batch or touched or removed:
        _write_batch(store, batch, touched, report, now, removed=removed)
    if stamp or report.changed or report.removed:
        # The pre-search catch-up stamps only real changes: a write per search would
        # serialise concurrent searches on the database's write lock for nothing.
        store.mark_synced(now)
        # Counting reads a whole index (~1M entries at 1M chunks): the pre-search
        # catch-up with nothing to do skips it, the way it skips the stamp.
        report.chunks_total = store.chunk_count()


def _write_batch(
    store: IndexBackend,
    batch: list[FileRead],
    touched: list[tuple[str, int, int]],
    report: SyncReport,
    now: datetime,
    removed: Sequence[str] = (),
) -> None:
    with store.transaction():
        for read in batch:
            report.cache_hits += store.replace_file(
                read.rel,
                size=read.size,
                mtime_ns=read.mtime_ns,
                digest=read.digest,
                chunks=read.chunks,
                now=now,
            )
            report.chunks_written += len(read.chunks)
        for rel, size, mtime_ns in touched:
            store.touch_file(rel, size, mtime_ns)
        for rel in removed:
            store.remove_file(rel)
    report.changed.extend(read.rel for read in batch)
    report.removed.extend(removed)


def tier_files(vault: Vault, report: SyncReport) -> list[tuple[str, str, os.stat_result]]:
    """Tier files under memory/ with their stat, in the order sync reads them; links
    leaving the vault are skipped (said in `report.warnings`)."""
    root = vault.root.resolve()
    found = []
    for rel, path, entry in vault.memory_entries():
        if tier_of(rel) is None:
            continue
        try:
            if entry.is_symlink() and not Path(path).resolve().is_relative_to(root):
                report.warnings.append(f"{rel}: skipped, it is a link that leaves the vault")
                continue
            st = entry.stat()
        except OSError as exc:
            report.warnings.append(f"{rel}: skipped, cannot stat it ({exc.strerror or exc})")
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        found.append((rel, path, st))
    return found


def read_tier_file(
    rel: str,
    path: str,
    st: os.stat_result,
    max_bytes: int,
    report: SyncReport,
    dates: FallbackDates,
) -> FileRead | None:
    """A tier file read and chunked as sync indexes it (a bulk loader writes the chunks
    itself); None when it cannot be read. A binary file reads as no chunks, a file past
    `max_bytes` as its first whole lines: both said in `report.warnings`."""
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        report.warnings.append(f"{rel}: skipped, cannot read it ({exc.strerror or exc})")
        return None
    digest = hashlib.sha256(data).hexdigest()[:32]
    if b"\x00" in data[:8192]:
        report.warnings.append(f"{rel}: skipped, it looks like a binary file")
        return FileRead(rel, st.st_size, st.st_mtime_ns, digest, [])
    if len(data) > max_bytes:
        # Cut at the last whole line so no chunk ends in half a line or half a character.
        data = data[:max_bytes]
        data = data[: data.rfind(b"\n") + 1] or data
        report.warnings.append(
            f"{rel}: larger than [embed] max_file_bytes ({max_bytes} bytes); "
            "only the first part is indexed"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        report.warnings.append(
            f"{rel}: not valid UTF-8 (byte {exc.start}); indexed with replacement characters"
        )
    fallback = dates.of(rel, st.st_mtime_ns) if needs_fallback_date(text, rel) else None
    return FileRead(
        rel, st.st_size, st.st_mtime_ns, digest, chunk_markdown(text, rel, fallback_date=fallback)
    )


# -- vectors ---------------------------------------------------------------------------


def _embed_pending(
    vault: Vault,
    store: IndexBackend,
    report: SyncReport,
    progress: Progress | None,
    *,
    private: bool = False,
    stop: Callable[[], bool] | None = None,
    batch_size: int | None = None,
) -> None:
    """Embed what is pending. `private`: a rebuild file nobody else sees needs no lock."""
    from memctl.index.embed.registry import canonical
    from memctl.index.unit_embed import (
        UNITS_PAST,
        UNITS_VERSION,
        backfill_units,
        embed_units,
        embeds_units,
    )

    # `[search] units = false`, or an index past units.UNITS_MAX_CHUNKS: no fact is
    # embedded (2-3x the chunks' embedding time); turned on again, or the index back under
    # the limit, the first index backfills them.
    setting = vault.settings.search.units
    quiet = store.pending_count() == 0 and store.model_id == canonical(vault.settings.embed.model)
    if quiet and (not setting or store.units_embedded() in (UNITS_VERSION, UNITS_PAST)):
        return
    from memctl.index.embed import get_embedder

    with contextlib.ExitStack() as stack:
        if not private:
            try:
                stack.enter_context(vault.lock("embed", timeout=0))
            except LockBusy:
                report.warnings.append(
                    "another memctl process is computing embeddings; it embeds these chunks too"
                )
                return
        units = embeds_units(store, setting)
        if quiet and not units:
            return
        embedder = get_embedder(vault.settings)
        report.model_changed = store.set_model(embedder.model_id, embedder.dim)
        batch_size = max(1, batch_size or vault.settings.embed.batch_size)
        total = store.pending_count()
        last_id, done = 0, 0
        while not (stop and stop()) and (rows := store.pending_after(last_id, batch_size)):
            last_id = rows[-1][0]
            ids = [row[0] for row in rows]
            # Every pending chunk's text, cached vector or not: its units may be new.
            chunk_texts = dict(store.still_pending(ids))
            with store.transaction():
                hits = store.fill_pending_from_cache(ids)
            report.cache_hits += hits
            # hash -> text (equal texts embed once): read again only if the cache filled some.
            texts = dict(store.still_pending(ids)) if hits else chunk_texts
            if texts:
                vectors = embedder.embed_passages(list(texts.values()))
                with store.transaction():
                    store.cache_vectors(embedder.model_id, zip(texts, vectors, strict=True))
                    report.embedded += store.fill_pending_from_cache(ids)
            if units:
                embed_units(store, embedder, chunk_texts.values(), batch_size, stop)
            done += len(rows)
            if progress:
                progress("embedding", min(done, total), max(total, done))
        if units and not (stop and stop()):
            backfill_units(store, embedder, batch_size, stop)
