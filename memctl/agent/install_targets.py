"""What `memctl install` puts in each agent's configuration (pure: paths and entries).

Per target, the files that hold its MCP servers and its hooks, at project or user scope,
and memctl's entries in them; `is_ours` tells memctl's entries from everyone else's, so
an install replaces only its own and an uninstall removes exactly them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Target = Literal["claude-code", "codex", "cursor", "gemini"]
Scope = Literal["project", "user"]
TARGETS: tuple[Target, ...] = ("claude-code", "codex", "cursor", "gemini")
# Codex keeps MCP servers in ~/.codex/config.toml (a project's .codex/ is read only once
# the project is trusted); the others are project-first.
DEFAULT_SCOPE: dict[Target, Scope] = {
    "claude-code": "project",
    "codex": "user",
    "cursor": "project",
    "gemini": "project",
}
SERVER_NAME = "memctl"
HOOK_TIMEOUT_S = 10
CAPTURE_TIMEOUT_S = 60  # a long transcript read and matched at a compaction or a turn's end

_OURS = re.compile(
    r"(?:^|[\s/'\"])memctl['\"]?\s(?:.*\s)?hook\s+(?:session-start|prompt|pre-compact|stop)\b"
)


def is_ours(command: object) -> bool:
    """Whether a hook's command line is one memctl install wrote."""
    return isinstance(command, str) and _OURS.search(command) is not None


@dataclass(frozen=True)
class ConfigFile:
    """One configuration file and memctl's entries in it.

    `server`: the value of `mcpServers.memctl` (JSON) or `[mcp_servers.memctl]` (TOML);
    `hooks`: per event name, the items memctl appends to `hooks.<event>`;
    `version`: a top-level `"version": 1` the file must have (Cursor's hooks file).
    """

    path: Path
    format: Literal["json", "toml"]
    server: dict[str, Any] | None = None
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    version: bool = False


def hook_command(executable: str, vault: Path, event: str, agent: Target) -> str:
    """The shell command an agent runs for one hook event."""
    words = [executable, "--vault", str(vault), "hook", event]
    if agent != "claude-code":
        words += ["--agent", agent]
    return " ".join(shlex.quote(w) for w in words)


def _group(
    command: str, *, matcher: str | None = None, timeout: int = HOOK_TIMEOUT_S, name: str = ""
) -> dict[str, Any]:
    """A Claude Code style matcher group holding one command hook."""
    hook: dict[str, Any] = {"type": "command", "command": command, "timeout": timeout}
    if name:
        hook = {"name": name, **hook}
    group: dict[str, Any] = {"hooks": [hook]}
    if matcher is not None:
        group = {"matcher": matcher, **group}
    return group


def config_files(
    target: Target, scope: Scope, *, vault: Path, project: Path, home: Path, executable: str
) -> list[ConfigFile]:
    """The files `memctl install --target T --scope S` writes, with memctl's entries."""
    server = {"command": executable, "args": ["--vault", str(vault), "mcp"]}
    base = project if scope == "project" else home

    def command(event: str) -> str:
        return hook_command(executable, vault, event, target)

    if target == "claude-code":
        # User-scope MCP servers live in ~/.claude.json, hooks in ~/.claude/settings.json.
        mcp = project / ".mcp.json" if scope == "project" else home / ".claude.json"
        hooks = {
            "SessionStart": [
                _group(command("session-start"), matcher="startup|resume|clear|compact")
            ],
            "UserPromptSubmit": [_group(command("prompt"))],
            "PreCompact": [_group(command("pre-compact"), timeout=CAPTURE_TIMEOUT_S)],
            "Stop": [_group(command("stop"), timeout=CAPTURE_TIMEOUT_S)],
        }
        return [
            ConfigFile(mcp, "json", server=server),
            ConfigFile(base / ".claude" / "settings.json", "json", hooks=hooks),
        ]
    if target == "codex":
        hooks = {
            "SessionStart": [_group(command("session-start"), matcher="startup|resume|clear")],
            "UserPromptSubmit": [_group(command("prompt"))],
            "Stop": [_group(command("stop"), timeout=CAPTURE_TIMEOUT_S)],
        }
        return [
            ConfigFile(base / ".codex" / "config.toml", "toml", server=server),
            ConfigFile(base / ".codex" / "hooks.json", "json", hooks=hooks),
        ]
    if target == "cursor":
        # Cursor's beforeSubmitPrompt can only allow or block a prompt, not add context:
        # memory reaches it at the session's start (and through the MCP tools).
        return [
            ConfigFile(base / ".cursor" / "mcp.json", "json", server=server),
            ConfigFile(
                base / ".cursor" / "hooks.json",
                "json",
                hooks={"sessionStart": [{"command": command("session-start")}]},
                version=True,
            ),
        ]
    # Gemini CLI: one settings.json for both; its hook timeouts are in milliseconds.
    ms = HOOK_TIMEOUT_S * 1000
    hooks = {
        "SessionStart": [_group(command("session-start"), timeout=ms, name="memctl-session-start")],
        "BeforeAgent": [_group(command("prompt"), timeout=ms, name="memctl-prompt")],
    }
    return [ConfigFile(base / ".gemini" / "settings.json", "json", server=server, hooks=hooks)]


def item_is_ours(item: object) -> bool:
    """A hooks list item memctl wrote: a matcher group of only memctl's commands, or
    (Cursor) one memctl command."""
    if not isinstance(item, dict):
        return False
    if "command" in item:
        return is_ours(item.get("command"))
    inner = item.get("hooks")
    return (
        isinstance(inner, list)
        and bool(inner)
        and all(isinstance(h, dict) and is_ours(h.get("command")) for h in inner)
    )
