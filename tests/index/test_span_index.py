from __future__ import annotations

import random

from memctl.index.window_spans import SpanIndex


def plain(rows: list[tuple[int, int, int]], lo: int, hi: int) -> list[int]:
    return [cid for cid, start, end in rows if end >= lo and start <= hi]


def test_a_windows_spans_are_those_every_row_test_finds() -> None:
    """Ids in line order (bisection) and out of it (a re-indexed middle: each row tested)
    give the same ids, in id order, for windows inside, across and outside the file."""
    rng = random.Random(3)
    ordered = [(10 + i, 1 + 4 * i, 3 + 4 * i) for i in range(40)]
    touching = [(1, 1, 5), (2, 5, 9), (3, 9, 9), (4, 10, 20)]
    shuffled = [(cid, s, e) for cid, (_, s, e) in enumerate(rng.sample(ordered, 40), start=1)]
    for rows in (ordered, touching, shuffled, []):
        index = SpanIndex(rows)
        for _ in range(300):
            lo = rng.randint(-5, 170)
            hi = lo + rng.randint(0, 30)
            assert index.overlapping(lo, hi) == plain(rows, lo, hi)
    assert SpanIndex(shuffled).starts is None and SpanIndex(ordered).starts is not None
