"""What every embedding engine offers the index and search (the `Embedder` protocol)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """A loaded model: unit-length float32 vectors for passages and for queries.

    Passages and queries are embedded apart because several models were trained with a
    different prefix (or instruction) for each; the engine adds them, callers never do.
    """

    model_id: str
    dim: int

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """One unit-length float32 row per text, shape (len(texts), dim)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One unit-length float32 vector, shape (dim,)."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: np.ndarray = (matrix / norms).astype(np.float32, copy=False)
    return unit


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
