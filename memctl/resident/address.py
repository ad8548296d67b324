"""Where a vault's resident process listens, and the wire format (standard library only).

A unix socket `.memctl/serve.sock` (mode 0600, peers of another uid refused), or where
unix sockets do not exist, loopback TCP with a random token; `.memctl/serve.json`
(mode 0600) names the pid, version, transport and (for TCP) port and token.

Wire format, one exchange per connection: the request is one JSON line; the answer is
one JSON header line, then `out` bytes of stdout and `err` bytes of stderr.
"""

from __future__ import annotations

import json
import os
import socket

# Every served command imports this module before its socket opens: typing and contextlib
# cost more to import than the rest of the client together (~3 ms), so they are kept out.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

PROTOCOL = 1
# Environment a served command reads: a client whose value differs runs in-process.
ENV_PREFIXES = ("MEMCTL_", "ANTHROPIC_", "OPENAI_")
ENV_IGNORED = ("MEMCTL_VAULT", "MEMCTL_RESIDENT")
STATE_DIR = ".memctl"
SOCKET_NAME = "serve.sock"
INFO_NAME = "serve.json"
LOCK_NAME = "serve"  # Vault.lock("serve") -> .memctl/serve.lock
HAS_UNIX = hasattr(socket, "AF_UNIX")
# sun_path holds 108 bytes on Linux, 104 on macOS: longer paths are reached relative to
# the state folder instead.
_SUN_PATH_MAX = 100
MAX_LINE = 16 * 1024 * 1024


def state_dir(root: str) -> str:
    return os.path.join(root, STATE_DIR)


def socket_path(root: str) -> str:
    return os.path.join(root, STATE_DIR, SOCKET_NAME)


def info_path(root: str) -> str:
    return os.path.join(root, STATE_DIR, INFO_NAME)


def read_info(root: str) -> dict[str, Any] | None:
    try:
        with open(info_path(root), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class in_folder:
    """`path` as a name short enough for sun_path: relative to its folder when too long.

    The working directory is process-wide: only the client (single-threaded) and the
    server's start-up (before any thread) use this.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.before: str | None = None

    def __enter__(self) -> str:
        if len(os.fsencode(self.path)) <= _SUN_PATH_MAX:
            return self.path
        self.before = os.getcwd()
        os.chdir(os.path.dirname(self.path))
        return os.path.basename(self.path)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.before is not None:
            os.chdir(self.before)


def transport(env: Any = None) -> str:
    """unix where it exists; MEMCTL_RESIDENT_TRANSPORT=tcp forces loopback TCP."""
    env = os.environ if env is None else env
    if env.get("MEMCTL_RESIDENT_TRANSPORT") == "tcp" or not HAS_UNIX:
        return "tcp"
    return "unix"


def listening(root: str) -> bool:
    """Whether a resident process may serve `root` (one stat; a stale one still counts)."""
    return os.path.exists(socket_path(root)) or os.path.exists(info_path(root))


def connect(root: str, timeout: float = 2.0) -> tuple[socket.socket, str | None]:
    """A connected socket to the vault's resident process and the token to send (TCP).

    Raises OSError when nothing listens (no socket file, connection refused: stale).
    """
    path = socket_path(root)
    if HAS_UNIX and os.path.exists(path):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            with in_folder(path) as name:
                sock.connect(name)
        except OSError:
            sock.close()
            raise
        return sock, None
    info = read_info(root)
    if not info or info.get("transport") != "tcp":
        raise FileNotFoundError(info_path(root))
    if not _alive(int(info.get("pid", 0))):
        raise ConnectionRefusedError(f"process {info.get('pid')} is gone")
    sock = socket.create_connection(("127.0.0.1", int(info["port"])), timeout=timeout)
    return sock, str(info.get("token", ""))


def _alive(pid: int) -> bool:
    """Whether the process exists (a dead server's TCP port may belong to another one)."""
    if pid <= 0:
        return False
    if os.name == "nt":
        return True  # os.kill(pid, 0) sends Ctrl-C there; the token check still holds
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, under another user
    return True


def write_private(path: str, text: str) -> None:
    """Write `text` to `path` readable by its owner only, atomically (temp + rename)."""
    temp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        import contextlib  # here: the client never writes, and never imports it

        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def send_json(sock: socket.socket, data: dict[str, Any]) -> None:
    sock.sendall(json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n")


def read_line(stream: Any) -> dict[str, Any]:
    line = stream.readline(MAX_LINE)
    if not line.endswith(b"\n"):
        raise ConnectionError("the resident process closed the connection")
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ConnectionError("the resident process sent a malformed answer")
    return data


def read_exact(stream: Any, size: int) -> bytes:
    data: bytes = stream.read(size)
    if len(data) != size:
        raise ConnectionError("the resident process closed the connection")
    return data


def ping(root: str, timeout: float = 2.0) -> dict[str, Any] | None:
    """The resident process's pid, version and address, or None when none answers."""
    try:
        sock, token = connect(root, timeout)
    except OSError:
        return None
    try:
        with sock, sock.makefile("rb") as stream:
            send_json(sock, {"protocol": PROTOCOL, "ping": True, "token": token})
            answer = read_line(stream)
    except (OSError, ValueError, ConnectionError):
        return None
    return answer if answer.get("status") == "pong" else None
