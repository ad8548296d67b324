"""`memctl watch` as a real process, for tests that need it beside other processes."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

MEMCTL = str(Path(sys.executable).with_name("memctl"))


# How long a stopped watcher or resident process may take to exit: it lets the embedding
# batch in progress (or the model's load) finish, since a thread killed inside onnxruntime
# aborts the process: up to 120 s in `watch` (memctl/index/watch.py), 150 s for `serve`'s
# watcher (memctl/resident/server.py). On a loaded 2-core machine the load alone has
# passed 30 s, and these tests failed by the clock, not by a hang.
STOP_TIMEOUT = 240.0


def until(check: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Poll `check` until it holds (never a fixed sleep); False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def stop(proc: subprocess.Popen[str], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM, as a service manager stops a server; killed if it is not gone in `timeout`."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass
class Watcher:
    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)  # stdout, one line per sync
    stderr: str = ""

    def syncs(self) -> int:
        return sum("index synced:" in line for line in self.lines)


@contextmanager
def watch_process(args: list[str], env: dict[str, str]) -> Iterator[Watcher]:
    """Start `memctl <args> watch`, wait for its first sync, stop it with Ctrl-C on exit."""
    proc = subprocess.Popen(
        [MEMCTL, *args, "watch", "--debounce", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watcher = Watcher(proc)
    reader = threading.Thread(target=lambda: watcher.lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        assert until(lambda: watcher.syncs() > 0), "the watcher never synced"
        yield watcher
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=STOP_TIMEOUT)
        watcher.stderr = proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
