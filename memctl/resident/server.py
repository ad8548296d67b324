"""`memctl serve`: the resident process of one vault.

It holds the index open, the embedding model loaded and the search caches (vocabulary,
vector matrix) warm, watches the vault in the same process (so a search knows whether
an edit is pending and catches up before answering), embeds what the watcher left
pending, and answers CLI commands handed over by `memctl.resident.client`: each runs
through the same Typer app as in-process, rendered for the client's terminal, and comes
back as bytes plus an exit code.

This module is the process's life and its protocol; `listener` owns the socket and
`warm_state` the watcher and the warm Searcher. One per vault (`.memctl/serve.lock`,
released by the OS however the process ends).
"""

from __future__ import annotations

import contextlib
import gc
import hmac
import json
import os
import secrets
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

from memctl import __version__
from memctl.errors import LockBusy, MemctlError
from memctl.index.sync import SyncReport
from memctl.resident import address, listener
from memctl.resident.capture import Terminal, captured, route_standard_streams
from memctl.resident.warm_state import Log, WarmSearch
from memctl.vault import Vault


def env_differences(request: dict[str, Any]) -> list[str]:
    """The compared variables (address.ENV_PREFIXES) the client has set otherwise than this
    process, by name: the client sent only their digests, keyed by its own random key."""
    facts = request.get("facts")
    if not isinstance(facts, dict) or not isinstance(facts.get("key"), str):
        return ["(the environment)"]
    try:
        key = bytes.fromhex(facts["key"])
    except ValueError:
        return ["(the environment)"]
    return address.env_differences(address.env_digests(os.environ, key), facts.get("digests"))


