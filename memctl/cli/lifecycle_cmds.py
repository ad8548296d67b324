"""promote, demote, prune, compact, lint, maintain: moving memories between tiers."""

from __future__ import annotations

from typing import Any

import typer

from memctl import clock
from memctl.cli._common import JSON_HELP, console, err, get_vault, print_json
from memctl.cli.app import app
from memctl.errors import UsageError
from memctl.lifecycle import evidence
from memctl.lifecycle.compact import compact as compact_vault
from memctl.lifecycle.demote import (
    apply_demotions,
    apply_prunes,
    archive_core_lines,
    plan_demotions,
    propose_hot_archive,
    prune_proposals,
)
from memctl.lifecycle.moves import finish_pending_moves
from memctl.lifecycle.promote import (
    apply_promotions,
    propose_promotions,
    record_reviews,
    review_open,
)
from memctl.lifecycle.proposals import Proposal, ProposalBook
from memctl.llm import NO_KEY_NOTICE, get_llm
from memctl.secrets import redact_text


def _proposal(p: Proposal) -> dict[str, Any]:
    """A proposal as listings print it: memory text with secrets redacted."""
    data = p.to_dict()
    data["text"] = redact_text(p.text)
    if p.line:
        data["line"] = redact_text(p.line)
    return data


def _show(p: Proposal) -> None:
    where = f"{p.path}:{p.line_start}"
    head = f"{p.id}  [{p.status}]  {where}"
    if p.kind == "promote":
        ev = p.evidence
        head += f"  {ev.get('references')} refs in {ev.get('window_days')}d ({ev.get('first')} .. {ev.get('last')})  -> {p.section}"
    elif p.evidence.get("last_referenced") is not None or "unread_days" in p.evidence:
        head += f"  last referenced: {p.evidence.get('last_referenced') or 'never'}"
    console.print(head)
    shown = redact_text(p.line if p.kind == "promote" and p.line else p.text)
    for line in shown.splitlines()[:6]:
        console.print(f"    {line}")
    if p.review:
        console.print(f"    review: {p.review.get('status')}: {p.review.get('reason')}")


