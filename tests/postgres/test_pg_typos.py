"""Both stores correct a query's typo alike (memctl.lexical.typos): the SQLite index's
cached vocabulary and a shared server's `lexemes`, ties included, in three languages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memctl.index.sync import sync
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.postgres.test_pg_sync_search import fixture_on_pg
from tests.search.conftest import NOW

# Each line gives a word two equally near spellings: the first in code point order wins.
TIES = "# 2026-11-22\n\n- 08:00 deployed deployer\n- 09:00 товара товары\n- 10:00 בקבוקה בקבוקי\n"
CORRECTED = {
    "kubernetis": "kubernetes",
    "шифровнаием": "шифрованием",
    "השרתם": "השרתים",
    "deploye": "deployed",
    "товар": "товара",
    "בקבוק": "בקבוקה",
}


def test_both_stores_correct_typos_alike(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite = Vault(tmp_path / "lite")
    shutil.copytree(indexed_fixture.root, lite.root)
    pg = fixture_on_pg(tmp_path, "typos", pg_url, monkeypatch)
    shutil.copy(indexed_fixture.state_dir / "state.db", pg.state_dir / "state.db")
    with Searcher(lite, fresh=False) as searcher:  # its vocabulary cached, as a used vault's is
        searcher.search("kubernetis", k=1, log=False, now=NOW)
    for vault in (lite, pg):
        (vault.root / "memory" / "daily" / "2026-11-22.md").write_text(TIES, encoding="utf-8")
        sync(vault, embed=False, now=NOW)
    found = []
    for vault in (lite, pg):
        with Searcher(vault, fresh=False) as searcher:
            found.append(
                {
                    typo: searcher.candidates.lists(
                        typo, parse_query(typo), Filters(), ("fts",), None, [], 30, 0.3
                    ).plan.corrections.get(typo)
                    for typo in CORRECTED
                }
            )
    assert found == [CORRECTED, CORRECTED]
