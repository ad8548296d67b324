"""The facts the tier rules read: chunks and their references (from the index), file
ages (from the file system) and core.md line history (`.memctl/lifecycle.json`).

core.md line history lives in local state because usage is keyed by chunk hash, and a
core.md chunk's hash changes whenever any line of its section is edited; per-line
first-seen / last-referenced stamps carried forward on each run keep that history.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.index.backend import has_index as has_index  # re-exported for workflows
from memctl.lifecycle.hot import content_lines
from memctl.lifecycle.rules import ChunkUse, CoreLine, DailyFacts
from memctl.notes import parse_iso_date
from memctl.vault import CORE, Vault, atomic_write_text, read_exact

if TYPE_CHECKING:
    from memctl.index.backend import IndexBackend

STATE_FILE = "lifecycle.json"


def _dt(value: str | None) -> datetime | None:
    if not value:
        return None
    moment = datetime.fromisoformat(value)
    return moment.replace(tzinfo=None) if moment.tzinfo else moment


def line_key(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:16]


def load_chunk_uses(
    vault: Vault, now: datetime, store: IndexBackend | None = None
) -> list[ChunkUse]:
    """Every indexed chunk with its references; empty when there is no index yet.
    `store`: an index the caller holds open (else it is opened here, if it exists).

    COLD chunks dated after the prune age's cutoff day are not loaded: the only rule that
    reads COLD chunks is prune's, and it never picks one (a dated chunk's anchor is its
    date). At a million archived chunks, most of them, this saves a Python object each."""
    if store is None:
        if not has_index(vault):
            return []
        from memctl.index.backend import open_store

        with open_store(vault) as opened:
            return load_chunk_uses(vault, now, opened)
    since = now - timedelta(days=vault.settings.lifecycle.promote_window_days)
    window, asked = store.reference_window(since, now)
    uses = []
    days: dict[str, date | None] = {}  # a million chunks share a few thousand dates
    cutoff = now - timedelta(days=vault.settings.lifecycle.prune_after_days)
    # The day after the cutoff's: a chunk dated on the cutoff day may still be older.
    for r in store.chunk_usage((cutoff.date() + timedelta(days=1)).isoformat()):
        count, first, last = window.get(r.hash, (0, None, None))
        if r.date and r.date not in days:
            days[r.date] = parse_iso_date(r.date)
        uses.append(
            ChunkUse(
                hash=r.hash,
                path=r.path,
                line_start=r.line_start,
                line_end=r.line_end,
                text=r.text,
                tier=r.tier,
                source=r.source,
                date=days[r.date] if r.date else None,
                last_referenced=_dt(r.last_referenced_at),
                window_references=int(count),
                first_in_window=_dt(first),
                last_in_window=_dt(last),
                queries=tuple(asked.get(r.hash, ())),
            )
        )
    return uses


def last_reference_by_range(
    uses: list[ChunkUse], path: str
) -> list[tuple[int, int, datetime | None]]:
    return [(u.line_start, u.line_end, u.last_referenced) for u in uses if u.path == path]


def last_reference_in(
    ranges: list[tuple[int, int, datetime | None]], start: int, end: int
) -> datetime | None:
    """The latest reference of any chunk overlapping lines start..end."""
    stamps = [ts for s, e, ts in ranges if ts is not None and s <= end and e >= start]
    return max(stamps) if stamps else None


def mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime)


def daily_facts(vault: Vault, uses: list[ChunkUse]) -> list[DailyFacts]:
    latest: dict[str, datetime] = {}
    for u in uses:
        if u.last_referenced and (u.path not in latest or u.last_referenced > latest[u.path]):
            latest[u.path] = u.last_referenced
    facts = []
    for day, path in vault.daily_notes():
        rel = vault.rel(path)
        facts.append(DailyFacts(rel, day, mtime(path), latest.get(rel)))
    return facts


# -- core.md line history -----------------------------------------------------------------------


@dataclass
class LifecycleState:
    path: Path
    core_lines: dict[str, dict[str, Any]]

    @classmethod
    def load(cls, vault: Vault) -> LifecycleState:
        path = vault.state_entry(STATE_FILE)
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, OSError):
                # Derived, local state: a damaged file only resets line ages (safe: newer
                # lines are never proposed for archiving).
                data = {}
        return cls(path, dict(data.get("core_lines", {})))

    def save(self) -> None:
        text = json.dumps(
            {"version": 1, "core_lines": self.core_lines},
            ensure_ascii=False,
            indent=1,
            sort_keys=True,
        )
        if not self.path.exists() or self.path.read_text(encoding="utf-8") != text:
            atomic_write_text(self.path, text)


def observe_core(
    vault: Vault,
    uses: list[ChunkUse],
    now: datetime,
    state: LifecycleState,
    core_text: str | None = None,
) -> list[CoreLine]:
    """core.md content lines with first-seen and last-referenced stamps, carried forward
    (`core_text`: core.md as the caller already read it)."""
    text = (vault.read_memory(vault.core_path) or "") if core_text is None else core_text
    ranges = last_reference_by_range(uses, CORE)
    seen_now: dict[str, dict[str, Any]] = {}
    lines = []
    for line in content_lines(text):
        key = line_key(line.text)
        old = state.core_lines.get(key, {})
        first = _dt(old.get("first_seen")) or now
        stamps = [
            t
            for t in (
                _dt(old.get("last_referenced")),
                last_reference_in(ranges, line.number, line.number),
            )
            if t
        ]
        last = max(stamps) if stamps else None
        seen_now[key] = {
            "first_seen": clock.iso(first),
            "last_referenced": clock.iso(last) if last else None,
        }
        lines.append(CoreLine(line.number, line.text, line.section, first, last))
    # Lines no longer in core.md are forgotten: if one comes back it starts a new history.
    state.core_lines = seen_now
    return lines


def anchors_for_prune(vault: Vault, uses: list[ChunkUse]) -> dict[str, datetime]:
    """When each COLD chunk last changed: its own date when it has one, else its file's mtime.

    Each archive file is read and scanned once (a 1 MB roll-up holds ~10k chunks: reading
    it per chunk took minutes).
    """
    from memctl.lifecycle.compact import note_days

    anchors: dict[str, datetime] = {}
    by_path: dict[str, list[ChunkUse]] = {}
    for u in uses:
        if u.tier == "cold":
            by_path.setdefault(u.path, []).append(u)
    for rel, chunks in by_path.items():
        path = vault.root / rel
        if not path.exists():
            continue
        stamp = mtime(path)
        # A monthly roll-up: the day of the packed note, not the roll-up's own mtime.
        markers = note_days(read_exact(path)) if any(u.date is None for u in chunks) else []
        starts = [line for line, _ in markers]
        for u in chunks:
            day = u.date
            if day is None and markers:
                at = bisect_right(starts, u.line_start) - 1
                day = markers[at][1] if at >= 0 else None
            anchors[u.hash] = datetime.combine(day, datetime.min.time()) if day else stamp
    return anchors
