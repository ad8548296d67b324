"""Meaning per fact (issue 31 item 1): a question about one bullet of a busy day finds
that day's note by the bullet's own vector, in English, Hebrew and Russian."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from pathlib import Path

import pytest

from memctl.index.backend import open_store
from memctl.index.sync import sync
from memctl.index.unit_embed import UNITS_VERSION
from memctl.index.units import units_of
from memctl.memory import add_note, init_vault
from memctl.search.hybrid import Searcher, SearchResponse
from memctl.search.trace import SearchTrace
from memctl.vault import Vault
from tests.search.bullet_days import add_bullets, bullet_vault

DAY = date(2026, 11, 20)
# One day of unrelated bullets, as `memctl add` writes them, in the three languages.
BULLETS = (
    "Omer finished the label proofs for the rosé, printing on Monday",
    "the forklift battery died again; Dana ordered a replacement from the dealer",
    "ליאת: קבוצה של 22 אורחים מרעננה מגיעה ביום שלישי לטעימה",
    "Ирина: у членов клуба из Ашдода не дошли письма о продлении",
    "the Haifa courier was two hours late with the Jerusalem boxes",
    "Dana moved the team lunch to Thursday at the vineyard",
    "backup of the shop database to the NAS finished, 212 GB",
    "Boris put the festival ticket page with a seat counter on staging",
)
# A paraphrase of one bullet per language, sharing no content word with it.
QUESTIONS = {
    "en": ("size of last night's copy of the online store records", BULLETS[6]),
    "he": ("כמה מבקרים יגיעו מהעיר רעננה", BULLETS[2]),
    "ru": ("какие рассылки не получили участники из Ашдода", BULLETS[3]),
}


@pytest.fixture(scope="module")
def busy_day(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root: Path = tmp_path_factory.mktemp("busy-day")
    vault = bullet_vault(root, [(DAY, BULLETS)])
    # Other notes naming the same people, so a name alone is no answer.
    decisions = vault.root / "memory" / "decisions.md"
    decisions.write_text(
        decisions.read_text(encoding="utf-8")
        + "\n## 2026-10-02 — Dana runs the warehouse budget\n"
        + "Dana signs every warehouse order above 2,000 ILS.\n",
        encoding="utf-8",
    )
    sync(vault, embed=True)
    return vault


def test_the_day_is_one_chunk_of_many_units(busy_day: Vault) -> None:
    text = (busy_day.root / "memory" / "daily" / f"{DAY}.md").read_text(encoding="utf-8")
    assert len(units_of(text)) >= len(BULLETS)
    with open_store(busy_day) as store:
        assert store.units_embedded() == UNITS_VERSION
        hashes = [u.hash for u in units_of(text)]
        assert set(store.cached_vectors(hashes)) == set(hashes)


def vector_scores(searcher: Searcher, question: str, path: str) -> tuple[float, SearchResponse]:
    """The vector list's score of `path`'s chunk (what fusion reads), and the answer."""
    trace = SearchTrace()
    found = searcher.search(question, k=5, log=False, use_floor=False, mode="vector", trace=trace)
    [score] = [v for cid, v in trace.lists["vector"].items() if trace.records[cid].path == path]
    return score, found


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_a_paraphrase_of_one_bullet_finds_its_day_by_the_bullets_vector(
    busy_day: Vault, language: str
) -> None:
    question, bullet = QUESTIONS[language]
    day = f"memory/daily/{DAY}.md"
    with Searcher(busy_day) as searcher:
        by_fact, found = vector_scores(searcher, question, day)
        searcher.settings = dataclasses.replace(searcher.settings, units=False)
        by_chunk, _ = vector_scores(searcher, question, day)
        searcher.settings = dataclasses.replace(searcher.settings, units=True)
        hybrid = searcher.search(question, k=5, log=False)
    # The bullet's own vector is nearer than the day's average of eight facts.
    assert by_fact > by_chunk
    assert found.results[0].path == day
    assert hybrid.results and hybrid.results[0].path == day
    assert bullet.split()[-1] in hybrid.results[0].snippet


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_the_reranker_reads_the_days_window_by_the_bullet_too(
    busy_day: Vault, language: str
) -> None:
    """The reranker's window cosines read the candidate's chunk as its fact nearest the
    question (rerank/windows.fact_mean), not as the average of the day's eight bullets:
    a paraphrase of one bullet judges the day as near as the vector list does."""
    question, _ = QUESTIONS[language]
    day = f"memory/daily/{DAY}.md"
    with Searcher(busy_day) as searcher:
        by_fact, _ = vector_scores(searcher, question, day)
        searcher.settings = dataclasses.replace(searcher.settings, units=False)
        by_chunk, _ = vector_scores(searcher, question, day)
        searcher.settings = dataclasses.replace(searcher.settings, units=True)
        trace = SearchTrace(rerank_features=True)
        searcher.search(question, k=5, log=False, use_floor=False, trace=trace)
    [window] = [w for w in trace.windows.values() if w.path == day]
    assert window.mean_cosine is not None
    assert by_fact > by_chunk + 0.005
    # The day's window is its one chunk: its mean, read by the bullet, is the list's score.
    assert window.mean_cosine == pytest.approx(by_fact, abs=1e-4)


def test_a_kept_searcher_counts_the_chunks_once_until_it_refreshes(
    busy_day: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The wider read asks the index's size (meaning.POOL_MAX_CHUNKS): a count(*) per
    # search unless kept with the other counts of an unchanged index.
    with Searcher(busy_day, fresh=False) as searcher:
        calls: list[int] = []
        count = searcher.store.chunk_count
        monkeypatch.setattr(searcher.store, "chunk_count", lambda: calls.append(1) or count())
        for question, _ in QUESTIONS.values():  # en, he, ru
            assert searcher.search(question, k=5, log=False).results
        assert len(calls) == 1
        searcher.refresh()
        searcher.search(QUESTIONS["he"][0], k=5, log=False)
        assert len(calls) == 2


def _fact_hashes(root: Path) -> list[str]:
    """The hashes of the day's facts (units), as the embedding cache keys them."""
    text = (root / "memory" / "daily" / f"{DAY}.md").read_text(encoding="utf-8")
    return [u.hash for u in units_of(text)]


