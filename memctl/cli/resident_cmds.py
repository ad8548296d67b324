"""`memctl serve`: the resident process that keeps search warm and the index current."""

from __future__ import annotations

import sys

import typer

from memctl.cli._common import console, err, get_vault
from memctl.cli.app import app


@app.command()
def serve(
    ctx: typer.Context,
    debounce: float = typer.Option(
        1.0, "--debounce", min=0.05, help="Seconds of quiet after an edit before syncing."
    ),
    no_embed: bool = typer.Option(
        False, "--no-embed", help="Do not embed new chunks here (another process does)."
    ),
    mcp_port: int | None = typer.Option(
        None, "--mcp-port", min=0, help="Also serve the MCP tools over HTTP on this port."
    ),
    mcp_host: str = typer.Option(
        "127.0.0.1", "--mcp-host", help="With --mcp-port: the address (default loopback)."
    ),
    ui_port: int | None = typer.Option(
        None, "--ui-port", min=0, help="Also serve the `memctl ui` page on this port."
    ),
    ui_host: str = typer.Option(
        "127.0.0.1", "--ui-host", help="With --ui-port: the address (default loopback)."
    ),
) -> None:
    """Keep this vault warm: watch it, and answer search, context, tools --call and status.

    While it runs, those commands hand their work to it over .memctl/serve.sock
    (owner-only) and print exactly what they would have printed in-process, in a
    fraction of the time. One per vault; Ctrl-C or SIGTERM stops it.

    With --mcp-port, the MCP tools are served over streamable HTTP by the same process
    and warm state (as `memctl mcp --http`, the same bearer token).

    With --ui-port, the `memctl ui` page is served too, its searches on the same warm
    Searcher (the same bearer token, loopback included).

    Example: memctl serve --mcp-port 8765 --ui-port 8766 &
    """
    from memctl.cli.index_cmds import summary_line
    from memctl.index.sync import SyncReport
    from memctl.resident.server import Resident

    vault = get_vault(ctx)

    def log(message: str) -> None:
        err(f"memctl: {message}")

    def synced(report: SyncReport) -> None:
        for warning in report.warnings:
            err(f"memctl: warning: {warning}")
        if report.changed or report.removed or report.embedded or report.cache_hits:
            console.print(summary_line(report))
            sys.stdout.flush()

    mcp = ui = None
    if mcp_port is not None or ui_port is not None:
        from memctl.cli.agent_cmds import http_token

        token = http_token(vault)  # one token for both listeners, announced once
        if mcp_port is not None:
            mcp = (mcp_host, mcp_port, token)
        if ui_port is not None:
            ui = (ui_host, ui_port, token)
    resident = Resident(
        vault, debounce=debounce, embed=not no_embed, log=log, on_sync=synced, mcp=mcp, ui=ui
    )
    resident.install_signal_handlers()
    err(f"memctl: starting the resident process for {vault.root} (Ctrl-C stops)")
    try:
        resident.run()
    except KeyboardInterrupt:
        resident.stop.set()
        err("memctl: serve stopped")
