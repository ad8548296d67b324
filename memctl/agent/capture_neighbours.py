"""Which existing memories a capture candidate is compared with: every memory item of the
vault, and the nearest ones to a text (embeddings when the model loads, else lexical;
in large vaults the index's nearest chunks widen the lexical pool)."""

from __future__ import annotations

import re
from typing import Any

from rapidfuzz import fuzz, process

from memctl.agent.capture_rules import (
    SUPERSEDED,
    MemoryItem,
    memory_items,
    without_session_mark,
)
from memctl.vault import Vault, source_of

NEIGHBOURS = 5
FULL_COMPARE_LIMIT = 400  # memories embedded one by one per capture, at most
_POOL = 20

_STAMP = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\d{1,2}:\d{2}\s+)?")


def bare(text: str) -> str:
    """A memory's words without its list marker, time stamp and session mark (what
    similarity compares)."""
    return " ".join(without_session_mark(_STAMP.sub("", text)).split())


def comparable(text: str) -> str:
    """Text reduced for the near-duplicate ratio: no bullet, no time stamp, no case."""
    return bare(text).casefold()


def load_memories(vault: Vault) -> list[MemoryItem]:
    items: list[MemoryItem] = []
    for path in vault.memory_files():
        rel = vault.rel(path)
        source = source_of(rel)
        if source is None or rel == SUPERSEDED:
            continue
        text = vault.read_memory(path)  # a link leaving the vault is skipped with a notice
        if text is not None:
            items.extend(memory_items(rel, source, text))
    return items


class Neighbourhood:
    """Nearest existing memories of a text: embeddings when the model loads, else lexical."""

    def __init__(self, vault: Vault, items: list[MemoryItem], notices: list[str]) -> None:
        self.vault = vault
        self.items = items
        self.notices = notices
        self._plain = [comparable(i.text) for i in items]
        self._embedder: Any = None
        self._vectors: dict[str, Any] = {}
        self.index_hits = 0  # pool members found through the index (large vaults)
        try:
            from memctl.index.embed import get_embedder

            self._embedder = get_embedder(vault.settings)
        except Exception as exc:  # no model on this machine: lexical similarity still works
            notices.append(f"embeddings unavailable, near-duplicates found lexically only ({exc})")

    def add(self, text: str, path: str) -> None:
        """A memory written by this run, so a later candidate repeating it is a duplicate."""
        item = MemoryItem(f"new:{len(self.items)}", path, 0, 0, text, "captured")
        self.items.append(item)
        self._plain.append(comparable(text))

    def nearest(
        self, text: str, k: int = NEIGHBOURS, *, min_importance: float = 0.0
    ) -> list[tuple[MemoryItem, float, float]]:
        """Up to k (item, cosine or -1 without embeddings, text ratio 0..100), best first."""
        allowed = [i for i, item in enumerate(self.items) if item.importance >= min_importance]
        if not allowed:
            return []
        plain = comparable(text)
        choices = {i: self._plain[i] for i in allowed}
        lexical = process.extract(plain, choices, scorer=fuzz.token_set_ratio, limit=_POOL)
        pool = {i for _, _, i in lexical}
        if self._embedder is not None:
            import numpy as np

            query = self._embedder.embed_passages([bare(text)])[0]
            # Small vaults are compared in full, which catches paraphrases with no word in
            # common; in large ones the index's nearest chunks widen the lexical pool.
            if len(allowed) <= FULL_COMPARE_LIMIT:
                pool = set(allowed)
            else:
                pool |= self._index_pool(query) & set(allowed)
            missing = [self.items[i] for i in pool if self.items[i].id not in self._vectors]
            if missing:
                rows = self._embedder.embed_passages([bare(m.text) for m in missing])
                for item, row in zip(missing, rows, strict=True):
                    self._vectors[item.id] = row
            from memctl.index.embed.registry import calibrated_cosine

            model_id = self._embedder.model_id
            scored = [
                (
                    self.items[i],
                    calibrated_cosine(
                        float(np.dot(query, self._vectors[self.items[i].id])), model_id
                    ),
                    i,
                )
                for i in pool
            ]
        else:
            scored = [(self.items[i], -1.0, i) for i in pool]
        out = [(item, cos, fuzz.ratio(plain, self._plain[i])) for item, cos, i in scored]
        out.sort(key=lambda t: (t[1], t[2]), reverse=True)
        return out[:k]

    def _index_pool(self, query: Any) -> set[int]:
        """Items overlapping the index's nearest chunks to `query` (empty without an index)."""
        from memctl.index.backend import has_index, open_store

        if not has_index(self.vault):
            return set()
        try:
            with open_store(self.vault) as store:
                if store.model_id != self._embedder.model_id:
                    return set()
                hits = store.nearest(query, _POOL)
                chunks = store.chunks_by_ids(list(hits))
        except Exception as exc:  # the lexical pool still stands
            self.notices.append(f"index not used for similar memories ({exc})")
            return set()
        pool = {
            i
            for chunk in chunks
            for i, item in enumerate(self.items)
            if item.path == chunk.path
            and item.line_start <= chunk.line_end
            and item.line_end >= chunk.line_start
        }
        self.index_hits += len(pool)
        return pool
