"""Reading chunks with their usage, and the reference log (state.db).

Usage is keyed by content hash, so a chunk keeps its history when its file is re-chunked
or moved to another tier.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from memctl import clock
from memctl.frozen import field_names, filled
from memctl.index.protocol import REFERENCE_KINDS as REFERENCE_KINDS
from memctl.index.protocol import ReferenceEvent, ReferenceKind
from memctl.sqlite import select_in

if TYPE_CHECKING:
    from memctl.sqlite import Connection


class ChunkSpan(NamedTuple):
    """Where a chunk is, and its text's hash (the usage key)."""

    hash: str
    path: str
    line_start: int
    line_end: int


class ContextRow(NamedTuple):
    line_start: int
    line_end: int
    text: str


class IndexCounts(TypedDict):
    chunks: int
    chunks_by_tier: dict[str, int]  # hot, warm, cold
    files: int
    pending_embeddings: int


@dataclass(frozen=True)
class ChunkRecord:
    id: int
    path: str
    line_start: int
    line_end: int
    heading: str
    text: str
    hash: str
    tier: str
    source: str
    date: str | None
    tags: list[str]
    importance: float
    embedded: bool
    created_at: str | None
    last_referenced_at: str | None
    access_count: int
    vault: str = ""  # the namespace it belongs to (set by a shared index)


_SELECT = (
    "SELECT c.id, c.path, c.line_start, c.line_end, c.heading, c.text, c.hash, c.tier, "
    "c.source, c.date, c.tags, c.importance, c.embedded, "
    "u.created_at, u.last_referenced_at, coalesce(u.access_count, 0) "
    "FROM chunks AS c LEFT JOIN state.usage AS u ON u.hash = c.hash "
)


def chunks_by_ids(conn: Connection, ids: Sequence[int]) -> list[ChunkRecord]:
    """The chunks with these ids, in the order asked; ids no longer in the index are skipped."""
    found: dict[int, ChunkRecord] = {}
    unique = list(dict.fromkeys(int(i) for i in ids))
    for row in select_in(conn, _SELECT + "WHERE c.id IN ({marks})", unique):
        found[row[0]] = _record(row)
    return [found[i] for i in unique if i in found]


class ChunkUsage(NamedTuple):
    """What the lifecycle rules read of every chunk (no heading, tags or counters)."""

    hash: str
    path: str
    line_start: int
    line_end: int
    text: str
    tier: str
    source: str
    date: str | None
    last_referenced_at: str | None


def chunk_usage(conn: Any, cold_before: str | None = None) -> Iterator[ChunkUsage]:
    """Every chunk in id order, streamed from one scan (a million rows never sit in a list).

    `cold_before` (an ISO day): COLD chunks dated that day or later are left out in SQL,
    before a Python object is made for each (see `IndexBackend.chunk_usage`)."""
    where, params = "", []
    if cold_before is not None:
        where, params = "WHERE c.tier != 'cold' OR c.date IS NULL OR c.date < ? ", [cold_before]
    for row in conn.execute(
        "SELECT c.hash, c.path, c.line_start, c.line_end, c.text, c.tier, c.source, c.date, "
        "u.last_referenced_at FROM chunks AS c LEFT JOIN state.usage AS u ON u.hash = c.hash "
        f"{where}ORDER BY c.id",
        params,
    ):
        yield ChunkUsage(*row)


_RECORD_FIELDS = field_names(ChunkRecord)


def _record(row: Sequence[Any], vault: str = "") -> ChunkRecord:
    # Filled in place (memctl.frozen: 4.2 against 1.4 us a record): a search reads the
    # records of ~40 chunks it has not seen before.
    return filled(
        ChunkRecord,
        _RECORD_FIELDS,
        (
            row[0],
            row[1],
            row[2],
            row[3],
            row[4] or "",
            row[5],
            row[6],
            row[7],
            row[8],
            row[9],
            json.loads(row[10]) if row[10] and row[10] != "[]" else [],
            float(row[11]) if row[11] is not None else 0.0,
            bool(row[12]),
            row[13],
            row[14],
            int(row[15]),
            vault,
        ),
    )


