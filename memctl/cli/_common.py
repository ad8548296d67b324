"""Shared CLI plumbing: the vault from the global option, JSON on stdout, notices on stderr."""

from __future__ import annotations

import json
import sys
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

# terminal_safe lived here: it is still importable from here.
from memctl.cli.terminal import terminal_safe as terminal_safe
from memctl.errors import UsageError
from memctl.files import read_bytes

if TYPE_CHECKING:
    from rich.console import Console

    from memctl.vault import Vault


def write_text(text: str) -> None:
    """Raw text meant for a program (a prompt, a pipe): exact, unless stdout is a terminal."""
    sys.stdout.write(terminal_safe(text) if sys.stdout.isatty() else text)


CONSOLE_OPTIONS: dict[str, Any] = {"highlight": False, "soft_wrap": True, "markup": False}
# Inside the resident process each request renders for its client's terminal: the
# request sets these consoles (see memctl.resident.capture); elsewhere they stay unset.
request_consoles: ContextVar[tuple[Console, Console] | None] = ContextVar(
    "memctl_request_consoles", default=None
)


class _ConsoleSlot:
    """stdout's or stderr's Console for the command being run (see request_consoles)."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._own: Console | None = None

    def current(self) -> Console:
        consoles = request_consoles.get()
        if consoles is not None:
            return consoles[self._stderr]
        if self._own is None:
            # rich is imported on first print: `memctl --version` never pays for it.
            from memctl.cli.safe_console import SafeConsole

            self._own = SafeConsole(stderr=self._stderr, **CONSOLE_OPTIONS)
        return self._own

    def __getattr__(self, name: str) -> Any:
        return getattr(self.current(), name)


console: Any = _ConsoleSlot(stderr=False)
err_console: Any = _ConsoleSlot(stderr=True)

JSON_HELP = "Print JSON only on stdout (notices go to stderr)."


@dataclass
class State:
    vault_option: Path | None = None
    _vault: Vault | None = field(default=None, repr=False)


def get_vault(ctx: typer.Context) -> Vault:
    state: State = ctx.find_root().obj or State()
    if state._vault is None:
        from memctl.vault import find_vault

        vault = find_vault(state.vault_option)
        state._vault = vault

        def report_notices() -> None:
            # What readers skipped (a link leaving the vault, bad UTF-8) and nobody reported.
            for notice in vault.take_notices():
                err(f"memctl: {notice}")

        ctx.find_root().call_on_close(report_notices)
    return state._vault


def err(message: str) -> None:
    """A notice for people, on stderr, so stdout stays clean for --json."""
    err_console.print(message, markup=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def print_json_line(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def parse_date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date (YYYY-MM-DD)") from None


def read_source(source: str) -> str:
    """FILE's text, or standard input's when `source` is `-`, as UTF-8; else a usage error."""
    data = sys.stdin.buffer.read() if source == "-" else read_bytes(Path(source), shown=source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        shown = "standard input" if source == "-" else source
        raise UsageError(f"{shown} is not valid UTF-8") from None


def read_text_arg(text: str) -> str:
    """TEXT, or standard input when TEXT is `-`."""
    return read_source("-") if text == "-" else text
