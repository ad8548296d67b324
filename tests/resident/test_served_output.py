"""A served command prints exactly what the in-process command prints (byte for byte)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memctl.vault import Vault
from tests.processes import MEMCTL
from tests.resident.conftest import env_for, fresh_copy, serving

COMMANDS: list[list[str]] = [
    ["search", "sqlite decision", "--no-log"],
    ["search", "sqlite decision", "--no-log", "--json"],
    ["search", "деплой", "--json"],
    ["search", "קוברנטיס", "-k", "3"],
    ["search", "kubernetes", "--explain", "--no-log"],
    ["search", "zzqqxxv", "--no-log"],
    ["search", "dns", "--tier", "nope"],  # a usage error: exit 2
    ["search", "   "],  # a memctl usage error
    ["context", "--query", "dns"],
    ["context", "--query", "billing", "--json"],
    ["context", "--budget", "10", "--format", "anthropic"],
    ["tools", "--call", "search_memory", "--args", '{"query": "dns", "k": 3}'],
    ["tools", "--call", "load_memory", "--args", '{"what": "date", "date": "2026-11-20"}'],
    ["tools", "--call", "load_memory", "--args", '{"what": "nope"}'],  # exit 1
    ["search", "sqlite decision"],  # after the searches above: the recent-penalty applies
]


def run_all(root: Path, env: dict[str, str]) -> list[tuple[int, bytes, bytes]]:
    out = []
    for args in COMMANDS:
        done = subprocess.run(
            [MEMCTL, "--vault", str(root), *args], capture_output=True, env=env, timeout=120
        )
        out.append((done.returncode, done.stdout, done.stderr))
    return out


def check_same(
    here: list[tuple[int, bytes, bytes]], served: list[tuple[int, bytes, bytes]]
) -> None:
    for args, a, b in zip(COMMANDS * 2, here, served, strict=True):
        assert a[0] == b[0], f"{args}: exit {a[0]} in-process, {b[0]} served"
        assert a[1] == b[1], f"{args}: stdout differs\n{a[1]!r}\n{b[1]!r}"
        assert a[2] == b[2], f"{args}: stderr differs\n{a[2]!r}\n{b[2]!r}"


def test_served_output_is_byte_identical(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = tmp_path / "vault"
    plain, coloured = env_for(), env_for(FORCE_COLOR="1", COLUMNS="72", TERM="xterm-256color")
    fresh_copy(indexed_fixture.root, root)
    here = run_all(root, plain) + run_all(root, coloured)
    # The same starting state at the same path, served this time.
    fresh_copy(indexed_fixture.root, root)
    with serving(root, plain) as server:
        before = int(server.pong()["served"])  # type: ignore[call-overload]
        served = run_all(root, plain) + run_all(root, coloured)
        answered = int(server.pong()["served"]) - before  # type: ignore[call-overload]
    check_same(here, served)
    assert any(b"\x1b[" in out for _, out, _ in here), "the coloured run printed no colour"
    # Every command but the two usage errors (exit 2, printed by the client itself).
    assert answered == 2 * (len(COMMANDS) - 2)


def test_status_says_whether_a_resident_process_serves(
    tmp_path: Path, indexed_fixture: Vault
) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for()
    args = [MEMCTL, "--vault", str(root), "status"]
    alone = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert "resident process: none" in alone.stdout
    with serving(root, env) as server:
        pid = server.proc.pid
        served = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
        local = subprocess.run(
            args, capture_output=True, text=True, env={**env, "MEMCTL_RESIDENT": "0"}, timeout=60
        )
        as_json = subprocess.run(
            [*args, "--json"], capture_output=True, text=True, env=env, timeout=60
        )
    assert f"resident process: pid {pid} " in served.stdout
    assert served.stdout == local.stdout and served.stderr == local.stderr
    assert '"running": true' in as_json.stdout and f'"pid": {pid}' in as_json.stdout
