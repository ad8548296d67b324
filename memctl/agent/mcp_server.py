"""`memctl mcp`: the memory tools over stdio or streamable HTTP with the official MCP SDK.

The low-level `Server` is used instead of `MCPServer` decorators so the advertised input
schemas are exactly `memctl.agent.tools.MCP_TOOL_SPECS` (the same ones `memctl tools`
prints) and so argument validation and errors go through the same code path as every
other caller: a bad call comes back as an `is_error` result, never a protocol failure.

Confinement: dates are validated as real dates before they name a file; the paths
load_memory and the memory tool take are confined to memory/'s tier files
(memctl.excerpt); every write goes through memctl.memory / core_update / memory_tool,
which only write under `memory/`.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from memctl import __version__
from memctl.agent.result_cap import cap_result, dumps
from memctl.agent.tools import MCP_TOOL_SPECS, call_tool, error_result
from memctl.llm import LLM, get_llm
from memctl.vault import Vault

INSTRUCTIONS = (
    "Long-term memory for this project, kept as a markdown vault. Search it before "
    "answering questions that may depend on earlier work; save durable facts with "
    "remember; add to core memory only what must be known in every conversation."
)


def unencodable(value: Any, where: str = "") -> str | None:
    """The path (`text`, `items[2]`) of the first string UTF-8 cannot encode, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "(the value)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = unencodable(key, where or "(a key)") or unencodable(
                item, f"{where}.{key}" if where else str(key)
            )
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = unencodable(item, f"{where}[{i}]")
            if found:
                return found
    return None


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
                        # Writes only add, except the memory tool's edits (a replaced text
                        # is in git; a deleted file goes to the archive).
                        destructive_hint=spec.name == "memory",
                        open_world_hint=False,
                    ),
                )
                for spec in MCP_TOOL_SPECS
            ]
        )

    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments
        where = (
            arguments.get(UNENCODABLE)
            if isinstance(arguments, dict) and UNENCODABLE in arguments
            else unencodable(arguments)
        )
        if where is not None:
            # JSON allows "\ud800"; UTF-8 cannot hold it. Answered here: echoing it back
            # in any reply would fail to encode, and the client would wait forever.
            result = error_result(
                params.name,
                "invalid_arguments",
                f"argument {where} is not valid text (a lone UTF-16 surrogate)",
            )
        else:
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


UNENCODABLE = "__memctl_unencodable__"


def screen_line(line: str) -> str | None:
    """A request line as the SDK should see it; None to drop it.

    JSON allows a lone surrogate ("\\ud800"); the SDK's parser rejects the whole message
    without knowing its id, so it never answers and the client waits forever. Such a
    request is rewritten so that it is answered with an error: a tool call keeps its name
    and gets a marker instead of its arguments (`call` answers invalid_arguments); any
    other request becomes an unknown method (JSON-RPC "method not found"). A notification
    has no answer to give and is dropped.
    """
    if "\\ud" not in line.lower():
        return line  # the escape is the only way a lone surrogate reaches us as text
    try:
        message = json.loads(line)
    except ValueError:
        return line  # the SDK answers malformed JSON itself
    where = unencodable(message)
    if where is None or not isinstance(message, dict):
        return line
    if "method" not in message or "id" not in message:
        return None
    params = message.get("params")
    if message["method"] == "tools/call" and isinstance(params, dict):
        name = params.get("name")
        where = unencodable(params.get("arguments"))
        if isinstance(name, str) and unencodable(name) is None and where is not None:
            params["arguments"] = {UNENCODABLE: where}
            return json.dumps(message, ensure_ascii=False)
    message["method"] = "memctl/refused: text that is not valid UTF-8"
    message.pop("params", None)
    return json.dumps(unencodable_free(message), ensure_ascii=False)


def unencodable_free(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {unencodable_free(k): unencodable_free(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unencodable_free(v) for v in value]
    return value


class _ScreenedLines:
    """stdin for `stdio_server`: its lines through `screen_line`."""

    def __init__(self, source: Any) -> None:
        self.source = source

    async def __aiter__(self) -> Any:
        async for line in self.source:
            screened = screen_line(line)
            if screened is not None:
                yield screened if screened.endswith("\n") else screened + "\n"


async def serve(vault: Vault) -> None:
    import io
    import sys

    from memctl.search import warm
    from memctl.search.hybrid import Searcher

    server = build_server(vault, get_llm(vault.settings))
    # One Searcher for the whole session: the model loads once, not once per call.
    searcher = Searcher(vault)
    warm.register(warm.WarmSearcher(searcher))
    stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    try:
        async with stdio_server(stdin=_ScreenedLines(stdin)) as (read_stream, write_stream):  # type: ignore[arg-type]
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        warm.unregister(vault)
        searcher.close()


def run(vault: Vault) -> None:
    anyio.run(serve, vault)


# -- streamable HTTP -------------------------------------------------------------------


def http_app(vault: Vault, *, host: str, token: str, llm: LLM | None = None) -> Any:
    """The Starlette app serving the tools at /mcp (DNS-rebinding checks on loopback),
    behind the bearer token (memctl.http_auth: loopback is open to every local user)."""
    from memctl.http_auth import BearerToken

    return BearerToken(build_server(vault, llm).streamable_http_app(host=host), token)


def bind(host: str, port: int) -> tuple[Any, str]:
    """A listening socket on host:port (0: any free port) and its `http://host:port`.

    Bound before serving, so a port 0 is known at once and a port in use is an error
    before anything starts (the MCP listener and `memctl ui` share this)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says
    # TCP, and without it a keep-alive client's second request waits ~40 ms (Nagle against
    # delayed ACK) for every answer written in two parts.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    where = f"[{host}]" if family == socket.AF_INET6 else host
    return sock, f"http://{where}:{sock.getsockname()[1]}"


def http_server(
    vault: Vault, *, token: str, host: str = "127.0.0.1", port: int = 8765
) -> tuple[Any, Any, str]:
    """A uvicorn server for the tools, its bound listening socket, and its URL."""
    import uvicorn

    sock, base = bind(host, port)
    url = f"{base}/mcp"
    app = http_app(vault, host=host, token=token, llm=get_llm(vault.settings))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    return uvicorn.Server(config), sock, url


def run_http(
    vault: Vault,
    *,
    token: str,
    host: str = "127.0.0.1",
    port: int = 8765,
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
