"""The one seam between memctl and its index: what sync, search, usage logging and lifecycle
need from a store, and which store a vault uses.

Two backends implement `IndexBackend`: `memctl.index.store.Store` (SQLite, one agent,
the default) and `memctl.index.postgres.PgStore` (a team's shared PostgreSQL server).
psycopg is imported only when a vault asks for postgres, so the single-user path pays
nothing for the second backend.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

from memctl.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

    from memctl.index.chunker import Chunk
    from memctl.index.neighbours import BlockSource, NeighbourPair
    from memctl.index.usage import ChunkRecord, ChunkSpan, ChunkUsage, ContextRow, IndexCounts
    from memctl.sqlite import Connection
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
    def nearest(self, vector: np.ndarray, limit: int) -> dict[int, float]: ...
    def chunk_usage(self, cold_before: str | None = None) -> Iterator[ChunkUsage]:
        """Every chunk with its last reference, in id order; with `cold_before` (an ISO
        day), COLD chunks dated that day or later are left out (no rule can pick them)."""
        ...

    def near_pairs(
        self, min_cosine: float, k: int, blocks: BlockSource | None = None
    ) -> list[NeighbourPair]: ...
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
    """MEMCTL_DATABASE_URL, else [index] database_url; a clear error when neither is set."""
    url = os.environ.get(ENV_DATABASE_URL) or vault.settings.index.database_url
    if not url:
        raise UsageError(
            '[index] backend = "postgres" needs a server: set MEMCTL_DATABASE_URL or '
            "[index] database_url in .memctl.toml"
        )
    return url


def open_store(vault: Vault, **options: Any) -> IndexBackend:
    """The vault's index, of the backend its settings choose."""
    if backend_of(vault) == "postgres":
        from memctl.index.postgres import PgStore

        return PgStore.open(vault)
    from memctl.index.store import Store

    return Store.open(vault, **options)


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


def has_index(vault: Vault) -> bool:
    """Whether an index exists to read (a shared server always counts as one)."""
    if backend_of(vault) == "postgres":
        return True
    from memctl.index.store import index_path

    return index_path(vault).exists()


_USERINFO = re.compile(
    r"(?P<head>[a-z][a-z0-9+.-]*://[^:@/\s]*)(?::(?P<password>[^@/\s]*))?@", re.IGNORECASE
)
_KEYWORD_PASSWORD = re.compile(r"(password\s*=\s*)('[^']*'|[^\s&]+)", re.IGNORECASE)


def has_password(url: str) -> bool:
    match = _USERINFO.search(url)
    return bool(match and match.group("password")) or bool(_KEYWORD_PASSWORD.search(url))


def redact(text: str) -> str:
    """`text` with the password of any connection URL or keyword string replaced by ***."""
    text = _USERINFO.sub(
        lambda m: m.group("head") + (":***" if m.group("password") else "") + "@", text
    )
    return _KEYWORD_PASSWORD.sub(r"\1***", text)


# SQLite caps bound parameters (999 in old builds): an IN list of 500 stays below every limit.
IN_BATCH = 500


def iter_batches(items: Sequence[Any], size: int = IN_BATCH) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def select_in(
    conn: Connection, sql: str, items: Sequence[Any], params: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of `sql` for every item, IN_BATCH at a time: `sql` holds one `{marks}` (the
    IN list's placeholders, bound first), then `params`' placeholders."""
    for part in iter_batches(items):
        yield from conn.execute(sql.replace("{marks}", ",".join("?" * len(part))), [*part, *params])


# Rows per multi-row INSERT: 80 x up to 12 values stays under SQLite's oldest 999.
ROWS_PER_INSERT = 80


def insert_rows(conn: Connection, head: str, values: str, rows: Sequence[Sequence[Any]]) -> None:
    """`head` ("INSERT INTO t(a, b)") with one `values` group ("(?, ?)") per row,
    ROWS_PER_INSERT rows a statement. Into a table with FTS triggers, each statement opens
    a savepoint at which FTS5 flushes its pending terms to a new segment: one row per
    statement made one segment per chunk (and their merges), most of a first build's time."""
    for part in iter_batches(rows, ROWS_PER_INSERT):
        conn.execute(
            f"{head} VALUES " + ",".join([values] * len(part)),
            [value for row in part for value in row],
        )


def sqlite_connection(store: IndexBackend) -> Connection | None:
    """The in-process SQLite connection of a `Store` (None for a shared server): what the
    SQLite-only search paths read directly."""
    from memctl.index.store import Store

    return store.conn if isinstance(store, Store) else None
