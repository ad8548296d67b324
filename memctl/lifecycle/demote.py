"""WARM -> COLD moves, HOT archive proposals and COLD prune proposals, and applying them.

Callers that change the vault hold `vault.lock()` around plan + apply, so the plan is
made from the same bytes it changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import PurePosixPath

from memctl import clock
from memctl.lifecycle import evidence
from memctl.lifecycle.moves import (
    ARCHIVE_CORE,
    ARCHIVE_DAILY,
    ARCHIVE_DECISIONS,
    Move,
    MoveConflict,
    cut_block,
    find_block,
    merge_file,
    move_block,
    move_file,
)
from memctl.lifecycle.proposals import Proposal, ProposalBook
from memctl.lifecycle.rules import (
    ChunkUse,
    Superseded,
    daily_demotions,
    decision_demotions,
    hot_archive_candidates,
    prune_candidates,
)
from memctl.notes import Decision, parse_decisions
from memctl.state_paths import state_path
from memctl.vault import (
    ARCHIVE_DIR,
    CORE,
    DECISIONS,
    Vault,
    read_exact,
    shown,
    update_file,
)

ARCHIVE_DECISIONS_HEADER = "# Archived decisions\n\n"


@dataclass
class DemotePlan:
    moves: list[Move] = field(default_factory=list)
    blocks: dict[int, str] = field(default_factory=dict)  # index in moves -> exact block text
    reasons: dict[int, str] = field(default_factory=dict)
    # index in moves -> (the superseded decision's line, its successor's line or marker line)
    superseded: dict[int, tuple[int, int]] = field(default_factory=dict)


def plan_demotions(vault: Vault, uses: list[ChunkUse], now: datetime) -> DemotePlan:
    settings = vault.settings.lifecycle
    plan = DemotePlan()
    for note in daily_demotions(evidence.daily_facts(vault, uses), now, settings):
        name = PurePosixPath(note.path).name
        plan.reasons[len(plan.moves)] = (
            f"daily note of {note.day}, untouched for {settings.demote_after_days}+ days"
        )
        plan.moves.append(Move("daily", note.path, f"{ARCHIVE_DAILY}/{name}", name))
    text = None
    # Read exact (bad bytes kept) so a planned block matches the file byte for byte;
    # read_memory first for the one rule on links (it skips one leaving the vault).
    if vault.decisions_path.exists() and vault.read_memory(vault.decisions_path) is not None:
        text = read_exact(vault.decisions_path)
    if text is not None:
        decisions = parse_decisions(text)
        ranges = evidence.last_reference_by_range(uses, DECISIONS)
        last = {
            i: evidence.last_reference_in(ranges, d.line_start, d.line_end)
            for i, d in enumerate(decisions)
        }
        for item in decision_demotions(decisions, last, now, settings):
            decision = decisions[item.index]
            heading = shown(decision.text.splitlines()[0])
            plan.blocks[len(plan.moves)] = decision.text
            plan.reasons[len(plan.moves)] = f"superseded ({item.by}) since {item.since}"
            plan.superseded[len(plan.moves)] = (decision.line_start, _line_of(decisions, item))
            plan.moves.append(Move("decision", DECISIONS, ARCHIVE_DECISIONS, heading))
    return plan


def _line_of(decisions: list[Decision], item: Superseded) -> int:
    """Where what superseded a decision is: its successor's heading, else the marker line
    in the decision's own body."""
    own = decisions[item.index]
    wanted = item.by.strip()
    for i, d in enumerate(decisions):
        if i != item.index and d.text.splitlines()[0].strip() == wanted:
            return d.line_start
    for offset, line in enumerate(own.text.splitlines()):
        if line.strip() == wanted:
            return own.line_start + offset
    return own.line_start


@dataclass
class ApplyReport:
    done: list[Move] = field(default_factory=list)
    skipped: list[tuple[Move, str]] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # per done move: the text moved ("" = file)


def apply_demotions(vault: Vault, plan: DemotePlan) -> ApplyReport:
    """Perform the planned moves (caller holds the vault lock)."""
    report = ApplyReport()
    for i, move in enumerate(plan.moves):
        block = plan.blocks.get(i, "")
        try:
            if move.kind == "daily":
                try:
                    move_file(vault, move.source, move.destination)
                except MoveConflict:
                    # A note written later for a day already archived (a backfill): its
                    # text joins the archived note rather than being skipped every night.
                    block = read_exact(vault.root / move.source)
                    merge_file(vault, move.source, move.destination)
                    move = Move("daily-merge", move.source, move.destination, move.what)
            else:
                move_block(
                    vault,
                    move.source,
                    move.destination,
                    plan.blocks[i],
                    header=ARCHIVE_DECISIONS_HEADER,
                    kind=move.kind,
                )
        except MoveConflict as exc:
            report.skipped.append((move, str(exc)))
            continue
        report.done.append(move)
        report.blocks.append(block)
    return report


