"""Failures of the shared index: one clear line, a non-zero exit, no traceback, no secret."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.backend import open_store
from memctl.index.postgres import words as pg_words
from memctl.index.postgres.store import PgStore
from memctl.index.postgres.substrings import unheld
from memctl.index.sync import sync
from memctl.vault import Vault
from tests.postgres.conftest import Server, use_postgres
from tests.search.conftest import FIXTURE, NOW


def make_vault(tmp_path: Path, url: str, mp: pytest.MonkeyPatch, name: str = "alice") -> Vault:
    root = tmp_path / name
    shutil.copytree(FIXTURE / "memory", root / "memory")
    return use_postgres(root, name, url, mp)


def index(runner: CliRunner, vault: Vault) -> tuple[int, str]:
    out = runner.invoke(app, ["--vault", str(vault.root), "index", "--no-embed"])
    return out.exit_code, out.output


def one_line_error(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("memctl: error:"), output
    assert "Traceback" not in output
    return lines[0]


def test_server_down(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runner: CliRunner) -> None:
    url = f"postgresql://postgres:hunter2@/memctl?host={tmp_path / 'no-server'}"
    vault = make_vault(tmp_path, url, monkeypatch)
    code, output = index(runner, vault)
    line = one_line_error(output)
    assert code == 1 and "cannot connect to the PostgreSQL index" in line
    assert "hunter2" not in output and ":***@" in line


def test_wrong_password(
    tmp_path: Path, pg_server: Server, monkeypatch: pytest.MonkeyPatch, runner: CliRunner
) -> None:
    hba = Path(pg_server.handle.pgdata) / "pg_hba.conf"
    rule = "local all memctl_pw scram-sha-256\n"
    if rule not in hba.read_text():
        hba.write_text(rule + hba.read_text())
    with pg_server.admin() as conn:
        conn.execute("SELECT pg_reload_conf()")
        conn.execute("DROP ROLE IF EXISTS memctl_pw")
        conn.execute("CREATE ROLE memctl_pw LOGIN PASSWORD 'right-one'")
    url = pg_server.url("postgres", user="memctl_pw:wrong-one")
    vault = make_vault(tmp_path, url, monkeypatch)
    code, output = index(runner, vault)
    line = one_line_error(output)
    assert code == 1 and "password authentication failed" in line
    assert "wrong-one" not in output and "right-one" not in output


def test_missing_extension(
    tmp_path: Path, pg_server: Server, monkeypatch: pytest.MonkeyPatch, runner: CliRunner
) -> None:
    """A role that may not create pgvector (not a trusted extension) on a bare database."""
    with pg_server.admin() as conn:
        conn.execute("DROP DATABASE IF EXISTS memctl_plain")
        conn.execute("DROP ROLE IF EXISTS memctl_plain")
        conn.execute("CREATE ROLE memctl_plain LOGIN")
        conn.execute("CREATE DATABASE memctl_plain OWNER memctl_plain")
    vault = make_vault(tmp_path, pg_server.url("memctl_plain", user="memctl_plain"), monkeypatch)
    code, output = index(runner, vault)
    line = one_line_error(output)
    assert code == 1 and "lacks the pgvector extension (vector)" in line


def test_schema_from_a_newer_memctl(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, runner: CliRunner
) -> None:
    vault = make_vault(tmp_path, pg_url, monkeypatch)
    assert index(runner, vault)[0] == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO memctl_schema(version, memctl) VALUES (99, '9.9')")
    for args in (["index"], ["search", "kubernetes"], ["db", "migrate"]):
        out = runner.invoke(app, ["--vault", str(vault.root), *args])
        line = one_line_error(out.output)
        assert out.exit_code == 1 and "schema version 99, newer than this memctl" in line


def test_a_dropped_connection_loses_nothing(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault(tmp_path, pg_url, monkeypatch)
    original = PgStore.replace_file
    calls = {"n": 0}

    def dies_midway(self: PgStore, *args: object, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] == 4:
            self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PgStore, "replace_file", dies_midway)
    with pytest.raises(psycopg.OperationalError):
        sync(vault, embed=False, now=NOW)
    monkeypatch.setattr(PgStore, "replace_file", original)
    report = sync(vault, embed=False, now=NOW)
    lite = Vault(tmp_path / "lite")
    shutil.copytree(FIXTURE / "memory", lite.root / "memory")
    expected = sync(lite, embed=False, now=NOW).chunks_total
    assert report.chunks_total == expected
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT vault, path, line_start, hash FROM chunks").fetchall()
    assert len(rows) == len(set(rows)) == expected


def test_a_connection_dropped_after_the_files_commit_loses_no_word(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vocabulary commits with the files: a connection dropped right after a sync's
    commit (before its after-commit statements) leaves every indexed word in `lexemes`,
    where the substring lookups look first, so no piece of a word is skipped."""
    vault = make_vault(tmp_path, pg_url, monkeypatch)
    original = PgStore._flush_deferred

    def dies_after_commit(self: PgStore) -> None:
        self.conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")
        original(self)

    monkeypatch.setattr(PgStore, "_flush_deferred", dies_after_commit)
    with pytest.raises(psycopg.OperationalError):
        sync(vault, embed=False, now=NOW)
    monkeypatch.setattr(PgStore, "_flush_deferred", original)
    with psycopg.connect(pg_url) as conn:
        files = conn.execute("SELECT count(*) FROM files").fetchone()
        lexemes = {w for (w,) in conn.execute("SELECT word FROM lexemes")}
        texts = conn.execute("SELECT heading, text FROM chunks").fetchall()
    assert files is not None and files[0] > 0  # the files' transaction had committed
    tokens = {t for h, x in texts for t in pg_words.tokens(f"{h} {x}")}
    assert tokens and tokens <= lexemes
    sync(vault, embed=False, now=NOW)  # nothing left to redo, nothing lost
    store = open_store(vault)
    assert isinstance(store, PgStore)
    with store:
        # pieces of indexed words: their substring lookups run (none is skipped as unheld)
        pieces = sorted({t[1:-1] for t in tokens if len(t) >= 8 and t.isascii()})
        assert pieces and unheld(store, pieces) == set()


