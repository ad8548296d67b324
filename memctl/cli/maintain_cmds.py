"""The nightly job and the vault checks it runs: `memctl maintain`, `memctl lint`."""

from __future__ import annotations

import typer

from memctl.cli._common import JSON_HELP, console, err, get_vault, print_json
from memctl.cli.app import app
from memctl.errors import MemctlError
from memctl.lifecycle.maintain import lint_vault
from memctl.lifecycle.maintain import maintain as run_maintain
from memctl.llm import get_llm, no_llm_notice


@app.command()
def lint(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Check the vault: HOT cap, core sections, decision dates, daily names, near-duplicates,
    likely contradictions, secrets. Exit 0 clean, 1 findings, 2 cannot run.

    Example: memctl lint --json
    """
    try:
        vault = get_vault(ctx)
        llm = get_llm(vault.settings)
        report = lint_vault(vault, llm=llm)
    except MemctlError as exc:
        raise MemctlError(f"lint cannot run: {exc}", exit_code=2) from None
    if llm is None:
        report.notes.append(
            no_llm_notice(vault.settings).replace(
                "proposals are listed, not reviewed", "contradictions not LLM-judged"
            )
        )
    if json_out:
        print_json(report.to_dict())
    else:
        for f in report.findings:
            console.print(f"{f.path}:{f.line}: {f.severity}: {f.code}: {f.message}")
        console.print(f"{report.errors} error(s), {report.warnings} warning(s)")
    for note in report.notes:
        err(note)
    if report.findings:
        raise typer.Exit(1)


@app.command()
def maintain(
    ctx: typer.Context,
    commit: bool = typer.Option(
        False, "--commit", help="Commit the vault's changes in one git commit."
    ),
    no_sync: bool = typer.Option(
        False, "--no-sync", help="Skip the index sync (use the index as it is)."
    ),
    no_embed: bool = typer.Option(
        False, "--no-embed", help="Sync words only; leave vectors for later."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The nightly job: sync the index, demote, propose (and review) promotions, propose
    HOT archiving and prunes, lint, and report per tier. Exits 1 when HOT is over its cap
    or lint finds errors, so cron mails the owner.

    Example (crontab): 15 3 * * * memctl --vault ~/agent maintain --commit
    """
    vault = get_vault(ctx)
    report = run_maintain(
        vault,
        llm=get_llm(vault.settings),
        sync_index=not no_sync,
        embed=not no_embed,
        commit=commit,
    )
    if json_out:
        print_json(report.to_dict())
    else:
        t = report.tiers
        for note in report.recovered:
            console.print(note)
        for m in report.moves:
            console.print(f"moved {m['what']}: {m['from']} -> {m['to']}")
        for why in report.skipped_moves:
            err(f"skipped {why}")
        console.print(
            f"HOT {t['hot_lines']}/{t['hot_cap']} lines | WARM {t['warm_files']} files | "
            f"COLD {t['cold_chunks'] if t['cold_chunks'] is not None else '?'} chunks in {t['cold_files']} files | "
            f"moves {t['moves_made']} | proposals waiting {t['proposals_waiting']} "
            f"(promote {len(report.promotions)}, archive {len(report.hot_archive)}, prune {len(report.prunes)})"
        )
        if report.reviewed:
            console.print(f"reviewed {report.reviewed} promotion candidate(s)")
        for f in report.lint.findings:
            if f.severity == "error":
                console.print(f"{f.path}:{f.line}: error: {f.code}: {f.message}")
        console.print(f"lint: {report.lint.errors} error(s), {report.lint.warnings} warning(s)")
        if report.commit:
            console.print(f"committed {report.commit}")
    for note in report.notices:
        err(note)
    if report.exit_code:
        raise typer.Exit(report.exit_code)
