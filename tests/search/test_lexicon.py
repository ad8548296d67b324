"""Ordinary words are not typos: the corrector leaves a word of the query's language alone
unless the vault only holds it with another ending (memctl.lexical.lexicon, plan.inflects)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.lexical import lexicon
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import build_plan, inflects
from memctl.search.hybrid import Searcher
from memctl.search.trace import SearchTrace
from memctl.vault import Vault
from tests.search.conftest import NOW


@pytest.mark.parametrize(
    ("word", "common"),
    [
        ("much", True),
        ("Guests", True),
        ("botles", False),
        ("meilisearh", False),
        ("памяти", True),
        ("каробки", False),
        ("ёлка", True),  # folded like the index: ёлка → елка
        ("שלנו", True),
        ("אבוטבל", False),
        ("GC-213", False),
        ("rtl2", False),
    ],
)
def test_common_words_of_three_languages(word: str, common: bool) -> None:
    assert lexicon.is_common(word) is common


def test_the_word_lists_are_kept_in_the_users_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    lexicon.words_of.cache_clear()
    try:
        assert "much" in lexicon.words_of("en")
        kept = list((tmp_path / "memctl" / "lexicon").glob("en-*.txt"))
        assert len(kept) == 1 and "much" in kept[0].read_text(encoding="utf-8").split()
        # A list in the cache is read as it is: the same words again, nothing derived.
        kept[0].write_text("much\nzzyzx\n", encoding="utf-8")
        lexicon.words_of.cache_clear()
        assert lexicon.words_of("en") == frozenset({"much", "zzyzx"})
    finally:
        lexicon.words_of.cache_clear()


@pytest.mark.parametrize(
    ("word", "fixed", "allowed"),
    [
        ("hour", "hours", True),
        ("change", "changed", True),
        ("товар", "товаров", True),
        ("בקבוקים", "בקבוקי", True),
        ("much", "munich", False),
        ("guests", "gets", False),
        ("памяти", "пяти", False),
        ("ביותר", "ביקור", False),
        ("once", "one", False),  # the shorter word is too short to be the stem
    ],
)
def test_an_ordinary_word_may_only_change_its_ending(word: str, fixed: str, allowed: bool) -> None:
    assert inflects(word, fixed) is allowed


def _plan(query: str, vocabulary: dict[str, str], common: set[str]) -> dict[str, str]:
    known = set(vocabulary.values())
    plan = build_plan(
        parse_query(query),
        100,
        df=lambda words: {w: (3 if w in known else 0) for w in words},
        stem_df=lambda stem: 0,
        correct=lambda word: vocabulary.get(word),
        exact_df=lambda words: {w: 3 for w in words},
        is_common=lambda word: word in common,
    )
    return plan.corrections


def test_the_plan_corrects_typos_but_not_ordinary_words() -> None:
    vocabulary = {"much": "munich", "botles": "bottles", "hour": "hours"}
    common = {"much", "hour"}
    assert _plan("how much for the botles per hour", vocabulary, common) == {
        "botles": "bottles",
        "hour": "hours",
    }


def test_reach_is_the_share_of_query_words_the_index_holds() -> None:
    query = parse_query("advertising budget weekend festival")
    plan = build_plan(
        query,
        100,
        df=lambda words: {w: (2 if w in {"weekend", "festival"} else 0) for w in words},
        stem_df=lambda stem: 0,
        correct=lambda word: None,
        exact_df=lambda words: {w: 2 for w in words},
    )
    assert plan.reach(query.content_terms) == pytest.approx(0.5)
    assert plan.reach(()) == 1.0


NOTES = {
    "memory/archive/trips.md": "# Trips\n\n- The Munich fair sends us two buyers in May.\n"
    "- Пяти поставщиков хватит на сезон.\n- ביקור של הספק מחיפה נדחה.\n",
}


@pytest.mark.parametrize(
    ("query", "ordinary", "typo", "fixed"),
    [
        ("how much should the munih fair cost", "much", "munih", "munich"),
        ("сколько памяти нужно поставщикв", "памяти", "поставщикв", "поставщиков"),
        ("מה הכי חשוב לנו ביותר בביקר", "ביותר", "בביקר", "ביקור"),
    ],
)
def test_a_search_corrects_typos_but_not_ordinary_words(
    vault: Vault, query: str, ordinary: str, typo: str, fixed: str
) -> None:
    for rel, text in NOTES.items():
        path = vault.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    trace = SearchTrace()
    with Searcher(vault) as searcher:
        searcher.search(query, k=5, log=False, now=NOW, mode="lexical", trace=trace)
    assert trace.plan is not None
    assert ordinary not in trace.plan.corrections
    assert trace.plan.corrections.get(typo) == fixed


@pytest.mark.parametrize(
    "query", ["kubernetes zebrafish", "השרתים תפוזים", "уведомлений апельсины"]
)
def test_word_lists_weigh_less_when_half_the_query_is_unknown_to_the_vault(
    indexed_fixture: Vault, query: str
) -> None:
    with Searcher(indexed_fixture, fresh=False) as searcher:
        whole = searcher.search(query.split()[0], k=1, log=False, now=NOW, explain=True)
        half = searcher.search(query, k=1, log=False, now=NOW, explain=True)
    assert whole.results and half.results
    assert whole.results[0].explain and half.results[0].explain
    full, scaled = whole.results[0].explain["weights"], half.results[0].explain["weights"]
    assert scaled["fts"] == pytest.approx(full["fts"] * 0.25)
    assert scaled["vector"] == full["vector"]
