"""Word counts behind the lexical plan: capped where only "common or not" matters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memctl.index.sqlite import lexical as cand
from memctl.index.sqlite.substring_list import TrigramMemory, _held_by_all, trigram_candidates
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.lexical import vocab
from memctl.lexical.parse import parse_query, quote
from memctl.vault import Vault
from tests.search.conftest import NOW


@pytest.fixture
def conn(vault: Vault) -> Iterator[Any]:
    """50 archive sections: "alpha" in all, "zulu" in 10, "deployment"/"deployed" in 3 each."""
    parts = []
    for i in range(50):
        words = ["alpha", f"w{i}x"]
        if i % 5 == 0:
            words.append("zulu")
        if i < 3:
            words.append("deployment")
        if 3 <= i < 6:
            words.append("deployed")
        parts.append(f"## Section {i}\n\n{' '.join(words)} notes\n")
    archive = Path(vault.root) / "memory" / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    (archive / "notes.md").write_text("\n".join(parts), encoding="utf-8")
    sync(vault, embed=False, now=NOW)
    with Store.open(vault) as store:
        cand.ensure_vocab(store.conn)
        yield store.conn


def test_capped_counts_agree_below_the_cap_and_stop_above_it(conn: Any) -> None:
    exact = cand.doc_freqs(conn, ["alpha", "zulu", "nowhere"])
    assert exact == {"alpha": 50, "zulu": 10, "nowhere": 0}
    assert cand.doc_freqs(conn, ["alpha", "zulu", "nowhere"], cap=20) == {
        "alpha": 21,
        "zulu": 10,
        "nowhere": 0,
    }


def test_prefix_counts_from_cached_terms_match_fts5vocab(conn: Any, vault: Vault) -> None:
    words = vocab.load(conn, vault.state_dir, cand.VOCAB_TABLE)
    terms = words.with_prefix("deploy")
    assert terms == ["deployed", "deployment"]
    assert words.with_prefix("deployz") == []
    assert cand.prefix_freq(conn, "deploy", 100, terms) == 6
    assert cand.prefix_freq(conn, "deploy", 100) == 6
    assert cand.prefix_freq(conn, "deploy", 4, terms) > 4  # stops once past the cap


def test_when_every_word_is_common_the_truly_rarest_is_kept(
    conn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Capped counts would tie here (both above the cap); the plan must not pick by name.
    monkeypatch.setattr(cand, "COMMON_MIN_ROWS", 1)
    plan = cand.plan_lexical(conn, parse_query("alpha zulu"), 0.02)
    assert plan.all_common
    assert plan.forms == ["zulu"] and plan.dropped == ["alpha"]


def test_common_words_are_dropped_and_rare_ones_kept(
    conn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cand, "COMMON_MIN_ROWS", 1)
    plan = cand.plan_lexical(conn, parse_query("alpha w7x"), 0.1)  # limit: 5 rows
    assert plan.forms == ["w7x"] and plan.dropped == ["alpha"] and not plan.all_common
    query = parse_query("alpha w5x zulu")
    plan = cand.plan_lexical(conn, query, 0.3)  # limit: 15 rows
    assert plan.dropped == ["alpha"]
    # The coordinate lookup leaves "alpha" out; rapidfuzz still scores every word.
    found = trigram_candidates(conn, query, plan, cand.Filters(), 5)
    best = max(found, key=lambda i: found[i])
    text = conn.execute("SELECT text FROM chunks WHERE id = ?", (best,)).fetchone()[0]
    assert "alpha w5x zulu" in text and found[best] == 1.0


def _coordinate_sql(conn: Any, words: list[str], limit: int) -> list[int]:
    expression = " AND ".join(quote(w) for w in words)
    rows = conn.execute(
        "SELECT t.rowid FROM chunks_trigram AS t JOIN chunks AS c ON c.id = t.rowid "
        "WHERE chunks_trigram MATCH ? AND 1 LIMIT ?",
        (expression, limit),
    )
    return [int(r) for (r,) in rows]


def test_the_coordinate_lookup_is_read_from_a_whole_lookup_as_its_match_would(conn: Any) -> None:
    def lookup_at(limit: int) -> Any:
        return lambda expression: _coordinate_sql(conn, [expression[1:-1]], limit)

    for words in (["ALPHA", "Zulu"], ["zulu", "w5x"], ["zulu", "w7x"], ["ulu", "lph"]):
        held = _held_by_all(conn, words, lookup_at(20), 20, TrigramMemory())
        assert held is not None  # "zulu" (10 rows) comes back whole below 20
        assert held == _coordinate_sql(conn, words, 20)
    # No word's lookup came back whole, or a word the substring test may fold differently.
    assert _held_by_all(conn, ["alpha", "zulu"], lookup_at(5), 5, TrigramMemory()) is None
    assert _held_by_all(conn, ["zulu", "naïve"], lookup_at(20), 20, TrigramMemory()) is None