def test_a_server_in_the_committed_config_is_refused(tmp_path: Path, runner: CliRunner) -> None:
    """A cloned vault cannot send its index (or PGPASSWORD) to a server of its choosing."""
    root = tmp_path / "v"
    shutil.copytree(FIXTURE / "memory", root / "memory")
    (root / ".memctl.toml").write_text(
        '[index]\nbackend = "postgres"\ndatabase_url = "postgresql://me:s3cret@db/mem"\n'
    )
    out = runner.invoke(app, ["--vault", str(root), "index"])
    assert out.exit_code == 2 and "read only from your own config" in out.output
    assert "s3cret" not in out.output


def test_the_sqlite_path_never_imports_psycopg(tmp_path: Path) -> None:
    root = tmp_path / "v"
    shutil.copytree(FIXTURE / "memory", root / "memory")
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from memctl.cli import app\n"
        f"out = CliRunner().invoke(app, ['--vault', {str(root)!r}, 'index', '--no-embed'])\n"
        "assert out.exit_code == 0, out.output\n"
        f"out = CliRunner().invoke(app, ['--vault', {str(root)!r}, 'search', 'deploy', "
        "'--mode', 'lexical'])\n"
        "assert out.exit_code == 0, out.output\n"
        "print(sorted(m for m in sys.modules if m.startswith(('psycopg', 'pgvector'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_candidate_lists_run_beside_or_fall_back_to_the_main_connection(pg_url: str) -> None:
    """Side connections run the lists at once; one that cannot be opened (a full server,
    say) leaves the list to the search's own connection instead of failing the search. A
    list made by a job (a round trip first, as the window list's counts) makes it on the
    connection that runs the list: a side one's, else the search's own."""
    from memctl.index.postgres import schema
    from memctl.index.postgres.lists import Job, Lists, SideConnections, Statement

    main = schema.connect(pg_url)
    schema.migrate(main)  # the vector type each connection registers
    main_pid = main.info.backend_pid
    statements = [("SELECT %s::int", [1]), ("SELECT %s::int + 1", [1])]

    def job(conn: psycopg.Connection[Any]) -> Statement | None:
        # 4 from a side connection's statement, 5 from the main one's.
        found = conn.execute("SELECT 4 + (pg_backend_pid() = %s)::int", (main_pid,)).fetchone()
        return ("SELECT %s::int", [found[0] if found else 0])

    jobs: list[Job] = [job, lambda conn: None]
    try:
        for url, fourth in (
            (pg_url, 4),
            (pg_url.replace("/memctl_test_", "/no_such_database_"), 5),
        ):
            side = SideConnections(url)
            try:
                lists = Lists(main, side)
                for statement in statements:
                    lists.add(statement)
                for each in jobs:
                    lists.add_job(each)
                lists.run_here(("SELECT 3", []))
                assert sorted(lists.rows()) == [(1,), (2,), (3,), (fourth,)]
            finally:
                side.close()
        together = Lists(main, None)
        for statement in statements:
            together.add(statement)
        for each in jobs:
            together.add_job(each)
        together.run_here(("SELECT 3", []))
        assert sorted(together.rows()) == [(1,), (2,), (3,), (5,)]
    finally:
        main.close()


def test_a_list_read_where_its_rows_arrive_and_rows_decoded_where_fetched(pg_url: str) -> None:
    """A list added with a reader (the substring hits, scored) is read on the side
    connection that fetched it, with that connection, and its rows are not among the
    others'; one that cannot be opened leaves it to the search's own connection. Every
    other list's rows are decoded, in the order the lists were added (this connection's
    first). Without side connections the read list runs with the others, its rows
    among theirs."""
    from memctl.index.postgres import schema
    from memctl.index.postgres.lists import Lists, SideConnections

    main = schema.connect(pg_url)
    schema.migrate(main)
    main_pid = main.info.backend_pid

    def read(conn: psycopg.Connection[Any], rows: list[tuple[Any, ...]]) -> tuple[Any, ...]:
        return rows, conn.info.backend_pid != main_pid

    try:
        for url, beside in (
            (pg_url, True),
            (pg_url.replace("/memctl_test_", "/no_such_database_"), False),
        ):
            side = SideConnections(url)
            try:
                lists = Lists(main, side)
                lists.decode = lambda row: (row[0] * 10,)
                answer = lists.add_read(("SELECT %s::int", [7]), read)
                lists.add(("SELECT %s::int", [1]))
                lists.add(("SELECT %s::int", [2]))
                lists.run_here(("SELECT 3", []))
                assert lists.rows() == [(30,), (10,), (20,)]
                assert answer is not None and answer() == ([(7,)], beside)
            finally:
                side.close()
        together = Lists(main, None)
        together.decode = lambda row: (row[0] * 10,)
        assert together.add_read(("SELECT %s::int", [7]), read) is None
        together.add(("SELECT %s::int", [1]))
        together.run_here(("SELECT 3", []))
        assert sorted(together.rows()) == [(10,), (30,), (70,)]
    finally:
        main.close()
