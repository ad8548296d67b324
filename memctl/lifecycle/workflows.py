"""promote, demote and prune as whole runs: each owns the vault lock and returns a report.

The step functions in promote.py and demote.py assume their caller holds the lock; these
are the callers. Each holds the lock only while proposals.json or the markdown changes:
reading usage, working out candidates and asking the LLM run outside it, so `add` never
waits on the network or on a scan of the archive. The CLI, the MCP server or any Python
caller run the same workflow and print (or return) the same report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memctl import clock
from memctl.errors import UsageError
from memctl.lifecycle import evidence
from memctl.lifecycle.demote import (
    apply_demotions,
    apply_prunes,
    archive_core_lines,
    plan_demotions,
    propose_hot_archive,
    prune_proposals,
)
from memctl.lifecycle.hot import CoreEdit
from memctl.lifecycle.moves import finish_pending_moves
from memctl.lifecycle.promote import (
    apply_promotions,
    propose_promotions,
    record_reviews,
    review_open,
)
from memctl.lifecycle.proposals import Proposal, ProposalBook
from memctl.llm import LLM, no_llm_notice
from memctl.secrets import redact_text
from memctl.vault import Vault

NO_INDEX_PROMOTE = (
    "no index yet: run `memctl index` (candidates come from search and context references)"
)
NO_INDEX_PRUNE = (
    "no index yet: run `memctl index` (prune reads archive chunks and their references)"
)


def listed(p: Proposal) -> dict[str, Any]:
    """A proposal as listings show it: memory text with secrets redacted."""
    data = p.to_dict()
    data["text"] = redact_text(p.text)
    if p.line:
        data["line"] = redact_text(p.line)
    return data


# -- promote ---------------------------------------------------------------------------------


@dataclass
class PromoteReport:
    notices: list[str] = field(default_factory=list)  # for people: no index, no LLM key
    proposals: list[Proposal] = field(default_factory=list)  # open (proposed, approved) after
    reviewed: list[Proposal] = field(default_factory=list)  # verdicts stored by this run
    applied: list[tuple[Proposal, CoreEdit]] = field(default_factory=list)
    refused: list[tuple[Proposal, str]] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.refused else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposals": [listed(p) for p in self.proposals],
            "reviewed": [listed(p) for p in self.reviewed],
            "applied": [
                {"id": p.id, "section": e.section, "added": e.added, "core_lines": e.line_count}
                for p, e in self.applied
            ],
            "refused": [{"id": p.id, "reason": why} for p, why in self.refused],
        }


def run_promote(
    vault: Vault,
    *,
    review: bool = False,
    llm: LLM | None = None,
    apply: list[str] | None = None,
    apply_approved: bool = False,
    section: str | None = None,
    text: str | None = None,
    now: datetime | None = None,
) -> PromoteReport:
    """Refresh the promote proposals; with `review`, ask `llm` about each unreviewed one;
    then write the chosen ones (`apply` ids, and every approved one with `apply_approved`)
    into core.md. `review` without an `llm` is a notice, not an error."""
    # Usage errors before any work: a mistyped command must not cost an LLM review.
    if (section or text) and not apply:
        raise UsageError("--section and --text go with --apply ID")
    if text is not None and len(apply or []) > 1:
        raise UsageError("--text rewrites one proposal: give exactly one ID with it")
    now = now or clock.now()
    report = PromoteReport()
    uses = evidence.load_chunk_uses(vault, now)
    if not evidence.has_index(vault):
        report.notices.append(NO_INDEX_PROMOTE)
    with vault.lock():
        book = ProposalBook(vault)
        propose_promotions(vault, book, uses, now)
        book.save()
    verdicts = {}
    if review:
        if llm is None:
            report.notices.append(no_llm_notice(vault.settings))
        else:
            # The LLM is asked outside the vault lock: `add` must not wait on the network.
            verdicts = review_open(vault, book.of_kind("promote", ("proposed",)), llm)
    with vault.lock():
        # Read afresh: another run may have decided or applied a proposal meanwhile.
        book = ProposalBook(vault)
        report.reviewed = record_reviews(book, verdicts, now)
        ids = list(apply or [])
        if apply_approved:
            ids += [p.id for p in book.of_kind("promote", ("approved",))]
        if ids:
            result = apply_promotions(
                vault, book, ids, section=section, text=text, uses=uses, now=now
            )
            report.applied, report.refused = result.applied, result.refused
        book.save()
    report.proposals = book.of_kind("promote", ("proposed", "approved"))
    return report


# -- demote ----------------------------------------------------------------------------------


@dataclass
class DemoteReport:
    applied: bool  # the WARM -> COLD moves were asked for (not only shown)
    planned: list[dict[str, str]] = field(default_factory=list)  # each move with its reason
    moved: list[dict[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)  # interrupted moves finished first
    hot: list[Proposal] = field(default_factory=list)  # core.md lines proposed for archiving
    # Planned decision moves: (superseded decision's line, its successor's) in decisions.md.
    superseded: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "planned": [] if self.applied else self.planned,
            "moved": self.moved,
            "skipped": self.skipped,
            "recovered": self.recovered,
            "hot": [listed(p) for p in self.hot],
        }


def run_demote(
    vault: Vault,
    *,
    apply: bool = False,
    hot: list[str] | None = None,
    now: datetime | None = None,
) -> DemoteReport:
    """Plan (with `apply`, perform) the WARM -> COLD moves, archive the `hot` core.md
    lines chosen by proposal id, and refresh the core.md archive proposals."""
    now = now or clock.now()
    hot = list(hot or [])
    report = DemoteReport(applied=apply)
    uses = evidence.load_chunk_uses(vault, now)
    with vault.lock():
        if apply or hot:
            report.recovered = finish_pending_moves(vault)
        plan = plan_demotions(vault, uses, now)
        book = ProposalBook(vault)
        if apply:
            moves = apply_demotions(vault, plan)
            report.moved += [m.to_dict() for m in moves.done]
            report.skipped += [f"{m.source}: {why}" for m, why in moves.skipped]
        if hot:
            lines = archive_core_lines(vault, book, hot)
            report.moved += [m.to_dict() for m in lines.done]
            report.skipped += [f"{m.what}: {why}" for m, why in lines.skipped]
        report.hot = propose_hot_archive(
            vault, book, evidence.load_chunk_uses(vault, now) if report.moved else uses, now
        )
        book.save()
    if report.moved and evidence.has_index(vault):
        # Moved text keeps its hash: the lexical refresh is cheap and vectors come from the cache.
        from memctl.index.sync import ensure_fresh

        ensure_fresh(vault, now=now)
    report.planned = [
        dict(m.to_dict(), reason=plan.reasons.get(i, "")) for i, m in enumerate(plan.moves)
    ]
    report.superseded = list(plan.superseded.values())
    return report


# -- prune -----------------------------------------------------------------------------------


@dataclass
class PruneReport:
    applied: bool  # deletions were asked for (not only shown)
    notices: list[str] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)  # open before any deletion
    deleted: list[dict[str, str]] = field(default_factory=list)  # {"path", "what"}
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposals": [listed(p) for p in self.proposals] if not self.applied else [],
            "deleted": self.deleted,
            "skipped": self.skipped,
        }


def run_prune(
    vault: Vault,
    *,
    apply: bool = False,
    only: list[str] | None = None,
    now: datetime | None = None,
) -> PruneReport:
    """Refresh the prune proposals; with `apply`, delete the chosen (`only`; default all
    open) archive chunks from their files."""
    now = now or clock.now()
    report = PruneReport(applied=apply)
    uses = evidence.load_chunk_uses(vault, now)
    if not evidence.has_index(vault):
        report.notices.append(NO_INDEX_PRUNE)
    # Candidates are worked out before the lock (reading every archive); the lock covers
    # only storing them and the deletions, which re-check their text in the file.
    fresh = prune_proposals(vault, uses, now)
    with vault.lock():
        book = ProposalBook(vault)
        book.refresh("prune", fresh)
        report.proposals = book.of_kind("prune", ("proposed", "approved"))
        if apply:
            deletions = apply_prunes(vault, book, only or None)
            report.deleted = [{"path": m.source, "what": m.what} for m in deletions.done]
            report.skipped = [why for _, why in deletions.skipped]
        book.save()
    return report


# -- reject ----------------------------------------------------------------------------------


def run_reject(
    vault: Vault, ids: list[str], *, reason: str = "", now: datetime | None = None
) -> list[Proposal]:
    """A person's no: the open proposals `ids` (any kind) become rejected, so the rules
    do not propose them again until their content changes. Returns the ones rejected."""
    if not ids:
        raise UsageError("--reject takes the ID of a proposal")
    now = now or clock.now()
    with vault.lock():
        book = ProposalBook(vault)
        chosen = [book.get(pid) for pid in ids]  # an unknown id refuses them all
        rejected = []
        for p in chosen:
            if p.status not in ("proposed", "approved"):
                continue
            p.status = "rejected"
            p.review = {
                **(p.review or {}),
                "status": "rejected",
                "reason": reason.strip() or "rejected by a person",
                "by": "person",
                "at": clock.iso(now),
            }
            rejected.append(p)
        book.save()
    return rejected
