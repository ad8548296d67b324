"""A served command prints exactly what the in-process command prints (byte for byte)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from memctl.vault import Vault
from tests.processes import MEMCTL
from tests.resident.conftest import NOW, env_for, fresh_copy, serving

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


def _on_a_terminal(cmd: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run `cmd` with stdout on a 50x30 pseudo-terminal (narrower than the 80 a pipe gets); what it printed there."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 50, 0, 0))
    # Raw mode: the terminal passes bytes through untranslated (no \n -> \r\n).
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    try:
        proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.PIPE, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the process closed its end
                break
            if not data:
                break
            chunks.append(data)
        _, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
    return proc.returncode, b"".join(chunks), err


def test_a_terminal_gets_the_same_bytes(tmp_path: Path, indexed_fixture: Vault) -> None:
    """isatty, colours and the terminal's width come from the client's terminal."""
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for(TERM="xterm-256color")
    commands = [
        ["search", "kubernetes", "--explain", "--no-log"],
        ["status"],
    ]
    with serving(root, env) as server:
        for args in commands:
            cmd = [MEMCTL, "--vault", str(root), *args]
            before = int(server.pong()["served"])  # type: ignore[call-overload]
            served = _on_a_terminal(cmd, env)
            assert int(server.pong()["served"]) == before + 1  # type: ignore[call-overload]
            here = _on_a_terminal(cmd, {**env, "MEMCTL_RESIDENT": "0"})
            assert served == here, f"{args}:\n{served[1]!r}\n{here[1]!r}"
            assert b"\x1b[" in served[1]  # a terminal gets colour
    assert b"\xe2\x94\x8f" in served[1]  # status's table, box-drawn for a UTF-8 terminal


HOOK_CALLS: list[tuple[list[str], str]] = [
    (["hook", "prompt"], json.dumps({"session_id": "s", "prompt": "когда отпуск Ивана?"})),
    (["hook", "prompt", "--agent", "gemini"], '{"prompt": "what is the capital of France?"}'),
    (["hook", "session-start", "--agent", "cursor"], '{"conversation_id": "c"}'),
    (["hook", "prompt"], '{"prompt": '),  # bad input: one line, exit 0
]


def test_served_hooks_answer_as_in_process_hooks_do(tmp_path: Path, indexed_fixture: Vault) -> None:
    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    env = env_for()

    def run(environment: dict[str, str]) -> list[tuple[int, bytes, bytes]]:
        return [
            _done(
                subprocess.run(
                    [MEMCTL, "--vault", str(root), *args],
                    input=stdin.encode(),
                    capture_output=True,
                    env=environment,
                    timeout=120,
                )
            )
            for args, stdin in HOOK_CALLS
        ]

    here = run({**env, "MEMCTL_RESIDENT": "0"})
    with serving(root, env) as server:
        before = int(server.pong()["served"])  # type: ignore[call-overload]
        served = run(env)
        answered = int(server.pong()["served"]) - before  # type: ignore[call-overload]
    assert answered == len(HOOK_CALLS)
    assert served == here
    assert b"archive/2025-08-02.md:" in here[0][1]
    assert here[1] == (0, b"", b"")
    assert json.loads(here[2][1])["additional_context"].startswith("Memory loaded by memctl")
    assert here[3][0] == 0 and here[3][1] == b"" and len(here[3][2].splitlines()) == 1


def _done(done: subprocess.CompletedProcess[bytes]) -> tuple[int, bytes, bytes]:
    return done.returncode, done.stdout, done.stderr


def test_a_served_stop_hook_captures_the_transcript_once(
    tmp_path: Path, indexed_fixture: Vault
) -> None:
    from tests.agent.transcripts import write_transcript

    root = fresh_copy(indexed_fixture.root, tmp_path / "vault")
    transcript = write_transcript(tmp_path / "session.jsonl")
    env = env_for()
    stdin = json.dumps({"session_id": "srv", "transcript_path": str(transcript)}).encode()
    with serving(root, env) as server:
        before = int(server.pong()["served"])  # type: ignore[call-overload]
        runs = [
            subprocess.run(
                [MEMCTL, "--vault", str(root), "hook", "stop"],
                input=stdin,
                capture_output=True,
                env=env,
                timeout=120,
            )
            for _ in range(2)
        ]
        answered = int(server.pong()["served"]) - before  # type: ignore[call-overload]
    assert answered == 2
    assert [(r.returncode, r.stdout) for r in runs] == [(0, b""), (0, b"")]
    # The client's clock is the pinned one (MEMCTL_NOW), and so is the served capture's.
    note = (root / "memory" / "daily" / f"{NOW.date().isoformat()}.md").read_text()
    assert note.count("5433") == 1 and note.count("תל אביב") == 1, note
