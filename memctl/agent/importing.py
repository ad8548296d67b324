"""`memctl import`: what users already have (Claude Code's auto memory, a CLAUDE.md, a
ChatGPT export, a folder of notes) into the vault, dated, deduplicated and reported.

Dated lines join the daily note of their day (in the archive once the day is past
`[lifecycle] demote_after_days`, where demote would have moved it); whole notes and
conversations become new archive files dated by front matter. Memories already in the
vault are recognised as capture recognises them (memctl.agent.capture_neighbours: the
same items and the same normalisation) with lint's near-duplicate ratio, and lines
repeated within the import by their normalised text, so a fact imported twice, or
already written by hand, is not written again; an archive file that
exists is left alone. Running the same import twice therefore writes nothing the second
time. Every write goes through the vault lock and `update_file`.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz, process

from memctl import clock
from memctl.agent.capture_neighbours import comparable, load_memories
from memctl.agent.capture_rules import bullet_items
from memctl.agent.import_sources import Kind, Piece, read_source
from memctl.errors import UsageError
from memctl.index.note_meta import HEADING, parse_front_matter
from memctl.lifecycle.moves import ARCHIVE_DAILY
from memctl.lifecycle.units import MIN_UNIT_CHARS
from memctl.vault import DAILY_DIR, Vault, append_block, update_file


@dataclass
class Imported:
    origin: str
    destination: str
    outcome: str  # written, appended, exists, duplicate, refused
    lines: int = 0  # lines written
    duplicate_lines: int = 0  # lines left out: already in the vault
    reason: str = ""


@dataclass
class ImportReport:
    kind: str
    source: str
    dry_run: bool
    items: list[Imported] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for item in self.items if item.outcome == outcome)

    def to_dict(self) -> dict[str, Any]:
        outcomes = ("written", "appended", "exists", "duplicate", "refused")
        return {
            "kind": self.kind,
            "source": self.source,
            "dry_run": self.dry_run,
            **{outcome: self.count(outcome) for outcome in outcomes},
            "duplicate_lines": sum(item.duplicate_lines for item in self.items),
            "items": [asdict(item) for item in self.items],
            "notices": self.notices,
        }


class Known:
    """The vault's memories as capture compares them, and what this run has written.

    A unit is known when its normalised text is already there (in the vault or written
    by this run), or is a near-duplicate of a vault memory at lint's ratio. Only vault
    memories of a length that ratio allows are compared: two texts can reach ratio r only
    if the shorter is at least r / (200 - r) of the longer.
    """

    def __init__(self, vault: Vault) -> None:
        self.ratio = vault.settings.lifecycle.duplicate_ratio
        self.pool = sorted({comparable(item.text) for item in load_memories(vault)}, key=len)
        self.lengths = [len(text) for text in self.pool]
        self.exact = set(self.pool)

    def holds(self, text: str) -> bool:
        plain = comparable(text)
        if plain in self.exact:
            return True
        if len(plain) < MIN_UNIT_CHARS or self.ratio <= 0:  # short lines: exact only
            return False
        share = self.ratio / (200 - self.ratio)
        lo = bisect_left(self.lengths, math.ceil(len(plain) * share))
        hi = bisect_right(self.lengths, math.floor(len(plain) / share))
        found = process.extractOne(
            plain, self.pool[lo:hi], scorer=fuzz.ratio, score_cutoff=self.ratio
        )
        return found is not None

    def add(self, text: str) -> None:
        self.exact.add(comparable(text))


def _units(lines: list[str], start: int) -> list[tuple[int, int]]:
    """(first, last) 0-based line spans to compare one by one: each top-level bullet with
    its continuation lines, and each other line that is not blank or a heading."""
    spans = [(s - 1, e - 1) for s, e, _ in bullet_items("\n".join(lines)) if s - 1 >= start]
    covered = {i for s, e in spans for i in range(s, e + 1)}
    spans += [
        (i, i)
        for i in range(start, len(lines))
        if i not in covered and lines[i].strip() and not HEADING.match(lines[i])
    ]
    return sorted(spans)


def _new_lines(lines: list[str], start: int, known: Known) -> tuple[list[str], int]:
    """`lines` without the units already known (and those repeated within), and how many
    lines were left out."""
    dropped: set[int] = set()
    for first, last in _units(lines, start):
        block = "\n".join(lines[first : last + 1])
        if known.holds(block):
            dropped.update(range(first, last + 1))
        else:
            known.add(block)
    return [line for i, line in enumerate(lines) if i not in dropped], len(dropped)


def _has_content(lines: list[str], start: int) -> bool:
    return any(line.strip() and not HEADING.match(line) for line in lines[start:])


def _write_file(vault: Vault, piece: Piece, known: Known, dry_run: bool) -> Imported:
    assert piece.destination is not None
    path = vault.root / piece.destination
    if path.exists():
        return Imported(piece.origin, piece.destination, "exists")
    lines = piece.text.splitlines()
    body_start = parse_front_matter(lines).end_line
    kept, dropped = _new_lines(lines, body_start, known) if piece.by_line else (lines, 0)
    if dropped and not _has_content(kept, body_start):
        return Imported(piece.origin, piece.destination, "duplicate", 0, dropped)
    text = "\n".join(kept) + "\n"
    if not dry_run:
        vault.check_writable(path)
        if update_file(path, lambda before: before, create=text) != text:
            return Imported(piece.origin, piece.destination, "exists")
    return Imported(piece.origin, piece.destination, "written", len(kept), dropped)


def _day_note(vault: Vault, day: date, today: date) -> str:
    recent = f"{DAILY_DIR}/{day.isoformat()}.md"
    if (vault.root / recent).exists() or day >= today - timedelta(
        days=vault.settings.lifecycle.demote_after_days
    ):
        return recent
    return f"{ARCHIVE_DAILY}/{day.isoformat()}.md"


def _append_day(vault: Vault, piece: Piece, known: Known, dry_run: bool, today: date) -> Imported:
    assert piece.day is not None
    rel = _day_note(vault, piece.day, today)
    path = vault.root / rel
    if path.exists():  # prose lines are no memory items: compare with the note's own lines
        known.exact.update(
            comparable(line) for line in (vault.read_memory(path) or "").splitlines()
        )
    kept, dropped = _new_lines(piece.text.splitlines(), 0, known)
    if not _has_content(kept, 0):
        outcome = "duplicate" if dropped else "exists"
        return Imported(piece.origin, rel, outcome, 0, dropped)
    block = "\n".join(line for line in kept if not HEADING.match(line)).strip("\n") + "\n"
    if not dry_run:
        vault.check_writable(path)
        update_file(
            path,
            lambda before: append_block(before, block),
            create=f"# {piece.day.isoformat()}\n\n",
        )
    return Imported(piece.origin, rel, "appended", block.count("\n"), dropped)


def import_into(
    vault: Vault,
    source: Path,
    *,
    kind: Kind | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
) -> ImportReport:
    """Import `source` (its kind detected unless given); `dry_run` plans and writes nothing."""
    source = Path(source)
    if source.resolve().is_relative_to(vault.memory_dir.resolve()):
        raise UsageError(f"{source} is inside this vault's memory/: nothing to import")
    kind, pieces = read_source(source, kind)
    report = ImportReport(kind, str(source), dry_run)
    today = (now or clock.now()).date()
    from memctl.memory import screen_secrets

    with vault.lock():
        known = Known(vault)
        for piece in pieces:
            try:
                screen_secrets(vault, piece.text)
                if piece.destination is not None:
                    report.items.append(_write_file(vault, piece, known, dry_run))
                else:
                    report.items.append(_append_day(vault, piece, known, dry_run, today))
            except UsageError as exc:
                where = piece.destination or f"daily note of {piece.day}"
                report.items.append(Imported(piece.origin, where, "refused", reason=str(exc)))
    if not dry_run and (report.count("written") or report.count("appended")):
        from memctl.agent.memory_tool import catch_up_index

        catch_up_index(vault)
    report.notices.extend(vault.take_notices())
    return report