class Pulses:
    """A newline every address.PULSE seconds to each client waiting for its answer, so a
    client that hears nothing for address.ANSWER_TIMEOUT seconds knows this process is
    stopped, not busy (a search can wait for another's lock, or a cold cache)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[socket.socket, threading.Lock] = {}

    @contextlib.contextmanager
    def waiting(self, conn: socket.socket) -> Iterator[threading.Lock]:
        """Within: `conn` gets pulses; hold the lock it yields to write the answer."""
        sending = threading.Lock()
        with self._lock:
            self._waiting[conn] = sending
        try:
            yield sending
        finally:
            with self._lock:
                self._waiting.pop(conn, None)

    def done(self, conn: socket.socket) -> None:
        with self._lock:
            self._waiting.pop(conn, None)

    def run(self, stop: threading.Event) -> None:
        flags = getattr(socket, "MSG_DONTWAIT", 0)
        while not stop.wait(address.PULSE):
            with self._lock:
                waiting = list(self._waiting.items())
            for conn, sending in waiting:
                if not sending.acquire(blocking=False):
                    continue  # its answer is being written
                try:
                    with self._lock:
                        still = conn in self._waiting
                    if still:
                        conn.send(b"\n", flags)
                except OSError:
                    pass  # the client is gone or not reading: its answer will fail too
                finally:
                    sending.release()


# Young-generation threshold for a warm process (CPython's default is 700): a search
# makes thousands of containers, many of them kept, so the default ran ~750 young
# collections and a full one (~130 ms, walking every kept table) every ~400 searches at 10k.
GC_YOUNG_THRESHOLD = 10_000


def settle_collector() -> None:
    """The cyclic collector's policy for a warm process (this process only, never the
    library's): what start-up and the warm-up search made (modules, the CLI, the model,
    the index's caches) is collected once and frozen out of later full collections, and
    young collections run less often. Garbage still gets collected: only objects alive
    at the freeze are exempt, and full collections still follow the heap's growth."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


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
        mcp: tuple[str, int, str] | None = None,
        ui: tuple[str, int, str] | None = None,
    ) -> None:
        """`mcp`, `ui`: (host, port, bearer token) to also serve the MCP tools over HTTP,
        the `memctl ui` page."""
        self.vault = vault
        self.root = str(vault.root)
        self.log = log
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.sync_lock = threading.RLock()
        self.request_lock = threading.Lock()
        self.token = secrets.token_urlsafe(32)
        self.search = WarmSearch(
            vault,
            debounce=debounce,
            embed=embed,
            log=log,
            on_sync=on_sync,
            stop=self.stop,
            sync_lock=self.sync_lock,
        )
        self._command: Any = None
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self.served = 0  # commands answered here (ping shows it)
        self.pulses = Pulses()
        self.mcp = mcp
        self.mcp_url: str | None = None
        self.ui = ui
        self.ui_url: str | None = None

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
        from memctl.cli.app import load_commands

        load_commands()  # a long-lived process: every command ready before the first request
        self._command = get_command(app)
        watcher = threading.Thread(target=self.search.watch, name="memctl-watch", daemon=True)
        watcher.start()
        http: tuple[Any, threading.Thread] | None = None
        page: tuple[Any, threading.Thread] | None = None
        try:
            while not self.search.watch_ready.wait(0.2):
                if not watcher.is_alive() or self.stop.is_set():
                    return
            self.search.warm_up()
            settle_collector()
            http = self._start_mcp()
            page = self._start_ui()
            self._listener = listener.listen(self.root, self.token)
            self.ready.set()
            self.log(f"serving {self.root} on {self._where()} (pid {os.getpid()})")
            if self.mcp_url:
                self.log(f"serving MCP for {self.root} on {self.mcp_url}")
            if self.ui_url:
                self.log(f"serving the memctl page for {self.root} on {self.ui_url}")
            accept = threading.Thread(
                target=listener.accept_loop,
                args=(lambda: self._listener, self.stop, self._serve_one, self._threads, self.log),
                name="memctl-accept",
                daemon=True,
            )
            accept.start()
            threading.Thread(
                target=self.pulses.run, args=(self.stop,), name="memctl-pulse", daemon=True
            ).start()
            while not self.stop.wait(0.5):
                pass
        finally:
            self.stop.set()
            current, self._listener = self._listener, None
            if current is not None:
                listener.close(current, self.root)
            for served in (http, page):
                if served is not None:
                    server, thread = served
                    server.should_exit = True
                    thread.join(timeout=30)
            for thread in list(self._threads):
                thread.join(timeout=30)  # answers in flight finish before the index closes
            watcher.join(timeout=150)
            self.search.close()
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
        return listener.where(self._listener, self.root)

    # -- MCP over HTTP ------------------------------------------------------------------

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

    def _start_ui(self) -> tuple[Any, threading.Thread] | None:
        """The `memctl ui` page in this process: its searches use the warm Searcher."""
        if self.ui is None:
            return None
        from memctl.ui.server import ui_server

        host, port, token = self.ui
        server, sock, self.ui_url = ui_server(self.vault, host=host, port=port, token=token)
        thread = threading.Thread(
            target=lambda: server.run(sockets=[sock]), name="memctl-ui-http", daemon=True
        )
        thread.start()
        return server, thread

    # -- serving ---------------------------------------------------------------------------

    def _serve_one(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as stream:
            conn.settimeout(30)
            try:
                request = address.read_line(stream)
                conn.settimeout(None)
                with self.pulses.waiting(conn) as sending:
                    header, out, err = self.answer(request)
                    with sending:
                        self.pulses.done(conn)
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
            pong = self._pong()
            if "facts" in request:
                pong["differs"] = env_differences(request)
            return pong, b"", b""
        if request.get("memctl") != __version__:
            return {"status": "version", "memctl": __version__}, b"", b""
        env = request.get("env")
        argv = request.get("argv")
        if not isinstance(env, dict) or not isinstance(argv, list):
            return {"status": "fallback", "reason": "malformed request"}, b"", b""
        differs = env_differences(request)
        if differs:
            reason = {"status": "fallback", "reason": "another environment", "differs": differs}
            return reason, b"", b""
        terminal = Terminal(
            env={str(k): str(v) for k, v in env.items() if k in address.TERMINAL_ENV},
            stdout=request.get("stdout") or {},
            stderr=request.get("stderr") or {},
            size=request.get("size"),
        )
        stdin = request.get("stdin")
        with self.request_lock:
            self.search.refresh_if_reconfigured()
            with captured(terminal, str(stdin or "").encode("utf-8", "replace")) as (out, err):
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