@app.command()
def promote(
    ctx: typer.Context,
    review: bool = typer.Option(
        False, "--review", help="Ask the LLM to approve or reject each unreviewed candidate."
    ),
    apply: list[str] = typer.Option(
        [], "--apply", metavar="ID", help="Write these proposals into core.md (repeatable)."
    ),
    apply_approved: bool = typer.Option(
        False, "--apply-approved", help="Write every LLM-approved proposal into core.md."
    ),
    section: str | None = typer.Option(
        None, "--section", help="With --apply: the core.md section to write to."
    ),
    text: str | None = typer.Option(
        None, "--text", help="With one --apply ID: write this line instead of the proposal's."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List WARM chunks referenced often enough to belong in core.md; review or apply them.

    Examples: memctl promote
              memctl promote --review
              memctl promote --apply P1a2b3c4d --section "Iron rules"
              memctl promote --apply-approved
    """
    vault = get_vault(ctx)
    now = clock.now()
    uses = evidence.load_chunk_uses(vault, now)
    if not evidence.has_index(vault):
        err("no index yet: run `memctl index` (candidates come from search and context references)")
    if (section or text) and not apply:
        raise UsageError("--section and --text go with --apply ID")
    with vault.lock():
        book = ProposalBook(vault)
        propose_promotions(vault, book, uses, now)
        book.save()
    verdicts = {}
    if review:
        llm = get_llm(vault.settings)
        if llm is None:
            err(NO_KEY_NOTICE)
        else:
            # The LLM is asked outside the vault lock: `add` must not wait on the network.
            verdicts = review_open(vault, book.of_kind("promote", ("proposed",)), llm)
    result = None
    with vault.lock():
        book = ProposalBook(vault)
        reviewed: list[Proposal] = record_reviews(book, verdicts, now)
        ids = list(apply)
        if apply_approved:
            ids += [p.id for p in book.of_kind("promote", ("approved",))]
        if ids:
            result = apply_promotions(
                vault, book, ids, section=section, text=text, uses=uses, now=now
            )
        book.save()
    listed = book.of_kind("promote", ("proposed", "approved"))
    if json_out:
        print_json(
            {
                "proposals": [_proposal(p) for p in listed],
                "reviewed": [_proposal(p) for p in reviewed],
                "applied": [
                    {"id": p.id, "section": e.section, "added": e.added, "core_lines": e.line_count}
                    for p, e in (result.applied if result else [])
                ],
                "refused": [
                    {"id": p.id, "reason": why} for p, why in (result.refused if result else [])
                ],
            }
        )
    else:
        for p in reviewed:
            console.print(
                f"reviewed {p.id}: {p.status} ({p.review.get('reason') if p.review else ''})"
            )
        if result:
            for p, e in result.applied:
                console.print(
                    f"applied {p.id} to ## {e.section} (core.md now {e.line_count}/{e.cap} lines)"
                )
            for p, why in result.refused:
                err(f"refused {p.id}: {why}")
        if not listed:
            console.print("no promotion candidates")
        for p in listed:
            _show(p)
    if result and result.refused:
        raise typer.Exit(1)


@app.command()
def demote(
    ctx: typer.Context,
    apply: bool = typer.Option(False, "--apply", help="Perform the WARM -> COLD moves shown."),
    hot: list[str] = typer.Option(
        [],
        "--hot",
        metavar="ID",
        help="Archive these core.md lines (IDs from the list; repeatable).",
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show (then with --apply perform) the moves of old daily notes and superseded decisions
    to memory/archive/, and the core.md lines proposed for archiving.

    Examples: memctl demote
              memctl demote --apply
              memctl demote --hot H0f3a9c12
    """
    vault = get_vault(ctx)
    now = clock.now()
    uses = evidence.load_chunk_uses(vault, now)
    recovered: list[str] = []
    done: list[dict[str, str]] = []
    skipped: list[str] = []
    with vault.lock():
        if apply or hot:
            recovered = finish_pending_moves(vault)
        plan = plan_demotions(vault, uses, now)
        book = ProposalBook(vault)
        if apply:
            report = apply_demotions(vault, plan)
            done += [m.to_dict() for m in report.done]
            skipped += [f"{m.source}: {why}" for m, why in report.skipped]
        if hot:
            report = archive_core_lines(vault, book, hot)
            done += [m.to_dict() for m in report.done]
            skipped += [f"{m.what}: {why}" for m, why in report.skipped]
        hot_props = propose_hot_archive(
            vault, book, evidence.load_chunk_uses(vault, now) if done else uses, now
        )
        book.save()
    if done and evidence.has_index(vault):
        # Moved text keeps its hash: the lexical refresh is cheap and vectors come from the cache.
        from memctl.index.sync import ensure_fresh

        ensure_fresh(vault, now=now)
    planned = [dict(m.to_dict(), reason=plan.reasons.get(i, "")) for i, m in enumerate(plan.moves)]
    if json_out:
        print_json(
            {
                "planned": [] if apply else planned,
                "moved": done,
                "skipped": skipped,
                "recovered": recovered,
                "hot": [_proposal(p) for p in hot_props],
            }
        )
        return
    for note in recovered:
        err(note)
    for move in done:
        console.print(f"moved {move['what']}: {move['from']} -> {move['to']}")
    for why in skipped:
        err(f"skipped {why}")
    if not apply:
        for move in planned:
            console.print(
                f"would move {move['what']}: {move['from']} -> {move['to']}  ({move['reason']})"
            )
        if planned:
            console.print("run `memctl demote --apply` to move them")
        elif not hot:
            console.print("nothing to demote")
    if hot_props:
        console.print("core.md lines proposed for archiving (memctl demote --hot ID):")
        for p in hot_props:
            _show(p)


@app.command()
def prune(
    ctx: typer.Context,
    apply: bool = typer.Option(
        False, "--apply", help="Delete the proposed archive chunks (git keeps the history)."
    ),
    only: list[str] = typer.Option(
        [], "--id", metavar="ID", help="With --apply: only these proposals (repeatable)."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Show (then with --apply delete) COLD chunks unread for the prune age (default 182 days).

    Examples: memctl prune
              memctl prune --apply --id X1a2b3c4d
    """
    vault = get_vault(ctx)
    now = clock.now()
    uses = evidence.load_chunk_uses(vault, now)
    if not evidence.has_index(vault):
        err("no index yet: run `memctl index` (prune reads archive chunks and their references)")
    # Candidates are worked out before the lock (reading every archive); the lock covers
    # only storing them and the deletions, which re-check their text in the file.
    fresh = prune_proposals(vault, uses, now)
    with vault.lock():
        book = ProposalBook(vault)
        book.refresh("prune", fresh)
        listed = book.of_kind("prune", ("proposed", "approved"))
        report = apply_prunes(vault, book, only or None) if apply else None
        book.save()
    if json_out:
        print_json(
            {
                "proposals": [_proposal(p) for p in listed] if not apply else [],
                "deleted": [
                    {"path": m.source, "what": m.what} for m in (report.done if report else [])
                ],
                "skipped": [why for _, why in (report.skipped if report else [])],
            }
        )
        return
    if report:
        for m in report.done:
            console.print(f"deleted from {m.source}: {m.what}")
        return
    if not listed:
        console.print("nothing to prune")
    for p in listed:
        _show(p)


@app.command()
def compact(
    ctx: typer.Context,
    summarize: bool = typer.Option(
        False, "--summarize", help="Have the LLM write a summary at the top of each monthly file."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Roll archived daily notes into monthly files (archive/YYYY-MM.md), losslessly.

    Examples: memctl compact
              memctl compact --summarize
    """
    vault = get_vault(ctx)
    llm = get_llm(vault.settings) if summarize else None
    if summarize and llm is None:
        err(NO_KEY_NOTICE)
    with vault.lock():
        report = compact_vault(vault, llm=llm, summarize=summarize)
    if json_out:
        print_json(
            {
                "rolled": [{"from": a, "to": b} for a, b in report.rolled],
                "conflicts": report.conflicts,
                "summarized": report.summarized,
                "summary_errors": report.summary_errors,
            }
        )
    else:
        for a, b in report.rolled:
            console.print(f"rolled {a} into {b}")
        for month in report.summarized:
            console.print(f"summarized {month}")
        if not report.rolled and not report.summarized:
            console.print("nothing to compact")
    for line in report.conflicts + report.summary_errors:
        err(line)
    if report.conflicts:
        raise typer.Exit(1)
