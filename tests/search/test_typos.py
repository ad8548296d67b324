"""One typo rule for the three vocabularies (memctl.lexical.typos): the cached Vocabulary,
SQLite's fts5vocab (correct_typo) and PostgreSQL's lexemes (tests/postgres) all call it."""

from __future__ import annotations

import pytest

from memctl.index.sqlite.lexical import VOCAB_TABLE, correct_typo, ensure_vocab
from memctl.index.store import Store
from memctl.lexical import vocab
from memctl.lexical.typos import nearest_word
from memctl.vault import Vault

# word, two equally near words (the first in code point order wins), a far one.
TIES = [
    ("change", "changed", "changes", "chance-of-rain"),
    ("товар", "товара", "товары", "тарелка"),
    ("בקבוק", "בקבוקה", "בקבוקי", "בית"),
]


@pytest.mark.parametrize(("word", "first", "second", "far"), TIES)
def test_a_tie_goes_to_the_first_word_in_code_point_order_whatever_the_input_order(
    word: str, first: str, second: str, far: str
) -> None:
    assert nearest_word(word, [second, far, first]) == first
    assert nearest_word(word, [far, first, second]) == first
    assert nearest_word(word, {second, first}) == first


@pytest.mark.parametrize(
    ("word", "known", "found"),
    [
        ("kubernetis", ["kubernetes", "jubernetis"], "kubernetes"),  # first letter kept
        ("уведомленй", ["уведомлений", "ведомлений"], "уведомлений"),
        ("השרתם", ["השרתים", "שרתים"], "השרתים"),
        ("deploy", ["deployments-of-the-year"], None),  # too long to be its typo
        ("zzzz", ["kubernetes", "уведомлений", "השרתים"], None),
    ],
)
def test_only_words_with_its_first_letter_and_length_are_near(
    word: str, known: list[str], found: str | None
) -> None:
    assert nearest_word(word, known) == found


def test_the_cached_vocabulary_and_fts5vocab_correct_alike(fixture_copy: Vault) -> None:
    with Store.open(fixture_copy) as store:
        ensure_vocab(store.conn)
        words = vocab.load(store.conn, fixture_copy.state_dir, VOCAB_TABLE)
        for typo in ("kubernetis", "уведомленй", "השרתם", "zzzz"):
            assert words.closest(typo, 80) == correct_typo(store.conn, typo)
        assert correct_typo(store.conn, "kubernetis") == "kubernetes"