# -- HOT: archive proposals ------------------------------------------------------------------


def propose_hot_archive(
    vault: Vault, book: ProposalBook, uses: list[ChunkUse], now: datetime
) -> list[Proposal]:
    state = evidence.LifecycleState.load(vault)
    book.refresh("archive", hot_archive_proposals(vault, uses, now, state))
    state.save()
    return book.of_kind("archive", ("proposed", "approved"))


def hot_archive_proposals(
    vault: Vault,
    uses: list[ChunkUse],
    now: datetime,
    state: evidence.LifecycleState,
    core_text: str | None = None,
) -> list[Proposal]:
    """core.md lines unreferenced for the HOT age; carries `state`'s line history forward
    (the caller saves it)."""
    lines = evidence.observe_core(vault, uses, now, state, core_text)
    days = vault.settings.lifecycle.hot_unreferenced_days
    return [
        Proposal.new(
            "archive",
            path=CORE,
            line_start=line.number,
            line_end=line.number,
            hash=evidence.line_key(line.text),
            text=line.text,
            section=line.section,
            evidence={
                "last_referenced": clock.iso(line.last_referenced)
                if line.last_referenced
                else None,
                "first_seen": clock.iso(line.first_seen) if line.first_seen else None,
                "unreferenced_days": days,
            },
            now=now,
        )
        for line in hot_archive_candidates(lines, now, vault.settings.lifecycle)
    ]


def archive_core_lines(vault: Vault, book: ProposalBook, ids: list[str]) -> ApplyReport:
    """Move the chosen core.md lines to memory/archive/core.md (caller holds the vault lock)."""
    report = ApplyReport()
    for pid in ids:
        p = book.get(pid, "archive")
        move = Move("core-line", CORE, ARCHIVE_CORE, p.text.strip())
        if p.status == "applied":
            report.skipped.append((move, "already archived"))
            continue
        if find_block(read_exact(vault.core_path), p.text) is None:
            report.skipped.append((move, "line no longer in core.md"))
            continue
        move_block(
            vault,
            CORE,
            ARCHIVE_CORE,
            p.text,
            header="# Archived core.md lines\n\n",
            kind="core-line",
        )
        p.status = "applied"
        report.done.append(move)
    return report


# -- COLD: prune ------------------------------------------------------------------------------------


def prune_proposals(vault: Vault, uses: list[ChunkUse], now: datetime) -> list[Proposal]:
    """COLD chunks unread for the prune age (reads the archives; writes nothing)."""
    anchors = evidence.anchors_for_prune(vault, uses)
    days = vault.settings.lifecycle.prune_after_days
    return [
        Proposal.new(
            "prune",
            path=c.path,
            line_start=c.line_start,
            line_end=c.line_end,
            hash=c.hash,
            text=c.text,
            evidence={
                "last_referenced": clock.iso(c.last_referenced) if c.last_referenced else None,
                "since": clock.iso(anchors[c.hash]),
                "unread_days": days,
            },
            now=now,
        )
        for c in prune_candidates(uses, anchors, now, vault.settings.lifecycle)
    ]


def apply_prunes(vault: Vault, book: ProposalBook, ids: list[str] | None) -> ApplyReport:
    """Delete the chosen (default: all open) prune proposals' text from their archive files.

    Git keeps the history; a file left with nothing but headings is removed.
    """
    report = ApplyReport()
    chosen = (
        [book.get(i, "prune") for i in ids]
        if ids
        else book.of_kind("prune", ("proposed", "approved"))
    )
    for p in chosen:
        move = Move("prune", p.path, "", p.text.splitlines()[0] if p.text else "")
        path = state_path(vault, p.path, what="a prune proposal", under=ARCHIVE_DIR)
        if not path.exists() or find_block(read_exact(path), p.text) is None:
            report.skipped.append((move, "no longer in the archive"))
            p.status = "applied"
            continue
        after = update_file(path, partial(cut_block, block=p.text))
        if all(
            not line.strip() or line.lstrip().startswith(("#", "<!--"))
            for line in after.splitlines()
        ):
            path.unlink()
        p.status = "applied"
        report.done.append(move)
    return report