def record_references(
    conn: Connection,
    hashes_and_paths: Iterable[tuple[str, str]],
    kind: ReferenceKind,
    query: str | None,
    now: datetime,
) -> int:
    """Log that these chunks were shown (caller holds a transaction); returns rows logged.

    A chunk shown twice in one call counts once: one search is one reference.
    """
    if kind not in REFERENCE_KINDS:
        raise ValueError(f"reference kind must be one of {REFERENCE_KINDS}, not {kind!r}")
    stamp = clock.iso(now)
    items = list(dict.fromkeys((h, p) for h, p in hashes_and_paths))
    conn.executemany(
        "INSERT INTO state.reference_log(hash, path, ts, kind, query) VALUES (?, ?, ?, ?, ?)",
        [(h, p, stamp, kind, query) for h, p in items],
    )
    conn.executemany(
        "INSERT INTO state.usage(hash, created_at, last_referenced_at, access_count) "
        "VALUES (?, ?, ?, 1) ON CONFLICT(hash) DO UPDATE SET "
        "access_count = access_count + 1, "
        "last_referenced_at = max(coalesce(last_referenced_at, ''), excluded.last_referenced_at)",
        [(h, stamp, stamp) for h in dict.fromkeys(h for h, _ in items)],
    )
    return len(items)


@dataclass(frozen=True)
class ReferenceLog:
    """Where a backend keeps its reference log, as the reads below address it: SQLite's
    is the vault's own (state.reference_log, `?`); a shared server's holds every vault
    (reference_log, `%s`, rows of `vault`). One place for the SQL both backends read."""

    table: str = "state.reference_log"
    mark: str = "?"  # the driver's placeholder
    vault: str | None = None  # a shared log's namespace (None: the whole log is this vault's)

    def sql(self, select: str, condition: str, rest: str = "") -> str:
        own = f"vault = {self.mark} AND " if self.vault is not None else ""
        where = condition.replace("?", self.mark)
        return f"SELECT {select} FROM {self.table} WHERE {own}{where}{rest.replace('?', self.mark)}"

    def params(self, *values: object) -> tuple[object, ...]:
        return ((self.vault,) if self.vault is not None else ()) + values


OWN_LOG = ReferenceLog()


def reference_counts(conn: Any, since: datetime, log: ReferenceLog = OWN_LOG) -> dict[str, int]:
    """How many times each hash was referenced at or after `since`."""
    rows = conn.execute(
        log.sql("hash, count(*)", "ts >= ?", " GROUP BY hash"), log.params(clock.iso(since))
    )
    return {digest: int(count) for digest, count in rows}


def reference_window(
    conn: Any, since: datetime, until: datetime, log: ReferenceLog = OWN_LOG
) -> tuple[dict[str, tuple[int, str | None, str | None]], dict[str, list[str]]]:
    """Per hash, (references, first, last) in the window, and the queries that found it.

    Auto-loaded context (HOT and the recent WARM, every turn, used or not) keeps a note
    alive but is no evidence that it matters: counted, it would propose every recent note
    for HOT within a day of agent turns.
    """
    span = log.params(clock.iso(since), clock.iso(until))
    window = {
        digest: (int(count), first, last)
        for digest, count, first, last in conn.execute(
            log.sql(
                "hash, count(*), min(ts), max(ts)",
                "ts >= ? AND ts <= ? AND kind != 'context'",
                " GROUP BY hash",
            ),
            span,
        )
    }
    asked: dict[str, list[str]] = {}
    for digest, query in conn.execute(
        log.sql(
            "DISTINCT hash, query", "ts >= ? AND ts <= ? AND kind = 'search' AND query IS NOT NULL"
        ),
        span,
    ):
        asked.setdefault(digest, []).append(query)
    return window, asked


def reference_events(
    conn: Any, hashes: Sequence[str], limit: int, log: ReferenceLog = OWN_LOG
) -> dict[str, list[ReferenceEvent]]:
    """Each hash's latest `limit` references: (ts, kind, query), newest first."""
    found: dict[str, list[ReferenceEvent]] = {}
    sql = log.sql("ts, kind, query", "hash = ?", " ORDER BY ts DESC LIMIT ?")
    for digest in dict.fromkeys(hashes):
        found[digest] = [
            (ts, kind, query) for ts, kind, query in conn.execute(sql, log.params(digest, limit))
        ]
    return found


def references_per_day(conn: Any, since: datetime, log: ReferenceLog = OWN_LOG) -> dict[str, int]:
    """References logged per day (YYYY-MM-DD) at or after `since`, context loads included."""
    return {
        day: int(count)
        for day, count in conn.execute(
            log.sql("substr(ts, 1, 10), count(*)", "ts >= ?", " GROUP BY 1 ORDER BY 1"),
            log.params(clock.iso(since)),
        )
    }
