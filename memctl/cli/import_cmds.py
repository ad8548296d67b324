"""import: what users already have (Claude Code memory, CLAUDE.md, ChatGPT, notes) into the vault."""

from __future__ import annotations

from pathlib import Path

import typer

from memctl.cli._common import JSON_HELP, console, err, get_vault, print_json
from memctl.cli.app import app
from memctl.errors import UsageError


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    source: Path = typer.Argument(
        ..., help="A Claude Code memory folder, a CLAUDE.md, conversations.json, or a notes folder."
    ),
    kind: str | None = typer.Option(
        None, "--kind", help="claude-memory, claude-md, chatgpt or notes (default: detected)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Plan and report; write nothing."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Import memories you already have, dated, deduplicated against the vault, idempotent.

    Notes named for a day join that day's note; other notes, memory files and ChatGPT
    conversations become dated files under memory/archive/. Facts already in the vault,
    and files already imported, are left out: running it again writes nothing new.

    \b
    Examples:
      memctl import ~/.claude/projects/-home-me-app/memory
      memctl import CLAUDE.md
      memctl import conversations.json --dry-run
      memctl import ~/notes --json
    """
    from memctl.agent.import_sources import KINDS
    from memctl.agent.importing import import_into

    if kind is not None and kind not in KINDS:
        raise UsageError(f"--kind must be one of {', '.join(KINDS)} (got {kind!r})")
    vault = get_vault(ctx)
    report = import_into(vault, source, kind=kind, dry_run=dry_run)
    for notice in report.notices:
        err(f"memctl: {notice}")
    if json_out:
        print_json(report.to_dict())
        return
    for item in report.items:
        extra = (
            f" ({item.duplicate_lines} line(s) already in the vault)"
            if item.duplicate_lines
            else ""
        )
        console.print(f"{item.outcome:<9} {item.destination} <- {item.origin}{extra}")
        if item.reason:
            console.print(f"          {item.reason}")
    counts = report.to_dict()
    summary = ", ".join(
        f"{counts[k]} {k}"
        for k in ("written", "appended", "exists", "duplicate", "refused")
        if counts[k]
    )
    err(f"memctl: {'plan (dry run): ' if dry_run else ''}{summary or 'nothing to import'}")
