"""WARM -> HOT: propose frequently referenced chunks, review them, apply approved ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from memctl import clock
from memctl.errors import UsageError
from memctl.lifecycle import evidence
from memctl.lifecycle.hot import CoreEdit, HotCapExceeded, apply_core_addition
from memctl.lifecycle.proposals import Proposal, ProposalBook
from memctl.lifecycle.review import Review, review_candidate
from memctl.lifecycle.rules import (
    ChunkUse,
    core_line_from_chunk,
    focus_lines,
    guess_section,
    hot_archive_candidates,
    promotion_candidates,
)
from memctl.llm import LLM
from memctl.vault import Vault


def _iso(moment: datetime | None) -> str | None:
    return clock.iso(moment) if moment else None


def propose_promotions(
    vault: Vault, book: ProposalBook, uses: list[ChunkUse], now: datetime
) -> list[Proposal]:
    """Refresh the promote proposals from the rules; returns the open ones."""
    book.refresh("promote", promotion_proposals(vault, uses, now))
    return book.of_kind("promote", ("proposed", "approved"))


def promotion_proposals(vault: Vault, uses: list[ChunkUse], now: datetime) -> list[Proposal]:
    """This run's promote candidates (no state read or written: safe outside the lock)."""
    settings = vault.settings
    fresh = []
    for chunk in promotion_candidates(uses, settings.lifecycle):
        line = focus_lines(chunk.text, chunk.queries)
        if not line:
            continue
        fresh.append(
            Proposal.new(
                "promote",
                path=chunk.path,
                line_start=chunk.line_start,
                line_end=chunk.line_end,
                hash=chunk.hash,
                text=chunk.text,
                section=guess_section(line, settings.hot.sections),
                line=line,
                evidence={
                    "references": chunk.window_references,
                    "window_days": settings.lifecycle.promote_window_days,
                    "first": _iso(chunk.first_in_window),
                    "last": _iso(chunk.last_in_window),
                },
                now=now,
            )
        )
    return fresh


def review_open(vault: Vault, proposals: list[Proposal], llm: LLM) -> dict[str, Review]:
    """The LLM's verdict on each proposal (no state touched: safe to run without the lock)."""
    settings = vault.settings
    verdicts = {}
    for p in proposals:
        verdicts[p.id] = review_candidate(
            llm,
            settings,
            text=p.text,
            path=p.path,
            references=int(p.evidence.get("references", 0)),
            window_days=int(p.evidence.get("window_days", settings.lifecycle.promote_window_days)),
            section_hint=p.section or settings.hot.sections[-1],
        )
    return verdicts


def record_reviews(
    book: ProposalBook, verdicts: dict[str, Review], now: datetime
) -> list[Proposal]:
    """Store verdicts on proposals still waiting for one (another run may have decided meanwhile)."""
    reviewed = []
    for pid, review in verdicts.items():
        p = book.items.get(pid)
        if p is None or p.status != "proposed" or review.status == "unreviewed":
            continue
        p.status = review.status
        p.review = {**review.to_dict(), "at": clock.iso(now)}
        if review.status == "approved":
            p.section, p.line = review.section or p.section, review.line or p.line
        reviewed.append(p)
    return reviewed


def review_promotions(vault: Vault, book: ProposalBook, llm: LLM, now: datetime) -> list[Proposal]:
    """Ask the LLM about every not-yet-reviewed proposal; a failure is a rejection."""
    return record_reviews(
        book, review_open(vault, book.of_kind("promote", ("proposed",)), llm), now
    )


@dataclass
class ApplyResult:
    applied: list[tuple[Proposal, CoreEdit]] = field(default_factory=list)
    refused: list[tuple[Proposal, str]] = field(default_factory=list)


def archivable_suggestions(
    vault: Vault,
    uses: list[ChunkUse],
    now: datetime,
    state: evidence.LifecycleState | None = None,
    core_text: str | None = None,
) -> list[tuple[int, str]]:
    """core.md lines to archive instead: unreferenced for the HOT window, oldest reference first.

    `state` and `core_text`: what the caller already loaded (a copy of the line history is
    read, never saved: suggesting changes nothing)."""
    if state is None:
        state = evidence.LifecycleState.load(vault)
    else:
        state = evidence.LifecycleState(state.path, dict(state.core_lines))
    lines = evidence.observe_core(vault, uses, now, state, core_text)
    stale = hot_archive_candidates(lines, now, vault.settings.lifecycle)
    pool = stale or lines
    pool = sorted(pool, key=lambda c: (c.last_referenced or datetime.min, c.number))
    return [(c.number, c.text) for c in pool]


def apply_promotions(
    vault: Vault,
    book: ProposalBook,
    ids: list[str],
    *,
    section: str | None,
    text: str | None,
    uses: list[ChunkUse],
    now: datetime,
) -> ApplyResult:
    """Write the chosen proposals into core.md; a proposal over the cap is refused, not partial.

    The caller holds the vault lock (proposals.json and core.md change together)."""
    if text is not None and len(ids) != 1:
        raise UsageError("--text rewrites one proposal: give exactly one ID with it")
    result = ApplyResult()
    for pid in ids:
        p = book.get(pid, "promote")
        if p.status == "applied":
            result.refused.append((p, "already applied"))
            continue
        target = section or p.section or vault.settings.hot.sections[-1]
        line = text if text is not None else (p.line or core_line_from_chunk(p.text))
        try:
            edit = apply_core_addition(
                vault, target, line, suggest=archivable_suggestions(vault, uses, now), lock=False
            )
        except HotCapExceeded as exc:
            result.refused.append((p, str(exc)))
            continue
        p.status, p.section, p.line = "applied", edit.section, line
        result.applied.append((p, edit))
    return result
