"""One resident process per vault: start, stop, crash, stale sockets, versions, TCP, freshness."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memctl import __version__
from memctl.resident import address, client
from memctl.resident.address import peer_credentials
from memctl.vault import Vault
from tests.processes import MEMCTL
from tests.resident.conftest import env_for, fresh_copy, serving

DAILY = "memory/daily/2026-11-21.md"


def memctl(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MEMCTL, "--vault", str(root), *args], capture_output=True, text=True, env=env, timeout=120
    )


def lock_is_free(vault: Vault) -> bool:
    with vault.lock(address.LOCK_NAME, timeout=0):
        return True


def test_stop_crash_and_stale_socket(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    vault, env = Vault(root), env_for()
    sock = Path(address.socket_path(str(root)))
    with serving(root, env) as server:
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        info = Path(address.info_path(str(root)))
        assert stat.S_IMODE(info.stat().st_mode) == 0o600
        second = memctl(root, env, "serve")
        assert second.returncode == 1
        assert f"a resident process (pid {server.proc.pid}) already serves" in second.stderr
        _, err = server.stop(signal.SIGTERM)
        assert server.proc.returncode == 0, err
    assert not sock.exists() and not info.exists()
    assert lock_is_free(vault)

    with serving(root, env) as server:
        server.proc.kill()  # a crash: no clean-up at all
        server.proc.wait()
    assert sock.exists(), "a killed process leaves its socket behind"
    assert lock_is_free(vault), "the OS releases the lock of a dead process"
    found = memctl(root, env, "search", "sqlite", "--no-log")  # refused: runs in-process
    assert found.returncode == 0 and "decisions.md" in found.stdout
    status = memctl(root, env, "status", "--json")
    assert json.loads(status.stdout)["resident"] == {"running": False, "stale_removed": True}
    assert not sock.exists()
    with serving(root, env) as server:
        assert server.pong()["pid"] == server.proc.pid


def test_ctrl_c_stops_cleanly(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    with serving(root, env_for()) as server:
        _, err = server.stop(signal.SIGINT)
    assert "stopped" in err and "Traceback" not in err
    assert not Path(address.socket_path(str(root))).exists()
    assert lock_is_free(Vault(root))


def test_an_edit_is_found_by_the_next_search(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for()
    with serving(root, env, "--no-embed") as server:
        before = int(server.pong()["served"])  # type: ignore[call-overload]
        with (root / DAILY).open("a", encoding="utf-8") as handle:
            handle.write("- 18:00 Quokkafest planning moved to Thursday\n")
        found = memctl(root, env, "search", "quokkafest", "--no-log", "--json")
        assert int(server.pong()["served"]) == before + 1  # type: ignore[call-overload]
    results = json.loads(found.stdout)["results"]
    assert results and results[0]["path"] == DAILY
    assert "Quokkafest" in results[0]["snippet"]


def test_tcp_with_a_token(
    tmp_path: Path, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for(MEMCTL_RESIDENT_TRANSPORT="tcp")
    # A client uses TCP only where it would listen on TCP itself: this test's pings too.
    monkeypatch.setenv("MEMCTL_RESIDENT_TRANSPORT", "tcp")
    with serving(root, env) as server:
        assert not Path(address.socket_path(str(root))).exists()
        info = address.read_info(str(root))
        assert info is not None and info["transport"] == "tcp" and len(info["token"]) > 20
        before = int(server.pong()["served"])  # type: ignore[call-overload]
        found = memctl(root, env, "search", "sqlite", "--no-log")
        assert "decisions.md" in found.stdout
        assert int(server.pong()["served"]) == before + 1  # type: ignore[call-overload]
        with socket.create_connection(("127.0.0.1", int(info["port"])), timeout=10) as sock:
            request = {"protocol": address.PROTOCOL, "memctl": __version__, "token": "guess"}
            address.send_json(sock, {**request, "argv": ["status"], "env": {}})
            with sock.makefile("rb") as stream:
                assert address.read_line(stream)["status"] == "refused"


def test_another_version_is_ignored_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stand-in server on the socket answers as memctl 9.9 would: the client runs here."""
    root = tmp_path / "vault"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "core.md").write_text("# Core\n", encoding="utf-8")
    (root / ".memctl").mkdir()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with address.in_folder(address.socket_path(str(root))) as name:
        listener.bind(name)
    listener.listen(1)

    def answer() -> None:
        conn, _ = listener.accept()
        with conn, conn.makefile("rb") as stream:
            assert address.read_line(stream)["memctl"] == __version__
            address.send_json(conn, {"status": "version", "memctl": "9.9"})

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    monkeypatch.delenv("MEMCTL_RESIDENT", raising=False)
    assert client.run_served(["--vault", str(root), "search", "x"]) is None
    thread.join(10)
    listener.close()
    assert "runs memctl 9.9 (this is" in capsys.readouterr().err


