"""A real `memctl serve` process on a copy of the labelled fixture vault."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memctl.resident import address
from tests.processes import MEMCTL, STOP_TIMEOUT, stop, until
from tests.search.conftest import NOW, fixture_copy, indexed_fixture  # noqa: F401  (shared fixtures)

_TERMINAL_ENV = ("FORCE_COLOR", "NO_COLOR", "COLUMNS", "LINES", "TTY_COMPATIBLE")


def env_for(**extra: str) -> dict[str, str]:
    """This environment with the clock pinned and no terminal overrides, plus `extra`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("MEMCTL_") and k not in _TERMINAL_ENV
    }
    env.update(MEMCTL_NOW=NOW.isoformat(), **extra)
    return env


def fresh_copy(source: Path, dest: Path) -> Path:
    """The indexed fixture at `dest` (replacing what is there), mtimes kept."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest)
    for stale in ("serve.sock", "serve.json"):
        (dest / ".memctl" / stale).unlink(missing_ok=True)
    return dest


@dataclass
class Served:
    proc: subprocess.Popen[str]
    root: Path

    def pong(self) -> dict[str, object]:
        answer = address.ping(str(self.root))
        assert answer is not None, "the resident process does not answer"
        return answer

    def stop(self, sig: int = signal.SIGTERM) -> tuple[str, str]:
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=STOP_TIMEOUT)
        return out, err


@contextmanager
def serving(
    root: Path, env: dict[str, str], *extra: str, stdin: int | None = None
) -> Iterator[Served]:
    """`memctl serve` on `root`; `stdin=subprocess.PIPE` keeps a pipe open to it, unread."""
    proc = subprocess.Popen(
        [MEMCTL, "--vault", str(root), "serve", "--debounce", "0.2", *extra],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    served = Served(proc, root)
    try:
        ok = until(
            lambda: proc.poll() is not None or address.ping(str(root)) is not None, timeout=90
        )
        assert ok and proc.poll() is None, f"serve did not start: {proc.communicate()[1]}"
        yield served
    finally:
        if proc.poll() is None:
            stop(proc)
