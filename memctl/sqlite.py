"""An SQLite connection that can load sqlite-vec.

The stdlib module is used where it can load extensions; many Python builds
(this project's Linux machines included) cannot, so fall back to pysqlite3
(Linux wheels) or sqlean.py (macOS, Windows). All three speak DB-API 2.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypeAlias

from memctl.errors import MemctlError

if TYPE_CHECKING:
    import sqlite3

    # pysqlite3 and sqlean.py are builds of the stdlib's module: the same API, typed as it.
    Connection: TypeAlias = sqlite3.Connection


@cache
def sqlite_module() -> ModuleType:
    import sqlite3

    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    for name in ("pysqlite3.dbapi2", "sqlean"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise MemctlError(
        "no SQLite module here can load extensions: install pysqlite3-binary (Linux) or sqlean.py"
    )


def connect(path: Path | str, *, load_vec: bool = True, timeout: float = 30.0) -> Connection:
    """Open `path` with WAL journaling and, by default, sqlite-vec loaded."""
    module = sqlite_module()
    conn: Connection = module.connect(
        str(path), timeout=timeout, isolation_level=None, check_same_thread=False
    )
    if load_vec:
        load_sqlite_vec(conn)
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def load_sqlite_vec(conn: Connection) -> None:
    # Loading by path avoids `import sqlite_vec`, whose __init__ pulls numpy.typing (~100 ms).
    from importlib.util import find_spec

    spec = find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise MemctlError("sqlite-vec is not installed")
    folder = Path(next(iter(spec.submodule_search_locations)))
    candidates = sorted(folder.glob("vec0.*"))
    if not candidates:
        raise MemctlError(f"sqlite-vec's loadable library is missing from {folder}")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(str(candidates[0].with_suffix("")))
    finally:
        conn.enable_load_extension(False)
