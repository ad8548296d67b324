"""The relevance floor's policy (pure) and its calibration."""

from __future__ import annotations

import pytest

from memctl.search import floor as fl
from memctl.search.floor import FloorThresholds, Observed, Question, WeightedTerm


def term(word: str, weight: float) -> WeightedTerm:
    return WeightedTerm(weight, lambda w: w.lower() == word)


def test_idf_weighs_absent_words_most() -> None:
    assert fl.idf(0, 100) > fl.idf(5, 100) > fl.idf(90, 100) > 0


def test_coverage_is_idf_weighted() -> None:
    terms = [term("caroline", 3.0), term("support", 1.0)]
    assert fl.coverage(terms, ["the", "Support", "group"]) == pytest.approx(0.25)
    assert fl.coverage(terms, ["Caroline", "went"]) == pytest.approx(0.75)
    assert fl.coverage(terms, ["caroline", "support"]) == 1.0
    assert fl.coverage([], ["anything"]) == 1.0  # nothing lexical to judge by


def test_evidence_maps_the_cosine_onto_the_coverage_scale() -> None:
    t = FloorThresholds(min_coverage=0.5, min_cosine=0.4)
    assert fl.evidence(0.2, 0.4, t) == pytest.approx(0.5)  # the cosine cleared its bar
    assert fl.evidence(0.2, 0.2, t) == pytest.approx(0.25)
    assert fl.evidence(0.7, 0.1, t) == pytest.approx(0.7)
    assert fl.evidence(0.0, 0.95, t) == 1.0  # capped
    lexical = FloorThresholds(min_coverage=0.5)
    assert fl.evidence(0.2, 0.99, lexical) == pytest.approx(0.2)  # cosine ignored


def test_thresholds_fall_back_to_lexical() -> None:
    table = {
        fl.LEXICAL_ONLY: FloorThresholds(0.6),
        "m": FloorThresholds(0.5, 0.4, 0.7),
    }
    assert fl.thresholds_for("m", table) == FloorThresholds(0.5, 0.4, 0.7)
    assert fl.thresholds_for("unknown", table) == FloorThresholds(0.6)
    assert fl.thresholds_for("m", table, vectors_trusted=False) == FloorThresholds(0.5, None, 0.7)


def test_passes() -> None:
    assert fl.passes(0.5, 0.5) and not fl.passes(0.49, 0.5) and fl.passes(0.0, None)


QUESTIONS = [
    # Own questions: the gold result covers the query well.
    Question(True, (Observed(0.9, 0.6, gold=True), Observed(0.2, 0.2))),
    Question(True, (Observed(0.3, 0.55, gold=True), Observed(0.1, 0.1))),  # paraphrase
    # Foreign questions: common words only, low cosines.
    Question(False, (Observed(0.25, 0.3), Observed(0.2, 0.25), Observed(0.1, 0.2))),
    Question(False, (Observed(0.35, 0.35), Observed(0.3, 0.3))),
]


def test_outcome_counts_foreign_rejections_and_own_losses() -> None:
    strict = fl.outcome(QUESTIONS, FloorThresholds(0.5, 0.5))
    assert strict.foreign_rejected == 1.0 and strict.own_lost == 0.0
    too_strict = fl.outcome(QUESTIONS, FloorThresholds(0.95, 0.9))
    assert too_strict.own_lost == 1.0
    loose = fl.outcome(QUESTIONS, FloorThresholds(0.1, 0.1))
    assert loose.foreign_rejected == 0.0


def test_calibrate_rejects_foreign_without_losing_own() -> None:
    chosen, results = fl.calibrate({"set": QUESTIONS}, max_own_lost=0.0)
    assert results["set"].foreign_rejected == 1.0 and results["set"].own_lost == 0.0
    assert chosen.min_cosine is not None
    assert fl.outcome(QUESTIONS, chosen) == results["set"]
    lexical, lex = fl.calibrate({"set": QUESTIONS}, max_own_lost=0.0, use_cosine=False)
    # Words alone cannot keep the paraphrase (coverage 0.3) and reject 0.35.
    assert lexical.min_cosine is None and lex["set"].foreign_rejected < 1.0


def test_calibrate_holds_the_loss_target_in_every_group() -> None:
    easy = [
        Question(True, (Observed(0.9, None, gold=True),)),
        Question(False, (Observed(0.2, None),) * 2),
    ]
    hard = [
        Question(True, (Observed(0.4, None, gold=True),)),
        Question(False, (Observed(0.45, None),) * 2),
    ]
    chosen, results = fl.calibrate({"easy": easy, "hard": hard}, max_own_lost=0.0, use_cosine=False)
    # A floor above 0.4 would serve "easy" perfectly but lose "hard"'s own gold result.
    assert chosen.min_coverage <= 0.4 and results["hard"].own_lost == 0.0
