"""The query vectors a Searcher keeps: the model is loaded on first use, and the last
QUERY_VECTORS_KEPT queries' vectors are kept (read-only): a query's embedding is most of
a warm search's time, and the same model gives the same vector for the same text."""

from __future__ import annotations

import time
from typing import Any

from memctl.config import Settings

QUERY_VECTORS_KEPT = 256  # ~0.4 MB at 384-d


class QueryVectors:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._embedder: Any = None
        self._vectors: dict[str, Any] = {}  # text -> vector, least recent first

    @property
    def model_loaded(self) -> bool:
        return self._embedder is not None

    def embed(self, text: str) -> tuple[Any, float]:
        """The query vector of `text` and the milliseconds spent embedding it (the model's
        load apart; 0 when it was kept)."""
        started = time.perf_counter()
        vector = self._vectors.pop(text, None)
        if vector is None:
            if self._embedder is None:
                from memctl.index.embed import get_embedder

                self._embedder = get_embedder(self._settings)
                started = time.perf_counter()
            vector = self._embedder.embed_query(text)
            vector.setflags(write=False)
            if len(self._vectors) >= QUERY_VECTORS_KEPT:
                del self._vectors[next(iter(self._vectors))]
        self._vectors[text] = vector  # the most recent last
        return vector, (time.perf_counter() - started) * 1000
