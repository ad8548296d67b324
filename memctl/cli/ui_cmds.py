"""`memctl ui`: the local web page to look at memory and decide."""

from __future__ import annotations

import typer

from memctl.cli._common import err, get_vault
from memctl.cli.app import app

DEFAULT_PORT = 8766


@app.command()
def ui(
    ctx: typer.Context,
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, help="The port (0: any free)."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="The address to listen on (default loopback)."
    ),
) -> None:
    """Serve a local web page: the tiers at a glance, the review queue (approve, reject,
    demote, prune), search with its reasons, and the nightly trends.

    Like the MCP listeners it requires the vault's bearer token ($MEMCTL_MCP_TOKEN, else
    .memctl/http.token): it prints the address to open, token included; the page trades
    the token for a cookie. Ctrl-C stops it.

    Example: memctl ui --port 8766     # http://127.0.0.1:8766/
    """
    from memctl.cli.agent_cmds import http_token
    from memctl.ui.server import run_ui

    vault = get_vault(ctx)
    try:
        run_ui(
            vault,
            host=host,
            port=port,
            token=http_token(vault),
            announce=lambda m: err(f"memctl: {m}"),
        )
    except OSError as exc:
        from memctl.errors import UsageError

        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        err("memctl: ui stopped")
