"""The candidate lists' statements, run together in one statement or at once on side connections.

The four lists (BM25 over the chunks and over their windows, substrings, nearest
neighbours) are independent statements; in one backend they run one after another, so
their sum sets a search's time. A searcher that searches again (a resident process, an
MCP server, a benchmark) runs three of them on three more connections of its own while
the words list runs on its own connection, and the slowest sets the time (the window
list makes its word counts on its side connection first). A one-shot search runs them
together in one statement: opening connections for one search costs more than it saves.

Each statement returns the chunk records of its rows too (`chunks_by_ids` then needs no
round trip of its own).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

import psycopg

from memctl.index.postgres import schema
from memctl.index.usage import ChunkRecord, _record

SIDE_CONNECTIONS = 3

# A chunk record's columns after its id (`record_of`), as each list's rows carry them.
RECORD_COLUMNS = (
    "c.path, c.line_start, c.line_end, c.heading, c.text, c.hash, c.tier, c.source, c.date, "
    "c.tags, c.importance, c.embedded, u.created_at, u.last_referenced_at, "
    "coalesce(u.access_count, 0), c.vault"
)
Statement = tuple[str, list[Any]]
# A list whose statement needs a round trip of its own first (the window list's counts):
# run on the connection given, it returns the list's statement (None: no list).
Job = Callable[[psycopg.Connection[Any]], Statement | None]
Rows = list[tuple[Any, ...]]
R = TypeVar("R")
# What a list's rows are read into on the connection that fetched them (it may read more).
Read = Callable[[psycopg.Connection[Any], Rows], R]


def record_of(row: Sequence[Any]) -> ChunkRecord:
    """A chunk record from its id and RECORD_COLUMNS."""
    return _record(row, row[16])


def records_by_ids(
    conn: psycopg.Connection[Any], vault: str, ids: Sequence[int]
) -> dict[int, ChunkRecord]:
    """The chunk records of these ids (usage as `vault`'s), by id."""
    if not ids:
        return {}
    rows = conn.execute(
        f"SELECT c.id, {RECORD_COLUMNS} FROM chunks AS c "
        "LEFT JOIN usage AS u ON u.vault = %s AND u.hash = c.hash WHERE c.id = ANY(%s)",
        (vault, list(ids)),
    ).fetchall()
    return {row[0]: record_of(row) for row in rows}


def with_records(statement: Statement, vault: str) -> Statement:
    """A list's (kind, id, score) rows, each followed by its chunk record's columns (usage
    as the searching vault's)."""
    sql, args = statement
    return (
        f"SELECT l.kind, l.id, l.score, {RECORD_COLUMNS} FROM ({sql}) AS l(kind, id, score) "
        "JOIN chunks AS c ON c.id = l.id "
        "LEFT JOIN usage AS u ON u.vault = %s AND u.hash = c.hash",
        [*args, vault],
    )


# The text is the record's fifth column; the rest NULL (cheap to send and decode).
_TEXT_ONLY = ", ".join(["NULL"] * 4 + ["l.text"] + ["NULL"] * 11)


def with_texts(statement: Statement) -> Statement:
    """A list's (kind, id, score, text) rows in the shape of `with_records`, the record's
    other columns NULL: for a list whose rows are mostly dropped (substring lookups,
    scored afterwards on their texts), where every row's record would cost more to send
    and decode than fetching the kept ones' records later."""
    sql, args = statement
    return (f"SELECT l.kind, l.id, l.score, {_TEXT_ONLY} FROM ({sql}) AS l", list(args))


class SideUnavailable(Exception):
    """A side connection could not be opened."""


class SideConnections:
    """Worker threads, each with its own connection (opened on its first statement)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._pool = ThreadPoolExecutor(SIDE_CONNECTIONS, thread_name_prefix="memctl-pg-list")
        self._local = threading.local()
        self._opened: list[psycopg.Connection[Any]] = []
        self._lock = threading.Lock()

    def submit(self, job: Job) -> Future[list[tuple[Any, ...]]]:
        return self._pool.submit(self._run, job)

    def call(self, work: Callable[[psycopg.Connection[Any]], R]) -> Future[R]:
        """`work` on a worker's connection (SideUnavailable when none opens)."""
        return self._pool.submit(lambda: work(self._connection()))

    def submit_read(self, job: Job, read: Read[R]) -> Future[R]:
        """`job`'s rows read by `read` on the worker thread, as soon as they arrive."""

        def work(conn: psycopg.Connection[Any]) -> R:
            statement = job(conn)
            return read(conn, conn.execute(*statement).fetchall() if statement else [])

        return self.call(work)

    def _connection(self) -> psycopg.Connection[Any]:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            try:
                conn = schema.connect(self.url)
            except schema.DatabaseError as exc:
                raise SideUnavailable(str(exc)) from exc
            schema.prepare_session(conn)
            with self._lock:
                self._opened.append(conn)
            self._local.conn = conn
        return conn

    def _run(self, job: Job) -> list[tuple[Any, ...]]:
        conn = self._connection()
        statement = job(conn)
        return conn.execute(*statement).fetchall() if statement else []

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        with self._lock:
            for conn in self._opened:
                conn.close()
            self._opened.clear()


class Lists:
    """The statements of one search's lists: started as soon as each is known when side
    connections are at hand, else gathered into one statement run at `rows()`."""

    def __init__(self, conn: psycopg.Connection[Any], side: SideConnections | None) -> None:
        self.conn, self.side = conn, side
        self._pending: list[tuple[Job, Future[Rows]]] = []
        self._together: list[Statement] = []
        self._here: list[tuple[Any, ...]] = []
        # Each row as `rows()` returns it (the chunk records decoded, say), made on the
        # thread that fetched it: a side connection's while the other lists still run.
        # Set before the first list is added.
        self.decode: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None

    def _decoded(self, conn: psycopg.Connection[Any] | None, rows: Rows) -> Rows:
        return rows if self.decode is None else list(map(self.decode, rows))

    def add(self, statement: Statement) -> None:
        self.add_job(lambda conn: statement)

    def add_job(self, job: Job) -> None:
        """A list whose statement `job` makes on the connection that will run it: a side
        connection's, or this one's now when the lists run together."""
        if self.side is not None:
            self._pending.append((job, self.side.submit_read(job, self._decoded)))
        elif (statement := job(self.conn)) is not None:
            self._together.append(statement)

    def add_read(self, statement: Statement, read: Read[R]) -> Callable[[], R] | None:
        """A list whose rows only `read` looks at (the substring hits, scored on their
        texts): on a side connection `read` runs on their thread with their connection as
        soon as they arrive, while the other lists still run on the server and this thread
        mostly waits for them; its rows are then not among `rows()`, and the call returned
        gives `read`'s answer. None: no side connections; the statement runs with the
        others and its rows are among `rows()`."""
        if self.side is None:
            self._together.append(statement)
            return None
        future = self.side.submit_read(lambda conn: statement, read)

        def answer() -> R:
            try:
                return future.result()
            except SideUnavailable:
                return read(self.conn, self.conn.execute(*statement).fetchall())

        return answer

    def run_here(self, statement: Statement) -> None:
        """A list for this connection: the last one known, while the others run beside it."""
        if self.side is None:
            self._together.append(statement)
        else:
            self._here = self.conn.execute(*statement).fetchall()

    def rows(self) -> list[tuple[Any, ...]]:
        """Every list's rows (each `decode`d), this connection's first, then the side
        connections' in the order their lists were added."""
        found = self._decoded(None, self._here)
        if self._together:
            sql = " UNION ALL ".join(f"({s})" for s, _ in self._together)
            args = [a for _, statement_args in self._together for a in statement_args]
            found += self._decoded(None, self.conn.execute(sql, args).fetchall())
        for job, future in self._pending:
            try:
                found += future.result()
            except SideUnavailable:
                # No second connection (the server's max_connections, say): this one will do.
                if (statement := job(self.conn)) is not None:
                    found += self._decoded(None, self.conn.execute(*statement).fetchall())
        return found
