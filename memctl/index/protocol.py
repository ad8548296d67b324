"""The one seam between memctl and its index: `IndexBackend`, what sync, search, usage
logging and lifecycle may ask of a store, and what a vault's settings say of its index
(its backend, its name in a shared index, the server's URL, a search's scope).

Two backends implement it: `memctl.index.store.Store` (SQLite, one agent, the default)
and `memctl.index.postgres.PgStore` (a team's shared PostgreSQL server). Which one a
vault opens is `memctl.index.backend.open_store`'s business; the stores import this
module, never that one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

from memctl.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from memctl.index.chunker import Chunk
    from memctl.index.neighbours import BlockSource, NeighbourPair
    from memctl.index.sqlite.lexical import KeptCounts
    from memctl.index.sqlite.substring_list import TrigramMemory
    from memctl.index.usage import ChunkRecord, ChunkSpan, ChunkUsage, ContextRow, IndexCounts
    from memctl.lexical.parse import Query
    from memctl.lexical.plan import Candidates, Filters, LexicalPlan
    from memctl.vault import Vault

# What showed a chunk to someone: a search, an agent's context, a tool call.
ReferenceKind = Literal["search", "context", "tool"]
REFERENCE_KINDS: tuple[ReferenceKind, ...] = get_args(ReferenceKind)

ENV_DATABASE_URL = "MEMCTL_DATABASE_URL"
# Reference-log evidence for promotion: hash -> (count, first ts, last ts), hash -> queries.
Window = dict[str, tuple[int, str | None, str | None]]
# One reference of a chunk: (ts, kind, query), newest first (what the review page shows).
ReferenceEvent = tuple[str, str, str | None]
# (vault, path, first line, last line): the lines around a chunk a snippet may widen into.
ContextWindow = tuple[str, str, int, int]


class KeptReads(Protocol):
    """What a kept Searcher remembers of an unchanged index that a candidate source reads
    and fills (memctl.search.kept.IndexMemory is the one there is): the plan's counts,
    the substring lookups, the chunk records."""

    counts: KeptCounts
    trigram: TrigramMemory

    def chunk_records(
        self, ids: Sequence[int], read: Callable[[Sequence[int]], list[ChunkRecord]]
    ) -> dict[int, ChunkRecord]: ...


class WordCounts(Protocol):
    """How a search's words weigh in an index (the reranker's and the floor's IDF). The
    SQLite index counts them itself (`exact`); a shared server's are estimated from what
    its lexical plan counted."""

    # Read from the index itself: a word it does not hold is known missing (the floor's
    # gate is calibrated on it), and the words weigh the same for reranker and floor.
    exact: bool

    def rows(self, plan: LexicalPlan, rows: int | None = None) -> int: ...
    def doc_freqs(self, words: list[str], cap: int | None = None) -> dict[str, int]: ...
    def prefixed_rows(self, word: str) -> int: ...


class CandidateSource(Protocol):
    """Where a search's candidate lists come from: each backend's own, beside its data
    (SQLite: memctl.index.sqlite.candidates.SqliteCandidates, in process; PostgreSQL:
    memctl.index.postgres.candidates.PgCandidates, in SQL). Fusion, scoring, reranking, the
    floor and the snippets are the same for both."""

    fresh: bool  # this search re-checks what the source keeps (set before each search)
    # What a search reads of this index may be kept between searches (its changes are
    # seen: `data_version`); else each search reads its chunks again.
    keeps_reads: bool
    # The snippets' context is worth reading ahead in one statement (a server's round
    # trips); in process, only what is needed is read.
    reads_ahead: bool

    @property
    def matrix(self) -> Any: ...  # the vectors held in memory for the reranker (falsy: none)
    def close(self) -> None: ...
    def rows(self) -> int | None: ...  # a shared server's row count (None: SQLite counts its own)
    def records(self, ids: Sequence[int]) -> dict[int, ChunkRecord]: ...
    def data_version(self) -> tuple[int, int] | None: ...  # moves when another connection commits
    def word_counts(self) -> WordCounts: ...
    def vector_first(
        self,
        query: str,
        parsed: Query,
        reads: tuple[str, ...],
        filters: Filters,
        vector: Any,
        limit: int,
    ) -> AbstractContextManager[Any]: ...
    def lists(
        self,
        query: str,
        parsed: Query,
        filters: Filters,
        wanted: tuple[str, ...],
        vector: Any,
        notices: list[str],
        limit: int,
        common_fraction: float,
        first: Any = None,
    ) -> Candidates: ...


@runtime_checkable
class IndexBackend(Protocol):
    """What the rest of memctl may ask of an index. Anything else is the backend's own."""

    backend: str  # "sqlite" | "postgres"
    vault_name: str  # this vault's namespace; results from it carry this name

    # -- lifetime ----------------------------------------------------------------------
    def close(self) -> None: ...
    def __enter__(self) -> IndexBackend: ...
    def __exit__(self, *exc: object) -> None: ...
    def transaction(self) -> AbstractContextManager[None]: ...

    # -- model ---------------------------------------------------------------------------
    @property
    def model_id(self) -> str: ...
    @property
    def dim(self) -> int: ...
    def set_model(self, model_id: str, dim: int) -> bool: ...

    # -- the writer's side (sync) -------------------------------------------------------
    def file_states(self) -> dict[str, tuple[int, int, str]]: ...
    def touch_file(self, path: str, size: int, mtime_ns: int) -> None: ...
    def replace_file(
        self,
        path: str,
        *,
        size: int,
        mtime_ns: int,
        digest: str,
        chunks: Sequence[Chunk],
        now: datetime,
    ) -> int: ...
    def remove_file(self, path: str) -> int: ...
    def mark_synced(self, now: datetime) -> None: ...
    def pending_after(self, last_id: int, limit: int) -> list[tuple[int, str]]: ...
    def still_pending(self, ids: Sequence[int]) -> list[tuple[str, str]]: ...
    def pending_count(self) -> int: ...
    def cache_vectors(self, model_id: str, items: Iterable[tuple[str, np.ndarray]]) -> None: ...
    def fill_pending_from_cache(self, ids: Sequence[int]) -> int: ...
    def cached_vectors(self, hashes: Sequence[str]) -> dict[str, np.ndarray]: ...
    def chunk_texts_after(self, last_id: int, limit: int) -> list[tuple[int, str]]: ...
    def units_embedded(self) -> str | None: ...
    def set_units_embedded(self, version: str) -> None: ...
    def counts(self) -> IndexCounts: ...
    def chunk_count(self) -> int: ...

    # -- readers (search, lifecycle, agent) ---------------------------------------------
    def chunks_by_ids(self, ids: Sequence[int]) -> list[ChunkRecord]: ...
    def chunk_ids(self) -> list[int]: ...
    def chunks_in_paths(self, paths: Sequence[str]) -> list[ChunkSpan]: ...
    def context_rows(self, vault: str, path: str, lo: int, hi: int) -> list[ContextRow]: ...
    def context_windows(self, windows: Sequence[ContextWindow]) -> list[list[ContextRow]]: ...
    def window_vectors(
        self,
        windows: Sequence[ContextWindow],
        matrix: Any = None,
        spans: dict[str, list[tuple[int, int, int]]] | None = None,
    ) -> list[dict[int, np.ndarray]]: ...
    def has_vectors(self) -> bool: ...
    def candidate_source(
        self, vault: Vault, kept: KeptReads, embed: Callable[[str], Any]
    ) -> CandidateSource: ...
    def nearest(self, vector: np.ndarray, limit: int) -> dict[int, float]: ...
    def chunk_usage(self, cold_before: str | None = None) -> Iterator[ChunkUsage]:
        """Every chunk with its last reference, in id order; with `cold_before` (an ISO
        day), COLD chunks dated that day or later are left out (no rule can pick them)."""
        ...

    def near_pairs(
        self, min_cosine: float, k: int, blocks: BlockSource | None = None
    ) -> list[NeighbourPair]: ...
    def vector_blocks(self, state_dir: Path) -> BlockSource | None: ...
    def meta(self, key: str) -> str | None: ...

    # -- usage (per vault) --------------------------------------------------------------
    def record_references(
        self,
        hashes_and_paths: Iterable[tuple[str, str]],
        kind: ReferenceKind,
        query: str | None,
        now: datetime,
    ) -> None: ...
    def reference_counts(self, since: datetime) -> dict[str, int]: ...
    def reference_window(
        self, since: datetime, until: datetime
    ) -> tuple[Window, dict[str, list[str]]]: ...
    def reference_events(
        self, hashes: Sequence[str], limit: int
    ) -> dict[str, list[ReferenceEvent]]: ...
    def references_per_day(self, since: datetime) -> dict[str, int]: ...


def backend_of(vault: Vault) -> str:
    return vault.settings.index.backend


def vault_name(vault: Vault) -> str:
    return vault.settings.index.vault or vault.root.resolve().name


def database_url(vault: Vault) -> str:
    """MEMCTL_DATABASE_URL, else [index] database_url of the user's own config (never the
    vault's committed file); a clear error when neither is set."""
    from memctl.config_files import user_config_path

    url = os.environ.get(ENV_DATABASE_URL) or vault.settings.index.database_url
    if not url:
        raise UsageError(
            '[index] backend = "postgres" needs a server: set MEMCTL_DATABASE_URL, or '
            f"[index] database_url in your own config ({user_config_path()})"
        )
    return url


def parse_scope(vault: Vault, text: str) -> tuple[str, ...]:
    """--scope: "own" -> (), "team" -> ("*",), "a,b" -> ("a", "b")."""
    text = text.strip()
    if text in ("", "own"):
        return ()
    if backend_of(vault) != "postgres":
        raise UsageError(
            '--scope needs a shared index ([index] backend = "postgres"); '
            "this vault's SQLite index holds only its own memories"
        )
    if text == "team":
        return ("*",)
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise UsageError("--scope takes own, team, or vault names separated by commas")
    return names