def test_units_off_embeds_no_fact_and_turned_on_backfills_them(tmp_path: Path) -> None:
    init_vault(tmp_path)
    (tmp_path / ".memctl.toml").write_text("[search]\nunits = false\n", encoding="utf-8")
    vault = Vault(tmp_path)
    add_bullets(vault, DAY, BULLETS[:4])  # English, Hebrew and Russian bullets
    sync(vault, embed=True)
    hashes = _fact_hashes(tmp_path)
    with open_store(vault) as store:
        assert store.pending_count() == 0
        assert not store.cached_vectors(hashes)
        assert store.units_embedded() != UNITS_VERSION
    (tmp_path / ".memctl.toml").write_text("[search]\nunits = true\n", encoding="utf-8")
    sync(Vault(tmp_path), embed=True)
    with open_store(vault) as store:
        assert set(store.cached_vectors(hashes)) == set(hashes)
        assert store.units_embedded() == UNITS_VERSION


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_past_the_lift_limit_no_fact_is_read_and_the_list_is_units_offs(
    busy_day: Vault, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A large index reads no fact's vector (meaning.LIFT_MAX_CHUNKS): each is a cold page
    # of a large state.db, and there the lift found next to nothing. Stood in for by a
    # limit below this vault's size.
    from memctl.search.rank import meaning

    question, _ = QUESTIONS[language]
    day = f"memory/daily/{DAY}.md"
    with Searcher(busy_day, fresh=False) as searcher:
        searcher.settings = dataclasses.replace(searcher.settings, units=False)
        by_chunk, _ = vector_scores(searcher, question, day)
        searcher.settings = dataclasses.replace(searcher.settings, units=True)
        by_fact, _ = vector_scores(searcher, question, day)
        reads: list[int] = []
        cached = searcher.store.cached_vectors
        monkeypatch.setattr(
            searcher.store, "cached_vectors", lambda hashes: reads.append(1) or cached(hashes)
        )
        monkeypatch.setattr(meaning, "LIFT_MAX_CHUNKS", searcher.store.chunk_count() - 1)
        past, _ = vector_scores(searcher, question, day)
    assert by_fact > by_chunk  # below the limit the fact lifts the day
    assert past == by_chunk
    assert not reads


def test_an_index_past_the_limit_embeds_no_fact_and_back_under_it_backfills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memctl.index import unit_embed

    init_vault(tmp_path)
    vault = Vault(tmp_path)
    add_bullets(vault, DAY, BULLETS[:4])  # English, Hebrew and Russian bullets
    monkeypatch.setattr(unit_embed, "UNITS_MAX_CHUNKS", 0)  # stands in for 20,000
    sync(vault, embed=True)
    hashes = _fact_hashes(tmp_path)
    with open_store(vault) as store:
        assert store.pending_count() == 0
        assert not store.cached_vectors(hashes)
        assert store.units_embedded() == unit_embed.UNITS_PAST
    monkeypatch.setattr(unit_embed, "UNITS_MAX_CHUNKS", 20_000)
    add_note(vault, BULLETS[4], day=DAY, at=datetime(2026, 11, 20, 9, 4))
    sync(vault, embed=True)
    hashes = _fact_hashes(tmp_path)
    with open_store(vault) as store:
        assert set(store.cached_vectors(hashes)) == set(hashes)
        assert store.units_embedded() == UNITS_VERSION
