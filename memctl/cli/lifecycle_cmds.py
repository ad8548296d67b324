"""promote, demote, prune, compact, lint, maintain: moving memories between tiers."""

from __future__ import annotations

import typer

from memctl.cli._common import JSON_HELP, console, err, get_vault, print_json
from memctl.cli.app import app
from memctl.errors import UsageError
from memctl.lifecycle.compact import compact as compact_vault
from memctl.lifecycle.proposals import Proposal
from memctl.lifecycle.workflows import listed, run_demote, run_promote, run_prune, run_reject
from memctl.llm import get_llm, no_llm_notice
from memctl.secrets import redact_text


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
    reject: list[str] = typer.Option(
        [],
        "--reject",
        metavar="ID",
        help="Reject these proposals of any kind (P, H, X; repeatable): not proposed again.",
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """List WARM chunks referenced often enough to belong in core.md; review or apply them.

    Examples: memctl promote
              memctl promote --review
              memctl promote --apply P1a2b3c4d --section "Iron rules"
              memctl promote --apply-approved
              memctl promote --reject P1a2b3c4d
    """
    vault = get_vault(ctx)
    if reject:
        if apply or apply_approved or review:
            raise UsageError("--reject goes alone, without --apply or --review")
        rejected = run_reject(vault, reject)
        if json_out:
            print_json({"rejected": [listed(p) for p in rejected]})
        for p in rejected if not json_out else []:
            console.print(f"rejected {p.id} ({p.path}:{p.line_start})")
        return
    report = run_promote(
        vault,
        review=review,
        llm=get_llm(vault.settings) if review else None,
        apply=apply,
        apply_approved=apply_approved,
        section=section,
        text=text,
    )
    for notice in report.notices:
        err(notice)
    if json_out:
        print_json(report.to_dict())
    else:
        for p in report.reviewed:
            console.print(
                f"reviewed {p.id}: {p.status} ({p.review.get('reason') if p.review else ''})"
            )
        for p, e in report.applied:
            console.print(
                f"applied {p.id} to ## {e.section} (core.md now {e.line_count}/{e.cap} lines)"
            )
        for p, why in report.refused:
            err(f"refused {p.id}: {why}")
        if not report.proposals:
            console.print("no promotion candidates")
        for p in report.proposals:
            _show(p)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


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
    report = run_demote(get_vault(ctx), apply=apply, hot=hot)
    if json_out:
        print_json(report.to_dict())
        return
    for note in report.recovered:
        err(note)
    for move in report.moved:
        console.print(f"moved {move['what']}: {move['from']} -> {move['to']}")
    for why in report.skipped:
        err(f"skipped {why}")
    if not apply:
        for move in report.planned:
            console.print(
                f"would move {move['what']}: {move['from']} -> {move['to']}  ({move['reason']})"
            )
        if report.planned:
            console.print("run `memctl demote --apply` to move them")
        elif not hot:
            console.print("nothing to demote")
    if report.hot:
        console.print("core.md lines proposed for archiving (memctl demote --hot ID):")
        for p in report.hot:
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
    report = run_prune(get_vault(ctx), apply=apply, only=only)
    for notice in report.notices:
        err(notice)
    if json_out:
        print_json(report.to_dict())
        return
    if apply:
        for m in report.deleted:
            console.print(f"deleted from {m['path']}: {m['what']}")
        return
    if not report.proposals:
        console.print("nothing to prune")
    for p in report.proposals:
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
        err(no_llm_notice(vault.settings))
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
