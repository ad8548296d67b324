"""memctl hook pre-compact|stop: the session's transcript captured into today's note, once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl import clock
from memctl.cli import app
from memctl.vault import Vault
from tests.agent.transcripts import write_transcript


def _hook(
    runner: CliRunner, vault: Vault, event: str, payload: dict[str, object]
) -> tuple[int, str, str]:
    result = runner.invoke(
        app, ["--vault", str(vault.root), "hook", event], input=json.dumps(payload)
    )
    return result.exit_code, result.stdout, result.stderr


def _today_note(vault: Vault) -> str:
    path = vault.root / "memory" / "daily" / f"{clock.today().isoformat()}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _input(event: str, transcript: Path, **extra: object) -> dict[str, object]:
    return {
        "session_id": "e2e-session",
        "transcript_path": str(transcript),
        "cwd": str(transcript.parent),
        "hook_event_name": event,
        **extra,
    }


def test_stop_and_pre_compact_capture_once_and_the_next_session_carries_it(
    runner: CliRunner, vault: Vault, tmp_path: Path
) -> None:
    transcript = write_transcript(tmp_path / "e2e-session.jsonl")
    code, out, err = _hook(
        runner, vault, "stop", _input("Stop", transcript, stop_hook_active=False)
    )
    assert code == 0 and out == "", err
    note = _today_note(vault)
    for needle in ("5433", "S3", "תל אביב"):
        assert note.count(needle) == 1, (needle, note)
    # Again at the next turn's end and at a compaction: nothing is added twice.
    assert _hook(runner, vault, "stop", _input("Stop", transcript, stop_hook_active=True))[0] == 0
    assert (
        _hook(runner, vault, "pre-compact", _input("PreCompact", transcript, trigger="auto"))[0]
        == 0
    )
    assert _today_note(vault) == note
    code, out, _ = _hook(
        runner, vault, "session-start", _input("SessionStart", transcript, source="compact")
    )
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    for needle in ("5433", "S3", "תל אביב"):
        assert needle in context


def _bad_transcripts(tmp_path: Path) -> dict[str, Path]:
    good = write_transcript(tmp_path / "good.jsonl")
    link = tmp_path / "link.jsonl"
    link.symlink_to(good)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    return {"link": link, "folder": folder, "big": big, "missing": tmp_path / "gone.jsonl"}


@pytest.mark.parametrize("kind", ["link", "folder", "big", "missing"])
def test_a_bad_transcript_is_one_line_exit_zero_and_touches_nothing(
    runner: CliRunner, vault: Vault, tmp_path: Path, kind: str
) -> None:
    path = _bad_transcripts(tmp_path)[kind]
    before = {p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file()}
    code, out, err = _hook(runner, vault, "stop", _input("Stop", path))
    assert code == 0 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    after = {
        p: p.read_bytes() for p in vault.root.rglob("*") if p.is_file() and ".memctl" not in p.parts
    }
    assert after == {p: b for p, b in before.items() if ".memctl" not in p.parts}


def test_a_truncated_last_line_still_fails_open(
    runner: CliRunner, vault: Vault, tmp_path: Path
) -> None:
    transcript = write_transcript(tmp_path / "t.jsonl")
    with transcript.open("a") as handle:
        handle.write('{"type": "user", "message": {"role": "user", "content": "Remember th')
    code, out, err = _hook(runner, vault, "stop", _input("Stop", transcript))
    assert code == 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and "line" in err, err


def test_stop_without_a_transcript_path_is_one_line(runner: CliRunner, vault: Vault) -> None:
    code, out, err = _hook(runner, vault, "stop", {"session_id": "s", "hook_event_name": "Stop"})
    assert (code, out) == (0, "") and "no transcript_path" in err
    assert len(err.strip().splitlines()) == 1
