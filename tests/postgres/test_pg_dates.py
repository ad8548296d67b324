"""The dates a query says, on a real PostgreSQL server as on SQLite: the same date ranges,
the same results in the same order (the ranged lists are each backend's own SQL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.postgres.conftest import use_postgres
from tests.search.dated_vault import NOW, write_vault
from tests.search.test_search_dates import CASES

QUERIES = [
    *(question for question, _ in CASES),
    "what did we do yesterday?",
    "что было вчера?",
    "Kartli Coaches buses in July",
]


def test_dates_rank_alike_on_both_backends(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite = Vault(write_vault(tmp_path / "lite"))
    sync(lite, embed=True, now=NOW)
    pg = use_postgres(write_vault(tmp_path / "pg"), "dates", pg_url, monkeypatch)
    # SQLite's embedding cache: the server gets the same vectors without the model.
    (pg.state_dir).mkdir(parents=True, exist_ok=True)
    (pg.state_dir / "state.db").write_bytes((lite.state_dir / "state.db").read_bytes())
    sync(pg, embed=True, now=NOW)
    with Searcher(lite, fresh=False) as a, Searcher(pg, fresh=False) as b:
        for text in QUERIES:
            # The floor's missing-words gate is SQLite-only (calibrated there): off here.
            x = a.search(text, k=3, log=False, now=NOW, use_floor=False)
            y = b.search(text, k=3, log=False, now=NOW, use_floor=False)
            assert x.dates is not None and x.dates == y.dates, text
            assert [(r.path, r.line_start) for r in x.results] == [
                (r.path, r.line_start) for r in y.results
            ], text
    gold = dict(CASES)
    with Searcher(pg, fresh=False) as b:
        for question, path in gold.items():
            assert b.search(question, log=False, now=NOW).results[0].path == f"memory/{path}"
