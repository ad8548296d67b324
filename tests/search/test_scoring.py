from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime
from math import prod

import pytest

from memctl.search.rank.diversity import mmr, text_similarity
from memctl.search.rank.scoring import (
    Policy,
    Signals,
    Weights,
    composite,
    composite_product,
    fuse_rrf,
    fuse_weighted,
    normalise,
    recency,
    record_factors,
)

NOW = datetime(2026, 11, 22, 9, 30)
POLICY = Policy()


def signals(**kw: object) -> Signals:
    base = dict(
        source="daily",
        day=None,
        text="",
        importance=0.5,
        access_count=0,
        tags=(),
        returned_recently=False,
    )
    base.update(kw)
    return Signals(**base)  # type: ignore[arg-type]


def test_normalise_min_max_with_a_floor() -> None:
    assert normalise({1: 4.0, 2: 2.0, 3: 3.0}, floor=0.2) == {1: 1.0, 2: 0.2, 3: pytest.approx(0.6)}
    assert normalise({}) == {}
    assert normalise({1: 0.0}) == {1: 1.0}


def test_weighted_fusion_sums_contributions() -> None:
    fused = fuse_weighted({"fts": {1: 2.0, 2: 1.0}, "vector": {2: 0.8}}, Weights(), floor=0.5)
    assert fused[1] == {"fts": pytest.approx(0.4)}
    assert sum(fused[2].values()) == pytest.approx(0.4 * 0.5 + 0.4)


def test_rrf_rewards_agreement() -> None:
    fused = fuse_rrf({"fts": {1: 9.0, 2: 1.0}, "vector": {2: 0.9, 3: 0.1}}, Weights(), k=60)
    totals = {key: sum(parts.values()) for key, parts in fused.items()}
    assert totals[2] > totals[1] > totals[3]


def test_dated_notes_decay_but_core_and_decisions_in_force_do_not() -> None:
    old, fresh = date(2025, 3, 1), date(2026, 11, 18)
    assert (
        recency("daily", fresh, NOW, POLICY)
        > recency("daily", old, NOW, POLICY)
        >= POLICY.recency_floor
    )
    assert recency("core", old, NOW, POLICY) == 1.0
    assert recency("decision", old, NOW, POLICY) == 1.0
    assert recency("decision", old, NOW, POLICY, "Superseded by the 2026 plan") < 1.0


def test_half_life() -> None:
    day = date(2026, 11, 8)  # 14 days before NOW
    expected = POLICY.recency_floor + (1 - POLICY.recency_floor) * 0.5
    assert recency("daily", day, NOW, POLICY) == pytest.approx(expected)


def test_fresh_note_outranks_stale_one_of_equal_relevance() -> None:
    fresh, _ = composite(0.8, signals(day=date(2026, 11, 18)), [], NOW, POLICY)
    stale, _ = composite(0.8, signals(source="archive", day=date(2025, 3, 1)), [], NOW, POLICY)
    assert fresh > stale


def test_tag_boost_is_ten_percent_per_matching_word() -> None:
    plain, _ = composite(1.0, signals(), ["flaky", "test"], NOW, POLICY)
    tagged, f = composite(1.0, signals(tags=("flaky", "ci")), ["flaky", "test"], NOW, POLICY)
    assert tagged / plain == pytest.approx(1.1)
    assert f["tags"] == pytest.approx(1.1)


def test_usage_boost_is_small_and_capped() -> None:
    used, _ = composite(1.0, signals(access_count=5), [], NOW, POLICY)
    heavy, _ = composite(1.0, signals(access_count=10_000), [], NOW, POLICY)
    assert 1.0 < used < heavy <= POLICY.access_cap


def test_recently_returned_chunk_is_penalised() -> None:
    again, _ = composite(1.0, signals(returned_recently=True), [], NOW, POLICY)
    assert again == pytest.approx(POLICY.recent_penalty)


def test_importance_orders_otherwise_equal_chunks() -> None:
    high, _ = composite(1.0, signals(importance=1.0), [], NOW, POLICY)
    low, _ = composite(1.0, signals(importance=0.0), [], NOW, POLICY)
    assert high > low


def test_mmr_skips_near_duplicates() -> None:
    texts = {1: "deploy the api today", 2: "deploy the api today", 3: "budget meeting with yael"}
    scores = {1: 1.0, 2: 0.99, 3: 0.5}
    picked = mmr([1, 2, 3], scores, lambda a, b: text_similarity(texts[a], texts[b]), 2, POLICY)
    assert picked == [1, 3]


