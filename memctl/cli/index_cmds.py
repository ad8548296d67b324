"""`memctl index` and `memctl watch`: keep the SQLite mirror of the vault up to date."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from memctl.cli._common import JSON_HELP, console, err, get_vault, print_json
from memctl.cli.app import app
from memctl.index.sync import Progress, SyncReport


@app.command("index")
def index_cmd(
    ctx: typer.Context,
    full: bool = typer.Option(
        False, "--full", help="Rebuild into a new file and swap it in (cached vectors reused)."
    ),
    no_embed: bool = typer.Option(
        False, "--no-embed", help="Lexical rows only; vectors wait for the next plain run."
    ),
    wait: float = typer.Option(
        5.0, "--wait", min=0, help="Seconds to wait for another indexer before giving up."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Bring the index up to date with the vault (incremental; words first, vectors after).

    Example: memctl index          # after editing notes by hand
             memctl index --full   # rebuild from scratch
    """
    from memctl.index.sync import sync

    vault = get_vault(ctx)
    with _progress(enabled=not json_out and sys.stdout.isatty()) as progress:
        report = sync(vault, embed=not no_embed, full=full, progress=progress, wait=wait)
    for warning in report.warnings:
        err(f"memctl: warning: {warning}")
    if json_out:
        print_json(report.to_dict())
        return
    console.print(summary_line(report))


def summary_line(report: SyncReport) -> str:
    """One line for people: what changed and what is still waiting for vectors."""
    if report.skipped:
        return f"index: skipped ({report.skipped})"
    parts = [
        f"{len(report.changed)} files changed",
        f"{len(report.removed)} removed",
        f"{report.chunks_written} chunks written",
        f"{report.embedded} embedded",
        f"{report.cache_hits} from cache",
    ]
    if report.pending_embeddings:
        parts.append(f"{report.pending_embeddings} pending embeddings")
    kind = "rebuilt" if report.full else "synced"
    return (
        f"index {kind}: {', '.join(parts)}; {report.chunks_total} chunks in {report.seconds:.2f} s"
    )


@contextmanager
def _progress(*, enabled: bool) -> Iterator[Progress | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    tasks: dict[str, TaskID] = {}

    def update(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total)
        bar.update(tasks[phase], completed=done, total=total)

    with bar:
        yield update


@app.command()
def watch(
    ctx: typer.Context,
    debounce: float = typer.Option(
        1.0, "--debounce", min=0.05, help="Seconds of quiet after an edit before syncing."
    ),
) -> None:
    """Watch the vault and sync the index after every edit (Ctrl-C stops).

    Example: memctl watch &
    """
    from memctl.index.watch import watch_vault

    vault = get_vault(ctx)
    err(f"memctl: watching {vault.root} (Ctrl-C stops)")

    def log(report: SyncReport) -> None:
        for warning in report.warnings:
            err(f"memctl: warning: {warning}")
        console.print(summary_line(report))
        sys.stdout.flush()  # one line per sync, visible at once in a log file or pipe

    def failed(message: str) -> None:
        err(f"memctl: error: {message}")

    try:
        watch_vault(vault, debounce=debounce, on_sync=log, on_error=failed)
    except KeyboardInterrupt:
        err("memctl: watch stopped")


@app.command("models")
def models_cmd(json_out: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The embedding models that ship through pip: languages, package, licence, installed.

    Choose one in .memctl.toml (`[embed] model = "minilm"`, its id or an alias); the next
    `memctl index` re-embeds, from the cache where it can.
    Example: memctl models --json
    """
    from memctl.config import DEFAULT_EMBED_MODEL
    from memctl.index.embed.registry import MODELS, installed

    rows: list[dict[str, Any]] = [
        {
            "model": spec.model_id,
            "aliases": list(spec.aliases),
            "default": spec.model_id == DEFAULT_EMBED_MODEL,
            "installed": installed(spec),
            "package": spec.package,
            "install": f"pip install 'memctl[{spec.extra}]'" if spec.extra else None,
            "engine": spec.engine,
            "dim": spec.dim,
            "languages": spec.languages,
            "multilingual": spec.multilingual,
            "license": spec.license,
            "note": spec.note,
        }
        for spec in MODELS
    ]
    if json_out:
        print_json({"models": rows})
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="embedding models shipped through pip")
    for column in ("model", "aliases", "languages", "package", "licence", "installed"):
        table.add_column(column)
    for row in rows:
        mark = " (default)" if row["default"] else ""
        table.add_row(
            f"{row['model']}{mark}",
            ", ".join(row["aliases"]),
            row["languages"],
            escape(row["package"] + (f" ({row['install']})" if row["install"] else "")),
            row["license"],
            "yes" if row["installed"] else "no",
        )
    console.print(table)
