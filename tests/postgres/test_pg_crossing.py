"""Names across scripts on a real PostgreSQL server as on SQLite (crossing_keys.py, migration
11): the same crossings in English, Hebrew and Russian, keyed when a word enters the
vocabulary, never another vault's word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from memctl.index.postgres import crossing_keys
from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.search.trace import SearchTrace
from memctl.vault import Vault
from tests.postgres.conftest import use_postgres
from tests.search.conftest import NOW
from tests.search.test_crossing import NOTES

QUERIES = {
    "Что решил Борис насчёт Постгреса?": {"борис": ["boris"], "постгреса": ["postgres"]},
    "מה החליט בוריס?": {"בוריס": ["boris"]},
    "How do we reach Perlman?": {"perlman": ["פרלמן"]},
    # Ordinary words of each language cross nothing.
    "Что пишут в магазине про систему?": {},
    "מה נדרש מהספק הפרטי?": {},
    "What do the magazine's writers think?": {},
}


def _write(root: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _searched(vault: Vault, query: str) -> tuple[dict[str, list[str]], list[str]]:
    trace = SearchTrace()
    with Searcher(vault, fresh=False) as searcher:
        out = searcher.search(query, k=3, log=False, now=NOW, mode="lexical", trace=trace)
    assert trace.plan is not None
    return trace.plan.crossings, [r.path for r in out.results]


def test_names_cross_alike_on_both_backends(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite = Vault(_write(tmp_path / "lite", NOTES))
    sync(lite, embed=False, now=NOW)
    pg = use_postgres(_write(tmp_path / "pg", NOTES), "names", pg_url, monkeypatch)
    sync(pg, embed=False, now=NOW)
    for query, crossed in QUERIES.items():
        on_pg = _searched(pg, query)
        assert on_pg[0] == crossed, query
        assert on_pg == _searched(lite, query), query


def test_a_word_is_keyed_when_it_enters_the_vocabulary_and_by_the_migration(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pg = use_postgres(_write(tmp_path / "pg", NOTES), "names", pg_url, monkeypatch)
    sync(pg, embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        kept = _keys(conn)
        assert {("brs", "en", "boris"), ("prlmn", "he", "פרלמן")} <= kept
        assert not any(word == "the" for _, _, word in kept)  # a key of one consonant
        # A database migrated from before the table: its vocabulary keyed then.
        conn.execute("DROP TABLE lexeme_keys")
        with conn.transaction():
            crossing_keys.migration(conn, 384)
        assert _keys(conn) == kept
    # A later note's new word, keyed by the writer that brings it.
    _write(tmp_path / "pg", {"memory/archive/later.md": "# Later\n\n- Ветропак прислал счёт.\n"})
    sync(pg, embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert ("btrpk", "ru", "ветропак") in _keys(conn)
    assert _searched(pg, "What did Vetropack send?")[0] == {"vetropack": ["ветропак"]}


def _keys(conn: psycopg.Connection[Any]) -> set[tuple[str, str, str]]:
    return {
        (str(key), str(script), str(word))
        for key, script, word in conn.execute("SELECT key, script, word FROM lexeme_keys")
    }


def test_another_vaults_name_never_crosses(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The team's vocabulary holds Boris (another vault's); this vault has no such name.
    other = use_postgres(_write(tmp_path / "other", NOTES), "other", pg_url, monkeypatch)
    sync(other, embed=False, now=NOW)
    mine = use_postgres(
        _write(tmp_path / "mine", {"memory/archive/a.md": "# A\n\n- Решили сменить склад.\n"}),
        "mine",
        pg_url,
        monkeypatch,
    )
    sync(mine, embed=False, now=NOW)
    assert _searched(mine, "Что решил Борис?")[0] == {}
    assert _searched(other, "Что решил Борис?")[0] == {"борис": ["boris"]}
