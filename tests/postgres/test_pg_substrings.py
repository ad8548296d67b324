"""The substring list on PostgreSQL: lookups the vocabulary shows to find nothing are not run."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg
import pytest

from memctl.index.backend import open_store
from memctl.index.postgres.store import PgStore
from memctl.index.postgres.substrings import statement, through_words, unheld
from memctl.index.sync import sync
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters, LexicalPlan
from memctl.lexical.vocab import fold
from memctl.search.hybrid import Searcher
from tests.postgres.conftest import use_postgres
from tests.search.conftest import FIXTURE, NOW


def test_a_word_no_vocabulary_word_holds_is_in_no_text(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`unheld` names exactly the answerable words ILIKE finds in no chunk: every piece of
    the fixture's words, capitalised, and each with two letters swapped (typos)."""
    root = tmp_path / "alice"
    shutil.copytree(FIXTURE / "memory", root / "memory")
    vault = use_postgres(root, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    with psycopg.connect(pg_url) as conn:
        texts = [t for (t,) in conn.execute("SELECT text FROM chunks WHERE vault = 'alice'")]
    tokens = sorted({w for t in texts for w in t.split() if w.isalpha() and len(w) >= 4})[:300]
    words: set[str] = set()
    for token in tokens:
        words |= {token[i : i + 4] for i in range(len(token) - 3)}
        words |= {token.capitalize(), token[1] + token[0] + token[2:], token[::-1]}
    words |= {"clasimnpnu", "Deploy", "kubernetes_x", "über", "rollback.md", "ab"}
    store = open_store(vault)
    assert isinstance(store, PgStore)
    with store:
        found = unheld(store, sorted(words))
        again = unheld(store, sorted(words))  # the held ones now from the store's memory
    lowered = [t.lower() for t in texts]
    absent = {w for w in words if not any(fold(w) in t for t in lowered)}
    assert found == again and found <= absent
    # Those not answered from the vocabulary: identifiers, diacritics, no trigram.
    assert absent - found == {w for w in absent if w in ("kubernetes_x", "über", "rollback.md")}
    assert "clasimnpnu" in found and len(found) > 100


def test_a_typo_searches_alike_with_its_lookup_left_out(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A query with a word found nowhere ranks as on SQLite (its substring lookups empty)."""
    root = tmp_path / "bob"
    shutil.copytree(FIXTURE / "memory", root / "memory")
    vault = use_postgres(root, "bob", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    with Searcher(vault, fresh=False) as s:
        typo = s.search("deplyo rollbakc qzxv", k=5, log=False, now=NOW, mode="lexical")
        store = s.store
        assert isinstance(store, PgStore)
        assert unheld(store, ["deplyo", "rollbakc", "qzxv"]) == {"deplyo", "rollbakc", "qzxv"}
    assert typo.results  # the corrections' lookups still run


def test_lookups_through_the_vocabulary_give_the_rows_of_the_trigram_index(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memctl_substrings_held` and `memctl_substrings_scanned` (a scan testing the words
    first) return `memctl_substrings`' rows in the same order, for pieces of the fixture's
    words, typos, several patterns, unanswerable ones, filters."""
    for name in ("carol", "dave"):
        root = tmp_path / name
        shutil.copytree(FIXTURE / "memory", root / "memory")
        sync(use_postgres(root, name, pg_url, monkeypatch), embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        texts = [t for (t,) in conn.execute("SELECT text FROM chunks WHERE vault = 'carol'")]

        def rows(
            function: str, words: list[str], vaults: list[str] | None, lim: int, narrow: int = 0
        ) -> list[int]:
            likes = [f"%{w}%" for w in words]
            folded = [
                f"%{fold(w)}%" if w.isalnum() and fold(w) == w.lower() else None for w in words
            ]
            args: list[object] = [likes, *([folded] if function.endswith(("held", "ned")) else [])]
            if function.endswith("held"):
                # The first `narrow` words (all with 0) find the rows, the others are tested.
                args.append([i < (narrow or len(words)) for i in range(len(words))])
            marks = ", ".join(["%s"] * (len(args) + 6))
            return [
                r[0]
                for r in conn.execute(
                    f"SELECT id FROM {function}({marks})",
                    [*args, vaults, None, None, None, None, lim],
                )
            ]

        tokens = sorted({w for t in texts for w in t.split() if w.isalpha() and len(w) >= 5})
        cases: list[list[str]] = [[t[1:5]] for t in tokens[:80]] + [
            [t.upper()] for t in tokens[:20]
        ]
        cases += [[t[1] + t[0] + t[2:]] for t in tokens[:40]]  # typos
        cases += [[a[:4], b[-4:]] for a, b in zip(tokens[:30], tokens[30:60], strict=False)]
        cases += [["deploy", "roll.back"], ["über"], ["the"], ["clasimnpnu", "deploy"]]
        cases += [[a[:5], b[1:5], a[-4:]] for a, b in zip(tokens[::7], tokens[3::7], strict=False)]
        compared = 0
        for words in cases:
            for vaults, lim in ((None, 1000), (["dave"], 1000), (None, 3)):
                expected = rows("memctl_substrings", words, vaults, lim)
                assert rows("memctl_substrings_held", words, vaults, lim) == expected, words
                if len(words) > 1:
                    held = rows("memctl_substrings_held", words, vaults, lim, narrow=1)
                    assert held == expected, words
                assert rows("memctl_substrings_scanned", words, vaults, lim) == expected, words
                compared += bool(expected)
        assert compared > 100


def test_only_words_of_two_trigrams_or_more_go_through_the_words_index() -> None:
    """A three-letter word's one trigram list is exactly its rows: it stays there. In the
    all-words lookup only a rare word's holders narrow the rows."""
    assert not through_words("wxv", 0.0, True) and not through_words("ab", 0.0, True)
    assert through_words("wxvq", 0.02, True) and through_words("Deploy", 0.5, True)
    assert through_words("שלום", 0.0, False) and not through_words("wxvq", 0.02, False)
    assert not through_words("kubernetes_x", 0.0, True) and not through_words("über", 0.0, True)


def test_the_words_that_find_the_rows_are_tested_last() -> None:
    """ILIKE ALL stops at a row's first missing pattern: in a lookup through a rare word's
    holders the common word's pattern goes first, the arrays kept parallel."""
    query = parse_query("ggdrx zxqkloqihm")
    shares = {"ggdrx": 0.05, "zxqkloqihm": 0.0001}
    sql, args = statement(
        query,
        LexicalPlan(),
        ["ggdrx", "zxqkloqihm"],
        (Filters(), ["v"]),
        "true",
        [],
        30,
        lambda w: shares[w],
    )
    assert "memctl_substrings_held" in sql
    assert args[:3] == [["%ggdrx%", "%zxqkloqihm%"], ["%ggdrx%", "%zxqkloqihm%"], [False, True]]
    sql, args = statement(
        query,
        LexicalPlan(),
        ["zxqkloqihm", "ggdrx"],
        (Filters(), ["v"]),
        "true",
        [],
        30,
        lambda w: shares[w],
    )
    assert args[:3] == [["%ggdrx%", "%zxqkloqihm%"], ["%ggdrx%", "%zxqkloqihm%"], [False, True]]
