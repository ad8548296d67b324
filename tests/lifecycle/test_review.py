"""LLM review of core.md additions: approve, reject, malformed answers and no key."""

from __future__ import annotations

from memctl.config import Settings
from memctl.lifecycle.review import review_candidate, review_core_addition
from memctl.llm import NO_KEY_NOTICE, get_llm
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message


def _llm(api: ScriptedAPI):  # type: ignore[no-untyped-def]
    return get_llm(fast_settings(), client=api.client())


def test_no_llm_means_unreviewed_proposal() -> None:
    review = review_core_addition(Settings(), "Identity", "Меня зовут Дана", llm=None)
    assert review.status == "unreviewed" and review.reason == NO_KEY_NOTICE


def test_approved_addition_carries_section_and_line() -> None:
    api = ScriptedAPI(
        [
            tool_message(
                {"approve": True, "reason": "durable", "section": "Identity", "line": "- שמי דנה"}
            )
        ]
    )
    review = review_core_addition(
        Settings(), "Identity", "שמי דנה", llm=_llm(api), core_text="# Core"
    )
    assert (review.status, review.section, review.line) == ("approved", "Identity", "שמי דנה")
    assert api.requests[0]["tools"][0]["input_schema"]["properties"]["section"]["enum"] == list(
        Settings().hot.sections
    )


def test_rejected_candidate() -> None:
    api = ScriptedAPI(
        [
            tool_message(
                {
                    "approve": False,
                    "reason": "shell command",
                    "section": "Active project",
                    "line": "",
                }
            )
        ]
    )
    review = review_candidate(
        _llm(api),
        Settings(),
        text="- 10:00 ran `rm -rf build`",
        path="memory/daily/2026-11-20.md",
        references=5,
        window_days=7,
        section_hint="Active project",
    )
    assert review.status == "rejected" and review.reason == "shell command"


def test_malformed_or_failing_review_is_a_rejection() -> None:
    bad_section = tool_message({"approve": True, "reason": "ok", "section": "Hobbies", "line": "x"})
    for replies in ([bad_section], [500, 500, 500]):
        review = review_core_addition(Settings(), "Identity", "x", llm=_llm(ScriptedAPI(replies)))
        assert review.status == "rejected" and "treated as a rejection" in review.reason


def test_approval_without_a_line_is_rejected() -> None:
    api = ScriptedAPI(
        [tool_message({"approve": True, "reason": "ok", "section": "Identity", "line": " - "})]
    )
    assert review_core_addition(Settings(), "Identity", "x", llm=_llm(api)).status == "rejected"
