"""The nightly job: sync, demote, propose (and review), lint, report, optionally commit.

Only the changes (finishing interrupted moves, the moves, storing proposals, the commit)
run under the vault lock, so `add` waits for those alone; index syncs (under the index
lock, so `watch` stays consistent), candidate rules, embedding and LLM calls run outside
it, and review verdicts are stored under it afterwards.
A second run right after the first changes nothing: moves are already made, proposals
keep their ids and statuses (nothing is reviewed twice), unchanged state is not rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.leftovers import notice as leftover_notice
from memctl.leftovers import remove_temp_files
from memctl.lifecycle import history
from memctl.lifecycle.commit import Change, commit_changes, require_git
from memctl.lifecycle.demote import (
    ARCHIVE_DECISIONS_HEADER,
    ApplyReport,
    apply_demotions,
    hot_archive_proposals,
    plan_demotions,
    prune_proposals,
)
from memctl.lifecycle.evidence import LifecycleState
from memctl.lifecycle.lint import LintReport, lint
from memctl.lifecycle.moves import Journal, finish_pending_moves
from memctl.lifecycle.promote import (
    archivable_suggestions,
    promotion_proposals,
    record_reviews,
    review_open,
)
from memctl.lifecycle.proposals import Kind, Proposal, ProposalBook
from memctl.lifecycle.rules import ChunkUse
from memctl.lifecycle.run import LifecycleRun
from memctl.llm import LLM, no_llm_notice
from memctl.secrets import redact_text
from memctl.status import TierMetrics
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.index.sync import SyncReport


@dataclass
class MaintainReport:
    now: str
    sync: SyncReport | None = None  # the run's last sync
    recovered: list[str] = field(default_factory=list)
    moves: list[dict[str, str]] = field(default_factory=list)
    skipped_moves: list[str] = field(default_factory=list)
    promotions: list[dict[str, Any]] = field(default_factory=list)
    reviewed: int = 0
    hot_archive: list[dict[str, Any]] = field(default_factory=list)
    prunes: list[dict[str, Any]] = field(default_factory=list)
    lint: LintReport = field(default_factory=LintReport)
    metrics: TierMetrics | None = None
    notices: list[str] = field(default_factory=list)
    commit: str | None = None
    loads: dict[str, int] = field(default_factory=dict)  # what the run read, how often

    @property
    def tiers(self) -> dict[str, Any]:
        """The flat per-tier keys docs/lifecycle.md promised before `hot`/`warm`/`cold`."""
        flat = self.metrics.flat() if self.metrics else {}
        return {
            **flat,
            "moves_made": len(self.moves),
            "proposals_waiting": len(self.promotions) + len(self.hot_archive) + len(self.prunes),
        }

    @property
    def hot_over_cap(self) -> bool:
        return self.metrics is not None and self.metrics.hot.over_cap

    @property
    def exit_code(self) -> int:
        return 1 if self.hot_over_cap or self.lint.errors else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "sync": self.sync.to_dict() if self.sync else None,
            "recovered": self.recovered,
            "moves": self.moves,
            "skipped_moves": self.skipped_moves,
            "promotions": self.promotions,
            "reviewed": self.reviewed,
            "hot_archive": self.hot_archive,
            "prunes": self.prunes,
            "lint": self.lint.to_dict(),
            **(
                self.metrics.to_dict()
                if self.metrics
                else {"hot": None, "warm": None, "cold": None}
            ),
            "tiers": self.tiers,
            "notices": self.notices,
            "commit": self.commit,
            "loads": self.loads,
            "exit_code": self.exit_code,
        }


def _brief(p: Any) -> dict[str, Any]:
    # The report is what cron mails: memory text in it is redacted (docs/security.md).
    return {
        "id": p.id,
        "status": p.status,
        "path": p.path,
        "line": p.line_start,
        "text": redact_text(p.text),
        **(
            {"section": p.section, "evidence": p.evidence, "review": p.review}
            if p.kind == "promote"
            else {"evidence": p.evidence}
        ),
    }


def maintain(
    vault: Vault,
    *,
    now: datetime | None = None,
    llm: LLM | None = None,
    sync_index: bool = True,
    embed: bool = True,
    commit: bool = False,
) -> MaintainReport:
    now = now or clock.now()
    with LifecycleRun.open(vault, now, create_index=sync_index) as run:
        return _maintain(run, llm=llm, sync_index=sync_index, embed=embed, commit=commit)


def _maintain(
    run: LifecycleRun, *, llm: LLM | None, sync_index: bool, embed: bool, commit: bool
) -> MaintainReport:
    """The nightly steps in order: recover, sync, demote (and commit), propose, embed,
    review, lint, record. The vault lock is held only while markdown or memctl's state
    changes: finishing interrupted moves, the moves, storing proposals, the commit. Index
    syncs, reading usage and working out candidates (seconds to minutes on a big archive)
    run outside it, so `add` and `remember` wait at most for the moves themselves. Moves
    re-read what they change under the lock (daily notes by file, decisions parsed afresh),
    so a plan made from a slightly older index never moves the wrong bytes."""
    vault, now = run.vault, run.now
    report = MaintainReport(now=clock.iso(now))
    if llm is None:
        report.notices.append(no_llm_notice(vault.settings))
    if commit:
        require_git(vault)  # before any move, so a missing repository changes nothing
    interrupted = _recovered(run, report)
    _sync(run, report, sync_index, False)
    counts = run.counts()
    if counts is None or not counts["chunks"]:
        report.notices.append("the index is empty or missing: usage-based rules had no data")
    applied = _demoted(run, report, interrupted, commit)
    if applied.done:
        run.moved()
        if sync_index:
            _sync(run, report, True, False)
    uses, state, core = run.uses(), run.state(), run.core_text()
    book, to_review = _proposed(run, uses, state, core)
    if sync_index and embed:
        # Moved text keeps its hash, so its vectors come from the embedding cache.
        _sync(run, report, True, True)
    if llm is not None and to_review:
        verdicts = review_open(vault, to_review, llm)
        with vault.lock():
            book = run.book()
            report.reviewed = len(record_reviews(book, verdicts, now))
            book.save()
    report.promotions = [_brief(p) for p in book.of_kind("promote", ("proposed", "approved"))]
    report.hot_archive = [_brief(p) for p in book.of_kind("archive", ("proposed", "approved"))]
    report.prunes = [_brief(p) for p in book.of_kind("prune", ("proposed", "approved"))]
    report.lint = lint(
        vault,
        llm=llm,
        suggestions=archivable_suggestions(vault, uses, now, state, core),
        texts=run.texts(),
        book=book,
        store=run.store,
    )
    report.metrics = run.metrics()
    report.loads = dict(run.loads)
    with vault.lock():
        history.record_run(vault, _figures(report, len(book.of_kind("promote", ("applied",)))))
    return report


def _recovered(run: LifecycleRun, report: MaintainReport) -> list[dict[str, Any]]:
    """Under the lock: the moves an earlier run left unfinished, finished (their journal
    entries returned, for the commit), and temporary files left behind, removed."""
    vault = run.vault
    with vault.lock():
        interrupted = Journal(vault).load()
        report.recovered = finish_pending_moves(vault)
        leftovers = remove_temp_files(vault)
    if leftovers:
        report.notices.append(leftover_notice(leftovers))
    return interrupted


def _demoted(
    run: LifecycleRun, report: MaintainReport, interrupted: list[dict[str, Any]], commit: bool
) -> ApplyReport:
    """Under the lock: WARM -> COLD moves by usage, and with `commit` the git commit of
    exactly what moved (the interrupted moves finished first included)."""
    vault = run.vault
    with vault.lock():
        applied = apply_demotions(vault, plan_demotions(vault, run.uses(), run.now))
        report.moves = [m.to_dict() for m in applied.done]
        report.skipped_moves = [f"{m.source}: {why}" for m, why in applied.skipped]
        if commit:
            # In the same hold of the lock as the moves: what is committed is what moved.
            report.commit = commit_changes(
                vault,
                _changes(interrupted, applied),
                _commit_message(report),
                _record_message(report),
            )
    return applied


def _changes(interrupted: list[dict[str, Any]], applied: ApplyReport) -> list[Change]:
    """What a commit takes in: the finished journal entries, then this run's moves."""
    return [
        Change(
            i["source"],
            i["destination"],
            i["block"],
            i.get("header", ""),
            whole_source=i.get("kind") == "daily-merge",
        )
        for i in interrupted
    ] + [
        Change(
            m.source,
            m.destination,
            block,
            _HEADERS.get(m.kind, ""),
            whole_source=m.kind == "daily-merge",
        )
        for m, block in zip(applied.done, applied.blocks, strict=True)
    ]


