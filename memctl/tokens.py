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

# An ASCII character's class as the pattern sees it (found by the pattern itself): "a" a
# word character, " " a space, "." any other (one token each).
_CLASS = (
    bytes(
        ord("a")
        if re.fullmatch(r"\w", chr(b))
        else ord(" ")
        if re.fullmatch(r"\s", chr(b))
        else ord(".")
        for b in range(128)
    )
    + b"." * 128
)
# The classes with the marks as spaces: only the word runs left.
_RUNS = bytes.maketrans(b".", b" ")


def estimate_tokens(text: str) -> int:
    if not text.isascii():
        # Counted by subn, which makes no string per match: ~20% faster than findall's
        # count or a sum over word runs.
        return _PIECE.subn("", text)[1]
    # ASCII text (nearly every line of a vault in English) by whole-string operations in C
    # rather than a regex match per token: ~3.5 times as fast on a ~400-character line.
    # A run of n word characters costs ceil(n / 4) = 1 + floor((n - 1) / 4): one for its
    # start (" a"), and one per four characters after it (non-overlapping "aaaa" once the
    # start is marked "b").
    classes = text.encode("ascii").translate(_CLASS)
    runs = b" " + classes.translate(_RUNS)
    return classes.count(b".") + runs.count(b" a") + runs.replace(b" a", b" b").count(b"aaaa")


# ASCII word characters kept, every other character a space: `words`' table.
_WORDS_ONLY = bytes(b if re.fullmatch(r"\w", chr(b)) else ord(" ") for b in range(128)) + b" " * 128
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The runs of word characters (`\\w+`'s matches, in order): for ASCII text (nearly
    every line of a vault in English) by a translation and a split in C, ~3 times as fast
    as the regex on a ~400-character line."""
    if text.isascii():
        return text.encode("ascii").translate(_WORDS_ONLY).decode("ascii").split()
    return _WORD.findall(text)


# ASCII whitespace (str.split's, as the token pattern's \\s): what `least_tokens` drops.
_SPACES = bytes(b for b in range(128) if chr(b).isspace())


def least_tokens(text: str) -> int:
    """A bound estimate_tokens never falls below: a token holds at most 4 of the text's
    non-space characters, so it costs at least a quarter of them (rounded up)."""
    if text.isascii():
        shown = len(text.encode("ascii").translate(None, _SPACES))
    else:
        shown = sum(map(len, text.split()))
    return (shown + 3) // 4


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
