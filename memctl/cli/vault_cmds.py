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
from memctl.status import full_status, keep_current_hint


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
    keep_current = keep_current_hint(directory)
    if json_out:
        print_json(
            {
                "vault": str(directory.resolve()),
                "created": created,
                "git": git,
                "keep_current": keep_current,
            }
        )
        return
    if created:
        for item in created:
            console.print(f"created {directory / item}")
    else:
        err(f"{directory} already holds every template file; nothing created")
    if git:
        console.print(f"git repository ready in {directory}")
    console.print(keep_current, markup=False)


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


_FILE_KINDS = {"core": "memory/core.md", "decisions": "memory/decisions.md"}


@app.command()
def show(
    ctx: typer.Context,
    what: str = typer.Argument(
        ..., help="core | today | warm | decisions | FILE[:LINE[-LINE]] (a memory file)"
    ),
    heading: str | None = typer.Option(
        None, "--heading", help="With FILE: only the section under this heading."
    ),
    as_of: str | None = typer.Option(
        None,
        "--as-of",
        help="core, decisions or FILE as committed at this date (YYYY-MM-DD) or git revision.",
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Print a tier: core (HOT), today, warm (what an agent auto-loads), decisions; or
    a memory file, a line range of it, or one section (to read around a search hit).

    Examples: memctl show warm
              memctl show memory/daily/2026-11-22.md:3-9
              memctl show memory/decisions.md --heading "2026-11-02 — Use SQLite"
              memctl show core --as-of 2026-10-01
    """
    from memctl.excerpt import parse_spec

    vault = get_vault(ctx)
    is_file = what not in memory.WARM_WHAT and ("/" in what or what.endswith(".md") or ":" in what)
    if heading is not None and not is_file and what not in _FILE_KINDS:
        raise UsageError("--heading works with a FILE (or core, decisions)")
    extra: dict[str, str] = {}
    if is_file or as_of is not None or heading is not None:
        from memctl.excerpt import excerpt_of, read_excerpt

        rel, lines = parse_spec(_FILE_KINDS.get(what, what))
        if as_of is not None:
            from memctl.excerpt import memory_path
            from memctl.search.as_of import read_file_at, resolve

            if not is_file and what not in _FILE_KINDS:
                raise UsageError("--as-of shows core, decisions or a FILE (not today or warm)")
            revision = resolve(vault, as_of)
            rel = memory_path(rel)
            text = read_file_at(vault, revision, rel)
            piece = excerpt_of(text, rel, lines=lines, heading=heading)
            extra = revision.to_dict()
        else:
            piece = read_excerpt(vault, rel, lines=lines, heading=heading)
        parts = [memory.TierText(piece.path, piece.line_start, piece.line_end, piece.text)]
    else:
        parts = memory.show(vault, what)
    if json_out:
        print_json(
            {
                "what": what,
                **extra,
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
        print_json(report.to_dict())
        return
    hot, warm, cold, index = report.tiers.hot, report.tiers.warm, report.tiers.cold, report.index
    table = Table(title=f"memctl vault {report.vault}")
    table.add_column("tier")
    table.add_column("holds")
    table.add_column("notes")
    cap_note = Text("over cap", style="red") if hot.over_cap else "within cap"
    table.add_row("HOT", f"{hot.path}: {hot.lines}/{hot.cap} lines", cap_note)
    table.add_row(
        "WARM",
        f"{warm.daily_files} daily notes, {warm.decisions} decisions",
        f"latest daily {warm.latest_daily or '-'}",
    )
    table.add_row(
        "COLD",
        f"{cold.files} archive files, {index.chunks_by_tier.get('cold', 0)} chunks",
        "search only",
    )
    console.print(table)
    if not index.exists:
        console.print("index: not built yet (run `memctl index`)")
    else:
        console.print(
            f"index: {index.chunks} chunks, {index.stale_files} files changed since last sync, "
            f"{index.pending_embeddings} pending embeddings, model {index.model}"
        )
    resident = report.resident
    if resident.get("answering") is False:
        console.print(
            "resident process: one holds this vault but does not answer (starting, or "
            "stopped); commands run in-process"
        )
    elif resident["running"]:
        console.print(
            f"resident process: pid {resident['pid']} (memctl {resident['memctl']}) "
            f"serves this vault on {resident['address']}"
        )
        if resident.get("differs"):
            console.print(
                f"  not for this shell: {', '.join(resident['differs'])} set otherwise than "
                "in its environment, so commands run in-process"
            )
    else:
        stale = " (a stale socket was removed)" if resident.get("stale_removed") else ""
        console.print(f"resident process: none (`memctl serve` starts one){stale}")
    if index.exists and index.action:
        console.print(f"[yellow]to do:[/yellow] {index.action}", highlight=False)
