"""context, tools, mcp, capture, compact-history: the agent-facing commands."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer

from memctl.cli._common import (
    JSON_HELP,
    console,
    err,
    get_vault,
    print_json,
    read_source,
    write_text,
)
from memctl.cli.app import app
from memctl.config import Settings
from memctl.errors import UsageError, VaultNotFound
from memctl.vault import Vault


def _read_json(source: str) -> Any:
    text = read_source(source)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


@app.command()
def context(
    ctx: typer.Context,
    query: str | None = typer.Option(
        None, "--query", "-q", help="Also add the top COLD snippets for this."
    ),
    budget: int | None = typer.Option(
        None, "--budget", help="Token budget (default [agent] context_budget_tokens, 8000)."
    ),
    fmt: str = typer.Option(
        "text", "--format", help="text, or anthropic (Messages API system blocks)."
    ),
    cold_k: int = typer.Option(5, "--cold", help="How many COLD snippets with --query."),
    no_tools: bool = typer.Option(
        False, "--no-tool-guide", help="Leave out the memory-tool guide."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Assemble the context an agent loads: HOT core, WARM recent notes and decisions, COLD for --query.

    Stable blocks come first (core, tool guide), then WARM, then COLD and the date, so the
    prompt cache keeps working; over the budget, WARM is dropped oldest first, then COLD.

    \b
    Examples:
      memctl context --budget 4000
      memctl context --query "deploy dns" --format anthropic > system.json
    """
    from memctl.agent.context import assemble

    if fmt not in ("text", "anthropic"):
        raise UsageError(f"--format {fmt!r}: choose text or anthropic")
    if budget is not None and budget < 1:
        raise UsageError("--budget must be a positive number of tokens")
    if cold_k < 1:
        raise UsageError("--cold must be at least 1")
    vault = get_vault(ctx)
    result = assemble(vault, query=query, budget=budget, cold_k=cold_k, include_tools=not no_tools)
    for notice in result.notices:
        err(f"memctl: {notice}")
    if fmt == "anthropic":
        print_json({"system": result.anthropic_system(), **result.summary()})
        return
    if json_out:
        print_json({"text": result.text(), **result.summary()})
        return
    write_text(result.text())
    err(
        f"memctl: {result.tokens} of {result.budget} tokens (estimated), {len(result.dropped)} block(s) dropped"
    )


@app.command()
def tools(
    ctx: typer.Context,
    fmt: str = typer.Option("anthropic", "--format", help="anthropic (Messages API tools) or mcp."),
    call: str | None = typer.Option(None, "--call", metavar="NAME", help="Run this tool instead."),
    arguments: str = typer.Option(
        "{}", "--args", metavar="JSON", help="Arguments for --call (JSON object, or - for stdin)."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Accepted for uniformity: output is always JSON."
    ),
) -> None:
    """Print the memory tools' JSON schemas, or run one tool and print its JSON result.

    Output is always JSON. A tool result is capped at [agent] tool_result_tokens.

    \b
    Examples:
      memctl tools --format mcp
      memctl tools --call search_memory --args '{"query": "dns"}'
    """
    from memctl.agent.tools import run_tool, tool_schemas
    from memctl.llm import get_llm

    if call is None:
        print_json(tool_schemas(fmt))
        return
    vault = get_vault(ctx)
    raw = read_source("-") if arguments == "-" else arguments
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--args is not valid JSON ({exc.msg})") from None
    text = run_tool(vault, call, parsed, llm=get_llm(vault.settings))
    sys.stdout.write(text + "\n")
    if not json.loads(text).get("ok"):
        # The JSON error result is the message; SystemExit passes the CLI group untouched.
        raise SystemExit(1)


