"""The memory tools' names, descriptions and JSON schemas, in Anthropic's and MCP's
formats, and the check of a call's arguments against them (memctl.agent.tools runs them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema

from memctl.agent.errors import ToolFailure
from memctl.errors import MemctlError

# A single remembered item larger than this is a document, not a memory: refuse it
# with a hint instead of filling a daily note the context budget then has to drop.
REMEMBER_MAX_TOKENS = 2000
MAX_K = 20
MAX_QUERY_CHARS = 1000  # a query is keywords, not a document to match against
MAX_SEARCH_BUDGET = 20000


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
    "the best matching snippets with their file and line numbers (and each one's token "
    "cost). Use it before answering anything that may depend on earlier work, preferences "
    "or decisions. When nothing relevant is stored it says 'no memory matches this query': "
    "then say you do not know rather than guess. Expand a snippet with load_memory "
    "(what 'file', its path and lines). Works in English, Hebrew and Russian; short "
    "keyword queries work best.",
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
            "budget": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_BUDGET,
                "description": "Instead of k: as many snippets as fit this many tokens, best first.",
            },
            "path": {
                "type": "string",
                "maxLength": 300,
                "description": "Only files under this path prefix, e.g. 'memory/archive/2025-'.",
            },
            "as_of": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "Search the memory as committed in git at this date "
                "(YYYY-MM-DD) or revision, e.g. to see what was believed then.",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)

LOAD = ToolSpec(
    "load_memory",
    "read a day's note, the recent decisions, or a section / line range of a memory file",
    "Load a piece of working memory: 'today' or 'yesterday' (that day's daily "
    "note), 'date' (the daily note of `date`, YYYY-MM-DD), 'decisions' (the most "
    "recent dated decisions, newest first), or 'file': part of a memory file named by "
    "`path` (as search_memory returned it), either the section under `heading` or the "
    "lines `line_start`..`line_end`, to read around a search hit. Use search_memory "
    "instead when you do not know where something is.",
    {
        "type": "object",
        "properties": {
            "what": {
                "type": "string",
                "enum": ["today", "yesterday", "date", "decisions", "file"],
            },
            "date": {
                "type": "string",
                "pattern": _DATE_PATTERN,
                "description": "YYYY-MM-DD; required when what is 'date'.",
            },
            "path": {
                "type": "string",
                "maxLength": 300,
                "description": "A memory file, e.g. 'memory/daily/2026-11-22.md' (what 'file').",
            },
            "heading": {
                "type": "string",
                "maxLength": 300,
                "description": "Open the section under this heading (what 'file').",
            },
            "line_start": {
                "type": "integer",
                "minimum": 1,
                "description": "First line (what 'file').",
            },
            "line_end": {
                "type": "integer",
                "minimum": 1,
                "description": "Last line, inclusive (what 'file'; default: line_start + 40).",
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

_TEXT = {"type": "string"}
MEMORY = ToolSpec(
    "memory",
    "view and edit the memory files under /memories (Anthropic's memory tool)",
    "Anthropic's memory tool over this vault: /memories is its memory folder "
    "(/memories/core.md, loaded every turn, has a hard line cap; /memories/decisions.md; "
    "/memories/daily/YYYY-MM-DD.md; /memories/archive/). command 'view' lists a folder "
    "or shows a file with line numbers (view_range [first, last], -1: to the end); "
    "'create' makes a new file (path, file_text); 'str_replace' replaces old_str, which "
    "must occur exactly once, by new_str; 'insert' puts insert_text after line "
    "insert_line (0: at the top); 'delete' moves a daily note to the archive; 'rename' "
    "moves old_path to new_path.",
    {
        "type": "object",
        "properties": {
            "command": {
                "type": "string",
                "enum": ["view", "create", "str_replace", "insert", "delete", "rename"],
            },
            "path": {"type": "string", "description": "A path under /memories."},
            "view_range": {"type": "array", "items": {"type": "integer"}},
            "file_text": _TEXT,
            "old_str": _TEXT,
            "new_str": _TEXT,
            "insert_line": {"type": "integer", "minimum": 0},
            "insert_text": _TEXT,
            "old_path": _TEXT,
            "new_path": _TEXT,
        },
        "required": ["command"],
        "additionalProperties": False,
    },
)

TOOL_SPECS: tuple[ToolSpec, ...] = (SEARCH, LOAD, REMEMBER, UPDATE_CORE)
# MCP clients also get the memory tool. It stays out of the Anthropic-format list: there
# an agent names Anthropic's own `memory_20250818` tool, whose name it would clash with
# (memctl.agent.anthropic_memory is that tool's backend).
MCP_TOOL_SPECS: tuple[ToolSpec, ...] = (*TOOL_SPECS, MEMORY)
SPECS_BY_NAME = {spec.name: spec for spec in MCP_TOOL_SPECS}


def tool_schemas(fmt: str) -> list[dict[str, Any]]:
    if fmt == "anthropic":
        return [spec.anthropic() for spec in TOOL_SPECS]
    if fmt == "mcp":
        return [spec.mcp() for spec in MCP_TOOL_SPECS]
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
