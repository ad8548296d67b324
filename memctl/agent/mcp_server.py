"""`memctl mcp`: the memory tools over stdio with the official MCP SDK (low-level server).

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
    server = build_server(vault, get_llm(vault.settings))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run(vault: Vault) -> None:
    anyio.run(serve, vault)
