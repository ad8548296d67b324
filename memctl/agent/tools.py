"""Memory tools for agents: the handlers behind the schemas, and the result cap.

Every result is stable JSON (sorted keys) and never prose, so a model can rely on its
shape: `{"ok": true, "tool": ..., ...}` or `{"ok": false, "tool": ..., "error":
{"type": ..., "message": ...}}`. A handler never raises: bad arguments, a missing file
or an internal failure all come back as error results, because one bad call must not
end an agent's turn (or an MCP server). The schemas live in tool_specs.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from memctl import clock, memory
from memctl.agent.errors import ToolFailure
from memctl.agent.result_cap import cap_result, dumps
from memctl.agent.tool_specs import (
    MAX_K,
    MAX_QUERY_CHARS,
    MAX_SEARCH_BUDGET,
    MCP_TOOL_SPECS,
    REMEMBER_MAX_TOKENS,
    SPECS_BY_NAME,
    TOOL_SPECS,
    ToolSpec,
    tool_schemas,
    validate_arguments,
)
from memctl.errors import MemctlError, UsageError
from memctl.llm import LLM
from memctl.notes import default_title
from memctl.tokens import estimate_tokens
from memctl.vault import Vault

# The public surface of memctl.agent.tools, as it was before the schemas moved out.
__all__ = [
    "MAX_K",
    "MAX_QUERY_CHARS",
    "MAX_SEARCH_BUDGET",
    "MCP_TOOL_SPECS",
    "NO_MATCH",
    "REMEMBER_MAX_TOKENS",
    "SPECS_BY_NAME",
    "TOOL_SPECS",
    "ToolContext",
    "ToolSpec",
    "call_tool",
    "cap_result",
    "default_title",
    "dumps",
    "error_result",
    "run_tool",
    "tool_schemas",
    "validate_arguments",
]


@dataclass
class ToolContext:
    vault: Vault
    now: datetime | None = None
    llm: LLM | None = None

    @property
    def moment(self) -> datetime:
        return self.now or clock.now()


def _search(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from memctl.search import search

    query = args["query"].strip()
    if not query:
        raise ToolFailure("invalid_arguments", "query: must not be blank")
    from memctl.lexical.plan import Filters

    options: dict[str, Any] = {
        "k": int(args.get("k", 5)),
        "now": ctx.moment,
        "budget": args.get("budget"),
        "filters": Filters(path=args["path"]) if args.get("path") else None,
    }
    if args.get("as_of"):
        from memctl.search.as_of import search_as_of

        # The past is read, not used: no usage log, as `memctl search --as-of`.
        response = search_as_of(ctx.vault, args["as_of"], query, **options)
    else:
        response = search(ctx.vault, query, log=True, **options)
    notices = list(response.notices)
    if not response.matched and response.below_floor:
        notices.insert(0, NO_MATCH)
    out = {
        "query": query,
        "results": [hit.to_dict() for hit in response.results],
        "below_floor": response.below_floor,
        "notices": notices,
    }
    if response.as_of:
        out.update(response.as_of)
    return out


NO_MATCH = "no memory matches this query"
FILE_DEFAULT_LINES = 40


def _items(tier_texts: list[memory.TierText]) -> list[dict[str, Any]]:
    return [
        {"path": t.path, "line_start": t.line_start, "line_end": t.line_end, "text": t.text}
        for t in tier_texts
    ]


def _load(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    what = args["what"]
    today = ctx.moment.date()
    result: dict[str, Any] = {"what": what}
    if what == "file":
        return _load_file(ctx, args)
    if what == "decisions":
        items = memory.load_recent_decisions(ctx.vault)
    else:
        if what == "date":
            if "date" not in args:
                raise ToolFailure("invalid_arguments", "date: required when what is 'date'")
            try:
                day = date.fromisoformat(args["date"])
            except ValueError:
                raise ToolFailure(
                    "invalid_arguments", f"date: {args['date']!r} is not a real date"
                ) from None
        else:
            day = today if what == "today" else today - timedelta(days=1)
        result["date"] = day.isoformat()
        note = memory.load_daily(ctx.vault, day)
        items = [note] if note else []
        if not note:
            result["notices"] = [f"no daily note for {day.isoformat()}"]
    result["items"] = _items(items)
    _log_loaded(ctx, result, [(t.path, t.line_start, t.line_end) for t in items], what)
    return result


def _log_loaded(
    ctx: ToolContext, result: dict[str, Any], spans: list[tuple[str, int, int]], what: str
) -> None:
    """Log what load_memory showed in the reference log; its notice, if any, joins the result's."""
    from memctl.agent.references import record_loaded

    note = record_loaded(ctx.vault, spans, kind="tool", query=f"load_memory:{what}", now=ctx.moment)
    if note:
        result.setdefault("notices", []).append(note)