def _proposed(
    run: LifecycleRun, uses: list[ChunkUse], state: LifecycleState, core: str
) -> tuple[ProposalBook, list[Proposal]]:
    """Fresh promote, archive and prune proposals stored under the lock (each kind's
    earlier ones refreshed); the book, and the promotions waiting for review."""
    vault, now = run.vault, run.now
    fresh: dict[Kind, list[Proposal]] = {
        "promote": promotion_proposals(vault, uses, now),
        "archive": hot_archive_proposals(vault, uses, now, state, core),
        "prune": prune_proposals(vault, uses, now),
    }
    with vault.lock():
        book = run.book()
        for kind, proposals in fresh.items():
            book.refresh(kind, proposals)
        book.save()
        state.save()
        to_review = book.of_kind("promote", ("proposed",))
    return book, to_review


def _figures(report: MaintainReport, promotions_applied: int) -> history.RunFigures:
    """The run's per-tier figures as the trends keep them."""
    t = report.tiers
    return history.RunFigures(
        at=report.now,
        hot_lines=t["hot_lines"],
        hot_cap=t["hot_cap"],
        warm_files=t["warm_files"],
        cold_files=t["cold_files"],
        cold_chunks=t["cold_chunks"],
        moves=t["moves_made"],
        promotions_applied=promotions_applied,
        proposals_waiting=t["proposals_waiting"],
        lint_errors=report.lint.errors,
        lint_warnings=report.lint.warnings,
        exit_code=report.exit_code,
    )


