"""The token estimate behind every budget (snippets, context, tool results).

Method, stated so budgets are predictable: each run of word characters costs
ceil(len / 4) tokens, every other non-space character costs 1. This errs high for
English (subword tokenizers average ~4-5 characters per token and whole common
words are one token) and is close for Hebrew and Russian, which tokenizers split
finer. Erring high keeps an agent under its real budget. No tokenizer is loaded.
"""

from __future__ import annotations

import re

# Each run of word characters (str.isalnum() or "_": what \w is) split greedily into
# pieces of up to 4 (ceil(len / 4) of them), and each other non-space character: one
# match per token.
_PIECE = re.compile(r"\w{1,4}|[^\w\s]")


def estimate_tokens(text: str) -> int:
    # Counted by subn, which makes no string per match: ~20% faster than findall's count
    # or a sum over word runs (5.1-5.8 against 6.4-7.3 us a line of the 10k bench vault).
    return _PIECE.subn("", text)[1]


def truncate_to_tokens(text: str, budget: int) -> tuple[str, bool]:
    """The longest prefix of whole lines (then words) within `budget`; and whether it was cut."""
    if estimate_tokens(text) <= budget:
        return text, False
    kept: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        cost = estimate_tokens(line)
        if used + cost > budget:
            words = []
            for word in line.split(" "):
                wc = estimate_tokens(word)
                if used + wc > budget:
                    break
                words.append(word)
                used += wc
            if words:
                kept.append(" ".join(words))
            break
        kept.append(line)
        used += cost
    return "".join(kept), True