def _load_file(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    """A section or line range of one memory file, cut to the tool-result budget."""
    from memctl.excerpt import read_excerpt

    if not args.get("path"):
        raise ToolFailure("invalid_arguments", "path: required when what is 'file'")
    heading = args.get("heading")
    lines = None
    if "line_start" in args or "line_end" in args:
        start = int(args.get("line_start", 1))
        lines = (start, int(args.get("line_end", start + FILE_DEFAULT_LINES - 1)))
    elif not heading:
        lines = (1, FILE_DEFAULT_LINES)
    # Room for the envelope: the excerpt itself says which lines it shows.
    budget = max(ctx.vault.settings.agent.tool_result_tokens - 200, 50)
    try:
        piece = read_excerpt(ctx.vault, args["path"], lines=lines, heading=heading, budget=budget)
    except UsageError as exc:
        raise ToolFailure("invalid_arguments", str(exc)) from None
    result: dict[str, Any] = {"what": "file", "items": [piece.to_dict()]}
    if piece.line_end < piece.total_lines:
        result["notices"] = [
            f"shown lines {piece.line_start}-{piece.line_end} of {piece.total_lines}; "
            f"ask for line_start {piece.line_end + 1} to read on"
        ]
    _log_loaded(ctx, result, [(piece.path, piece.line_start, piece.line_end)], f"file:{piece.path}")
    return result


def _remember(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    text = args["text"]
    if not text.strip():
        raise ToolFailure("invalid_arguments", "text: must not be blank")
    size = estimate_tokens(text)
    if size > REMEMBER_MAX_TOKENS:
        raise ToolFailure(
            "too_large",
            f"text is about {size} tokens (limit {REMEMBER_MAX_TOKENS}): save a short "
            "summary of what matters, not the whole document",
        )
    kind = args.get("kind", "note")
    if kind == "decision":
        title = (args.get("title") or "").strip() or default_title(text)
        # markers=False: an agent's decision cannot retire a live one by a `Supersedes:` line.
        path = memory.add_decision(ctx.vault, title, text, day=ctx.moment.date(), markers=False)
        return {"kind": kind, "path": ctx.vault.rel(path), "title": title}
    path = memory.add_note(ctx.vault, text, at=ctx.moment)
    return {"kind": kind, "path": ctx.vault.rel(path)}


def _update_core(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from memctl.agent.core_update import add_to_core

    return add_to_core(ctx.vault, args["section"], args["text"], llm=ctx.llm)


def _memory(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from memctl.agent.memory_tool import MemoryToolError, memory_command

    try:
        return {"command": args["command"], "result": memory_command(ctx.vault, args)}
    except MemoryToolError as exc:
        raise ToolFailure("refused", str(exc)) from None


HANDLERS: dict[str, Callable[[ToolContext, dict[str, Any]], dict[str, Any]]] = {
    "search_memory": _search,
    "load_memory": _load,
    "remember": _remember,
    "update_core_memory": _update_core,
    "memory": _memory,
}


def call_tool(
    vault: Vault,
    name: str,
    arguments: Any,
    *,
    now: datetime | None = None,
    llm: LLM | None = None,
) -> dict[str, Any]:
    """Run one tool call; always returns a result object, never raises.

    `llm` reviews update_core_memory proposals; without one they are not written.
    """
    try:
        args = validate_arguments(name, arguments)
        payload = HANDLERS[name](ToolContext(vault, now, llm), args)
        skipped = vault.take_notices()  # what readers skipped (a link leaving the vault...)
        if skipped:
            payload["notices"] = [*payload.get("notices", []), *skipped]
        return {"ok": True, "tool": name, **payload}
    except ToolFailure as exc:
        return error_result(name, exc.kind, str(exc))
    except MemctlError as exc:
        return error_result(name, "refused", str(exc))
    except Exception as exc:  # a tool call must never take the agent or server down
        return error_result(name, "internal", f"{type(exc).__name__}: {exc}")


def error_result(name: str, kind: str, message: str) -> dict[str, Any]:
    return {"ok": False, "tool": name, "error": {"type": kind, "message": message}}


def run_tool(
    vault: Vault,
    name: str,
    arguments: Any,
    *,
    now: datetime | None = None,
    llm: LLM | None = None,
    budget: int | None = None,
) -> str:
    """Call a tool and return its capped, stable JSON text (what the model sees)."""
    budget = vault.settings.agent.tool_result_tokens if budget is None else budget
    return dumps(cap_result(call_tool(vault, name, arguments, now=now, llm=llm), budget))
