"""Proposals waiting for a decision, kept across runs in `.memctl/proposals.json`.

A proposal's id is derived from its content (kind prefix + hash), so re-running the
rules finds the same ids: `--apply ID` works across runs, a reviewed proposal is not
reviewed again, and a rejected one is not proposed again until its content changes.

Kinds: `promote` (P…, WARM chunk -> core.md), `archive` (H…, core.md line -> archive),
`prune` (X…, archive chunk -> deleted). Status: proposed -> approved | rejected -> applied.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from memctl import clock
from memctl.errors import UsageError
from memctl.state_paths import state_path
from memctl.vault import ARCHIVE_DIR, CORE, MEMORY_DIR, Vault, atomic_write_text

Kind = Literal["promote", "archive", "prune"]
Status = Literal["proposed", "approved", "rejected", "applied"]

FILE = "proposals.json"
PREFIX: dict[Kind, str] = {"promote": "P", "archive": "H", "prune": "X"}
OPEN: tuple[Status, ...] = ("proposed", "approved")
STATUSES: tuple[Status, ...] = ("proposed", "approved", "rejected", "applied")
# Where each kind's memory lives: a proposal naming anything else was not written by memctl.
UNDER: dict[Kind, str] = {"promote": MEMORY_DIR, "archive": MEMORY_DIR, "prune": ARCHIVE_DIR}


@dataclass
class Proposal:
    id: str
    kind: Kind
    status: Status
    path: str
    line_start: int
    line_end: int
    hash: str
    text: str  # the memory as it is in the vault
    section: str | None = None  # promote: where it goes in core.md
    line: str | None = None  # promote: what gets written (the reviewer's rewrite, if any)
    evidence: dict[str, Any] = field(default_factory=dict)
    review: dict[str, Any] | None = None
    created_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def new(
        cls,
        kind: Kind,
        *,
        path: str,
        line_start: int,
        line_end: int,
        hash: str,
        text: str,
        evidence: dict[str, Any],
        now: datetime,
        section: str | None = None,
        line: str | None = None,
    ) -> Proposal:
        """A fresh proposal from a rule: its id from kind and content, status "proposed"."""
        return cls(
            id=proposal_id(kind, hash),
            kind=kind,
            status="proposed",
            path=path,
            line_start=line_start,
            line_end=line_end,
            hash=hash,
            text=text,
            section=section,
            line=line,
            evidence=evidence,
            created_at=clock.iso(now),
        )


def proposal_id(kind: Kind, digest: str) -> str:
    return PREFIX[kind] + digest[:8]


class ProposalBook:
    def __init__(self, vault: Vault) -> None:
        self.path: Path = vault.state_dir / FILE
        self.items: dict[str, Proposal] = {}
        if self.path.exists():
            try:
                raw = json.loads(self.path.read_bytes().decode("utf-8"))
                listed = raw.get("proposals", [])
                if not isinstance(listed, list):
                    raise TypeError
                loaded = [Proposal(**p) for p in listed]
            except (ValueError, TypeError, AttributeError):
                raise UsageError(
                    f"{self.path} is damaged; delete it to start the proposals afresh"
                ) from None
            for proposal in loaded:
                self._check(vault, proposal)
            self.items = {p.id: p for p in loaded}
        self._saved = self._text()
        self._seen = self._signature()

    def _signature(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def current(self, vault: Vault) -> ProposalBook:
        """This book if the file is as it was loaded or saved, else the file read afresh
        (another memctl process decided on a proposal meanwhile)."""
        return self if self._signature() == self._seen else ProposalBook(vault)

    def _check(self, vault: Vault, p: Proposal) -> None:
        """Refuse a proposal memctl could not have written; its path is confined to memory/."""
        if (
            p.kind not in PREFIX
            or (p.kind == "archive" and p.path != CORE)
            or not isinstance(p.id, str)
            or not p.id.startswith(PREFIX[p.kind])
            or p.status not in STATUSES
            or not isinstance(p.text, str)
            or not all(isinstance(n, int) for n in (p.line_start, p.line_end))
        ):
            raise UsageError(
                f"{self.path} holds an entry memctl did not write; delete it to start the "
                "proposals afresh"
            )
        state_path(vault, p.path, what=str(self.path), under=UNDER[p.kind])

    def _text(self) -> str:
        ordered = sorted(self.items.values(), key=lambda p: (p.kind, p.path, p.line_start, p.id))
        return json.dumps(
            {"version": 1, "proposals": [p.to_dict() for p in ordered]},
            ensure_ascii=False,
            indent=1,
        )

    def save(self) -> bool:
        """Write if anything changed; True when written."""
        text = self._text()
        if text == self._saved:
            return False
        atomic_write_text(self.path, text)
        self._saved = text
        self._seen = self._signature()
        return True

    def of_kind(self, kind: Kind, statuses: tuple[Status, ...] | None = None) -> list[Proposal]:
        found = [
            p
            for p in self.items.values()
            if p.kind == kind and (statuses is None or p.status in statuses)
        ]
        return sorted(found, key=lambda p: (p.path, p.line_start, p.id))

    def refresh(self, kind: Kind, fresh: list[Proposal]) -> list[Proposal]:
        """Merge this run's candidates of `kind`: keep known ones' status and review, add new
        ones, drop still-unreviewed ones the rules no longer produce. Returns the new ones."""
        wanted = {p.id: p for p in fresh}
        added = []
        for pid, old in list(self.items.items()):
            if old.kind == kind and old.status == "proposed" and pid not in wanted:
                del self.items[pid]
        for pid, new in wanted.items():
            existing = self.items.get(pid)
            # An archived line re-added to core.md (or a pruned text archived again) is a new
            # memory with the same id; a promotion stays applied (applying it again is a no-op).
            if existing is None or (existing.status == "applied" and kind != "promote"):
                self.items[pid] = new
                added.append(new)
            elif existing.status in OPEN:
                existing.path, existing.line_start = new.path, new.line_start
                existing.line_end, existing.evidence = new.line_end, new.evidence
        return added

    def get(self, pid: str, kind: Kind | None = None) -> Proposal:
        found = self.items.get(pid) or self.items.get(pid.upper())
        if found is None or (kind is not None and found.kind != kind):
            what = f"{kind} proposal" if kind else "proposal"
            raise UsageError(
                f"no {what} {pid!r} (list them with `memctl promote` / `memctl demote` / `memctl prune`)"
            )
        return found
