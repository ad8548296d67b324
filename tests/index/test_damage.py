"""Issue 15 item 12: a damaged index.db or state.db never ends in an internal error.

`memctl index --full` rebuilds index.db from the vault whatever the live file holds; a
damaged state.db is moved aside (its usage history is kept) with a notice and a fresh one
started; every other command says in one line what to run.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.watch import watch_vault
from memctl.vault import Vault

DAMAGES = ("garbage", "truncated", "zero-length", "wrong-header")
COMMANDS = (
    ["search", "провайдеру"],
    ["status"],
    ["lint"],
    ["maintain", "--no-embed"],
    ["index", "--no-embed"],
    ["watch"],
    ["index", "--full", "--no-embed"],
)


def damage(path: Path, how: str) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    data = path.read_bytes()
    if how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    elif how == "truncated":
        path.write_bytes(data[: len(data) // 2 + 100])
    elif how == "zero-length":
        path.write_bytes(b"")
    else:
        path.write_bytes(b"NOT AN SQLITE DB" + data[16:])


def invoke(runner: CliRunner, vault: Vault, args: list[str]) -> tuple[int, str]:
    if args == ["watch"]:
        stop, ready, errors = threading.Event(), threading.Event(), []
        outcome: list[BaseException | None] = [None]

        def run() -> None:
            try:
                watch_vault(vault, embed=False, stop=stop, ready=ready, on_error=errors.append)
            except BaseException as exc:
                outcome[0] = exc

        thread = threading.Thread(target=run)
        thread.start()
        for _ in range(400):  # until it serves, or it stopped with an error
            if ready.wait(0.05) or not thread.is_alive():
                break
        stop.set()
        thread.join(20)
        exc = outcome[0]
        if exc is not None:
            from memctl.errors import MemctlError

            assert isinstance(exc, MemctlError), repr(exc)
            return exc.exit_code, str(exc)
        return 0, "\n".join(errors)
    result = runner.invoke(app, ["--vault", str(vault.root), *args])
    return result.exit_code, result.stderr


@pytest.fixture
def indexed(notes_vault: Vault, runner: CliRunner) -> Vault:
    result = runner.invoke(app, ["--vault", str(notes_vault.root), "index", "--no-embed"])
    assert result.exit_code == 0, result.output
    good = (notes_vault.state_dir / "index.db").read_bytes()
    (notes_vault.root.parent / "good-index.db").write_bytes(good)
    return notes_vault


@pytest.mark.parametrize("how", DAMAGES)
def test_damaged_index_db(indexed: Vault, runner: CliRunner, how: str) -> None:
    live = indexed.state_dir / "index.db"
    good = (indexed.root.parent / "good-index.db").read_bytes()
    for args in COMMANDS:
        live.write_bytes(good)
        damage(live, how)
        code, stderr = invoke(runner, indexed, args)
        assert code != 70 and "Traceback" not in stderr, (args, stderr)
        if args[:2] == ["index", "--full"]:
            assert code == 0, stderr
        elif code != 0:
            lines = [line for line in stderr.splitlines() if line.strip()]
            assert len(lines) == 1 and "memctl index --full" in lines[0], (args, stderr)
    result = runner.invoke(app, ["--vault", str(indexed.root), "search", "провайдеру", "--json"])
    assert result.exit_code == 0 and "2026-11-20.md" in result.stdout


@pytest.mark.parametrize("how", DAMAGES)
def test_damaged_state_db_is_set_aside_and_kept(
    indexed: Vault, runner: CliRunner, how: str
) -> None:
    state = indexed.state_dir / "state.db"
    good = state.read_bytes()
    for args in COMMANDS:
        for old in indexed.state_dir.glob("state.db.damaged-*"):
            old.unlink()
        state.write_bytes(good)
        damage(state, how)
        damaged = state.read_bytes()
        code, stderr = invoke(runner, indexed, args)
        assert code != 70 and "Traceback" not in stderr, (args, stderr)
        assert code in (0, 1), (args, stderr)
        if how != "zero-length":  # an empty file is a valid, empty database: nothing to keep
            kept = list(indexed.state_dir.glob("state.db.damaged-*"))
            assert [p.read_bytes() for p in kept] == [damaged], args
            if args != ["watch"]:
                assert "state.db" in stderr and "damaged" in stderr, (args, stderr)
    result = runner.invoke(app, ["--vault", str(indexed.root), "search", "провайдеру", "--json"])
    assert result.exit_code == 0 and "2026-11-20.md" in result.stdout
