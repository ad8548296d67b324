"""Capture by rule on hand-labelled conversations: precision and recall floors, per part."""

from __future__ import annotations

import json

import pytest

from memctl.agent.transcript_formats import read_transcript
from memctl.agent.transcript_rules import find_memories, language
from memctl.agent.transcript_values import stems, values
from tests.agent.transcript_fixture import CONVERSATIONS, turn_count

PRECISION_FLOOR, RECALL_FLOOR = 0.9, 0.7


def claude_code_jsonl(turns: list[tuple[str, str, object]], session: str) -> str:
    """The conversation as Claude Code writes it (assistant text in blocks, a tool call too)."""
    rows: list[dict[str, object]] = [{"type": "summary", "summary": "x", "leafUuid": "0"}]
    for i, (role, text, _) in enumerate(turns):
        if role == "user":
            message: dict[str, object] = {"role": "user", "content": text}
        else:
            blocks = [
                {"type": "text", "text": text},
                {
                    "type": "tool_use",
                    "id": f"t{i}",
                    "name": "Bash",
                    "input": {"command": "remember that nothing"},
                },
            ]
            message = {"role": "assistant", "content": blocks}
        rows.append({"type": role, "sessionId": session, "uuid": f"u{i}", "message": message})
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"


def score(part: str) -> tuple[float, float, list[str]]:
    kept = correct = expected = found = 0
    misses: list[str] = []
    for n, conv in enumerate(c for c in CONVERSATIONS if c["part"] == part):
        transcript = read_transcript(claude_code_jsonl(conv["turns"], f"s{n}"))
        assert len(transcript.turns) == len(conv["turns"])
        hits = find_memories(transcript.turns, conv["known"])
        kept += len(hits)
        matched: set[tuple[int, str]] = set()
        for hit in hits:
            labels = conv["turns"][hit.turn][2] or []
            good = [k for k in labels if k.casefold() in hit.text.casefold()]
            if good:
                correct += 1
                matched.update((hit.turn, k) for k in good)
            else:
                misses.append(f"kept, not labelled: {hit.text!r} ({hit.rule})")
        for i, (_, text, labels) in enumerate(conv["turns"]):
            for key in labels or []:
                expected += 1
                if (i, key) in matched:
                    found += 1
                else:
                    misses.append(f"missed {key!r} in {text!r}")
    return correct / max(kept, 1), found / max(expected, 1), misses


def test_the_fixture_is_big_enough_and_in_three_languages() -> None:
    assert turn_count() >= 60
    langs = {language(t) for c in CONVERSATIONS for _, t, _ in c["turns"]}
    assert langs == {"en", "ru", "he"}
    held = sum(len(c["turns"]) for c in CONVERSATIONS if c["part"] == "holdout")
    assert held >= turn_count() / 3 - 5


@pytest.mark.parametrize("part", ["dev", "holdout"])
def test_precision_and_recall_floors(part: str) -> None:
    precision, recall, misses = score(part)
    print(f"{part}: precision {precision:.2f}, recall {recall:.2f}")
    for miss in misses:
        print("  ", miss)
    assert precision >= PRECISION_FLOOR, misses
    assert recall >= RECALL_FLOOR, misses


def test_hebrew_prefixes_and_russian_endings_meet() -> None:
    assert stems("והשרת") & stems("שרת")
    assert stems("порту сервера") & stems("порт сервер")
    assert values("the port is now 5433, see ops/deploy.sh") == {"5433", "ops/deploy.sh"}
