"""Run one CLI command inside the resident process and keep its output as bytes.

The bytes must be what the client would have printed itself, so each request renders
for the client's terminal: its stdout/stderr say the client's isatty, encoding and
error handling, and rich's consoles read the client's environment (NO_COLOR, TERM,
FORCE_COLOR, COLUMNS...) and terminal size. `sys.stdout`/`sys.stderr` are routed per
thread, so the resident process's own log lines never mix into an answer.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from memctl.cli._common import CONSOLE_OPTIONS, request_consoles
from memctl.cli.safe_console import SafeConsole

_streams: ContextVar[tuple[ClientStream, ClientStream] | None] = ContextVar(
    "memctl_request_streams", default=None
)
# A request's standard input: what the client read from its own (a hook's JSON), else
# nothing; a served command never reads the resident process's stdin.
_stdin: ContextVar[io.TextIOWrapper | None] = ContextVar("memctl_request_stdin", default=None)


class ClientStream(io.TextIOWrapper):
    """A text stream into memory that answers isatty() as the client's stream did."""

    def __init__(self, tty: bool, encoding: str, errors: str) -> None:
        super().__init__(io.BytesIO(), encoding=encoding, errors=errors, newline="\n")
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty

    def value(self) -> bytes:
        self.flush()
        raw: Any = self.buffer
        return bytes(raw.getvalue())


class _Routed:
    """sys.stdout, sys.stderr or sys.stdin: the current request's stream, else the
    process's own."""

    def __init__(self, own: Any, index: int) -> None:
        self._own = own
        self._index = index

    def _target(self) -> Any:
        if self._index == 2:
            stdin = _stdin.get()
            return self._own if stdin is None else stdin
        streams = _streams.get()
        return self._own if streams is None else streams[self._index]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def read(self, size: int = -1) -> str:
        return str(self._target().read(size))

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        return bool(self._target().isatty())


def route_standard_streams() -> None:
    """Once, at the resident process's start: make the standard streams per request. A
    request's stdin is what its client sent (a hook's JSON), else empty: this process's own
    standard input is never a client's, and reading it could wait forever."""
    if not isinstance(sys.stdin, _Routed):
        sys.stdin = _Routed(sys.stdin, 2)
    if not isinstance(sys.stdout, _Routed):
        sys.stdout = _Routed(sys.stdout, 0)
    if not isinstance(sys.stderr, _Routed):
        sys.stderr = _Routed(sys.stderr, 1)


@dataclass(frozen=True)
class Terminal:
    """What the client's process knows about where its output goes."""

    env: Mapping[str, str]
    stdout: Mapping[str, Any]
    stderr: Mapping[str, Any]
    size: Sequence[int] | None  # os.get_terminal_size of the client's first tty stream


def client_console(stream: ClientStream, terminal: Terminal, *, stderr: bool) -> SafeConsole:
    """The Console memctl.cli._common would have built in the client's process."""
    env = dict(terminal.env)
    console = SafeConsole(file=stream, stderr=stderr, _environ=env, **CONSOLE_OPTIONS)
    # rich's Console.size, computed from the client's facts instead of this process's.
    columns, lines = env.get("COLUMNS", ""), env.get("LINES", "")
    if console.is_dumb_terminal and not (columns.isdigit() and lines.isdigit()):
        console.size = (80, 25)
    else:
        width, height = terminal.size or (0, 0)
        console.size = (
            int(columns) if columns.isdigit() else width or 80,
            int(lines) if lines.isdigit() else height or 25,
        )
    return console


@contextmanager
def captured(terminal: Terminal, stdin: bytes = b"") -> Iterator[tuple[ClientStream, ClientStream]]:
    """Within: this thread's stdout, stderr and CLI consoles write for the client, and
    its stdin reads `stdin`."""
    out = ClientStream(
        bool(terminal.stdout.get("tty")),
        str(terminal.stdout.get("encoding", "utf-8")),
        str(terminal.stdout.get("errors", "strict")),
    )
    err = ClientStream(
        bool(terminal.stderr.get("tty")),
        str(terminal.stderr.get("encoding", "utf-8")),
        str(terminal.stderr.get("errors", "backslashreplace")),
    )
    consoles = (
        client_console(out, terminal, stderr=False),
        client_console(err, terminal, stderr=True),
    )
    streams_token = _streams.set((out, err))
    stdin_token = _stdin.set(io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    consoles_token = request_consoles.set(consoles)
    try:
        yield out, err
    finally:
        request_consoles.reset(consoles_token)
        _stdin.reset(stdin_token)
        _streams.reset(streams_token)
