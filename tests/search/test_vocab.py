from __future__ import annotations

from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.search import vocab
from memctl.search.candidates import VOCAB_TABLE, ensure_vocab
from memctl.vault import Vault
from tests.search.conftest import NOW


def test_fold_matches_the_index_tokenizer() -> None:
    assert vocab.fold("Café") == "cafe"
    assert vocab.fold("ПАМЯТЬ") == "память"
    assert vocab.fold("שָׁלוֹם") == "שלום"  # niqqud are combining marks


def test_vocabulary_is_cached_and_grows_with_new_chunks(fixture_copy: Vault) -> None:
    with Store.open(fixture_copy) as store:
        ensure_vocab(store.conn)
        words = vocab.load(store.conn, fixture_copy.state_dir, VOCAB_TABLE)
        assert {"kubernetes", "уведомлений", "השרתים"} <= words.terms
        assert words.closest("kubernetis", 80) == "kubernetes"
        assert words.closest("уведомленй", 80) == "уведомлений"
        assert words.closest("zzzz", 80) is None
    note = fixture_copy.root / "memory" / "daily" / "2026-11-22.md"
    note.write_text("# 2026-11-22\n\n- 08:00 Lighthouse keepers met\n", encoding="utf-8")
    sync(fixture_copy, embed=False, now=NOW)
    with Store.open(fixture_copy) as store:
        grown = vocab.load(store.conn, fixture_copy.state_dir, VOCAB_TABLE)
        assert "lighthouse" in grown.terms and "kubernetes" in grown.terms
        assert (
            (fixture_copy.state_dir / "search-vocab.txt")
            .read_text(encoding="utf-8")
            .startswith(f"{grown.seen_id}\n")
        )
