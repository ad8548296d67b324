"""Serving the page: a uvicorn server on a bound socket, with a warm Searcher when alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memctl.vault import Vault


def ui_server(
    vault: Vault, *, token: str, host: str = "127.0.0.1", port: int = 8766
) -> tuple[Any, Any, str]:
    """A uvicorn server for the page, its bound listening socket, and its URL."""
    import uvicorn

    from memctl.agent.mcp_server import bind
    from memctl.ui.app import build_app
    from memctl.ui.guard import Guard

    sock, url = bind(host, port)
    guard = Guard(host=host, port=int(sock.getsockname()[1]), token=token)
    config = uvicorn.Config(build_app(vault, guard), log_level="warning", lifespan="off")
    return uvicorn.Server(config), sock, url + "/"


def run_ui(
    vault: Vault,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 8766,
    announce: Callable[[str], Any] = print,
) -> None:
    """Serve the page until Ctrl-C/SIGTERM; one warm Searcher for every search."""
    from memctl.search import warm
    from memctl.search.hybrid import Searcher

    server, sock, url = ui_server(vault, host=host, port=port, token=token)
    searcher = Searcher(vault)
    warm.register(warm.WarmSearcher(searcher))
    try:
        announce(f"serving the memctl page for {vault.root} on {url}")
        # As a notebook server does: the address to open, token included, on the owner's
        # own terminal; the page trades it for a cookie and drops it from the address bar.
        announce(f"open {url}?token={token}")
        server.run(sockets=[sock])
    finally:
        warm.unregister(vault)
        searcher.close()
        sock.close()
