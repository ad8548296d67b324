"""The watcher with a real watchdog observer on a temp vault (polling, never fixed sleeps)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memctl.index.sync import SyncReport
from memctl.index.watch import is_relevant, watch_vault
from memctl.vault import Vault
from tests.index.conftest import fts_paths
from tests.processes import watch_process

DAILY = "memory/daily/2026-11-20.md"


def _until(check: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def watching(notes_vault: Vault) -> Iterator[list[SyncReport]]:
    reports: list[SyncReport] = []
    errors: list[str] = []
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch_vault,
        kwargs={
            "vault": notes_vault,
            "debounce": 0.2,
            "embed": False,
            "on_sync": reports.append,
            "on_error": errors.append,
            "stop": stop,
            "ready": ready,
        },
        daemon=True,
    )
    thread.start()
    assert ready.wait(20)
    yield reports
    stop.set()
    thread.join(10)
    assert not thread.is_alive()
    assert errors == []


def test_edit_in_place_and_temp_file_rename(notes_vault: Vault, watching: list[SyncReport]) -> None:
    assert watching and DAILY in watching[0].changed  # the first sync at start
    daily = notes_vault.root / DAILY
    daily.write_text(daily.read_text(encoding="utf-8") + "- 11:00 גזר carrot\n", encoding="utf-8")
    assert _until(lambda: fts_paths(notes_vault, "carrot") == [DAILY])
    # An editor's save: write a hidden temp file, then rename it over the note.
    temp = daily.with_name(".2026-11-20.md.swp")
    temp.write_text("- 12:00 морковь turnip\n", encoding="utf-8")
    os.replace(temp, daily)
    assert _until(lambda: fts_paths(notes_vault, "turnip") == [DAILY])
    assert fts_paths(notes_vault, "carrot") == []
    daily.unlink()
    assert _until(lambda: fts_paths(notes_vault, "turnip") == [])
    assert _until(lambda: any(DAILY in r.removed for r in watching))


def test_a_burst_of_saves_is_one_sync(notes_vault: Vault, watching: list[SyncReport]) -> None:
    before = len(watching)
    daily = notes_vault.root / DAILY
    for n in range(5):
        daily.write_text(f"- 10:0{n} save number {n} apricot{n}\n", encoding="utf-8")
    assert _until(lambda: fts_paths(notes_vault, "apricot4") == [DAILY])
    assert _until(lambda: len(watching) > before)
    assert len(watching) - before <= 2  # debounced: not one sync per save


def test_an_edit_during_a_busy_lock_is_retried(notes_vault: Vault) -> None:
    errors: list[str] = []
    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch_vault,
        kwargs={
            "vault": notes_vault,
            "debounce": 0.1,
            "embed": False,
            "on_error": errors.append,
            "stop": stop,
            "ready": ready,
            "lock_wait": 0.05,
        },
        daemon=True,
    )
    thread.start()
    try:
        assert ready.wait(20)
        with notes_vault.lock("index", timeout=5):
            (notes_vault.root / DAILY).write_text("- 13:00 lychee\n", encoding="utf-8")
            assert _until(lambda: bool(errors))
        assert "index lock" in errors[0]
        assert _until(lambda: fts_paths(notes_vault, "lychee") == [DAILY])
    finally:
        stop.set()
        thread.join(10)


def test_relevance_filter(tmp_path: Path) -> None:
    root = tmp_path
    assert is_relevant(root, str(root / "memory/daily/2026-11-20.md"))
    assert is_relevant(root, str(root / "memory/archive"))
    assert not is_relevant(root, str(root / "memory/daily/.2026-11-20.md.swp"))
    assert not is_relevant(root, str(root / ".memctl/index.db-wal"))
    assert not is_relevant(root, str(root / ".git/index"))
    assert not is_relevant(root, str(root / "README.md"))
    assert not is_relevant(root, str(root / "memory/notes.txt"))
    assert not is_relevant(root, None)
    assert not is_relevant(root, "/elsewhere/memory/x.md")


def test_vectors_follow_on_their_own_thread(notes_vault: Vault) -> None:
    from memctl.index.status import index_status

    stop, ready = threading.Event(), threading.Event()
    thread = threading.Thread(
        target=watch_vault,
        kwargs={"vault": notes_vault, "debounce": 0.2, "stop": stop, "ready": ready},
        daemon=True,
    )
    thread.start()
    try:
        assert ready.wait(20)
        assert _until(lambda: index_status(notes_vault).pending_embeddings == 0, 60)
        assert index_status(notes_vault).chunks > 0
    finally:
        stop.set()
        thread.join(10)


def test_cli_watch_stops_cleanly_on_ctrl_c(notes_vault: Vault) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    with watch_process(["--vault", str(notes_vault.root)], env) as watcher:
        assert fts_paths(notes_vault, "DNS") == [DAILY]
    assert watcher.proc.returncode == 0, watcher.stderr
    assert "watch stopped" in watcher.stderr and "Traceback" not in watcher.stderr
