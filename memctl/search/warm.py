"""Warm Searchers shared by every search of a long-lived process, one per vault.

`searcher_for(vault)` is what the CLI commands and the agent tools search through: in
a one-shot process it opens a Searcher and closes it after; in the resident process or
the HTTP MCP server it lends the registered warm one (index open, model loaded,
vocabulary and vector matrix cached), one search at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.search.hybrid import Searcher


class WarmSearcher:
    """A Searcher kept open, with what decides whether a search re-checks freshness.

    `needs_check` answers, before each search, whether the vault or the index may have
    changed since the last one: with a watcher in the same process, only when it saw
    an edit or wrote the index; without one, always (the stat walk is the check).
    """

    def __init__(
        self,
        searcher: Searcher,
        needs_check: Callable[[], bool] = lambda: True,
        lock: threading.RLock | None = None,
    ) -> None:
        self.searcher = searcher
        self.needs_check = needs_check
        self.lock = lock or threading.RLock()


_registry: dict[Path, WarmSearcher] = {}
_registry_lock = threading.Lock()


def _key(vault: Vault) -> Path:
    return vault.root.resolve()


def register(warm: WarmSearcher) -> None:
    with _registry_lock:
        _registry[_key(warm.searcher.vault)] = warm


def unregister(vault: Vault) -> WarmSearcher | None:
    with _registry_lock:
        return _registry.pop(_key(vault), None)


def registered(vault: Vault) -> WarmSearcher | None:
    with _registry_lock:
        return _registry.get(_key(vault))


@contextmanager
def searcher_for(vault: Vault) -> Iterator[Searcher]:
    """A Searcher for `vault`: the warm one of this process if any, else a new one."""
    warm = registered(vault) if _registry else None
    if warm is None:
        from memctl.search.hybrid import Searcher

        with Searcher(vault) as searcher:
            yield searcher
        return
    with warm.lock:
        searcher = warm.searcher
        searcher.fresh = warm.needs_check()
        try:
            yield searcher
        finally:
            searcher.fresh = True
