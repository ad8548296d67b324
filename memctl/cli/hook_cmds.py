"""hook, install: memctl inside the agents people use (Claude Code, Codex, Cursor, Gemini CLI)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import typer

from memctl.cli._common import JSON_HELP, err, get_vault, print_json, write_text
from memctl.cli.app import app
from memctl.errors import MemctlError, UsageError

_EVENT_HELP = (
    "session-start (HOT + WARM), prompt (COLD snippets past the relevance floor), "
    "pre-compact or stop (capture the transcript into today's note)."
)
_AGENT_HELP = "Whose output format to answer in: claude-code, codex, cursor or gemini."


@app.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
def hook(
    ctx: typer.Context,
    event: str | None = typer.Argument(None, metavar="EVENT", help=_EVENT_HELP),
    agent: str = typer.Option("claude-code", "--agent", help=_AGENT_HELP),
) -> None:
    """Answer an agent's hook: its JSON on stdin, the context for the model on stdout.

    Fails open: any problem (no vault, bad input, a broken index) is one line on stderr
    and exit 0, so a memory problem never blocks the agent. `memctl install` registers it.

    \b
    Examples:
      echo '{"session_id": "s1", "source": "startup"}' | memctl hook session-start
      echo '{"prompt": "why sqlite?"}' | memctl hook prompt --agent gemini
    """
    from memctl.agent import hooks

    try:
        if event not in hooks.EVENTS:
            raise UsageError(f"EVENT {event!r}: choose {', '.join(hooks.EVENTS)}")
        if agent not in hooks.AGENTS:
            raise UsageError(f"--agent {agent!r}: choose {', '.join(hooks.AGENTS)}")
        if ctx.args:
            raise UsageError(f"unexpected {' '.join(ctx.args)!r}")
        stdin = sys.stdin
        data = (
            b"" if stdin is None or stdin.isatty() else stdin.buffer.read(hooks.MAX_INPUT_BYTES + 1)
        )
        payload = hooks.parse_input(data)
        vault = get_vault(ctx)
        if event == "session-start":
            answer = hooks.session_start(vault, payload, agent)
        elif event == "prompt":
            answer = hooks.prompt(vault, payload, agent)
        else:
            answer = hooks.capture(vault, payload)
    except Exception as exc:  # fail open: never a traceback, never a non-zero exit
        message = str(exc) if isinstance(exc, MemctlError) else f"{type(exc).__name__}: {exc}"
        err(f"memctl: hook {event}: {' '.join(message.split())}")
        raise typer.Exit(0) from None
    for notice in answer.notices:
        err(f"memctl: hook {event}: {notice}")
    if answer.output is not None:
        sys.stdout.write(answer.output + "\n")


@app.command()
def install(
    ctx: typer.Context,
    target: str = typer.Option(
        ..., "--target", help="claude-code, codex, cursor or gemini.", show_default=False
    ),
    scope: str | None = typer.Option(
        None,
        "--scope",
        help="project (this folder's config) or user (your home's); default: project, "
        "user for codex.",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show the diff, write nothing."),
    uninstall: bool = typer.Option(
        False, "--uninstall", help="Remove exactly memctl's entries (restore the backup)."
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Register this vault's MCP server and memory hooks in an agent's own configuration.

    Merges with what is there (other servers and hooks kept), keeps the file as it was in
    FILE.memctl-backup, and --uninstall takes out exactly memctl's entries.

    \b
    Examples:
      memctl install --target claude-code            # .mcp.json, .claude/settings.json
      memctl install --target codex --dry-run        # ~/.codex/config.toml, hooks.json
      memctl install --target cursor --uninstall
    """
    from memctl.agent.install import install as run_install
    from memctl.agent.install_targets import DEFAULT_SCOPE, TARGETS, Scope

    agent = next((t for t in TARGETS if t == target), None)
    if agent is None:
        raise UsageError(f"--target {target!r}: choose {', '.join(TARGETS)}")
    scopes: dict[str | None, Scope] = {
        None: DEFAULT_SCOPE[agent],
        "project": "project",
        "user": "user",
    }
    if scope not in scopes:
        raise UsageError(f"--scope {scope!r}: choose project or user")
    chosen = scopes[scope]
    vault = get_vault(ctx)
    changes = run_install(
        agent,
        chosen,
        vault=vault.root.resolve(),
        project=Path.cwd(),
        home=Path.home(),
        executable=_executable(),
        uninstall=uninstall,
        dry_run=dry_run,
    )
    if json_out:
        print_json({"dry_run": dry_run, "files": [c.summary() for c in changes]})
        return
    for change in changes:
        if dry_run and change.action != "unchanged":
            write_text(change.diff())
        verb = {
            "create": "created",
            "update": "updated",
            "restore": "restored",
            "delete": "deleted",
        }
        done = verb.get(change.action, "unchanged")
        prefix = "would be " if dry_run and change.action != "unchanged" else ""
        backup = (
            f" (backup: {change.backup})" if change.backup and change.action == "update" else ""
        )
        err(f"memctl: {change.path}: {prefix}{done}{backup}")


def _executable() -> str:
    """The memctl the agent should run: this one when it is a `memctl` script, else PATH's."""
    here = Path(sys.argv[0])
    if here.name == "memctl" and here.is_file():
        return str(here.resolve())
    return shutil.which("memctl") or "memctl"