def test_mmr_never_drops_evidence_for_noise() -> None:
    """Issue 31: a daily note recording the deploy a query names (a tenth of the best
    score, half its words shared with the best result: the same people, the same
    times) was dropped for results scoring 0.004 and 0.000."""
    texts = {
        1: "- 09:10 Eitan: checkout page fixed, Dana checked it on mobile\n"
        "- 11:30 Eitan: booking emails to Dana for review",
        2: "- 09:10 Eitan deployed build 7f3c9e2 to prod: checkout page on mobile\n"
        "- 11:30 Dana: booking emails reviewed",
        3: "- 14:00 רוני: הדיסק בשרת מלא",
        4: "- 16:40 Дима: трансфер из аэропорта",
        5: "Office plants are watered on Sundays",
    }
    scores = {1: 0.9, 2: 0.09, 3: 0.004, 4: 0.0, 5: 0.0}
    similarity = lambda a, b: text_similarity(texts[a], texts[b])  # noqa: E731
    assert similarity(1, 2) > 0.5
    assert mmr(list(scores), scores, similarity, 3, POLICY) == [1, 2, 3]
    # Redundancy still orders near-equals: a note saying much the same as the first
    # result gives way to a different one with most of its score.
    texts[3], scores[3] = "Quarterly VAT report filed on time", 0.08
    assert mmr(list(scores), scores, similarity, 3, POLICY) == [1, 3, 2]


# The case in Hebrew and Russian daily notes: the best result and the note
# recording the deploy the query names share the people and the times.
DEPLOY_DAYS = {
    "he": (
        "- 09:10 איתן: דף התשלום תוקן, דנה בדקה אותו בנייד\n"
        "- 11:30 איתן: מיילי ההזמנה נשלחו לדנה לבדיקה",
        "- 09:10 איתן העלה את גרסה 7f3c9e2 לייצור: דף התשלום בנייד\n"
        "- 11:30 דנה: מיילי ההזמנה נבדקו",
    ),
    "ru": (
        "- 09:10 Эйтан: страницу оплаты починили, Дана проверила её на телефоне\n"
        "- 11:30 Эйтан: письма о бронировании отправлены Дане на проверку",
        "- 09:10 Эйтан выкатил сборку 7f3c9e2 в прод: страница оплаты на телефоне\n"
        "- 11:30 Дана: письма о бронировании проверены",
    ),
}


@pytest.mark.parametrize("lang", sorted(DEPLOY_DAYS))
def test_mmr_never_drops_the_deploy_note_for_noise_in_hebrew_and_russian(lang: str) -> None:
    best, deploy = DEPLOY_DAYS[lang]
    texts = {
        1: best,
        2: deploy,
        3: "- 14:00 Roni: the server disk is full",
        4: "- 16:40 Дима: трансфер из аэропорта"
        if lang == "he"
        else "- 16:40 רוני: הסעה משדה התעופה",
        5: "Office plants are watered on Sundays",
    }
    scores = {1: 0.9, 2: 0.09, 3: 0.004, 4: 0.0, 5: 0.0}
    similarity = lambda a, b: text_similarity(texts[a], texts[b])  # noqa: E731
    assert similarity(1, 2) > 0.4  # the same people and times: redundancy is real
    assert mmr(list(scores), scores, similarity, 3, POLICY) == [1, 2, 3]
    # Nothing is passed over for a result with a small fraction of its score, at any k.
    for k in range(2, 6):
        assert mmr(list(scores), scores, similarity, k, POLICY)[:2] == [1, 2]


def test_text_similarity_bounds() -> None:
    assert text_similarity("a b", "a b") == 1.0
    assert text_similarity("a", "b") == 0.0
    assert text_similarity("", "b") == 0.0


def test_english_only_model_gets_less_say_on_hebrew_and_russian_queries() -> None:
    from memctl.search.rank.scoring import weights_for

    model = "sentence-transformers/all-MiniLM-L6-v2"
    assert weights_for(Weights(), "deploy checklist", model) == Weights()
    assert weights_for(Weights(), "תקציב שרתים", model).vector == pytest.approx(0.1)
    assert weights_for(Weights(), "утечка памяти in prod", model).vector == pytest.approx(0.1)
    assert weights_for(Weights(), "утечка памяти", "intfloat/multilingual-e5-small") == Weights()
    assert weights_for(Weights(), "утечка памяти", "intfloat/multilingual-e5-small-q4") == Weights()
    assert weights_for(Weights(), "утечка памяти", "BAAI/bge-small-en-v1.5-int8").vector < 0.4


