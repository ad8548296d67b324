"""The tool result cap: stable JSON within a token budget, with an explicit notice."""

from __future__ import annotations

import json
from typing import Any

from memctl.tokens import estimate_tokens, truncate_to_tokens


def dumps(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


_LIST_FIELDS = ("results", "items")
_TEXT_FIELDS = ("snippet", "text")


def cap_result(result: dict[str, Any], budget: int) -> dict[str, Any]:
    """The result within `budget` tokens of JSON: trailing entries dropped, then the last
    entry's text cut; a `truncated` object says what was left out and how to get it."""
    if estimate_tokens(dumps(result)) <= budget:
        return result
    capped: dict[str, Any] = json.loads(dumps(result))
    list_key = next((k for k in _LIST_FIELDS if isinstance(capped.get(k), list)), None)
    total = len(capped[list_key]) if list_key else 0
    capped["truncated"] = {}

    def note(shown: int, cut_text: bool) -> None:
        capped["truncated"] = {
            "budget_tokens": budget,
            "shown": shown,
            "total": total,
            "notice": (
                f"result truncated to fit {budget} tokens: {shown} of {total} entries shown"
                + ("; the last entry's text is cut" if cut_text else "")
                + "; narrow the query, lower k, or load a specific day"
            ),
        }

    if list_key:
        entries = capped[list_key]
        note(len(entries), False)
        while len(entries) > 1 and estimate_tokens(dumps(capped)) > budget:
            entries.pop()
            note(len(entries), False)
        if entries and estimate_tokens(dumps(capped)) > budget:
            entry = entries[-1]
            field = next((f for f in _TEXT_FIELDS if isinstance(entry.get(f), str)), None)
            if field:
                note(len(entries), True)
                entry[field] = ""
                room = budget - estimate_tokens(dumps(capped))
                # JSON escaping (quotes, newlines) costs tokens the estimate of raw text
                # does not see; shrink until the serialised whole fits.
                while room > 0:
                    cut, _ = truncate_to_tokens(result[list_key][len(entries) - 1][field], room)
                    entry[field] = cut
                    if estimate_tokens(dumps(capped)) <= budget:
                        break
                    room = int(room * 0.8) - 1
                    entry[field] = ""
        if estimate_tokens(dumps(capped)) <= budget:
            return capped
    # Nothing list-shaped left to cut (or the budget is absurdly small): keep only the
    # envelope so the model still learns the call worked and was cut.
    return {
        "ok": result.get("ok", True),
        "tool": result.get("tool"),
        "truncated": {
            "budget_tokens": budget,
            "shown": 0,
            "total": total,
            "notice": f"result of about {estimate_tokens(dumps(result))} tokens does not "
            f"fit {budget} tokens; nothing shown; narrow the request",
        },
    }
