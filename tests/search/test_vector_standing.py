"""The reranker reads how far a note found by one of its facts stands out of the vector
list (rank/meaning.standing, rerank/model.rerank; issue 31 item 1: "a strong vector match is
never buried by weak word matches"): the measure itself, its place in the model's score, and
English paraphrases on the vault-shaped set that hybrid mode ranked below vector mode."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest

from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.search.rank.meaning import Fact, standing
from memctl.search.rerank.lines import speaker
from memctl.search.rerank.model import FEATURES, Model, rerank
from memctl.vault import Vault
from tools.vaultset import build as vs

TODAY = dt.date(2026, 11, 29)
NOW = dt.datetime(2026, 11, 29, 12, 0)
VECTOR = np.zeros(3, dtype=np.float32)


def fact(body: str, cosine: float, unit: bool = True) -> tuple[Fact, ...]:
    return (Fact(body, VECTOR, cosine, unit),)


# One fact per language: the measure reads cosines, whatever the script of the fact.
FACTS = {
    1: fact("- 09:45 Gil: the accountant's fee goes up to 1,900 ₪ a month", 0.83),
    2: fact("- 11:00 ליאת: הזוג מצפת ביטל את החתונה, המקדמה לא מוחזרת", 0.82),
    3: fact("- 12:20 Ирина: клуб на русском — 186 членов, в прошлом месяце ушли 4", 0.81),
    4: fact("## 2026-07-02 — No deliveries to Eilat in summer", 0.80, unit=False),
}


def test_standing_is_the_height_above_the_median_as_a_share_of_the_best() -> None:
    cosines = {1: 0.83, 2: 0.82, 3: 0.81, 4: 0.80, 5: 0.79}
    stands = standing(cosines, FACTS)
    # Median 0.81: the best stands 1, the Hebrew fact half as high, the Russian at 0.
    assert stands[1] == pytest.approx(1.0)
    assert stands[2] == pytest.approx(0.5)
    assert stands[3] == pytest.approx(0.0)
    # A chunk that is one fact (a decision, a conversation's turn) and a candidate whose
    # facts were not read are judged by the model's own features only.
    assert 4 not in stands and 5 not in stands


def test_a_list_too_short_or_too_flat_says_nothing() -> None:
    assert standing({1: 0.83, 2: 0.82}, FACTS) == {}
    assert standing({1: 0.8, 2: 0.8, 3: 0.8}, FACTS) == {}


def test_the_standing_is_added_to_the_models_score() -> None:
    n = len(FEATURES)
    model = Model(FEATURES, (0.0,) * n, (1.0,) * n, (0.0,) * n, -2.0, 30)
    rows = {1: [0.0] * n, 2: [0.0] * n}
    plain = rerank(model, rows)
    assert plain == rerank(model, rows, {1: 1.0}, 0.0) == rerank(model, rows, None, 1.0)
    lifted = rerank(model, rows, {1: 1.0, 2: 0.5}, 1.0)
    assert lifted[1] == pytest.approx(1 / (1 + math.exp(2.0 - 1.0)))
    assert lifted[2] == pytest.approx(1 / (1 + math.exp(2.0 - 0.5)))
    assert lifted[1] > lifted[2] > plain[2]


@pytest.fixture(scope="module")
def vaultset(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    out = tmp_path_factory.mktemp("standing")
    vs.build(out, TODAY)
    vault = Vault(out / "vault")
    sync(vault, embed=True, now=NOW)
    return vault


# English paraphrases (none of the set's questions) of one bullet of a busy day: the
# vectors rank its day 1st or 2nd; hybrid mode ranked it one lower, under days holding a
# few of the question's words ("more", "books", "cost").
PARAPHRASES = (
    ("What did the bookkeeper say about charging us more?", "accountant's fee"),
    ("How much will the person who does our books cost from now on?", "accountant's fee"),
)


def _rank(searcher: Searcher, question: str, phrase: str, mode: str) -> int:
    response = searcher.search(question, k=5, log=False, use_floor=False, mode=mode, now=NOW)
    ranks = [i for i, r in enumerate(response.results, 1) if phrase in r.snippet]
    assert ranks, f"{phrase!r} not in the top 5 of {mode} mode"
    return ranks[0]


@pytest.mark.parametrize(("question", "phrase"), PARAPHRASES)
def test_hybrid_ranks_a_paraphrase_no_lower_than_vector_mode(
    vaultset: Vault, question: str, phrase: str
) -> None:
    with Searcher(vaultset) as searcher:
        vector = _rank(searcher, question, phrase, "vector")
        hybrid = _rank(searcher, question, phrase, "hybrid")
    assert vector <= 2
    assert hybrid <= vector


@pytest.mark.parametrize(
    ("line", "who"),
    [
        ("- **Nate:** I won my first video game tournament last week", "nate"),
        ("- **דנה:** הזמנתי את המשאית ליום שלישי", "דנה"),
        ("- **Ирина:** экскурсия перенесена на пятницу", "ирина"),
        ("- 09:45 Gil: the accountant's fee goes up to 1,900 ₪ a month", None),
        ("- 11:00 ליאת: הזוג מצפת ביטל את החתונה", None),
        ("- 12:20 Ирина: клуб на русском — 186 членов", None),
    ],
)
def test_a_conversations_turn_is_told_from_a_note_of_facts(line: str, who: str | None) -> None:
    # A turn (`**Name:**`) is left to the model's window features, which were trained on
    # conversations; a bullet naming who said it is a fact like any other.
    assert speaker(line) == who
