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


def reference_counts(conn: Connection, since: datetime) -> dict[str, int]:
    """How many times each hash was referenced at or after `since`."""
    rows = conn.execute(
        "SELECT hash, count(*) FROM state.reference_log WHERE ts >= ? GROUP BY hash",
        (clock.iso(since),),
    )
    return {digest: int(count) for digest, count in rows}


def reference_window(
    conn: Connection, since: datetime, until: datetime
) -> tuple[dict[str, tuple[int, str | None, str | None]], dict[str, list[str]]]:
    """Per hash, (references, first, last) in the window, and the queries that found it.

    Auto-loaded context (HOT and the recent WARM, every turn, used or not) keeps a note
    alive but is no evidence that it matters: counted, it would propose every recent note
    for HOT within a day of agent turns.
    """
    window = {
        digest: (int(count), first, last)
        for digest, count, first, last in conn.execute(
            "SELECT hash, count(*), min(ts), max(ts) FROM state.reference_log "
            "WHERE ts >= ? AND ts <= ? AND kind != 'context' GROUP BY hash",
            (clock.iso(since), clock.iso(until)),
        )
    }
    asked: dict[str, list[str]] = {}
    for digest, query in conn.execute(
        "SELECT DISTINCT hash, query FROM state.reference_log "
        "WHERE ts >= ? AND ts <= ? AND kind = 'search' AND query IS NOT NULL",
        (clock.iso(since), clock.iso(until)),
    ):
        asked.setdefault(digest, []).append(query)
    return window, asked


def reference_events(
    conn: Connection, hashes: Sequence[str], limit: int
) -> dict[str, list[ReferenceEvent]]:
    """Each hash's latest `limit` references: (ts, kind, query), newest first."""
    found: dict[str, list[ReferenceEvent]] = {}
    for digest in dict.fromkeys(hashes):
        found[digest] = [
            (ts, kind, query)
            for ts, kind, query in conn.execute(
                "SELECT ts, kind, query FROM state.reference_log WHERE hash = ? "
                "ORDER BY ts DESC LIMIT ?",
                (digest, limit),
            )
        ]
    return found


def references_per_day(conn: Connection, since: datetime) -> dict[str, int]:
    """References logged per day (YYYY-MM-DD) at or after `since`, context loads included."""
    return {
        day: int(count)
        for day, count in conn.execute(
            "SELECT substr(ts, 1, 10), count(*) FROM state.reference_log WHERE ts >= ? "
            "GROUP BY 1 ORDER BY 1",
            (clock.iso(since),),
        )
    }
