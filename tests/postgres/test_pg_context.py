"""The snippets' context rows on PostgreSQL: only those a snippet can reach, the same snippets."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

from memctl.index.backend import open_store
from memctl.index.postgres.context import SPACES
from memctl.index.sync import sync
from memctl.search.matcher import Matcher
from memctl.search.present import CONTEXT_LINES, largest_budget, snippet_lines
from memctl.search.snippets import best_snippet
from memctl.tokens import estimate_tokens
from tests.postgres.conftest import use_postgres
from tests.search.conftest import FIXTURE, NOW

DAY = "memory/daily/2026-11-21.md"


def test_spaces_are_what_python_calls_whitespace() -> None:
    """The least cost counts every other character: SPACES must hold them all."""
    assert set(SPACES) == {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}


def _running_log(seed: int) -> str:
    """A day of short and long entries, with marks, Unicode spaces and blank-ish lines."""
    rng = random.Random(seed)
    words = ["deploy", "rollback", "kubernetes", "a", "ok", "x_y", "über", "שלום", "привет"]
    gaps = [" ", "  ", "\t", "\u00a0", "\u2003", "\u3000"]
    parts = ["# 2026-11-21", ""]
    for n in range(60):
        parts.append(f"## Entry {n}")
        parts.append("")
        for _ in range(rng.choice([1, 1, 2, 3, 6])):
            count = rng.choice([1, 3, 8, 30, 90])
            line = "".join(rng.choice(words) + rng.choice(gaps) for _ in range(count))
            parts.append(
                rng.choice(["- ", "", "    ", "!!! "]) + line + rng.choice(["", ".", " — ;"])
            )
        parts.append("")
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("seed", [1, 2])
def test_context_rows_cut_to_the_budget_make_the_same_snippets(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    root = tmp_path / "alice"
    shutil.copytree(FIXTURE / "memory", root / "memory")
    (root / DAY).write_text(_running_log(seed), encoding="utf-8")
    vault = use_postgres(root, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    matcher = Matcher(exact=frozenset({"rollback", "kubernetes", "привет"}))
    fewer = 0
    with open_store(vault) as store:
        chunks = store.context_rows("alice", DAY, 1, 10_000)
        assert len(chunks) > 40
        records = store.chunks_by_ids(
            [r.id for r in store.chunks_by_ids(store.chunk_ids()) if r.path == DAY]
        )
        assert {r.source for r in records} == {"daily"}
        windows = [
            ("alice", DAY, max(r.line_start - CONTEXT_LINES, 1), r.line_end + CONTEXT_LINES)
            for r in records
        ]
        whole = store.context_windows(windows)
        assert whole == [store.context_rows(*w) for w in windows]
        for reach in (5, 20, 60, largest_budget(200, None)):
            cut = store.context_windows(windows, reach, [r.line_start for r in records])
            for record, window, every, some in zip(records, windows, whole, cut, strict=True):
                assert set(some) <= set(every) and any(r[0] == record.line_start for r in some)
                fewer += len(some) < len(every)
                for budget in {1, reach // 2, reach}:
                    made = []
                    for rows in (every, some):
                        lines, first, core = snippet_lines(store, record, {window: rows})
                        made.append(best_snippet(lines, first, matcher, budget, core=core))
                    assert (made[0].text, made[0].line_start, made[0].line_end) == (
                        made[1].text,
                        made[1].line_start,
                        made[1].line_end,
                    ), (record.line_start, reach, budget)
    assert fewer > len(records)  # rows were left out, not just kept
    assert estimate_tokens(_running_log(seed)) > 2000