@app.command()
def mcp(
    ctx: typer.Context,
    http: bool = typer.Option(
        False, "--http", help="Serve over streamable HTTP (at /mcp) instead of stdio."
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="With --http: the address to listen on (default loopback)."
    ),
    port: int = typer.Option(8765, "--port", min=0, help="With --http: the port (0: any free)."),
) -> None:
    """Serve the memory tools (Model Context Protocol) for this vault, over stdio or HTTP.

    One warm search state (index, model, caches) serves every call. Over HTTP every
    request needs `Authorization: Bearer <token>` (loopback is open to every local
    user): $MEMCTL_MCP_TOKEN, else the vault's .memctl/http.token (owner-only), made
    and printed the first time.

    \b
    Examples (an MCP client's server entry, then HTTP):
      {"command": "memctl", "args": ["--vault", "/path/to/vault", "mcp"]}
      memctl mcp --http --port 8765     # http://127.0.0.1:8765/mcp
    """
    from memctl.agent.mcp_server import run, run_http

    vault = get_vault(ctx)
    if not http:
        run(vault)
        return
    token = http_token(vault)
    try:
        run_http(vault, host=host, port=port, token=token, announce=lambda m: err(f"memctl: {m}"))
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def http_token(vault: Vault) -> str:
    """The bearer token of the vault's HTTP listeners (memctl.http_auth), announced."""
    from memctl.http_auth import vault_token

    token = vault_token(vault)
    err(f"memctl: {token.announcement()}")
    return token.value


@app.command("compact-history")
def compact_history_cmd(
    ctx: typer.Context,
    source: str = typer.Argument(..., help="Messages JSON file, or - for stdin."),
    keep: int | None = typer.Option(None, "--keep", help="Messages kept untouched (default 12)."),
    soft_budget: int | None = typer.Option(
        None, "--soft-budget", help="Do nothing below this many tokens (default 20000)."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Summarise the head of an Anthropic messages list; the last messages stay untouched.

    Prints the new messages list (with --json: an object with the list and what was done).

    Example: memctl compact-history conversation.json > compacted.json
    """
    from memctl.agent.history import compact_history
    from memctl.llm import get_llm

    if keep is not None and keep < 1:
        raise UsageError("--keep must be at least 1")
    try:
        settings = get_vault(ctx).settings
    except VaultNotFound:
        # Compaction reads no memory: outside a vault it runs on the default settings.
        settings = Settings()
    messages = _read_json(source)
    result = compact_history(
        messages, get_llm(settings), settings, keep=keep, soft_budget=soft_budget
    )
    err(f"memctl: {result.reason} ({result.before_tokens} -> {result.after_tokens} tokens)")
    print_json(result.to_dict() if json_out else result.messages)


@app.command()
def capture(
    ctx: typer.Context,
    source: str = typer.Argument(
        ..., help="Conversation: messages JSON or plain text; - for stdin."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; write nothing."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Extract durable memories from a conversation and write them (ADD/UPDATE/DELETE/NOOP).

    Filler and transient state are dropped, near-duplicates skipped, and every replaced or
    retracted memory is archived in memory/archive/superseded.md with a pointer. Needs
    ANTHROPIC_API_KEY (exit 2 without it).

    \b
    Examples:
      memctl capture session.json --dry-run
      pbpaste | memctl capture -
    """
    from memctl.agent.capture import capture as run_capture
    from memctl.llm import get_llm

    vault = get_vault(ctx)
    llm = get_llm(vault.settings)
    if llm is None:
        from memctl.agent.capture import NO_KEY_FOR_CAPTURE

        raise UsageError(NO_KEY_FOR_CAPTURE)
    report = run_capture(vault, read_source(source), llm, dry_run=dry_run)
    for notice in report.notices:
        err(f"memctl: {notice}")
    if json_out:
        print_json(report.to_dict())
        return
    for cand in report.candidates:
        where = ""
        if cand.written and cand.written.get("path"):
            where = f" -> {cand.written['path']}"
        elif cand.target is not None:
            where = f" ({cand.target.path}:{cand.target.line_start})"
        console.print(f"{cand.outcome:<9} {cand.text}{where}")
        if cand.reason and cand.outcome not in ("ADD",):
            console.print(f"          {cand.reason}")
        if cand.written and cand.written.get("notice"):
            err(f"memctl: {cand.written['notice']}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(report.counts().items())) or "nothing found"
    err(f"memctl: {'plan (dry run): ' if dry_run else ''}{summary}; {report.llm_calls} LLM call(s)")
