"""`memctl serve`: the resident process of one vault.

It holds the index open, the embedding model loaded and the search caches (vocabulary,
vector matrix) warm, watches the vault in the same process (so a search knows whether
an edit is pending and catches up before answering), embeds what the watcher left
pending, and answers CLI commands handed over by `memctl.resident.client`: each runs
through the same Typer app as in-process, rendered for the client's terminal, and comes
back as bytes plus an exit code.

One per vault (`.memctl/serve.lock`, released by the OS however the process ends).
The socket is bound under a temporary name, made 0600 and renamed into place only
once it listens, so a socket file that refuses connections is always a stale one.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import secrets
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memctl import __version__
from memctl.errors import LockBusy, MemctlError
from memctl.index.sync import SyncReport
from memctl.resident import address
from memctl.resident.capture import Terminal, captured, route_standard_streams
from memctl.resident.client import ENV_IGNORED, ENV_PREFIXES
from memctl.search import warm
from memctl.vault import Vault

Log = Callable[[str], None]


def _env_facts(env: dict[str, str]) -> dict[str, str]:
    return {
        key: value
        for key, value in env.items()
        if key.startswith(ENV_PREFIXES) and key not in ENV_IGNORED
    }


def peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's uid (Linux SO_PEERCRED); None where it cannot be known."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or conn.family != getattr(socket, "AF_UNIX", None):
        return None
    raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


class Resident:
    """One vault's resident process: `run()` blocks until `stop` is set or a signal."""

    def __init__(
        self,
        vault: Vault,
        *,
        debounce: float = 1.0,
        embed: bool = True,
        log: Log = lambda message: None,
        on_sync: Callable[[SyncReport], None] = lambda report: None,
        mcp: tuple[str, int, str | None] | None = None,
    ) -> None:
        """`mcp`: (host, port, bearer token) to also serve the MCP tools over HTTP."""
        self.vault = vault
        self.root = str(vault.root)
        self.debounce = debounce
        self.embed = embed
        self.log = log
        self.on_sync = on_sync
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.dirty = threading.Event()  # the watcher saw an edit not synced yet
        self.changed = threading.Event()  # the index changed since the last search
        self.sync_lock = threading.RLock()
        self.request_lock = threading.Lock()
        self.token = secrets.token_urlsafe(32)
        self._command: Any = None
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._config_stamp: float | None = None
        self.served = 0  # commands answered here (ping shows it)
        self._seen_version: tuple[int, int] = (0, 0)
        self.mcp = mcp
        self.mcp_url: str | None = None

    # -- life cycle ----------------------------------------------------------------------

    def run(self) -> None:
        try:
            with self.vault.lock(address.LOCK_NAME, timeout=0):
                self._run_locked()
        except LockBusy:
            info = address.read_info(self.root) or {}
            raise MemctlError(
                f"a resident process (pid {info.get('pid', '?')}) already serves "
                f"{self.root}; stop it first (memctl status shows it)"
            ) from None

    def _run_locked(self) -> None:
        self._remove_stale()
        route_standard_streams()
        from typer.main import get_command

        from memctl.cli import app

        self._command = get_command(app)
        watcher = threading.Thread(target=self._watch, name="memctl-watch", daemon=True)
        watch_ready = threading.Event()
        self._watch_ready = watch_ready
        watcher.start()
        http: tuple[Any, threading.Thread] | None = None
        try:
            while not watch_ready.wait(0.2):
                if not watcher.is_alive() or self.stop.is_set():
                    return
            self._warm_up()
            http = self._start_mcp()
            self._listen()
            self.ready.set()
            self.log(f"serving {self.root} on {self._where()} (pid {os.getpid()})")
            if self.mcp_url:
                self.log(f"serving MCP for {self.root} on {self.mcp_url}")
            accept = threading.Thread(target=self._accept_loop, name="memctl-accept", daemon=True)
            accept.start()
            while not self.stop.wait(0.5):
                pass
        finally:
            self.stop.set()
            self._close_listener()
            if http is not None:
                server, thread = http
                server.should_exit = True
                thread.join(timeout=30)
            for thread in list(self._threads):
                thread.join(timeout=30)  # answers in flight finish before the index closes
            watcher.join(timeout=150)
            entry = warm.unregister(self.vault)
            if entry is not None:
                entry.searcher.close()
            self.log("stopped")

    def install_signal_handlers(self) -> None:
        """SIGTERM and SIGHUP stop the process the way Ctrl-C does (main thread only)."""
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None:
                signal.signal(number, lambda *_: self.stop.set())

    def _remove_stale(self) -> None:
        # Holding serve.lock, any socket or info file left is a dead process's.
        for path in (address.socket_path(self.root), address.info_path(self.root)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
                self.log(f"removed a stale {os.path.basename(path)} (its process is gone)")

    def _where(self) -> str:
        if self._listener is not None and self._listener.family == socket.AF_INET:
            return f"127.0.0.1:{self._listener.getsockname()[1]}"
        return address.socket_path(self.root)

    # -- warm state ------------------------------------------------------------------------

    def _watch(self) -> None:
        from memctl.index.watch import watch_vault

        def synced(report: SyncReport) -> None:
            if report.changed or report.removed or report.embedded or report.cache_hits:
                self.changed.set()
            self.on_sync(report)

        try:
            watch_vault(
                self.vault,
                debounce=self.debounce,
                embed=self.embed,
                on_sync=synced,
                on_error=lambda message: self.log(f"error: {message}"),
                stop=self.stop,
                ready=self._watch_ready,
                dirty=self.dirty,
                sync_lock=self.sync_lock,
            )
        except Exception as exc:  # the watcher must not die silently under a live server
            self.log(f"error: the watcher stopped: {type(exc).__name__}: {exc}")
            self.stop.set()

    def _warm_up(self) -> None:
        from memctl.search.hybrid import Searcher

        searcher = Searcher(Vault(self.vault.root))
        entry = warm.WarmSearcher(searcher, self._needs_check, lock=self.sync_lock)
        with entry.lock:
            # Opens the index, reads the vocabulary, maps the vectors, loads the model.
            searcher.search("memctl warm up", k=1, log=False)
        warm.register(entry)
        with entry.lock:
            self._seen_version = self._index_version(entry)
        self._config_stamp = self._config_mtime()

    def _start_mcp(self) -> tuple[Any, threading.Thread] | None:
        """The MCP tools over HTTP in this process: their searches use the warm Searcher."""
        if self.mcp is None:
            return None
        from memctl.agent.mcp_server import http_server

        host, port, token = self.mcp
        server, sock, self.mcp_url = http_server(self.vault, host=host, port=port, token=token)
        thread = threading.Thread(
            target=lambda: server.run(sockets=[sock]), name="memctl-mcp-http", daemon=True
        )
        thread.start()
        return server, thread

    def _needs_check(self) -> bool:
        """Before each search (under sync_lock): catch up when an edit is pending or the
        index changed since the last search; otherwise skip the stat walk.

        Other processes write the index too (`memctl index`, `--full`, a lifecycle move):
        SQLite's data_version says so in microseconds; a changed inode (the file replaced
        by hand or restored) reopens it.
        """
        pending = self.dirty.is_set() or self.changed.is_set()
        self.changed.clear()
        entry = warm.registered(self.vault)
        if entry is None:
            return True
        version = self._index_version(entry)
        if version != self._seen_version:
            self._seen_version = version
            pending = True
        return pending

    def _index_version(self, entry: warm.WarmSearcher) -> tuple[int, int]:
        from memctl.index.store import Store, index_path

        searcher = entry.searcher
        try:
            inode = index_path(searcher.vault).stat().st_ino
        except OSError:
            inode = 0
        if inode != self._seen_version[0]:
            searcher.close()  # a rebuilt index is a new file: reopen it
        store = searcher.store
        if not isinstance(store, Store):
            # A shared PostgreSQL index has no change counter this cheap: always check.
            return inode, time.monotonic_ns()
        row = store.conn.execute("PRAGMA data_version").fetchone()
        return inode, int(row[0])

    def _config_mtime(self) -> float | None:
        from memctl.config import CONFIG_FILE

        try:
            return (Path(self.root) / CONFIG_FILE).stat().st_mtime
        except OSError:
            return None

    def _refresh_if_reconfigured(self) -> None:
        """An edited memctl.toml may change weights or the model: start a new Searcher."""
        if self._config_mtime() == self._config_stamp:
            return
        entry = warm.unregister(self.vault)
        if entry is not None:
            with entry.lock:
                entry.searcher.close()
        self.log("the vault's settings changed: reloading the search state")
        self._warm_up()

    # -- serving ---------------------------------------------------------------------------

    def _listen(self) -> None:
        if address.transport() == "unix":
            final = address.socket_path(self.root)
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
            info = {"pid": os.getpid(), "memctl": __version__, "transport": "unix"}
        else:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            listener.listen(64)
            info = {
                "pid": os.getpid(),
                "memctl": __version__,
                "transport": "tcp",
                "port": listener.getsockname()[1],
                "token": self.token,
            }
        listener.settimeout(0.5)
        self._listener = listener
        address.write_private(address.info_path(self.root), json.dumps(info) + "\n")

    def _close_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is None:
            return
        is_unix = listener.family == getattr(socket, "AF_UNIX", None)
        listener.close()
        # Remove only what is ours: the next server may already have bound its own.
        info = address.read_info(self.root)
        if info is not None and info.get("pid") == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address.info_path(self.root))
            if is_unix:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(address.socket_path(self.root))

    def _accept_loop(self) -> None:
        while not self.stop.is_set():
            listener = self._listener
            if listener is None:
                return
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self.stop.is_set():
                    return
                time.sleep(0.05)
                continue
            uid = peer_uid(conn)
            if uid is not None and uid != os.getuid():
                self.log(f"refused a connection from uid {uid}")
                conn.close()
                continue
            thread = threading.Thread(target=self._serve_one, args=(conn,), daemon=True)
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()

    def _serve_one(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as stream:
            conn.settimeout(30)
            try:
                request = address.read_line(stream)
                conn.settimeout(None)
                header, out, err = self.answer(request)
                conn.sendall(json.dumps(header).encode("utf-8") + b"\n" + out + err)
            except Exception as exc:  # one bad request must not take the server down
                self.log(f"a request failed: {type(exc).__name__}: {exc}")

    def answer(self, request: dict[str, Any]) -> tuple[dict[str, Any], bytes, bytes]:
        """The answer to one request: a header, and stdout and stderr bytes."""
        tcp = self._listener is not None and self._listener.family == socket.AF_INET
        if tcp and not hmac.compare_digest(str(request.get("token") or ""), self.token):
            return {"status": "refused", "reason": "bad token"}, b"", b""
        if request.get("protocol") != address.PROTOCOL:
            return {"status": "version", "memctl": __version__}, b"", b""
        if request.get("ping"):
            return self._pong(), b"", b""
        if request.get("memctl") != __version__:
            return {"status": "version", "memctl": __version__}, b"", b""
        env = request.get("env")
        argv = request.get("argv")
        if not isinstance(env, dict) or not isinstance(argv, list):
            return {"status": "fallback", "reason": "malformed request"}, b"", b""
        if _env_facts(env) != _env_facts(dict(os.environ)):
            return {"status": "fallback", "reason": "another environment"}, b"", b""
        terminal = Terminal(
            env={str(k): str(v) for k, v in env.items()},
            stdout=request.get("stdout") or {},
            stderr=request.get("stderr") or {},
            size=request.get("size"),
        )
        with self.request_lock:
            self._refresh_if_reconfigured()
            with captured(terminal) as (out, err):
                code = self._run_cli([str(a) for a in argv])
            stdout, stderr = out.value(), err.value()
        if code == 2:
            # Usage errors are click's own rendering: the client prints them itself.
            return {"status": "fallback", "reason": "usage error"}, b"", b""
        self.served += 1
        header = {"status": "ok", "exit": code, "out": len(stdout), "err": len(stderr)}
        return header, stdout, stderr

    def _pong(self) -> dict[str, Any]:
        return {
            "status": "pong",
            "pid": os.getpid(),
            "memctl": __version__,
            "address": self._where(),
            "served": self.served,
        }

    def _run_cli(self, argv: list[str]) -> int:
        try:
            self._command.main(args=argv, prog_name="memctl", standalone_mode=True)
        except SystemExit as exc:
            code = exc.code
            if code is None:
                return 0
            return code if isinstance(code, int) else 1
        return 0
