"""`memctl mcp`: the memory tools over stdio or streamable HTTP with the official MCP SDK.

The low-level `Server` is used instead of `MCPServer` decorators so the advertised input
schemas are exactly `memctl.agent.tools.TOOL_SPECS` (the same ones `memctl tools`
prints) and so argument validation and errors go through the same code path as every
other caller: a bad call comes back as an `is_error` result, never a protocol failure.

Confinement: no tool takes a path. Dates are validated as real dates before they name
a file, and every write goes through memctl.memory / core_update, which only write
under `memory/`.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from memctl import __version__
from memctl.agent.tools import TOOL_SPECS, call_tool, cap_result, dumps
from memctl.llm import LLM, get_llm
from memctl.vault import Vault

INSTRUCTIONS = (
    "Long-term memory for this project, kept as a markdown vault. Search it before "
    "answering questions that may depend on earlier work; save durable facts with "
    "remember; add to core memory only what must be known in every conversation."
)


def build_server(vault: Vault, llm: LLM | None = None) -> Server[Any]:
    """`llm` reviews update_core_memory proposals (None: they are refused, not written)."""
    budget = vault.settings.agent.tool_result_tokens

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=spec.name,
                    description=spec.description,
                    input_schema=spec.input_schema,
                    annotations=types.ToolAnnotations(
                        read_only_hint=spec.read_only,
                        # Writes only add; UPDATE-style loss never happens through a tool.
                        destructive_hint=False,
                        open_world_hint=False,
                    ),
                )
                for spec in TOOL_SPECS
            ]
        )

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments
        # Handlers block on files, SQLite and the embedder: keep the event loop free.
        result = await anyio.to_thread.run_sync(
            lambda: call_tool(vault, params.name, arguments, llm=llm)
        )
        capped = cap_result(result, budget)
        return types.CallToolResult(
            content=[types.TextContent(text=dumps(capped))],
            structured_content=json.loads(dumps(capped)),
            is_error=not capped.get("ok", False),
        )

    return Server(
        "memctl",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
    )


async def serve(vault: Vault) -> None:
    from memctl.search import warm
    from memctl.search.hybrid import Searcher

    server = build_server(vault, get_llm(vault.settings))
    # One Searcher for the whole session: the model loads once, not once per call.
    searcher = Searcher(vault)
    warm.register(warm.WarmSearcher(searcher))
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        warm.unregister(vault)
        searcher.close()


def run(vault: Vault) -> None:
    anyio.run(serve, vault)


# -- streamable HTTP -------------------------------------------------------------------

LOOPBACK = ("127.0.0.1", "localhost", "::1")
TOKEN_ENV = "MEMCTL_MCP_TOKEN"


class BearerToken:
    """ASGI wrapper: every request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        import hmac

        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        await self.app(scope, receive, send)


def http_app(vault: Vault, *, host: str, token: str | None, llm: LLM | None = None) -> Any:
    """The Starlette app serving the tools at /mcp (DNS-rebinding checks on loopback)."""
    app = build_server(vault, llm).streamable_http_app(host=host)
    return BearerToken(app, token) if token else app


def http_server(
    vault: Vault, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None
) -> tuple[Any, Any, str]:
    """A uvicorn server for the tools, its bound listening socket, and its URL.

    The socket is bound here, before serving, so a port 0 is known at once and a port in
    use is an error before anything starts.
    """
    import socket

    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    where = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{where}:{sock.getsockname()[1]}/mcp"
    app = http_app(vault, host=host, token=token, llm=get_llm(vault.settings))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    return uvicorn.Server(config), sock, url


def run_http(
    vault: Vault,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    token: str | None = None,
    announce: Any = print,
) -> None:
    """Serve over streamable HTTP until Ctrl-C/SIGTERM; one warm Searcher for all calls."""
    from memctl.search import warm
    from memctl.search.hybrid import Searcher

    server, sock, url = http_server(vault, host=host, port=port, token=token)
    searcher = Searcher(vault)
    warm.register(warm.WarmSearcher(searcher))
    try:
        announce(f"serving MCP for {vault.root} on {url}")
        server.run(sockets=[sock])
    finally:
        warm.unregister(vault)
        searcher.close()
        sock.close()
