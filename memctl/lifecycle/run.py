"""What one lifecycle run loads, loaded once and handed to every step.

`memctl maintain` used to open the index 8 to 11 times (each sync three times, each
usage load, lint, the tier counts), materialise every chunk twice after moves, read
core.md four times and the proposals up to three. A `LifecycleRun` holds the index open
for the whole run and keeps what it read until the vault changes under it:

- the index (`store`): one connection, lent to sync, usage, lint and the counts;
- chunks with their usage (`uses`): loaded once, again only after moves (`moved`);
- the memory files' text (`texts`, core.md among them): read once, again after moves;
- core.md's line history (`state`) and the proposals (`book`, re-read only when another
  process wrote the file since).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memctl.lifecycle import evidence
from memctl.lifecycle.proposals import ProposalBook
from memctl.lifecycle.rules import ChunkUse
from memctl.vault import CORE, Vault

if TYPE_CHECKING:
    from memctl.index.backend import IndexBackend
    from memctl.index.usage import IndexCounts
    from memctl.status import TierMetrics


@dataclass
class LifecycleRun:
    vault: Vault
    now: datetime
    store: IndexBackend | None = None
    _uses: list[ChunkUse] | None = None
    _texts: dict[str, str] | None = None
    _state: evidence.LifecycleState | None = None
    _book: ProposalBook | None = None
    _counts: IndexCounts | None = None
    loads: dict[str, int] = field(default_factory=dict)  # what was read how often

    @classmethod
    @contextlib.contextmanager
    def open(cls, vault: Vault, now: datetime, *, create_index: bool) -> Iterator[LifecycleRun]:
        """A run over `vault`; the index is opened once (created when `create_index`,
        e.g. because the run syncs it) and closed when the run ends."""
        from memctl.index.backend import has_index, open_store

        store = open_store(vault) if create_index or has_index(vault) else None
        try:
            yield cls(vault, now, store)
        finally:
            if store is not None:
                store.close()

    def _count(self, what: str) -> None:
        self.loads[what] = self.loads.get(what, 0) + 1

    def uses(self) -> list[ChunkUse]:
        """Every indexed chunk the rules can pick, with its references (empty without an
        index; COLD chunks newer than the prune age are not loaded: see load_chunk_uses)."""
        if self._uses is None:
            self._count("uses")
            self._uses = (
                evidence.load_chunk_uses(self.vault, self.now, self.store)
                if self.store is not None
                else []
            )
        return self._uses

    def counts(self) -> IndexCounts | None:
        """The index's chunk counts by tier (None without an index)."""
        if self._counts is None and self.store is not None:
            self._counts = self.store.counts()
        return self._counts

    def texts(self) -> dict[str, str]:
        """Every memory file's text by vault-relative path."""
        if self._texts is None:
            from memctl.lifecycle.lint import memory_texts

            self._count("texts")
            self._texts = memory_texts(self.vault)
        return self._texts

    def core_text(self) -> str:
        return self.texts().get(CORE, "")

    def state(self) -> evidence.LifecycleState:
        if self._state is None:
            self._count("state")
            self._state = evidence.LifecycleState.load(self.vault)
        return self._state

    def book(self) -> ProposalBook:
        """The proposals; re-read only when another process changed the file since."""
        if self._book is None:
            self._count("book")
            self._book = ProposalBook(self.vault)
        else:
            current = self._book.current(self.vault)
            if current is not self._book:
                self._count("book")
            self._book = current
        return self._book

    def moved(self) -> None:
        """The vault's files changed (and the index was synced): forget what was read."""
        self._uses = None
        self._texts = None
        self._counts = None

    def metrics(self) -> TierMetrics:
        from memctl.status import tier_metrics

        counts = self.counts()
        cold = counts["chunks_by_tier"]["cold"] if counts is not None else None
        return tier_metrics(self.vault, core_text=self.core_text(), cold_chunks=cold)
