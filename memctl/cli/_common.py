"""Shared CLI plumbing: the vault from the global option, JSON on stdout, notices on stderr."""

from __future__ import annotations

import json
import sys
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from memctl.errors import UsageError
from memctl.vault import Vault, find_vault

CONSOLE_OPTIONS: dict[str, Any] = {"highlight": False, "soft_wrap": True}
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
            self._own = Console(stderr=self._stderr, **CONSOLE_OPTIONS)
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
        state._vault = find_vault(state.vault_option)
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


def read_text_arg(text: str) -> str:
    """TEXT, or standard input when TEXT is `-`."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("standard input is not valid UTF-8") from None
