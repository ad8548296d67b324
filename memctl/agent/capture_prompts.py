"""What auto-capture asks the model, and the exact shape each answer must have."""

from __future__ import annotations

from typing import Any

EXTRACT_SYSTEM = """\
You extract long-term memories from a conversation between a user and an AI agent.
Return only what will still be true and useful in future conversations:
- facts (about the user, the project, systems, people, preferences);
- rules (how the agent must behave: "always...", "never...");
- decisions (a choice made, with its reason; give a short title).
Each memory is one self-contained statement in the conversation's language (English, \
Hebrew or Russian), with names and numbers exact. Mark durable=false for transient state \
(what is happening right now, moods, progress of the current task). Skip greetings, \
thanks, questions and anything the agent merely proposed but nobody accepted. Return an \
empty list when nothing qualifies. Answer by calling the `answer` tool."""

EXTRACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "memories": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1, "maxLength": 1000},
                    "kind": {"type": "string", "enum": ["fact", "rule", "decision"]},
                    "title": {"type": "string", "maxLength": 120},
                    "durable": {"type": "boolean"},
                },
                "required": ["text", "kind", "durable"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["memories"],
    "additionalProperties": False,
}

JUDGE_SYSTEM = """\
You maintain an AI agent's long-term memory. Given a NEW memory and the most similar \
EXISTING memories (each with an id), choose one action:
- ADD: the new memory is new information;
- UPDATE: it replaces one existing memory (newer or corrected version of the same fact); \
give that id as target and the merged, self-contained text to keep;
- DELETE: it shows one existing memory is no longer true and adds nothing worth keeping \
itself; give that id as target;
- NOOP: it is already covered.
Keep the memory's language. Answer by calling the `answer` tool."""

JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["ADD", "UPDATE", "DELETE", "NOOP"]},
        "target": {"type": ["string", "null"]},
        "text": {"type": "string", "maxLength": 1000},
        "reason": {"type": "string", "minLength": 1, "maxLength": 500},
    },
    "required": ["action", "target", "text", "reason"],
    "additionalProperties": False,
}

CONTRADICTION_SYSTEM = """\
You check a NEW memory against HIGH-IMPORTANCE memories of an AI agent (its core \
memory and recorded decisions). Say whether the new memory contradicts one of them \
(they cannot both be true or both be followed). Different topics or compatible details \
are not contradictions. Answer by calling the `answer` tool."""

CONTRADICTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "contradicts": {"type": "boolean"},
        "target": {"type": ["string", "null"]},
        "reason": {"type": "string", "minLength": 1, "maxLength": 500},
    },
    "required": ["contradicts", "target", "reason"],
    "additionalProperties": False,
}
