"""An SQLite connection that can load sqlite-vec.

The stdlib module is used where it can load extensions; many Python builds
(this project's Linux machines included) cannot, so fall back to pysqlite3
(Linux wheels) or sqlean.py (macOS, Windows). All three speak DB-API 2.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeAlias

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


# SQLite caps bound parameters (999 in old builds): an IN list of 500 stays below every limit.
IN_BATCH = 500


def iter_batches(items: Sequence[Any], size: int = IN_BATCH) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def select_in(
    conn: Connection, sql: str, items: Sequence[Any], params: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of `sql` for every item, IN_BATCH at a time: `sql` holds one `{marks}` (the
    IN list's placeholders, bound first), then `params`' placeholders."""
    for part in iter_batches(items):
        yield from conn.execute(sql.replace("{marks}", ",".join("?" * len(part))), [*part, *params])


# Rows per multi-row INSERT: 80 x up to 12 values stays under SQLite's oldest 999.
ROWS_PER_INSERT = 80


def insert_rows(conn: Connection, head: str, values: str, rows: Sequence[Sequence[Any]]) -> None:
    """`head` ("INSERT INTO t(a, b)") with one `values` group ("(?, ?)") per row,
    ROWS_PER_INSERT rows a statement. Into a table with FTS triggers, each statement opens
    a savepoint at which FTS5 flushes its pending terms to a new segment: one row per
    statement made one segment per chunk (and their merges), most of a first build's time."""
    for part in iter_batches(rows, ROWS_PER_INSERT):
        conn.execute(
            f"{head} VALUES " + ",".join([values] * len(part)),
            [value for row in part for value in row],
        )
