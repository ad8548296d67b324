"""init, add, show, status: creating a vault and everyday reading and writing."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from memctl import memory
from memctl.cli._common import (
    JSON_HELP,
    console,
    err,
    get_vault,
    parse_date,
    print_json,
    read_text_arg,
)
from memctl.cli.app import app
from memctl.errors import UsageError
from memctl.status import full_status


@app.command()
def init(
    directory: Path = typer.Argument(Path("."), help="Where to create the vault (default: here)."),
    git: bool = typer.Option(False, "--git", help="Also `git init` and make the first commit."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Create a vault from the template; existing files are never overwritten.

    Example: memctl init ~/agent --git
    """
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} exists and is not a folder")
    created = memory.init_vault(directory, git=git)
    if json_out:
        print_json({"vault": str(directory.resolve()), "created": created, "git": git})
        return
    if created:
        for item in created:
            console.print(f"created {directory / item}")
    else:
        err(f"{directory} already holds every template file; nothing created")
    if git:
        console.print(f"git repository ready in {directory}")


@app.command()
def add(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="The note, or - to read standard input."),
    decision: str | None = typer.Option(
        None, "--decision", metavar="TITLE", help="Record a dated decision in decisions.md instead."
    ),
    on: str | None = typer.Option(None, "--date", help="Write to this day (YYYY-MM-DD)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Append a timestamped note to today's daily note (or a decision to decisions.md).

    Examples: memctl add "deploy blocked on the DNS change"
              memctl add --decision "Use SQLite" "one file, no server, WAL is enough"
    """
    vault = get_vault(ctx)
    day = parse_date(on, "--date")
    body = read_text_arg(text)
    if decision is not None:
        path = memory.add_decision(vault, decision, body, day=day)
    else:
        path = memory.add_note(vault, body, day=day)
    rel = vault.rel(path)
    if json_out:
        print_json({"path": rel, "kind": "decision" if decision is not None else "note"})
    else:
        console.print(f"added to {rel}")


@app.command()
def show(
    ctx: typer.Context,
    what: str = typer.Argument(..., help="core | today | warm | decisions"),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Print a tier: core (HOT), today, warm (what an agent auto-loads), decisions.

    Example: memctl show warm
    """
    vault = get_vault(ctx)
    parts = memory.show(vault, what)
    if json_out:
        print_json(
            {
                "what": what,
                "parts": [
                    {
                        "path": p.path,
                        "line_start": p.line_start,
                        "line_end": p.line_end,
                        "text": p.text,
                    }
                    for p in parts
                ],
            }
        )
        return
    if not parts:
        err(f"nothing in {what} yet")
    for part in parts:
        console.rule(f"{part.path}:{part.line_start}-{part.line_end}", style="dim")
        console.print(part.text.rstrip("\n"), markup=False)


@app.command()
def status(
    ctx: typer.Context,
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Per-tier metrics: HOT lines vs cap, WARM files and decisions, COLD files and chunks,
    index freshness and pending embeddings, and whether a resident process serves the vault.

    Example: memctl status --json
    """
    vault = get_vault(ctx)
    report = full_status(vault)
    if json_out:
        print_json(report)
        return
    hot, warm, cold, index = report["hot"], report["warm"], report["cold"], report["index"]
    table = Table(title=f"memctl vault {report['vault']}")
    table.add_column("tier")
    table.add_column("holds")
    table.add_column("notes")
    cap_note = Text("over cap", style="red") if hot["over_cap"] else "within cap"
    table.add_row("HOT", f"{hot['path']}: {hot['lines']}/{hot['cap']} lines", cap_note)
    table.add_row(
        "WARM",
        f"{warm['daily_files']} daily notes, {warm['decisions']} decisions",
        f"latest daily {warm['latest_daily'] or '-'}",
    )
    chunks = index.get("chunks_by_tier", {}) if index else {}
    table.add_row(
        "COLD",
        f"{cold['files']} archive files, {chunks.get('cold', 0)} chunks",
        "search only",
    )
    console.print(table)
    if not index or not index.get("exists"):
        console.print("index: not built yet (run `memctl index`)")
    else:
        console.print(
            f"index: {index['chunks']} chunks, {index['stale_files']} files changed since last sync, "
            f"{index['pending_embeddings']} pending embeddings, model {index['model']}"
        )
    resident = report["resident"]
    if resident["running"]:
        console.print(
            f"resident process: pid {resident['pid']} (memctl {resident['memctl']}) "
            f"serves this vault on {resident['address']}"
        )
    else:
        stale = " (a stale socket was removed)" if resident.get("stale_removed") else ""
        console.print(f"resident process: none (`memctl serve` starts one){stale}")