def test_what_is_handed_over() -> None:
    assert client.served_command(["search", "dns"]) == (None, ["search", "dns"])
    assert client.served_command(["--vault=/v", "status"]) == ("/v", ["status"])
    assert client.served_command(["--vault", "/v", "tools", "--call", "search_memory"]) == (
        "/v",
        ["tools", "--call", "search_memory"],
    )
    for argv in (
        ["search", "--batch", "q.txt"],
        ["search", "-"],
        ["search", "--help"],
        ["tools"],  # schemas need no index
        ["tools", "--call=update_core_memory"],  # reviewed with this process's API key
        ["add", "note"],
        ["--version"],
        [],
    ):
        assert client.served_command(argv) is None, argv


def test_peer_uid_of_a_unix_peer() -> None:
    if not hasattr(socket, "SO_PEERCRED"):
        pytest.skip("no SO_PEERCRED here")
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_credentials(left) == (os.getpid(), os.getuid())


BUDGET_PROBE = """
import sys
from memctl.resident import client
code = client.run_served(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})
print(code, heavy, file=sys.stderr)
"""
HEAVY = {
    "numpy",
    "fastembed",
    "onnxruntime",
    "rapidfuzz",
    "sqlite3",
    "pysqlite3",
    "sqlite_vec",
    "sqlite_utils",
    "typer",
    "click",
    "rich",
    "anthropic",
    "watchdog",
    "jsonschema",
    "filelock",
    "typing",  # not heavy, but ~3 ms of a served command's ~10 ms of client imports
}


def test_the_client_path_imports_nothing_heavy(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for()
    probe = BUDGET_PROBE.replace("{HEAVY!r}", repr(HEAVY))
    prompt = '{"session_id": "s", "prompt": "когда отпуск Ивана?"}'
    with serving(root, env):
        done = subprocess.run(
            [sys.executable, "-c", probe, "--vault", str(root), "search", "sqlite", "--no-log"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        hook = subprocess.run(
            [sys.executable, "-c", probe, "--vault", str(root), "hook", "prompt"],
            input=prompt,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    assert "decisions.md" in done.stdout
    # The last line is the probe's; a search notice (the relevance floor's) may precede it.
    assert done.stderr.strip().splitlines()[-1] == "0 []", done.stderr
    assert "archive/2025-08-02.md" in hook.stdout  # a served hook: the CLI never loaded
    assert hook.stderr.strip().splitlines()[-1] == "0 []", hook.stderr


def test_the_collector_settles_in_a_warm_process() -> None:
    # In a child: the policy is the whole process's, and this test process must keep its own.
    probe = (
        "import gc, json\n"
        "from memctl.resident.server import GC_YOUNG_THRESHOLD, settle_collector\n"
        "before = gc.get_threshold()\n"
        "cycle = []; cycle.append(cycle); del cycle\n"
        "settle_collector()\n"
        "print(json.dumps([before, gc.get_threshold(), gc.get_freeze_count(),"
        " GC_YOUNG_THRESHOLD, gc.isenabled(), gc.collect()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    before, after, frozen, young, enabled, found = json.loads(done.stdout)
    assert after == [young, before[1], before[2]]
    assert young > before[0]
    assert frozen > 0 and enabled
    assert found == 0  # the garbage made before the freeze was collected, not frozen
