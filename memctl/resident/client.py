"""The client side: hand `memctl search|context|tools --call|status` to the resident process.

This runs before the CLI is imported, so it must stay light: only the standard library
(no typer, rich, NumPy, fastembed, rapidfuzz or SQLite). Anything it is not sure the
resident process renders exactly as this process would (help, stdin, relative files,
another clock or API key, a non-UTF-8 terminal) returns None and the command runs
in-process as always.
"""

from __future__ import annotations

import os
import sys

from memctl import __version__
from memctl.resident import address

if address.TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

SERVED = ("search", "context", "tools", "status", "hook")
HOOK_INPUT_MAX = 8 * 1024 * 1024 + 1  # memctl.agent.hooks.MAX_INPUT_BYTES, and one to tell
OFF_SWITCH = "MEMCTL_RESIDENT"  # "0" or "off": never use a resident process
_CORE = os.path.join("memory", "core.md")


def served_command(argv: Sequence[str]) -> tuple[str | None, list[str]] | None:
    """(--vault value or None, the rest of argv) when the resident process may run it."""
    args = list(argv)
    option: str | None = None
    if args[:1] == ["--vault"] and len(args) >= 2:
        option, args = args[1], args[2:]
    elif args and args[0].startswith("--vault="):
        option, args = args[0][len("--vault=") :], args[1:]
    if not args or args[0] not in SERVED:
        return None
    rest = args[1:]
    for n, arg in enumerate(rest):
        if arg == "-" and args[0] == "tools" and n and rest[n - 1] == "--args":
            continue  # the client reads standard input for it (stdin_resolved)
        if arg == "-" or arg.startswith(("--help", "--batch", "--version")):
            return None  # stdin, help text and batch files stay with this process
    if args[0] == "tools":
        name = _option_value(rest, "--call")
        # Core updates are reviewed by the LLM with this process's API key.
        if name is None or name == "update_core_memory":
            return None
    return option, args


