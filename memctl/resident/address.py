"""Where a vault's resident process listens, and the wire format (standard library only).

A unix socket `.memctl/serve.sock` (mode 0600, peers of another uid refused), or where
unix sockets do not exist, loopback TCP with a random token; `.memctl/serve.json`
(mode 0600) names the pid, version, transport and (for TCP) port and token.

A cloned repository can commit anything under `.memctl/`, so a client trusts a resident
process only when it is provably this user's (`connect`; docs/security.md, "A cloned
vault and the resident process").

Wire format, one exchange per connection: the request is one JSON line; the answer is
zero or more bare newlines (the server's pulse while it works), one JSON header line,
then `out` bytes of stdout and `err` bytes of stderr.
"""

from __future__ import annotations

import json
import os
import socket
import sys

# Every served command imports this module before its socket opens: typing and contextlib
# cost more to import than the rest of the client together (~3 ms), so they are kept out.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import Any

PROTOCOL = 2
# Environment a served command's output depends on: a client whose value differs runs
# in-process. Compared as digests keyed per request: the values never leave the client.
# Not compared: what the client resolves itself (the vault, whether and how to connect)
# and MEMCTL_MCP_TOKEN, which guards the MCP HTTP listener and no served command reads.
ENV_PREFIXES = ("MEMCTL_", "ANTHROPIC_", "OPENAI_")
ENV_IGNORED = ("MEMCTL_VAULT", "MEMCTL_RESIDENT", "MEMCTL_RESIDENT_TRANSPORT", "MEMCTL_MCP_TOKEN")
# What rich reads to render for the client's terminal: the only variables sent as they are.
TERMINAL_ENV = (
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
)
# A server sends a newline every PULSE seconds while it works on an answer; a client that
# hears nothing for ANSWER_TIMEOUT seconds takes it for stopped (kill -STOP, a debugger).
PULSE = 1.0
ANSWER_TIMEOUT = 5.0
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
    return os.path.lexists(socket_path(root)) or os.path.lexists(info_path(root))


def env_digests(env: Any, key: bytes) -> dict[str, str]:
    """{name: keyed digest of its value} for the compared variables (ENV_PREFIXES)."""
    try:  # hashlib would load OpenSSL first: ~3-8 ms of a served command's start
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    return {
        name: blake2b(
            str(value).encode("utf-8", "surrogateescape"), key=key, digest_size=16
        ).hexdigest()
        for name, value in env.items()
        if name.startswith(ENV_PREFIXES) and name not in ENV_IGNORED
    }


def env_differences(mine: dict[str, str], theirs: Any) -> list[str]:
    """The compared variables set differently (or on one side only), by name."""
    if not isinstance(theirs, dict):
        return ["(the environment)"]
    return sorted(n for n in set(mine) | set(theirs) if mine.get(n) != theirs.get(n))


class Untrusted(OSError):
    """What sits in `.memctl/` is not provably this user's resident process: not used."""


def _uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return None if getuid is None else int(getuid())


def _private(path: str, kind: int, *, mode_mask: int = 0) -> os.stat_result:
    """lstat of `path`: of file type `kind`, not a link, owned by this uid, no `mode_mask` bits."""
    st = os.lstat(path)
    name = os.path.basename(path)
    if st.st_mode & 0o170000 != kind:
        raise Untrusted(f".memctl/{name} is not what memctl makes there (a link or another kind)")
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        raise Untrusted(f".memctl/{name} belongs to uid {st.st_uid}, not to this user")
    if st.st_mode & mode_mask:
        raise Untrusted(f".memctl/{name} is readable or writable by others")
    return st


