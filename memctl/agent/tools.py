"""Memory tools for agents: JSON schemas, handlers, and the result cap.

Every result is stable JSON (sorted keys) and never prose, so a model can rely on its
shape: `{"ok": true, "tool": ..., ...}` or `{"ok": false, "tool": ..., "error":
{"type": ..., "message": ...}}`. A handler never raises: bad arguments, a missing file
or an internal failure all come back as error results, because one bad call must not
end an agent's turn (or an MCP server).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import jsonschema

from memctl import clock, memory
from memctl.agent.errors import ToolFailure
from memctl.agent.result_cap import cap_result, dumps
from memctl.errors import MemctlError
from memctl.llm import LLM
from memctl.tokens import estimate_tokens
from memctl.vault import Vault

# A single remembered item larger than this is a document, not a memory: refuse it
# with a hint instead of filling a daily note the context budget then has to drop.
REMEMBER_MAX_TOKENS = 2000
MAX_K = 20
MAX_QUERY_CHARS = 1000  # a query is keywords, not a document to match against


@dataclass(frozen=True)
class ToolSpec:
    name: str
    summary: str  # one line for the context's tool guide
    description: str  # written for the model
    input_schema: dict[str, Any]

    @property
    def read_only(self) -> bool:
        return self.name in ("search_memory", "load_memory")

    def anthropic(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }

    def mcp(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }


_DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"

SEARCH = ToolSpec(
    "search_memory",
    "find past notes, decisions and archived facts relevant to a query",
    "Search the long-term memory (daily notes, decisions, archive) for a query and get "
    "the best matching snippets with their file and line numbers. Use it before answering "
    "anything that may depend on earlier work, preferences or decisions. Works in "
    "English, Hebrew and Russian; short keyword queries work best.",
    {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_CHARS,
                "description": "What to look for.",
            },
            "k": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_K,
                "default": 5,
                "description": "How many snippets to return (default 5).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)

LOAD = ToolSpec(
    "load_memory",
    "read today's or yesterday's note, a given day's note, or the recent decisions",
    "Load a whole piece of working memory: 'today' or 'yesterday' (that day's daily "
    "note), 'date' (the daily note of `date`, YYYY-MM-DD) or 'decisions' (the most "
    "recent dated decisions, newest first). Use search_memory instead when you do not "
    "know where something is.",
    {
        "type": "object",
        "properties": {
            "what": {"type": "string", "enum": ["today", "yesterday", "date", "decisions"]},
            "date": {
                "type": "string",
                "pattern": _DATE_PATTERN,
                "description": "YYYY-MM-DD; required when what is 'date'.",
            },
        },
        "required": ["what"],
        "additionalProperties": False,
    },
)

REMEMBER = ToolSpec(
    "remember",
    "save a note (today's daily note) or a dated decision",
    "Save something worth keeping beyond this conversation. kind 'note' appends a "
    "timestamped line to today's daily note (facts, progress, preferences); kind "
    "'decision' records a dated decision with a short title and its reasons. Write one "
    "self-contained fact per call; do not save greetings or transient state.",
    {
        "type": "object",
        "properties": {
            "text": {
                "type": "string",
                "minLength": 1,
                "description": "The memory, self-contained.",
            },
            "kind": {"type": "string", "enum": ["note", "decision"], "default": "note"},
            "title": {
                "type": "string",
                "description": "Decision title (kind 'decision'; defaults to the text's first words).",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    },
)

UPDATE_CORE = ToolSpec(
    "update_core_memory",
    "add a durable line to a section of core memory (identity, iron rules, ...)",
    "Add a line to a section of core memory, which is loaded into every conversation. "
    "Only for durable facts: identity, iron rules, the active project, open blockers. "
    "Core memory has a hard line cap; when full the call is refused and you should save "
    "the fact with remember instead.",
    {
        "type": "object",
        "properties": {
            "section": {
                "type": "string",
                "minLength": 1,
                "description": "Section heading, e.g. 'Iron rules'.",
            },
            "text": {"type": "string", "minLength": 1, "description": "The line to add."},
        },
        "required": ["section", "text"],
        "additionalProperties": False,
    },
)

TOOL_SPECS: tuple[ToolSpec, ...] = (SEARCH, LOAD, REMEMBER, UPDATE_CORE)
SPECS_BY_NAME = {spec.name: spec for spec in TOOL_SPECS}


def tool_schemas(fmt: str) -> list[dict[str, Any]]:
    if fmt == "anthropic":
        return [spec.anthropic() for spec in TOOL_SPECS]
    if fmt == "mcp":
        return [spec.mcp() for spec in TOOL_SPECS]
    raise MemctlError(f"unknown tool format {fmt!r}: choose anthropic or mcp", exit_code=2)


def validate_arguments(name: str, arguments: Any) -> dict[str, Any]:
    spec = SPECS_BY_NAME.get(name)
    if spec is None:
        known = ", ".join(SPECS_BY_NAME)
        raise ToolFailure("unknown_tool", f"no tool named {name!r} (tools: {known})")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolFailure("invalid_arguments", "arguments must be a JSON object")
    errors = sorted(
        jsonschema.Draft202012Validator(spec.input_schema).iter_errors(arguments),
        key=lambda e: list(e.path),
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "arguments"
        raise ToolFailure("invalid_arguments", f"{where}: {errors[0].message}")
    return arguments


@dataclass
class ToolContext:
    vault: Vault
    now: datetime | None = None
    llm: LLM | None = None

    @property
    def moment(self) -> datetime:
        return self.now or clock.now()


def _search(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from memctl.search.hybrid import search

    query = args["query"].strip()
    if not query:
        raise ToolFailure("invalid_arguments", "query: must not be blank")
    response = search(ctx.vault, query, k=int(args.get("k", 5)), log=True, now=ctx.moment)
    return {
        "query": query,
        "results": [hit.to_dict() for hit in response.results],
        "notices": list(response.notices),
    }


def _items(tier_texts: list[memory.TierText]) -> list[dict[str, Any]]:
    return [
        {"path": t.path, "line_start": t.line_start, "line_end": t.line_end, "text": t.text}
        for t in tier_texts
    ]


def _load(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from memctl.agent.references import record_loaded

    what = args["what"]
    today = ctx.moment.date()
    result: dict[str, Any] = {"what": what}
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
    note_ = record_loaded(
        ctx.vault,
        [(t.path, t.line_start, t.line_end) for t in items],
        kind="tool",
        query=f"load_memory:{what}",
        now=ctx.moment,
    )
    if note_:
        result.setdefault("notices", []).append(note_)
    return result


def default_title(text: str, words: int = 8) -> str:
    first = text.strip().splitlines()[0]
    parts = first.split()
    title = " ".join(parts[:words])
    return title + ("…" if len(parts) > words else "")


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


HANDLERS: dict[str, Callable[[ToolContext, dict[str, Any]], dict[str, Any]]] = {
    "search_memory": _search,
    "load_memory": _load,
    "remember": _remember,
    "update_core_memory": _update_core,
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