def test_context_boost_adds_the_best_following_neighbour_of_the_same_file() -> None:
    from memctl.search.rank.scoring import Placed, context_boost

    placed = {
        1: Placed("memory/daily/2026-11-20.md", 10, 11),  # followed by 2 within 12 lines
        2: Placed("memory/daily/2026-11-20.md", 14, 15),
        3: Placed("memory/daily/2026-11-20.md", 40, 41),  # too far below 2
        4: Placed("memory/daily/2026-11-21.md", 12, 13),  # another file
    }
    relevance = {1: 0.2, 2: 0.9, 3: 0.5, 4: 0.3, 5: 0.4}  # 5: not a running log
    policy = Policy(context_weight=0.3, context_lines=12)
    boosted = context_boost(relevance, placed, policy)
    assert boosted[1] == pytest.approx(0.2 + 0.3 * 0.9)
    assert boosted[2] == pytest.approx(0.9)  # only lines after a chunk count
    assert boosted[3] == pytest.approx(0.5)
    assert boosted[4] == pytest.approx(0.3)
    assert boosted[5] == pytest.approx(0.4)
    assert context_boost(relevance, placed, Policy(context_weight=0.0)) == relevance


def test_context_boost_takes_the_best_neighbour_not_the_sum() -> None:
    from memctl.search.rank.scoring import Placed, context_boost

    placed = {i: Placed("memory/archive/ru.md", 3 * i, 3 * i + 1) for i in range(1, 5)}
    relevance = {1: 0.1, 2: 0.5, 3: 0.5, 4: 0.5}
    boosted = context_boost(relevance, placed, Policy(context_weight=0.3, context_lines=12))
    assert boosted[1] == pytest.approx(0.1 + 0.3 * 0.5)


@pytest.mark.parametrize("recent", [False, True])
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"day": date(2026, 10, 1), "importance": 0.9, "access_count": 7},
        {"tags": ("#sqlite", "db"), "day": date(2026, 11, 20), "importance": 0.13},
        {"tags": ("misc",), "day": date(2026, 9, 3), "access_count": 2},  # tags, no hit
        {"source": "decision", "text": "superseded by the new plan", "day": date(2025, 1, 2)},
    ],
)
def test_composite_product_is_composite_s_score_and_factors_product(
    kw: dict[str, object], recent: bool
) -> None:
    plain = signals(**kw)
    fixed = record_factors(plain, NOW, POLICY)
    words = ["sqlite", "why"]
    value, factors = composite(
        0.3717, replace(plain, returned_recently=recent), words, NOW, POLICY, fixed
    )
    assert composite_product(0.3717, plain, words, POLICY, fixed, recent) == (
        value,
        prod(factors.values()),
    )


def test_best_first_is_the_order_of_falling_score_then_rising_id() -> None:
    import random

    from memctl.search.rank.scoring import best_first

    rng = random.Random(5)
    for _ in range(200):
        scores = {rng.randrange(500): rng.choice([0.5, 0.25, rng.random()]) for _ in range(40)}
        assert best_first(scores) == sorted(scores, key=lambda i: (-scores[i], i))
    assert best_first({}) == []


def test_word_lists_count_as_far_as_the_vault_holds_the_query_words() -> None:
    from memctl.search.rank.scoring import weights_for

    model = "intfloat/multilingual-e5-small-q4"
    assert weights_for(Weights(), "deploy checklist", model, reach=1.0) == Weights()
    half = weights_for(Weights(), "deploy checklist", model, reach=0.5)
    assert half.fts == pytest.approx(0.1) and half.trigram == pytest.approx(0.05)
    assert half.vector == Weights().vector  # never raised: the floor reads it
    assert weights_for(Weights(), "x", model, reach=0.5, reach_power=1.0).fts == pytest.approx(0.2)


def test_a_word_mark_counts_as_far_as_its_candidate_holds_the_question() -> None:
    from memctl.search.rank.scoring import covered

    fused = {
        1: {"fts": 0.4, "trigram": 0.2, "window": 0.4, "vector": 0.1},  # one word of ten
        2: {"fts": 0.1, "vector": 0.4},  # the best holds under half the question
        3: {"vector": 0.3},  # in no word list: no cover read
        4: {"fts": 0.3},  # none of the weighed words found: nothing to judge by
    }
    out = covered(fused, {1: 0.1, 2: 0.4, 4: 0.0}, full=0.5)
    assert out[1]["fts"] == pytest.approx(0.08) and out[1]["trigram"] == pytest.approx(0.04)
    # The window list is earned by the lines after the chunk, the vector by its meaning.
    assert out[1]["window"] == 0.4 and out[1]["vector"] == 0.1
    assert out[2]["fts"] == pytest.approx(0.08) and out[2]["vector"] == 0.4
    assert out[3] == fused[3] and out[4] == fused[4]
    # A note holding half the question's weight: the words found it, nothing changes.
    assert covered(fused, {1: 0.1, 2: 0.5}, full=0.5) == fused
    assert covered(fused, {1: 0.1}, full=0.0) == fused
