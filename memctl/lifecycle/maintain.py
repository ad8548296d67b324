"""The nightly job: sync, demote, propose (and review), lint, report, optionally commit.

The markdown work (finishing interrupted moves, the lexical sync, moves, proposals, the
commit) runs under the vault lock, so `add` and another `maintain` wait for it; the index
sync inside takes the index lock as usual, so `watch` stays consistent. Embedding and LLM
calls run outside the vault lock, and review verdicts are stored under it afterwards.
A second run right after the first changes nothing: moves are already made, proposals
keep their ids and statuses (nothing is reviewed twice), unchanged state is not rewritten.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memctl import clock
from memctl.errors import MemctlError
from memctl.lifecycle import evidence
from memctl.lifecycle.demote import (
    apply_demotions,
    plan_demotions,
    propose_hot_archive,
    propose_prunes,
)
from memctl.lifecycle.hot import line_count
from memctl.lifecycle.lint import LintReport, lint
from memctl.lifecycle.moves import Journal, finish_pending_moves
from memctl.lifecycle.promote import (
    archivable_suggestions,
    propose_promotions,
    record_reviews,
    review_open,
)
from memctl.lifecycle.proposals import ProposalBook
from memctl.llm import LLM, NO_KEY_NOTICE
from memctl.secrets import redact_text
from memctl.vault import Vault


@dataclass
class MaintainReport:
    now: str
    sync: dict[str, Any] | None = None
    recovered: list[str] = field(default_factory=list)
    moves: list[dict[str, str]] = field(default_factory=list)
    skipped_moves: list[str] = field(default_factory=list)
    promotions: list[dict[str, Any]] = field(default_factory=list)
    reviewed: int = 0
    hot_archive: list[dict[str, Any]] = field(default_factory=list)
    prunes: list[dict[str, Any]] = field(default_factory=list)
    lint: LintReport = field(default_factory=LintReport)
    tiers: dict[str, Any] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    commit: str | None = None

    @property
    def hot_over_cap(self) -> bool:
        return self.tiers.get("hot_lines", 0) > self.tiers.get("hot_cap", 0)

    @property
    def exit_code(self) -> int:
        return 1 if self.hot_over_cap or self.lint.errors else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "now": self.now,
            "sync": self.sync,
            "recovered": self.recovered,
            "moves": self.moves,
            "skipped_moves": self.skipped_moves,
            "promotions": self.promotions,
            "reviewed": self.reviewed,
            "hot_archive": self.hot_archive,
            "prunes": self.prunes,
            "lint": self.lint.to_dict(),
            "tiers": self.tiers,
            "notices": self.notices,
            "commit": self.commit,
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
    report = MaintainReport(now=clock.iso(now))
    if llm is None:
        report.notices.append(NO_KEY_NOTICE)
    if commit:
        require_git(vault)  # before any move, so a missing repository changes nothing
    # The vault lock is held only for the markdown work; embedding and LLM calls (which
    # can take minutes) run outside it, so `add` is never kept waiting by the network.
    with vault.lock():
        touched = {p for i in Journal(vault).load() for p in (i["source"], i["destination"])}
        report.recovered = finish_pending_moves(vault)
        _sync(vault, report, sync_index, False, now)
        uses = evidence.load_chunk_uses(vault, now)
        if not uses:
            report.notices.append("the index is empty or missing: usage-based rules had no data")
        applied = apply_demotions(vault, plan_demotions(vault, uses, now))
        report.moves = [m.to_dict() for m in applied.done]
        report.skipped_moves = [f"{m.source}: {why}" for m, why in applied.skipped]
        if applied.done and sync_index:
            _sync(vault, report, True, False, now)
            uses = evidence.load_chunk_uses(vault, now)
        book = ProposalBook(vault)
        propose_promotions(vault, book, uses, now)
        propose_hot_archive(vault, book, uses, now)
        propose_prunes(vault, book, uses, now)
        book.save()
        to_review = book.of_kind("promote", ("proposed",))
        if commit:
            touched |= {p for m in applied.done for p in (m.source, m.destination)}
            report.commit = commit_vault(vault, _commit_message(report), sorted(touched))
    if sync_index and embed:
        # Moved text keeps its hash, so its vectors come from the embedding cache.
        _sync(vault, report, True, True, now)
    if llm is not None and to_review:
        verdicts = review_open(vault, to_review, llm)
        with vault.lock():
            book = ProposalBook(vault)
            report.reviewed = len(record_reviews(book, verdicts, now))
            book.save()
    report.promotions = [_brief(p) for p in book.of_kind("promote", ("proposed", "approved"))]
    report.hot_archive = [_brief(p) for p in book.of_kind("archive", ("proposed", "approved"))]
    report.prunes = [_brief(p) for p in book.of_kind("prune", ("proposed", "approved"))]
    report.lint = lint(vault, llm=llm, suggestions=archivable_suggestions(vault, uses, now))
    report.tiers = tier_counts(vault)
    report.tiers["moves_made"] = len(report.moves)
    report.tiers["proposals_waiting"] = (
        len(report.promotions) + len(report.hot_archive) + len(report.prunes)
    )
    return report


def _sync(vault: Vault, report: MaintainReport, enabled: bool, embed: bool, now: datetime) -> None:
    if not enabled:
        return
    from memctl.index.sync import sync

    result = sync(vault, embed=embed, now=now)
    report.sync = result.to_dict()
    if result.skipped:
        report.notices.append(f"index sync skipped: {result.skipped}")


def tier_counts(vault: Vault) -> dict[str, Any]:
    counts: dict[str, Any] = {
        "hot_lines": line_count(vault.read_memory(vault.core_path) or ""),
        "hot_cap": vault.settings.hot.cap_lines,
        "warm_files": len(vault.daily_notes()) + (1 if vault.decisions_path.exists() else 0),
        "cold_files": sum(1 for _ in vault.archive_dir.rglob("*.md"))
        if vault.archive_dir.exists()
        else 0,
        "cold_chunks": None,
    }
    if evidence.has_index(vault):
        from memctl.index.backend import open_store

        with open_store(vault) as store:
            counts["cold_chunks"] = store.counts()["chunks_by_tier"]["cold"]
    return counts


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


def _git(vault: Vault, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=vault.root, capture_output=True, text=True)


def require_git(vault: Vault) -> None:
    if (
        shutil.which("git") is None
        or _git(vault, "rev-parse", "--is-inside-work-tree").returncode != 0
    ):
        raise MemctlError(
            f"--commit: {vault.root} is not in a git repository (git init it, or drop --commit)"
        )


def commit_vault(vault: Vault, message: str, paths: list[str]) -> str | None:
    """One commit of the files this run changed (only those: a person's other uncommitted
    edits stay theirs); None when nothing changed."""
    require_git(vault)
    if not paths or not _git(vault, "status", "--porcelain", "--", *paths).stdout.strip():
        return None
    identity = (
        []
        if _git(vault, "config", "user.email").stdout.strip()
        else ["-c", "user.name=memctl", "-c", "user.email=memctl@localhost"]
    )
    for step in (
        ["add", "-A", "--", *paths],
        [*identity, "commit", "-q", "-m", message, "--", *paths],
    ):
        done = _git(vault, *step)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise MemctlError(f"git {step[0]} failed: {detail[-1] if detail else '?'}")
    return _git(vault, "rev-parse", "--short", "HEAD").stdout.strip()
