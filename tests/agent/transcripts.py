"""Agent transcripts written from their documented formats, in English, Russian and Hebrew."""

from __future__ import annotations

import json
from pathlib import Path

FACTS = [
    "Remember that the staging database listens on port 5433.",
    "Запомни, что резервные копии хранятся в S3 каждую ночь.",
    "תזכור שהשרת של הצוות נמצא בתל אביב.",
]


def write_transcript(path: Path, session: str = "e2e-session") -> Path:
    """A Claude Code transcript (JSON Lines) as its documented format has it."""
    lines: list[dict[str, object]] = [{"type": "summary", "summary": "setup", "leafUuid": "x"}]
    for n, fact in enumerate(FACTS):
        lines.append(
            {
                "type": "user",
                "sessionId": session,
                "uuid": f"u{n}",
                "timestamp": f"2026-11-28T05:0{n}:00Z",
                "cwd": str(path.parent),
                "message": {"role": "user", "content": fact},
            }
        )
        lines.append(
            {
                "type": "assistant",
                "sessionId": session,
                "uuid": f"a{n}",
                "timestamp": f"2026-11-28T05:0{n}:30Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Noted."},
                        {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {}},
                    ],
                },
            }
        )
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return path


def write_codex_session(path: Path, session: str = "codex-e2e") -> Path:
    """A Codex CLI session rollout (`{timestamp, type, payload}` lines)."""
    lines: list[dict[str, object]] = [
        {
            "timestamp": "2026-11-28T05:00:00Z",
            "type": "session_meta",
            "payload": {
                "id": session,
                "cwd": str(path.parent),
                "timestamp": "2026-11-28T05:00:00Z",
            },
        }
    ]
    for n, fact in enumerate(FACTS):
        for role, kind, text in (
            ("user", "input_text", fact),
            ("assistant", "output_text", "Noted."),
        ):
            lines.append(
                {
                    "timestamp": f"2026-11-28T05:0{n}:00Z",
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": role,
                        "content": [{"type": kind, "text": text}],
                    },
                }
            )
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines))
    return path