def _option_value(args: Sequence[str], name: str) -> str | None:
    for n, arg in enumerate(args):
        if arg == name and n + 1 < len(args):
            return args[n + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None


def stdin_resolved(args: list[str]) -> list[str] | None:
    """`args` with `tools --args -` given standard input's text, read here: the resident
    process must never read its own. None when that text is not UTF-8 (the CLI says so).
    Whatever happens next, this process's standard input still holds the same bytes."""
    found = [n for n, arg in enumerate(args) if arg in ("-", "--args=-")]
    if args[0] != "tools" or not found:
        return args
    import io

    data = sys.stdin.buffer.read()
    # If the command runs here after all, it reads what it would have read.
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    resolved = list(args)
    for n in reversed(found):
        if resolved[n] == "-":
            resolved[n - 1 : n + 1] = [f"--args={text}"]
        else:
            resolved[n] = f"--args={text}"
    return resolved


def vault_root(option: str | None, env: Mapping[str, str], cwd: str) -> str | None:
    """The vault the CLI would pick (memctl.vault.find_vault's rules), or None."""
    given = option if option is not None else env.get("MEMCTL_VAULT") or None
    if given is not None:
        root = os.path.abspath(os.path.expanduser(given))
        return root if os.path.isfile(os.path.join(root, _CORE)) else None
    folder = os.path.abspath(cwd)
    while True:
        if os.path.isfile(os.path.join(folder, _CORE)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def terminal_size() -> list[int] | None:
    """What rich would read from the standard streams (it tries 0, 1, 2 in turn)."""
    for fd in (0, 1, 2):
        try:
            size = os.get_terminal_size(fd)
        except (AttributeError, ValueError, OSError):
            continue
        return [size.columns, size.lines]
    return None


def _stream_facts(stream: object) -> dict[str, object]:
    isatty = getattr(stream, "isatty", None)
    return {
        "tty": bool(isatty and isatty()),
        "encoding": getattr(stream, "encoding", None) or "utf-8",
        "errors": getattr(stream, "errors", None) or "strict",
    }


def run_served(argv: Sequence[str]) -> int | None:
    """Run the command in the resident process and print its output; None: run it here."""
    asked = _served_here(argv)
    if asked is None:
        return None
    root, args, stdin = asked
    try:
        sock, token, pid = address.connect(root)
    except address.Untrusted as exc:
        _say(f"{exc}: no resident process is used, the command runs in-process")
        return None
    except OSError:
        return None  # nothing listens (a stale socket): `memctl status` or serve clears it
    request = _request(root, args, token, stdin)
    try:
        with sock, sock.makefile("rb") as stream:
            address.send_json(sock, request)
            # Bounded: a working server pulses every PULSE seconds; silence means stopped.
            sock.settimeout(address.ANSWER_TIMEOUT)
            header = address.read_line(stream)
            if header.get("status") != "ok":
                _notice(header, args[0])
                return None
            out = address.read_exact(stream, int(header["out"]))
            err = address.read_exact(stream, int(header["err"]))
    except TimeoutError:
        who = "" if pid is None else f" (pid {pid})"
        _say(
            f"the resident process{who} did not answer for {address.ANSWER_TIMEOUT:g} s "
            "(stopped?); the command runs in-process"
        )
        return None
    except (OSError, ValueError, ConnectionError, KeyError):
        return None  # it died mid-answer: the command runs here instead
    sys.stdout.flush()
    sys.stdout.buffer.write(_safe_for(sys.stdout, out))
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(_safe_for(sys.stderr, err))
    sys.stderr.buffer.flush()
    return int(header.get("exit", 0))


def _served_here(argv: Sequence[str]) -> tuple[str, list[str], str | None] | None:
    """(the vault's root, the command's arguments, a hook's standard input) when a
    resident process of that vault may run the command; None: it runs in this process."""
    env = os.environ
    if env.get(OFF_SWITCH, "").lower() in ("0", "off", "no", "false"):
        return None
    if "_MEMCTL_COMPLETE" in env:
        return None  # shell completion reads this process's environment
    command = served_command(argv)
    if command is None:
        return None
    option, args = command
    try:
        root = vault_root(option, env, os.getcwd())
    except OSError:
        return None
    if root is None:
        return None
    if not address.listening(root):
        return None  # the common case without a resident process: one stat
    resolved = stdin_resolved(args)
    if resolved is None:
        return None
    args = resolved
    stdin: str | None = None
    if args[0] == "hook":
        stdin = _hook_input()
        if stdin is None:
            return None
    return root, args, stdin


def _request(root: str, args: list[str], token: str | None, stdin: str | None) -> dict[str, Any]:
    """What the resident process is sent: the command, and what rendering it needs of
    this terminal and environment."""
    env = os.environ
    key = os.urandom(16)
    request: dict[str, Any] = {
        "protocol": address.PROTOCOL,
        "memctl": __version__,
        "token": token,
        "argv": ["--vault", root, *args],
        # Only what rendering needs as is; the compared variables as keyed digests.
        "env": {name: env[name] for name in address.TERMINAL_ENV if name in env},
        "facts": {"key": key.hex(), "digests": address.env_digests(env, key)},
        "stdout": _stream_facts(sys.stdout),
        "stderr": _stream_facts(sys.stderr),
        "size": terminal_size(),
    }
    if stdin is not None:
        request["stdin"] = stdin
    return request


def _safe_for(stream: object, data: bytes) -> bytes:
    """What reaches a terminal passes the filter a local command's output passes: control
    characters inert, colour sequences kept (a no-op on what memctl itself renders)."""
    isatty = getattr(stream, "isatty", None)
    if not (isatty and isatty()) or not data:
        return data
    from memctl.terminal import styled_safe

    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return styled_safe(data.decode(encoding, "surrogateescape")).encode(
            encoding, "surrogateescape"
        )
    except (UnicodeError, LookupError):
        return styled_safe(data.decode("utf-8", "replace")).encode("utf-8", "replace")


def _say(message: str) -> None:
    sys.stderr.write(f"memctl: notice: {message}\n")


def _hook_input() -> str | None:
    """A hook's JSON, read here to be sent along; stdin is replaced by a copy of what was
    read, so the CLI reads the same bytes when the command runs here after all. None
    (run here) when it is not UTF-8: the CLI says so in one line."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        return ""
    data = stream.buffer.read(HOOK_INPUT_MAX)
    import io  # already loaded by the interpreter's start: no cost

    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _notice(header: Mapping[str, object], command: str) -> None:
    if header.get("status") == "version":
        _say(
            f"the resident process serving this vault runs memctl "
            f"{header.get('memctl')} (this is {__version__}); it is ignored"
        )
    elif header.get("reason") == "another environment" and command != "status":
        differs = header.get("differs")
        names = ", ".join(str(n) for n in differs) if isinstance(differs, list) else "?"
        _say(
            f"the resident process runs with another {names} than this shell; "
            "the command runs in-process (`memctl status` shows it)"
        )


def main() -> None:
    """The `memctl` entry point: the resident process when it can, else the full CLI."""
    args = sys.argv[1:]
    if args == ["--version"]:
        # What the CLI's eager --version prints, without importing Typer for it.
        sys.stdout.write(f"memctl {__version__}\n")
        return
    # Arguments that are not UTF-8 go to the CLI, which refuses them in one line.
    clean = all(not any("\ud800" <= ch <= "\udfff" for ch in arg) for arg in args)
    code = run_served(args) if clean else None
    if code is not None:
        # Served: the answer is written and flushed, and this process holds nothing to tear
        # down (standard library only, no files, no atexit hooks). The interpreter's
        # finalization would cost ~3 ms, a tenth of the whole process's CPU.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from memctl.cli import main as cli_main

    cli_main()
