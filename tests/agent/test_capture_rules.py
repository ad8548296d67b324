"""The pure gates and helpers of auto-capture."""

from __future__ import annotations

import json

import pytest

from memctl.agent.capture_rules import (
    bullet_items,
    clip_transcript,
    conversation_text,
    memory_items,
    remove_block,
    validation_reason,
)
from memctl.tokens import estimate_tokens


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("thanks!", "filler"),
        ("Спасибо", "filler"),
        ("תודה", "filler"),
        ("ok", "filler"),
        ("uses Postgres", "too short to stand alone"),
        ("I'm looking at the logs right now", "transient state"),
        ("Сейчас я проверяю логи деплоя", "transient state"),
        ("כרגע אני בודק את הלוגים", "transient state"),
        ("", "empty"),
    ],
)
def test_validation_drops_filler_and_transient(text: str, reason: str) -> None:
    assert validation_reason(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "The DNS provider is Cloudflare",
        "Пользователь предпочитает короткие ответы",
        "המשתמש מעדיף תשובות קצרות",
    ],
)
def test_validation_keeps_durable_facts(text: str) -> None:
    assert validation_reason(text) is None
    assert validation_reason(text, durable=False) == "transient (marked by the extractor)"


def test_conversation_text_reads_messages_json_and_plain_text() -> None:
    messages = [
        {"role": "user", "content": "Мы используем Cloudflare"},
        {"role": "assistant", "content": [{"type": "text", "text": "noted"}]},
    ]
    text = conversation_text(json.dumps(messages, ensure_ascii=False))
    assert "USER: Мы используем Cloudflare" in text and "ASSISTANT: noted" in text
    assert conversation_text(json.dumps({"messages": messages})).startswith("USER:")
    assert conversation_text("user: hi\nbot: hello") == "user: hi\nbot: hello"
    assert conversation_text("[not json") == "[not json"


def test_clip_transcript_keeps_the_most_recent_part() -> None:
    text = "".join(f"line {i} " + "word " * 20 + "\n" for i in range(500))
    clipped, cut = clip_transcript(text, 1000)
    assert cut and estimate_tokens(clipped) <= 1000
    assert clipped.endswith("line 499 " + "word " * 20 + "\n")
    assert clip_transcript("short", 1000) == ("short", False)


def test_memory_items_bullets_and_decisions() -> None:
    daily = "# 2026-11-20\n\n- 09:00 first\n  continued\n- 10:00 second\n\nprose\n"
    assert bullet_items(daily) == [(3, 4, "- 09:00 first\n  continued"), (5, 5, "- 10:00 second")]
    decisions = "# Decisions\n\n## 2026-11-02 — Use SQLite\n\none file\n\n## 2026-11-03 — B\n\nb\n"
    items = memory_items("memory/decisions.md", "decision", decisions)
    assert [(i.line_start, i.line_end) for i in items] == [(3, 5), (7, 9)]
    assert items[0].importance == 0.7
    assert items[0].id == "memory/decisions.md:3"


def test_remove_block_removes_one_exact_occurrence_or_reports_gone() -> None:
    text = "# D\n\n## 2026-11-02 — A\n\nbody\n\n## 2026-11-03 — B\n\nb\n"
    after = remove_block(text, "## 2026-11-02 — A\n\nbody")
    assert after == "# D\n\n## 2026-11-03 — B\n\nb\n"
    assert remove_block(text, "## 2026-11-02 — A\n\nedited") is None
    daily = "# d\n\n- 09:00 שלום\n- 10:00 мир\n"
    assert remove_block(daily, "- 09:00 שלום") == "# d\n\n- 10:00 мир\n"


def test_front_matter_importance_overrides_the_source_default() -> None:
    text = "---\nimportance: 0.9\n---\n# Pinned\n\n- Клиенты в Израиле получают счета на иврите\n"
    [item] = memory_items("memory/archive/pinned.md", "archive", text)
    assert item.importance == 0.9 and item.line_start == 6
    [plain] = memory_items("memory/archive/a.md", "archive", "- some archived fact here\n")
    assert plain.importance == 0.4
