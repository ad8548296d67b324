"""Reading agents' transcripts: what becomes a turn and what is left out."""

from __future__ import annotations

import json

import pytest

from memctl.agent.transcript_formats import (
    CLAUDE_CODE,
    CODEX,
    MESSAGES,
    PLAIN,
    detect_format,
    read_transcript,
)
from memctl.errors import UsageError
from memctl.secrets import strip_private


def _lines(*rows: object) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


def test_claude_code_keeps_what_was_said_and_skips_the_rest() -> None:
    text = _lines(
        {"type": "summary", "summary": "s", "leafUuid": "x"},
        {
            "type": "user",
            "sessionId": "S1",
            "cwd": "/p",
            "uuid": "a",
            "message": {"role": "user", "content": "Запомни: деплой по вторникам"},
        },
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "remember that secret plan"},
                    {"type": "text", "text": "Ок."},
                    {"type": "tool_use", "id": "t", "name": "Bash", "input": {}},
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": "remember that tool output",
                    }
                ],
            },
        },
        {"type": "user", "isSidechain": True, "message": {"role": "user", "content": "sub-agent"}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}},
        {
            "type": "user",
            "message": {"role": "user", "content": "<command-name>/clear</command-name>"},
        },
        {"type": "file-history-snapshot", "snapshot": {}},
        {"type": "something-new", "whatever": 1},
    )
    found = read_transcript(text)
    assert found.format == CLAUDE_CODE and found.session_id == "S1" and found.cwd == "/p"
    assert [(t.role, t.text) for t in found.turns] == [
        ("user", "Запомни: деплой по вторникам"),
        ("assistant", "Ок."),
    ]
    assert found.turns[0].line == 2 and found.turns[0].id == "a"


def test_codex_older_layout() -> None:
    text = _lines(
        {"id": "sess-9", "timestamp": "t", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "hello"}],
        },
        {"type": "reasoning", "summary": []},
    )
    found = read_transcript(text)
    assert found.format == CODEX and found.session_id == "sess-9"
    assert [t.text for t in found.turns] == ["hi", "hello"]


def test_messages_and_plain_text() -> None:
    messages = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "תזכור שהדמו ביום שלישי"},
                {"role": "assistant", "content": [{"type": "text", "text": "רשמתי"}]},
            ]
        }
    )
    assert detect_format(messages) == MESSAGES
    assert [t.role for t in read_transcript(messages).turns] == ["user", "assistant"]
    plain = "User: we decided to use uv\nfor every project\nAssistant: noted\nuser: thanks"
    found = read_transcript(plain)
    assert found.format == PLAIN
    assert [(t.role, t.text) for t in found.turns] == [
        ("user", "we decided to use uv\nfor every project"),
        ("assistant", "noted"),
        ("user", "thanks"),
    ]
    assert read_transcript("just one note").turns[0].role == "user"


@pytest.mark.parametrize(
    "text",
    [
        '{"type": "user", "message": {"role": "user", "content": "x"}}\n{"type": "us',
        '{"type": "assistant", "message": {"role": "assistant"}}',
        '{"type": "user", "message": {"role": "user", "content": 5}}',
        '{"type": "response_item", "payload": {"type": "message", "content": []}}',
        '{"type": "session_meta"}',
        "[1, 2",
        '{"type": "user", "message": "x"}\n[1]',
    ],
)
def test_bad_transcripts_name_the_line(text: str) -> None:
    with pytest.raises(UsageError) as info:
        read_transcript(text, "t.jsonl")
    assert "t.jsonl" in str(info.value) and "\n" not in str(info.value)


def test_strip_private() -> None:
    assert strip_private("a <private>b</private> c <PRIVATE >d</private > e") == (
        "a [private] c [private] e"
    )
    assert strip_private("keep <private>everything\nafter") == "keep [private]"
    assert strip_private("no tags") == "no tags"
