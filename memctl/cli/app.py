"""The Typer app every command module registers on, and the global `--vault` option.

It lives apart from `memctl.cli` (which imports the command modules) so a command module
imports the app without importing the package that imports it back.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import typer
from typer._click.exceptions import UsageError as ClickUsageError  # Typer vendors click
from typer.core import TyperGroup

from memctl import __version__
from memctl.cli._common import State, err
from memctl.errors import MemctlError

# `memctl --help` lists commands in these groups, everyday first, as the README does; each
# command is named with the module (in memctl.cli) that registers it. A command's module is
# imported only when that command runs or help lists it, so `memctl --version` and
# `memctl add` never load search, the lifecycle, NumPy or an embedding engine.
HELP_PANELS: dict[str, dict[str, str]] = {
    "Everyday": {
        "init": "vault_cmds",
        "add": "vault_cmds",
        "show": "vault_cmds",
        "status": "vault_cmds",
        "ui": "ui_cmds",
    },
    "Index and search": {
        "index": "index_cmds",
        "watch": "index_cmds",
        "serve": "resident_cmds",
        "search": "search_cmds",
        "eval": "search_cmds",
        "db": "db_cmds",
        "models": "index_cmds",
    },
    "Lifecycle": {
        "promote": "lifecycle_cmds",
        "demote": "lifecycle_cmds",
        "prune": "lifecycle_cmds",
        "compact": "lifecycle_cmds",
        "lint": "maintain_cmds",
        "maintain": "maintain_cmds",
    },
    "Agents": {
        "context": "agent_cmds",
        "tools": "agent_cmds",
        "mcp": "agent_cmds",
        "capture": "agent_cmds",
        "compact-history": "agent_cmds",
        "import": "import_cmds",
        "hook": "hook_cmds",
        "install": "hook_cmds",
    },
}
COMMAND_MODULES: dict[str, str] = {
    name: module for commands in HELP_PANELS.values() for name, module in commands.items()
}


def load_commands(*names: str) -> None:
    """Import the modules registering `names` (every command when none is named)."""
    import importlib

    wanted = names or tuple(COMMAND_MODULES)
    for module in dict.fromkeys(COMMAND_MODULES[n] for n in wanted if n in COMMAND_MODULES):
        importlib.import_module(f"memctl.cli.{module}")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class MemctlGroup(TyperGroup):
    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        # Bytes that are not UTF-8 reach Python's argv as lone surrogates ("\udcff"): no
        # file, index or terminal can hold them, so they are refused here, in one line,
        # before any command runs (else they fail deep inside a write as exit 70).
        given = sys.argv[1:] if args is None else list(args)
        for position, arg in enumerate(given, start=1):
            if isinstance(arg, str) and not _encodable(arg):
                try:
                    shown = arg.encode("utf-8", "surrogateescape").decode(
                        "utf-8", "backslashreplace"
                    )
                except UnicodeEncodeError:
                    shown = arg.encode("utf-8", "backslashreplace").decode("utf-8")
                err(f"memctl: error: argument {position} ({shown}) is not valid UTF-8 text")
                sys.exit(2)
        return super().main(args, *rest, **kwargs)

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMAND_MODULES, *(n for n in self.commands if n not in COMMAND_MODULES)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import typer.main

            load_commands(cmd_name)
            # The module registered its commands on `app`: build them as Typer would have.
            for name, command in typer.main.get_group(app).commands.items():
                self.commands.setdefault(name, command)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except ClickUsageError as exc:
            # Typer suggests among the commands built so far; here that is every command.
            message = str(getattr(exc, "message", ""))
            if args and "Did you mean" not in message:
                from difflib import get_close_matches

                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    shown = ", ".join(f"{m!r}" for m in matches)
                    exc.message = f"{message.rstrip('.')}. Did you mean {shown}?"
            raise

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Commands grouped as HELP_PANELS says; any other command goes under "Other"."""
        names = self.list_commands(ctx)
        panels = [
            *((title, tuple(commands)) for title, commands in HELP_PANELS.items()),
            ("Other", tuple(n for n in names if n not in COMMAND_MODULES)),
        ]
        width = formatter.width - 6 - max((len(n) for n in names), default=0)
        for title, panel in panels:
            rows = []
            for name in panel:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit=width)))
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except MemctlError as exc:
            err(f"memctl: error: {exc}")
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err("memctl: interrupted")
            raise typer.Exit(130) from None
        except (typer.Exit, typer.Abort):
            raise
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg"):
                # The shared index failed mid-command (a dropped connection, a
                # conflict): one line, the URL's password redacted, no traceback.
                from memctl.secrets import redact_url

                lines = [line for line in str(exc).splitlines() if line.strip()] or [""]
                err(f"memctl: error: PostgreSQL: {redact_url(lines[0].strip())}")
                raise typer.Exit(1) from None
            # Typer vendors its own click (typer._click); its usage errors carry `exit_code`
            # and `show()` and must print as usage errors, not internal ones.
            if hasattr(exc, "show") and hasattr(exc, "exit_code"):
                raise
            from memctl.index.damage import REBUILD_HINT, is_damage, is_read_only

            if is_damage(exc):
                # Damage SQLite found past the checks on open (a page deep in the file).
                err(f"memctl: error: the index is damaged ({exc}): {REBUILD_HINT}")
                raise typer.Exit(1) from None
            if is_read_only(exc):
                err(
                    f"memctl: error: cannot write memctl's index and state ({exc}): make the "
                    "vault's .memctl/ folder and the files in it writable"
                )
                raise typer.Exit(2) from None
            if isinstance(exc, OSError):
                # Disk full, permission denied...: say which file, never a traceback.
                where = f" ({exc.filename})" if exc.filename else ""
                err(f"memctl: error: {exc.strerror or exc}{where}")
                raise typer.Exit(2 if exc.errno in (errno.EROFS, errno.EACCES) else 1) from None
            if os.environ.get("MEMCTL_DEBUG"):
                raise
            err(f"memctl: internal error: {type(exc).__name__}: {exc} (MEMCTL_DEBUG=1 shows more)")
            raise typer.Exit(70) from None


app = typer.Typer(
    cls=MemctlGroup,
    name="memctl",
    help="A tiered markdown memory for AI agents: HOT core.md, WARM daily notes and "
    "decisions, COLD archive, with hybrid search.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memctl {__version__}")
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    vault: Path | None = typer.Option(
        None,
        "--vault",
        help="Vault folder (else $MEMCTL_VAULT, else the nearest folder above holding memory/core.md).",
        file_okay=False,
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    ctx.obj = State(vault_option=vault)
