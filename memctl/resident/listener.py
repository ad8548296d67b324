"""The resident process's socket: bound privately, published, accepted from one user only.

The socket is bound under a temporary name, made 0600 and renamed into place only once it
listens, so a socket file that refuses connections is always a stale one. Where Unix sockets
are missing, a loopback TCP port and a token in the 0600 info file stand in for them.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable

from memctl import __version__
from memctl.resident import address


def listen(root: str, token: str) -> socket.socket:
    """Bind and publish the vault's socket (and its info file); `token` guards TCP."""
    if address.transport() == "unix":
        final = address.socket_path(root)
        temp = final + f".{os.getpid()}.tmp"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket is born 0600: no window for others
        try:
            with address.in_folder(temp) as name:
                listener.bind(name)
        finally:
            os.umask(old_umask)
        os.chmod(temp, 0o600)
        listener.listen(64)
        os.replace(temp, final)
        info: dict[str, object] = {"pid": os.getpid(), "memctl": __version__, "transport": "unix"}
    else:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        info = {
            "pid": os.getpid(),
            "memctl": __version__,
            "transport": "tcp",
            "port": listener.getsockname()[1],
            "token": token,
        }
    listener.settimeout(0.5)
    address.write_private(address.info_path(root), json.dumps(info) + "\n")
    return listener


def where(listener: socket.socket | None, root: str) -> str:
    if listener is not None and listener.family == socket.AF_INET:
        return f"127.0.0.1:{listener.getsockname()[1]}"
    return address.socket_path(root)


def close(listener: socket.socket, root: str) -> None:
    """Stop listening and remove the socket and info file, if they are still this process's."""
    is_unix = listener.family == getattr(socket, "AF_UNIX", None)
    listener.close()
    # Remove only what is ours: the next server may already have bound its own.
    info = address.read_info(root)
    if info is not None and info.get("pid") == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address.info_path(root))
        if is_unix:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address.socket_path(root))


def accept_loop(
    current: Callable[[], socket.socket | None],
    stop: threading.Event,
    serve_one: Callable[[socket.socket], None],
    threads: list[threading.Thread],
    log: Callable[[str], None],
) -> None:
    """Hand each connection from this user to `serve_one` on its own thread (kept in
    `threads`, so shutdown can wait for answers in flight) until `stop` or no listener."""
    while not stop.is_set():
        listener = current()
        if listener is None:
            return
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            if stop.is_set():
                return
            time.sleep(0.05)
            continue
        peer = address.peer_credentials(conn)
        if peer is not None and peer[1] != os.getuid():
            log(f"refused a connection from uid {peer[1]}")
            conn.close()
            continue
        thread = threading.Thread(target=serve_one, args=(conn,), daemon=True)
        threads[:] = [t for t in threads if t.is_alive()] + [thread]
        thread.start()