def _sync(run: LifecycleRun, report: MaintainReport, enabled: bool, embed: bool) -> None:
    if not enabled:
        return
    from memctl.index.sync import sync

    result = sync(run.vault, embed=embed, now=run.now, store=run.store)
    report.sync = result
    if result.skipped:
        report.notices.append(f"index sync skipped: {result.skipped}")


def lint_vault(vault: Vault, *, llm: LLM | None = None, now: datetime | None = None) -> LintReport:
    """`memctl lint`: the checks of a maintain run, over one open index and one read of
    each file (core.md lines to cut are suggested from usage, as maintain does)."""
    now = now or clock.now()
    with LifecycleRun.open(vault, now, create_index=False) as run:
        suggestions = archivable_suggestions(vault, run.uses(), now, run.state(), run.core_text())
        return lint(vault, llm=llm, suggestions=suggestions, texts=run.texts(), store=run.store)


_HEADERS = {"decision": ARCHIVE_DECISIONS_HEADER}


def _record_message(report: MaintainReport) -> str:
    return (
        f"memctl maintain {report.now[:10]}: notes as written, before archiving them\n\n"
        "Never committed before; recorded so that reverting the next commit puts them back."
    )


def _commit_message(report: MaintainReport) -> str:
    kinds: dict[str, int] = {}
    for move in report.moves:
        kinds[move["kind"]] = kinds.get(move["kind"], 0) + 1
    names = {
        "daily": "daily note(s)",
        "decision": "superseded decision(s)",
        "core-line": "core line(s)",
    }
    summary = ", ".join(f"{n} {names.get(k, k)}" for k, n in sorted(kinds.items()))
    title = f"memctl maintain {report.now[:10]}: " + (
        f"archived {summary}" if summary else "vault changes"
    )
    body = (
        "\n".join(f"- {m['from']} -> {m['to']}" for m in report.moves)
        + "\n"
        + "\n".join(f"- {note}" for note in report.recovered)
    )
    return title + ("\n\n" + body.strip() if body.strip() else "")
