"""The warm search state a resident process keeps: the watcher that keeps the index in
step, one Searcher held open (index, vocabulary, vector matrix, model), and the check
before each search of whether anything changed since the last one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from memctl.index.sync import SyncReport
from memctl.search import warm
from memctl.vault import Vault

Log = Callable[[str], None]


class WarmSearch:
    def __init__(
        self,
        vault: Vault,
        *,
        debounce: float,
        embed: bool,
        log: Log,
        on_sync: Callable[[SyncReport], None],
        stop: threading.Event,
        sync_lock: threading.RLock,
    ) -> None:
        self.vault = vault
        self.root = str(vault.root)
        self.debounce = debounce
        self.embed = embed
        self.log = log
        self.on_sync = on_sync
        self.stop = stop
        self.sync_lock = sync_lock
        self.dirty = threading.Event()  # the watcher saw an edit not synced yet
        self.changed = threading.Event()  # the index changed since the last search
        self.watch_ready = threading.Event()
        self._seen_version: tuple[int, int] = (0, 0)
        self._config_stamp: tuple[float | None, float | None] = (None, None)

    def watch(self) -> None:
        """The watcher thread's body: sync after edits until `stop`."""
        from memctl.index.watch import watch_vault

        def synced(report: SyncReport) -> None:
            if report.changed or report.removed or report.embedded or report.cache_hits:
                self.changed.set()
            self.on_sync(report)

        try:
            watch_vault(
                self.vault,
                debounce=self.debounce,
                embed=self.embed,
                on_sync=synced,
                on_error=lambda message: self.log(f"error: {message}"),
                stop=self.stop,
                ready=self.watch_ready,
                dirty=self.dirty,
                sync_lock=self.sync_lock,
            )
        except Exception as exc:  # the watcher must not die silently under a live server
            self.log(f"error: the watcher stopped: {type(exc).__name__}: {exc}")
            self.stop.set()

    def warm_up(self) -> None:
        """Open a Searcher, run one search to load everything, lend it to this process."""
        from memctl.search.hybrid import Searcher

        searcher = Searcher(Vault(self.vault.root))
        entry = warm.WarmSearcher(searcher, self.needs_check, lock=self.sync_lock)
        with entry.lock:
            # Opens the index, reads the vocabulary, maps the vectors, loads the model.
            searcher.search("memctl warm up", k=1, log=False)
        warm.register(entry)
        with entry.lock:
            self._seen_version = self._index_version(entry)
        self._config_stamp = self._config_mtime()

    def close(self) -> None:
        entry = warm.unregister(self.vault)
        if entry is not None:
            entry.searcher.close()

    def needs_check(self) -> bool:
        """Before each search (under sync_lock): catch up when an edit is pending or the
        index changed since the last search; otherwise skip the stat walk.

        Other processes write the index too (`memctl index`, `--full`, a lifecycle move):
        SQLite's data_version says so in microseconds; a changed inode (the file replaced
        by hand or restored) reopens it.
        """
        pending = self.dirty.is_set() or self.changed.is_set()
        self.changed.clear()
        entry = warm.registered(self.vault)
        if entry is None:
            return True
        version = self._index_version(entry)
        if version != self._seen_version:
            self._seen_version = version
            pending = True
        return pending

    def _index_version(self, entry: warm.WarmSearcher) -> tuple[int, int]:
        from memctl.index.store import index_path

        searcher = entry.searcher
        try:
            inode = index_path(searcher.vault).stat().st_ino
        except OSError:
            inode = 0
        if inode != self._seen_version[0]:
            searcher.close()  # a rebuilt index is a new file: reopen it
        versions = searcher.candidates.data_version()
        if versions is None:
            # A shared PostgreSQL index has no change counter this cheap: always check.
            return inode, time.monotonic_ns()
        return inode, versions[0]

    def _config_mtime(self) -> tuple[float | None, float | None]:
        from memctl.config import CONFIG_FILE
        from memctl.config_files import user_config_path

        stamps: list[float | None] = []
        for path in (Path(self.root) / CONFIG_FILE, user_config_path()):
            try:
                stamps.append(path.stat().st_mtime)
            except OSError:
                stamps.append(None)
        return stamps[0], stamps[1]

    def refresh_if_reconfigured(self) -> None:
        """An edited memctl.toml may change weights or the model: start a new Searcher."""
        if self._config_mtime() == self._config_stamp:
            return
        entry = warm.unregister(self.vault)
        if entry is not None:
            with entry.lock:
                entry.searcher.close()
        self.log("the vault's settings changed: reloading the search state")
        self.warm_up()
