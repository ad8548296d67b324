"""The `memctl` command line: parse, call the library, print.

Each concern registers its commands from its own module; this module owns the
global `--vault` option and turns MemctlError into a one-line message and exit code.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from memctl import __version__
from memctl.cli._common import State, err
from memctl.errors import MemctlError


class MemctlGroup(TyperGroup):
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
                from memctl.index.backend import redact

                lines = [line for line in str(exc).splitlines() if line.strip()] or [""]
                err(f"memctl: error: PostgreSQL: {redact(lines[0].strip())}")
                raise typer.Exit(1) from None
            # Typer vendors its own click (typer._click); its usage errors carry `exit_code`
            # and `show()` and must print as usage errors, not internal ones.
            if hasattr(exc, "show") and hasattr(exc, "exit_code"):
                raise
            if isinstance(exc, OSError):
                # Disk full, permission denied...: say which file, never a traceback.
                where = f" ({exc.filename})" if exc.filename else ""
                err(f"memctl: error: {exc.strerror or exc}{where}")
                raise typer.Exit(1) from None
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


# Command modules register themselves on `app` when imported.
from memctl.cli import (  # noqa: E402
    agent_cmds,  # noqa: F401
    db_cmds,  # noqa: F401
    index_cmds,  # noqa: F401
    lifecycle_cmds,  # noqa: F401
    maintain_cmds,  # noqa: F401
    search_cmds,  # noqa: F401
    vault_cmds,  # noqa: F401
)


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(app(prog_name="memctl"))
