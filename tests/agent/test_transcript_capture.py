"""capture_transcript and `memctl capture FILE` end to end: formats, privacy, idempotency,
the per-session cap, the deny-list, secrets, and bad input that touches nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memctl.agent.transcript_capture import capture_transcript
from memctl.cli import app
from memctl.errors import UsageError
from memctl.vault import Vault

SESSION = "5f0c2a9e-1111-4222-8333-944445555666"


def _row(role: str, text: str, **extra: object) -> dict[str, object]:
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    return {
        "type": role,
        "sessionId": SESSION,
        "cwd": "/home/me/app",
        "message": {"role": role, "content": content},
        **extra,
    }


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"


TURNS = [
    _row("user", "Remember that the release branch is cut every Wednesday."),
    _row("assistant", "Noted."),
    _row(
        "user",
        "Запомни, что <private>пароль от сейфа 1234 и код Z9</private> "
        "дежурный инженер в выходные — Пётр.",
    ),
    _row("user", "<private>remember that my therapist is Dr. Levi</private>"),
    _row("user", "תזכור ששרת הבדיקות נמצא ב-10.0.4.12"),
    _row("user", "ותזכור שהכספת בחדר 3 <PRIVATE>ואת הסוד שלי"),
]


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text(_jsonl(TURNS), encoding="utf-8")
    return path


def _vault_bytes(root: Path) -> dict[str, bytes]:
    """Every file's bytes; a database's as the text of its values: its vectors are float
    bytes, where a two-letter secret turns up by chance (more often the more vectors)."""
    return {
        str(p): _db_text(p) if p.suffix == ".db" else p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _db_text(path: Path) -> bytes:
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = []
        for table in tables:
            try:
                rows = conn.execute(f'SELECT * FROM "{table}"').fetchall()
            except sqlite3.DatabaseError:
                # A virtual table (FTS5, vec0): its shadow tables are read.
                continue
            out += [v.encode() for row in rows for v in row if isinstance(v, str)]
        return b"\n".join(out)
    finally:
        conn.close()


def _memory_text(root: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in (root / "memory").rglob("*.md"))


def test_private_text_is_never_written_nor_indexed(
    runner, vault_dir: Path, transcript: Path
) -> None:
    out = runner.invoke(app, ["--vault", str(vault_dir), "capture", str(transcript), "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["format"] == "claude-code" and report["method"] == "rules"
    text = _memory_text(vault_dir)
    assert "The release branch is cut every Wednesday (session 5f0c2a9e)" in text
    assert "10.0.4.12" in text
    done = runner.invoke(app, ["--vault", str(vault_dir), "index"])
    assert done.exit_code == 0, done.output
    everything = b"".join(_vault_bytes(vault_dir).values()) + out.stdout.encode()
    for secret in ("1234", "Z9", "Levi", "therapist", "הסוד", "сейфа"):
        assert secret.encode() not in everything, secret
    assert list((vault_dir / ".memctl").glob("*.db")), "the index was built"


def test_captured_twice_adds_nothing(vault: Vault, transcript: Path) -> None:
    first = capture_transcript(vault, transcript)
    assert len(first.written) == 2  # a sentence that held private text is not kept at all
    before = _vault_bytes(vault.root / "memory")
    again = capture_transcript(vault, transcript)
    assert again.written == [] and _vault_bytes(vault.root / "memory") == before
    # Without the record of what was read, the vault's duplicate gate still holds.
    (vault.state_dir / "captured-sessions.json").unlink()
    third = capture_transcript(vault, transcript)
    assert third.written == [] and third.counts() == {"duplicate": 2}
    assert _vault_bytes(vault.root / "memory") == before


def test_a_grown_transcript_adds_only_its_new_turns(vault: Vault, transcript: Path) -> None:
    capture_transcript(vault, transcript)
    more = [
        _row("assistant", "I suggest we tag releases as vYYYY.MM.DD from now on."),
        _row("user", "agreed"),
    ]
    transcript.write_text(_jsonl(TURNS + more), encoding="utf-8")
    report = capture_transcript(vault, transcript)
    assert report.new_turns == 2
    assert [c.text for c in report.written] == ["Decided: Tag releases as vYYYY.MM.DD from now on"]


def test_cap_per_session_holds_over_captures(vault_dir: Path, tmp_path: Path) -> None:
    (vault_dir / ".memctl.toml").write_text("[capture]\nmax_per_session = 3\n")
    vault = Vault(vault_dir)
    facts = [
        f"Remember that service {name} listens on port {8000 + i}."
        for i, name in enumerate(["alpha", "bravo", "charlie", "delta", "echo"])
    ]
    path = tmp_path / "s.jsonl"
    path.write_text(_jsonl([_row("user", f) for f in facts[:2]]))
    assert len(capture_transcript(vault, path).written) == 2
    path.write_text(_jsonl([_row("user", f) for f in facts]))
    report = capture_transcript(vault, path)
    assert len(report.written) == 1 and report.counts()["capped"] == 2
    assert _memory_text(vault_dir).count("(session 5f0c2a9e)") == 3


def test_codex_rollout_is_read(vault: Vault, tmp_path: Path) -> None:
    rows = [
        {
            "timestamp": "t",
            "type": "session_meta",
            "payload": {"id": "0199aaaa-bbbb-4ccc-8ddd-eeeeffff0000", "cwd": "/w"},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>remember that x is 1</environment_context>",
                    }
                ],
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "We decided to ship the CLI as a single static binary.",
                    }
                ],
            },
        },
        {
            "timestamp": "t",
            "type": "event_msg",
            "payload": {
                "type": "user_message",
                "message": "We decided to ship the CLI as a single static binary.",
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": "{}"},
        },
    ]
    path = tmp_path / "rollout-2026-11-28T05-00-00-0199aaaa.jsonl"
    path.write_text(_jsonl(rows))
    report = capture_transcript(vault, path)
    assert report.format == "codex" and report.session_id.startswith("0199aaaa")
    assert [c.text for c in report.written] == [
        "We decided to ship the CLI as a single static binary"
    ]
    assert "(session 0199aaaa)" in _memory_text(vault.root)


def test_deny_paths_skip_the_transcript_and_the_session_folder(
    vault_dir: Path, transcript: Path
) -> None:
    (vault_dir / ".memctl.toml").write_text(f'[capture]\ndeny_paths = ["{transcript.parent}"]\n')
    report = capture_transcript(Vault(vault_dir), transcript)
    assert report.skipped and report.turns == 0 and report.written == []
    (vault_dir / ".memctl.toml").write_text('[capture]\ndeny_paths = ["/home/me/app"]\n')
    report = capture_transcript(Vault(vault_dir), transcript)
    assert report.skipped and "deny_paths" in report.skipped and report.written == []
    assert "(session" not in _memory_text(vault_dir)


def test_secrets_follow_the_security_rule(vault_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        _jsonl([_row("user", "Remember that the deploy token is ghp_" + "a1B2" * 9 + ".")])
    )
    (vault_dir / ".memctl.toml").write_text('[security]\nsecrets = "refuse"\n')
    report = capture_transcript(Vault(vault_dir), path)
    assert report.counts() == {"refused": 1} and "ghp_" not in _memory_text(vault_dir)
    assert "a1B2a1B2" not in report.to_json()


def test_config_is_checked() -> None:
    from memctl.config import settings_from_dict

    for bad in ({"extract": "magic"}, {"max_per_session": 0}, {"deny_paths": [" "]}, {"nope": 1}):
        with pytest.raises(UsageError):
            settings_from_dict({"capture": bad})


BAD = {
    "truncated line": lambda p: p.write_text(_jsonl(TURNS)[:-40]),
    "missing keys": lambda p: p.write_text(_jsonl([{"type": "user", "sessionId": "s"}])),
    "not JSON lines": lambda p: p.write_text('{"a": 1}\n{"b": 2}\n'),
    "a link": lambda p: (
        p.with_name("real.jsonl").write_text(_jsonl(TURNS)),
        p.symlink_to(p.with_name("real.jsonl")),
    ),
    "a folder": lambda p: p.mkdir(),
    "a fifo": lambda p: os.mkfifo(p),
    "50 MB": lambda p: p.write_bytes(
        _jsonl(TURNS).encode() * (50_000_000 // len(_jsonl(TURNS).encode()) + 1)
    ),
    "not UTF-8": lambda p: p.write_bytes(b'{"type": "user", "message": {"content": "\xff"}}\n'),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_one_line_exit_2_and_touches_nothing(
    runner, vault_dir: Path, tmp_path: Path, case: str
) -> None:
    path = tmp_path / "bad.jsonl"
    BAD[case](path)
    before = _vault_bytes(vault_dir)
    out = runner.invoke(app, ["--vault", str(vault_dir), "capture", str(path)])
    assert out.exit_code == 2, (case, out.output)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.output, out.stderr
    assert _vault_bytes(vault_dir) == before


def test_with_an_llm_private_text_and_secrets_are_never_sent(vault: Vault, tmp_path: Path) -> None:
    from tests.agent.test_capture import FakeModel, _mem

    model = FakeModel([_mem("The release branch is cut every Wednesday")])
    token = "ghp_" + "a1B2" * 9
    rows = [*TURNS, _row("user", f"the deploy token is {token}")]
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text(_jsonl(rows), encoding="utf-8")
    report = capture_transcript(vault, path, llm=model.llm())
    assert report.method == "llm" and model.stages[0] == "extract"
    sent = json.dumps(model.api.requests, ensure_ascii=False)
    for secret in ("1234", "Levi", "הסוד", token):
        assert secret not in sent, secret
    assert "Wednesday" in sent and "[private]" in sent
    assert "The release branch is cut every Wednesday (session 5f0c2a9e)" in _memory_text(
        vault.root
    )
    again = capture_transcript(vault, path, llm=model.llm())
    assert again.new_turns == 0 and again.llm_calls == 0


def test_a_new_value_is_not_a_duplicate_of_the_old_one(vault: Vault, tmp_path: Path) -> None:
    from memctl import memory

    memory.add_note(vault, "Staging Postgres listens on port 5432")
    path = tmp_path / "s.jsonl"
    path.write_text(_jsonl([_row("user", "Staging Postgres now listens on port 5433.")]))
    report = capture_transcript(vault, path, dry_run=True)
    assert [(c.outcome, c.reason) for c in report.candidates] == [("ADD", "rule: value")]
    assert "5433" not in _memory_text(vault.root)  # a dry run writes nothing