def connect(root: str, timeout: float = 2.0) -> tuple[socket.socket, str | None, int | None]:
    """A connected socket to the vault's resident process, the token to send (TCP) and its pid.

    Only a process provably this user's: `.memctl` a real folder owned by this uid; the
    socket a real socket owned by this uid, and (Linux) the process listening on it this
    uid's (SO_PEERCRED). TCP only where this client would itself listen on TCP, with
    serve.json a private file of this uid's, naming a pid of this uid's and (Linux) a port
    this uid listens on. Raises Untrusted otherwise, OSError when nothing listens.
    """
    _private(state_dir(root), 0o040000)
    path = socket_path(root)
    if transport() == "unix" and os.path.lexists(path):
        _private(path, 0o140000)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            with in_folder(path) as name:
                sock.connect(name)
            peer = peer_credentials(sock)
            if peer is not None and peer[1] != _uid():
                raise Untrusted(f".memctl/{SOCKET_NAME} is served by uid {peer[1]}")
        except OSError:
            sock.close()
            raise
        return sock, None, None if peer is None else peer[0]
    if transport() != "tcp":
        raise FileNotFoundError(path)
    _private(info_path(root), 0o100000, mode_mask=0o077)
    info = read_info(root)
    if not info or info.get("transport") != "tcp":
        raise FileNotFoundError(info_path(root))
    try:
        pid, port = int(info.get("pid", 0)), int(info.get("port", 0))
    except (TypeError, ValueError):
        raise Untrusted(f".memctl/{INFO_NAME} is malformed") from None
    if not 0 < port < 65536:
        raise Untrusted(f".memctl/{INFO_NAME} is malformed")
    if not _ours(pid):
        raise ConnectionRefusedError(f"process {pid} is gone or not this user's")
    owners = _tcp_listeners(port)
    if owners is not None and (not owners or owners != {_uid()}):
        raise Untrusted(f"port {port} is not listened on by this user only")
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return sock, str(info.get("token", "")), pid


def peer_credentials(sock: socket.socket) -> tuple[int, int] | None:
    """(pid, uid) of the process at the other end of a unix socket (Linux SO_PEERCRED)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or sock.family != getattr(socket, "AF_UNIX", None):
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid
    return int.from_bytes(raw[0:4], sys.byteorder), int.from_bytes(raw[4:8], sys.byteorder)


def _ours(pid: int) -> bool:
    """Whether `pid` is a live process of this user's (a dead server's TCP port may be
    anyone's now; a forged serve.json names any pid)."""
    if pid <= 0:
        return False
    if os.name == "nt":
        return True  # os.kill(pid, 0) sends Ctrl-C there; the token check still holds
    try:
        return os.stat(f"/proc/{pid}").st_uid == _uid()
    except FileNotFoundError:
        if os.path.isdir("/proc/self"):
            return False  # /proc is there and the process is not
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except OSError:
        return False  # gone, or (EPERM) another user's
    return True


def _tcp_listeners(port: int) -> set[int] | None:
    """The uids listening on TCP `port` (Linux /proc/net/tcp and tcp6); None elsewhere."""
    owners: set[int] = set()
    suffix = f":{port:04X}"
    found = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as handle:
                lines = handle.readlines()[1:]
        except OSError:
            continue
        found = True
        for line in lines:
            fields = line.split()
            # local_address, state 0A = LISTEN, uid
            if len(fields) > 7 and fields[3] == "0A" and fields[1].endswith(suffix):
                owners.add(int(fields[7]))
    return owners if found else None


def write_private(path: str, text: str) -> None:
    """Write `text` to `path` readable by its owner only, atomically (temp + rename)."""
    temp = f"{path}.{os.getpid()}.tmp"
    if os.path.lexists(temp):
        os.unlink(temp)  # a crashed process's, or a planted link: never written through
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(temp, flags, 0o600)
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
    """The next JSON line; the server's pulses (bare newlines) before it are skipped."""
    line = stream.readline(MAX_LINE)
    while line == b"\n":
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


def ping(root: str, timeout: float = 2.0, env: Any = None) -> dict[str, Any] | None:
    """The resident process's pid, version and address, or None when none answers.

    With `env`, the answer also names the compared variables it has set otherwise
    (`differs`), from digests keyed for this ping alone.
    """
    try:
        sock, token, _ = connect(root, timeout)
    except OSError:
        return None
    request: dict[str, Any] = {"protocol": PROTOCOL, "ping": True, "token": token}
    if env is not None:
        key = os.urandom(16)
        request["facts"] = {"key": key.hex(), "digests": env_digests(env, key)}
    try:
        with sock, sock.makefile("rb") as stream:
            send_json(sock, request)
            answer = read_line(stream)
    except (OSError, ValueError, ConnectionError):
        return None
    return answer if answer.get("status") == "pong" else None
