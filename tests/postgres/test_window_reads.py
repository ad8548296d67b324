"""The PostgreSQL window reads' pure parts: windows merged into stretches, a window's rows
cut from its stretch's, and the common words holding a word (no server needed)."""

from __future__ import annotations

import random

from memctl.index.postgres.reads import _Lexemes
from memctl.index.postgres.window_reads import line_bounds, overlapping, stretches
from memctl.index.usage import ContextRow


def test_windows_of_a_file_that_meet_are_read_as_one_stretch() -> None:
    windows = [
        ("v", "b.md", 10, 20),
        ("v", "a.md", 1, 50),
        ("v", "b.md", 21, 30),  # touches the first: one stretch
        ("v", "b.md", 40, 45),  # apart
        ("w", "b.md", 12, 14),  # another vault's file
        ("v", "b.md", 15, 16),  # inside the first
    ]
    merged, stretch_of = stretches(windows)
    assert merged == [
        ("v", "a.md", 1, 50),
        ("v", "b.md", 10, 30),
        ("v", "b.md", 40, 45),
        ("w", "b.md", 12, 14),
    ]
    assert stretch_of == [1, 0, 1, 2, 3, 1]


def test_a_windows_rows_are_those_of_its_stretch_overlapping_it() -> None:
    rng = random.Random(5)
    for _ in range(300):
        rows, line = [], 1
        for _ in range(rng.randint(0, 8)):
            line += rng.randint(0, 3)
            end = line + rng.randint(0, 3)
            rows.append(ContextRow(line, end, "x"))
            line = end + 1
        if rng.random() < 0.2 and rows:  # a stretch whose ends fall: tested row by row
            rows.insert(0, ContextRow(0, 1000, "long"))
        lo = rng.randint(-2, 30)
        hi = lo + rng.randint(0, 10)
        expected = [r for r in rows if r.line_end >= lo and r.line_start <= hi]
        assert overlapping(rows, lo, hi, line_bounds(rows)) == expected
        assert overlapping(rows, lo, hi, None) == expected


def test_common_words_holding_a_word_sum_to_the_same_float() -> None:
    rng = random.Random(7)
    for _ in range(200):
        common = {
            "".join(rng.choice("abש") for _ in range(rng.randint(1, 6))): rng.random() / 7
            for _ in range(rng.randint(0, 40))
        }
        lexemes = _Lexemes(common)
        for word in ["", "a", "ab", "ש", "bba", "zz", *list(common)[:3]]:
            assert lexemes.share(word) == sum(f for w, f in common.items() if word in w)
    assert _Lexemes.of(common) is _Lexemes.of(common)
