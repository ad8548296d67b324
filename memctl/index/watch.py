"""`memctl watch`: a watchdog observer that syncs the index after each burst of edits.

Editors save in many ways (write in place, write a temp file and rename it over the
original, delete and re-create), so events are only a hint that something under
memory/ moved: after `debounce` seconds of quiet the incremental sync stats the
vault and finds out what really changed. Lexical sync runs on the watcher's thread so
an edit is keyword-searchable about `debounce` seconds after the save; vectors are
computed on a second thread so a long embedding run never delays the next edit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memctl.errors import LockBusy, MemctlError
from memctl.index.damage import IndexDamaged
from memctl.index.sync import LOCK_WAIT_SECONDS, SyncReport, embed_pending, sync
from memctl.vault import MEMORY_DIR, Vault


def is_relevant(vault_root: Path, path: str | bytes | None) -> bool:
    """Whether an event path can change the index: under memory/, no hidden part, .md
    (or a folder, whose move or removal takes its notes along)."""
    if not path:
        return False
    text = path.decode() if isinstance(path, bytes) else path
    try:
        rel = Path(text).relative_to(vault_root)
    except ValueError:
        return False
    parts = rel.parts
    if not parts or parts[0] != MEMORY_DIR or any(p.startswith(".") for p in parts):
        return False
    return len(parts) == 1 or not Path(parts[-1]).suffix or parts[-1].endswith(".md")


def watch_vault(
    vault: Vault,
    *,
    debounce: float = 1.0,
    embed: bool = True,
    on_sync: Callable[[SyncReport], None] = lambda report: None,
    on_error: Callable[[str], None] = lambda message: None,
    stop: threading.Event | None = None,
    ready: threading.Event | None = None,
    lock_wait: float = LOCK_WAIT_SECONDS,
    dirty: threading.Event | None = None,
    sync_lock: threading.RLock | None = None,
) -> None:
    """Run until `stop` is set (or Ctrl-C). `ready` is set once the observer is running
    and the first sync is done, which is what tests wait on instead of sleeping.

    The resident process passes `dirty` (set on every relevant event, so a search can
    see that an edit is pending) and `sync_lock` (held around each lexical sync, so a
    search and a sync of the same process never race for the index lock)."""
    import logging

    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    # watchdog warns on stderr about events racing its shutdown; nothing is lost by it.
    logging.getLogger("watchdog").setLevel(logging.ERROR)

    watch = _Watch(vault, on_sync, on_error, lock_wait, stop, dirty, sync_lock)

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("opened", "closed_no_write"):
                return
            watch.seen((event.src_path, getattr(event, "dest_path", None)))

    observer: Any = Observer()
    observer.schedule(Handler(), str(watch.root), recursive=True)
    observer.start()
    worker = threading.Thread(target=watch.embed_worker, name="memctl-embed", daemon=True)
    if embed:
        worker.start()
    try:
        watch.run_sync()
        if ready is not None:
            ready.set()
        watch.sync_after_quiet(debounce)
    finally:
        watch.stop.set()
        observer.stop()
        observer.join(timeout=5)
        if embed:
            # Let the current batch finish: a thread killed inside onnxruntime at exit
            # aborts the whole process.
            worker.join(timeout=120)


class _Watch:
    """One watch's state, shared by the observer's thread (events), the watcher's (lexical
    syncs) and the embedding worker's (vectors)."""

    def __init__(
        self,
        vault: Vault,
        on_sync: Callable[[SyncReport], None],
        on_error: Callable[[str], None],
        lock_wait: float,
        stop: threading.Event | None,
        dirty: threading.Event | None,
        sync_lock: threading.RLock | None,
    ) -> None:
        self.vault = vault
        self.root = vault.root.resolve()
        self.on_sync = on_sync
        self.on_error = on_error
        self.lock_wait = lock_wait
        self.stop = stop or threading.Event()
        self.dirty = dirty or threading.Event()  # set by a relevant event, cleared by a sync
        self.sync_lock = sync_lock or threading.RLock()
        self.wanted = threading.Event()  # new lexical rows may need vectors
        self.last_event = time.monotonic()

    def seen(self, paths: tuple[str | bytes | None, ...]) -> None:
        """An event on `paths`: a sync is due once the vault has been quiet a while."""
        if any(is_relevant(self.root, p) for p in paths):
            self.last_event = time.monotonic()
            self.dirty.set()

    def sync_after_quiet(self, debounce: float) -> None:
        """Until `stop`: after each burst of events, one sync once `debounce` seconds have
        passed without another."""
        while not self.stop.is_set():
            if not self.dirty.wait(timeout=0.2):
                continue
            # Wait for `debounce` seconds without events: one sync per burst of saves.
            while (quiet := debounce - (time.monotonic() - self.last_event)) > 0:
                if self.stop.wait(quiet):
                    return
            self.dirty.clear()
            self.run_sync()

    def run_sync(self) -> None:
        """The lexical sync (vectors are the worker's), its failures reported, not raised,
        except damage: nothing to watch into then."""
        try:
            with self.sync_lock:
                report = sync(self.vault, embed=False, wait=self.lock_wait)
        except LockBusy as exc:
            # Another indexer is busy for longer than the lock wait: try again after
            # the next quiet period instead of dropping the edit.
            self.on_error(str(exc))
            self.last_event = time.monotonic()
            self.dirty.set()
            return
        except IndexDamaged:
            raise  # nothing to watch into: the one-line error says to run index --full
        except MemctlError as exc:
            self.on_error(str(exc))
            return
        self.on_sync(report)
        if report.pending_embeddings:
            self.wanted.set()

    def embed_worker(self) -> None:
        """Until `stop`: the pending chunks' vectors, each time a sync left some."""
        while not self.stop.is_set():
            if not self.wanted.wait(timeout=0.2):
                continue
            self.wanted.clear()
            try:
                report = embed_pending(self.vault, stop=self.stop.is_set)
            except MemctlError as exc:
                self.on_error(str(exc))
                continue
            if report.embedded or report.cache_hits:
                self.on_sync(report)
