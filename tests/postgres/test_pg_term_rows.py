"""A BM25 term's rows through memctl_term_rows / memctl_window_term_rows (migrations 6 and
9): the rows a plain lookup with the same filters finds, the windows' by index or scan alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg
import pytest

from memctl.index.postgres import words as pgwords
from memctl.index.sync import sync
from tests.postgres.conftest import use_postgres
from tests.search.conftest import FIXTURE, NOW


def test_a_terms_rows_are_those_of_a_plain_lookup_with_the_filters(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("erin", "frank"):
        root = tmp_path / name
        shutil.copytree(FIXTURE / "memory", root / "memory")
        sync(use_postgres(root, name, pg_url, monkeypatch), embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        lexemes = [
            w
            for (w,) in conn.execute(
                "SELECT DISTINCT unnest(tsvector_to_array(words)) AS w FROM chunks "
                "WHERE vault = 'erin' ORDER BY 1"
            )
        ]
        tier, date = conn.execute(
            "SELECT tier, min(date) FROM chunks WHERE vault = 'erin' GROUP BY tier "
            "ORDER BY count(*) DESC LIMIT 1"
        ).fetchone() or ("", "")
        filters: list[tuple[list[str] | None, str | None, str | None]] = [
            (None, None, None),
            (["frank"], None, None),
            (["erin"], tier, None),
            (None, None, date),
        ]
        compared = 0
        for word in lexemes[::3]:
            tsq = pgwords.tsquery([word])
            for vaults, tier_, since in filters:
                args = [vaults, tier_, None, since, None]
                where = (
                    "(%s::text[] IS NULL OR c.vault = ANY(%s::text[])) "
                    "AND (%s::text IS NULL OR c.tier = %s::text) "
                    "AND (%s::text IS NULL OR c.date >= %s::text)"
                )
                where_args = [vaults, vaults, tier_, tier_, since, since]
                for function, plain in (
                    (
                        "memctl_term_rows",
                        "SELECT c.id FROM chunks AS c WHERE c.words @@ %s::tsquery",
                    ),
                    (
                        "memctl_window_term_rows",
                        "SELECT w.id FROM chunk_windows AS w JOIN chunks AS c ON c.id = w.id "
                        "WHERE w.window_words @@ %s::tsquery",
                    ),
                ):
                    expected = {
                        r[0] for r in conn.execute(f"{plain} AND {where}", [tsq, *where_args])
                    }
                    # The windows' function reads through the index or (migration 9) by
                    # a scan: the same rows in the same order.
                    ways: list[list[bool]] = [[]]
                    if function == "memctl_window_term_rows":
                        ways = [[False], [True]]
                    got: list[tuple[list[int], list[int]]] = []
                    for way in ways:
                        marks = ", ".join(["%s"] * (len(way) + 7))
                        call = f"SELECT id FROM {function}({marks})"
                        whole = [r[0] for r in conn.execute(call, [tsq, None, *way, *args])]
                        assert sorted(whole) == sorted(expected), (function, word, args)
                        first = [r[0] for r in conn.execute(call, [tsq, 2, *way, *args])]
                        assert len(first) == min(2, len(expected)) and set(first) <= expected
                        got.append((whole, first))
                    assert all(g == got[0] for g in got), (function, word, args)
                    compared += bool(expected)
        assert compared > 100
