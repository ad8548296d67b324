"""The relevance floor's policy (pure) and its calibration."""

from __future__ import annotations

import math
import re

import pytest

from memctl.search.floor import rule as fl
from memctl.search.floor.rule import FloorThresholds, WeightedTerm
from tools import floor_fit as ff
from tools import floor_learn
from tools.floor_fit import Observed, Question


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
    strict = ff.outcome(QUESTIONS, FloorThresholds(0.5, 0.5))
    assert strict.foreign_rejected == 1.0 and strict.own_lost == 0.0
    too_strict = ff.outcome(QUESTIONS, FloorThresholds(0.95, 0.9))
    assert too_strict.own_lost == 1.0
    loose = ff.outcome(QUESTIONS, FloorThresholds(0.1, 0.1))
    assert loose.foreign_rejected == 0.0


def test_calibrate_rejects_foreign_without_losing_own() -> None:
    chosen, results = ff.calibrate({"set": QUESTIONS}, max_own_lost=0.0)
    assert results["set"].foreign_rejected == 1.0 and results["set"].own_lost == 0.0
    assert chosen.min_cosine is not None
    assert ff.outcome(QUESTIONS, chosen) == results["set"]
    lexical, lex = ff.calibrate({"set": QUESTIONS}, max_own_lost=0.0, use_cosine=False)
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
    chosen, results = ff.calibrate({"easy": easy, "hard": hard}, max_own_lost=0.0, use_cosine=False)
    # A floor above 0.4 would serve "easy" perfectly but lose "hard"'s own gold result.
    assert chosen.min_coverage <= 0.4 and results["hard"].own_lost == 0.0


def test_script_of_counts_letters() -> None:
    assert fl.script_of("deploy the release") == "latin"
    assert fl.script_of("מתכון לעוגת שוקולד") == "hebrew"
    assert fl.script_of("рецепт борща со сметаной") == "cyrillic"
    assert fl.script_of("Сервис k8s на Kubernetes переехал") == "cyrillic"  # most letters
    assert fl.script_of("2026-11-01 12:00") is None


def test_query_script_lets_latin_names_stay_names() -> None:
    assert fl.query_script("מהו PUBG?") == "hebrew"  # by letters: Latin
    assert fl.query_script("באיזו שנה הוקם Cyber Observer?") == "hebrew"
    assert fl.query_script("Когда вышел Android 12 Snow Cone?") == "cyrillic"
    assert fl.query_script("what does שלום mean in the Kubernetes docs") == "latin"
    assert fl.query_script("deploy the release") == "latin"
    assert fl.query_script("2026-11-01") is None


def test_cross_script() -> None:
    assert fl.cross_script("cyrillic", "The Panthers' defense gave up 308 points")
    assert not fl.cross_script("latin", "The Panthers' defense")
    assert not fl.cross_script(None, "anything")  # a query of digits and signs
    assert not fl.cross_script("hebrew", "12:00 — 13:30")  # a result without letters


def test_a_result_in_another_script_has_its_own_cosine_bar() -> None:
    t = FloorThresholds(min_coverage=0.4, min_cosine=0.8, min_cosine_cross=0.7)
    assert fl.evidence(0.0, 0.75, t) < 0.4  # same script: 0.75 is under 0.8
    assert fl.evidence(0.0, 0.75, t, cross=True) >= 0.4  # across scripts: over 0.7
    assert fl.evidence(0.0, 0.65, t, cross=True) < 0.4
    plain = FloorThresholds(min_coverage=0.4, min_cosine=0.8)  # no cross bar: the same bar
    assert fl.evidence(0.0, 0.75, plain, cross=True) == fl.evidence(0.0, 0.75, plain)
    untrusted = fl.thresholds_for("m", {fl.LEXICAL_ONLY: t, "m": t}, vectors_trusted=False)
    assert untrusted.min_cosine is None and untrusted.min_cosine_cross is None


def test_coverage_lowers_the_cosine_bar() -> None:
    t = FloorThresholds(min_coverage=0.4, min_cosine=0.8, coverage_weight=0.1)
    assert fl.evidence(0.0, 0.79, t) < 0.4
    assert fl.evidence(0.2, 0.79, t) >= 0.4  # 0.79 + 0.1 × 0.2 clears 0.8
    # Words the vault never mentions are no evidence, not even towards the cosine.
    gate = FloorThresholds(0.4, 0.8, max_missing=0.5, coverage_weight=0.1)
    assert fl.evidence(0.2, 0.79, gate, missing=0.6) < 0.4


def test_table_entries_read_back_with_defaults() -> None:
    from memctl.search.floor import table as floor_table

    table = floor_table.load_table()
    for thresholds in table.values():
        assert FloorThresholds.from_dict(thresholds.to_dict()) == thresholds
    assert table[fl.LEXICAL_ONLY].min_cosine is None


CROSS = [
    # Own cross-lingual questions: no shared word, a cosine lower than within a language.
    Question(True, (Observed(0.0, 0.74, gold=True, cross=True), Observed(0.0, 0.70, cross=True))),
    Question(True, (Observed(0.0, 0.78, gold=True, cross=True), Observed(0.0, 0.72, cross=True))),
    Question(False, (Observed(0.0, 0.73, cross=True), Observed(0.0, 0.72, cross=True))),
]
MONO = [
    Question(True, (Observed(0.6, 0.86, gold=True), Observed(0.1, 0.80))),
    Question(True, (Observed(0.1, 0.84, gold=True), Observed(0.0, 0.79))),
    Question(False, (Observed(0.2, 0.81), Observed(0.1, 0.80), Observed(0.0, 0.79))),
]


def test_calibrate_keeps_cross_lingual_answers_in_a_guarded_set() -> None:
    groups = {"mono": MONO, "cross": CROSS}
    chosen, results = ff.calibrate(groups, max_own_lost=0.0, guarded=("cross",), min_cross_gold=2)
    assert results["cross"].own_lost == 0.0 and results["mono"].own_lost == 0.0
    # The within-language bar stays high enough to reject the foreign question there,
    # while the cross bar drops to the lowest cross-lingual gold cosine.
    assert results["mono"].foreign_rejected == 1.0
    assert chosen.min_cosine_cross == pytest.approx(0.74)
    assert chosen.min_cosine is not None and chosen.min_cosine > 0.8
    assert results == {name: ff.outcome(qs, chosen) for name, qs in groups.items()}


def test_calibrate_finds_the_coverage_weight() -> None:
    # The own gold result shows a few words and has a middling cosine; a foreign
    # question has results with more words (but weak cosines) and some with a slightly
    # better cosine but no word: neither words nor the cosine alone keep the one and
    # reject the other, a cosine bar lowered by coverage does.
    own = Question(True, (Observed(0.25, 0.82, gold=True),))
    foreign = Question(False, (Observed(0.3, 0.7),) * 2 + (Observed(0.0, 0.825),) * 2)
    other = Question(True, (Observed(0.0, 0.9, gold=True),))
    chosen, results = ff.calibrate({"set": [own, foreign, other]}, max_own_lost=0.0)
    assert results["set"].foreign_rejected == 1.0 and results["set"].own_lost == 0.0
    assert chosen.coverage_weight > 0


def test_a_few_cross_script_gold_results_set_no_cross_bar() -> None:
    # Without a cross-lingual set, a handful of incidental cross-script results is too
    # few to choose a bar from: they get the within-script one.
    chosen, _ = ff.calibrate({"mono": MONO, "cross": CROSS}, max_own_lost=1.0, guarded=("cross",))
    assert chosen.min_cosine_cross is None


def test_question_words_are_not_what_a_question_is_about() -> None:
    assert fl.asks("כמה") and fl.asks("באיזו") and fl.asks("לכמה")
    assert fl.asks("сколько") and fl.asks("какой")
    assert not fl.asks("בית") and not fl.asks("кот") and not fl.asks("deploy")
    assert not fl.asks("אמתי")  # מתי inside a word, behind a letter that is no prefix


def test_unknown_name_is_a_capitalised_word_the_vault_lacks() -> None:
    words, present = ["joanna", "hobbies"], [False, True]
    assert fl.unknown_name("What are Joanna's hobbies?", words, present)
    assert not fl.unknown_name("What are Joanna's hobbies?", words, [True, True])
    # The first word is capitalised by grammar, not because it names something.
    assert not fl.unknown_name("Hobbies of joanna", ["hobbies", "joanna"], [False, True])
    assert not fl.unknown_name("какие хобби у джоанны", ["хобби", "джоанны"], [True, False])


def classifier(offsets: tuple[tuple[str, float], ...] = ()) -> fl.ByScript:
    # evidence rises with the cosine and the coverage, falls with an unknown name.
    return fl.ByScript((("latin", fl.Classifier((10.0, 2.0, 0.0, 0.0, -5.0, 0.0), -9.0, offsets)),))


def test_the_classifier_needs_cosine_and_words_together() -> None:
    t = FloorThresholds(0.3, classifier=classifier())
    assert t.floor == fl.CLASSIFIER_FLOOR
    q = fl.QuerySignals(best_cosine=0.9, lowest_cosine=0.7, script="latin")
    assert fl.evidence(0.5, 0.85, t, query=q) >= t.floor  # 8.5 + 1 - 9 > 0
    assert fl.evidence(0.0, 0.85, t, query=q) < t.floor  # the cosine alone falls short
    assert fl.evidence(1.0, 0.60, t, query=q) < t.floor  # the words alone too
    # A result outside the vector list is scored at the list's lowest cosine.
    assert fl.evidence(1.0, None, t, query=q) == fl.evidence(1.0, 0.7, t, query=q)
    named = fl.QuerySignals(best_cosine=0.9, lowest_cosine=0.7, unknown_name=True)
    assert fl.evidence(0.5, 0.85, t, query=named) < t.floor
    # Without any cosine, coverage against min_coverage, on the classifier's scale.
    assert fl.evidence(0.3, None, t, query=fl.QuerySignals()) == pytest.approx(0.5)
    assert fl.evidence(0.2, None, t) < t.floor


def test_classifier_offsets_per_script_and_across_scripts() -> None:
    model = classifier((("latin", 0.0), ("hebrew", -1.0), (fl.CROSS, 2.0)))
    t = FloorThresholds(0.3, classifier=model)
    one = model.for_result("latin", False)
    latin = fl.QuerySignals(script="latin", lowest_cosine=0.5)
    hebrew = fl.QuerySignals(script="hebrew", lowest_cosine=0.5)
    assert fl.evidence(0.5, 0.85, t, query=latin) >= 0.5
    assert fl.evidence(0.5, 0.85, t, query=hebrew) < 0.5  # Hebrew's bar is higher
    assert fl.evidence(0.0, 0.75, t, cross=True, query=hebrew) >= 0.5  # the cross bar
    assert one.offset(None) == 2.0  # no script: the most lenient offset
    assert fl.ByScript.from_dict(model.to_dict()) == model
    assert FloorThresholds.from_dict(t.to_dict()) == t


def test_each_script_has_its_model_and_cross_results_the_cross_one() -> None:
    latin = fl.Classifier((1.0, 0.0, 0.0, 0.0, 0.0, 0.0), 0.0, (("latin", 0.0),))
    russian = fl.Classifier(
        (2.0, 0.0, 0.0, 0.0, 0.0, 0.0), 0.0, (("cyrillic", 0.0), (fl.CROSS, 1.0))
    )
    models = fl.ByScript((("latin", latin), ("cyrillic", russian)))
    assert models.for_result("cyrillic", False) is russian
    assert models.for_result("latin", False) is latin
    assert models.for_result(None, False) is latin  # no model of its own: the first
    assert models.for_result("hebrew", False) is latin
    # A Latin query's result in Cyrillic: judged by the model calibrated on such results.
    assert models.for_result("latin", True) is russian


def test_untrusted_vectors_drop_the_classifier() -> None:
    t = FloorThresholds(0.3, classifier=classifier())
    plain = fl.thresholds_for("m", {fl.LEXICAL_ONLY: t, "m": t}, vectors_trusted=False)
    assert plain.classifier is None and plain.floor == 0.3


def test_fit_classifier_separates_and_keeps_own_answers() -> None:
    def signals(best: float, script: str = "latin") -> fl.QuerySignals:
        return fl.QuerySignals(best_cosine=best, lowest_cosine=0.6, script=script)

    own = [
        Question(True, (Observed(0.6, 0.86, gold=True), Observed(0.2, 0.78)), 0.0, signals(0.86)),
        Question(True, (Observed(0.2, 0.88, gold=True), Observed(0.4, 0.77)), 0.0, signals(0.88)),
        Question(True, (Observed(0.8, 0.81, gold=True), Observed(0.0, 0.80)), 0.0, signals(0.81)),
    ]
    # Foreign questions: a word or a cosine now and then, never both.
    foreign = [
        Question(False, (Observed(0.6, 0.78), Observed(0.0, 0.84)), 0.4, signals(0.84)),
        Question(False, (Observed(0.0, 0.83), Observed(0.5, 0.77)), 0.5, signals(0.83)),
        Question(False, (Observed(0.4, 0.79), Observed(0.1, 0.80)), 0.3, signals(0.80)),
    ]
    cross = [
        Question(
            True, (Observed(0.0, 0.75, gold=True, cross=True),), 0.0, signals(0.75, "cyrillic")
        ),
        Question(False, (Observed(0.0, 0.74, cross=True),) * 2, 0.0, signals(0.74, "cyrillic")),
    ]
    groups = {"mono": own + foreign, "cross": cross}
    chosen, results = floor_learn.fit_classifier(
        groups, max_own_lost=0.0, guarded=("cross",), min_cross_gold=1
    )
    assert chosen.classifier is not None and chosen.floor == fl.CLASSIFIER_FLOOR
    assert results["mono"].own_lost == 0.0 and results["mono"].foreign_rejected == 1.0
    assert results["cross"].own_lost == 0.0  # the cross bar keeps it
    latin = chosen.classifier.for_result("latin", False)
    for _, model in chosen.classifier.models:  # evidence never grows with missing words
        assert all(sign * w >= 0 for sign, w in zip(floor_learn.SIGNS, model.weights, strict=True))
    russian = chosen.classifier.for_result("cyrillic", False)
    assert dict(latin.offsets).keys() == {"latin"} and fl.CROSS in dict(russian.offsets)
    assert chosen.classifier.for_result("latin", True) == russian
    # With fewer cross-lingual answers than min_cross_gold, no cross bar is chosen.
    fewer, _ = floor_learn.fit_classifier(
        groups, max_own_lost=1.0, guarded=("cross",), min_cross_gold=2
    )
    assert fewer.classifier is not None
    assert all(fl.CROSS not in dict(m.offsets) for _, m in fewer.classifier.models)
    assert results == {name: ff.outcome(qs, chosen) for name, qs in groups.items()}


def test_a_result_bm25_ranks_first_counts_for_it() -> None:
    assert fl.bm25_rank(0) == 1.0 and fl.bm25_rank(3) == 0.25 and fl.bm25_rank(None) == 0.0
    model = fl.Classifier((10.0, 2.0, 0.0, 0.0, 0.0, 1.5), -9.0)
    t = FloorThresholds(0.3, classifier=fl.ByScript((("hebrew", model),)))
    q = fl.QuerySignals(best_cosine=0.85, lowest_cosine=0.7, script="hebrew")
    # The same words and cosine: BM25's first passes (8 + 0.6 + 1.5 - 9 > 0), its
    # fourth or a chunk outside the words list does not.
    assert fl.evidence(0.3, 0.8, t, query=q, bm25_rank=fl.bm25_rank(0)) >= t.floor
    assert fl.evidence(0.3, 0.8, t, query=q, bm25_rank=fl.bm25_rank(3)) < t.floor
    assert fl.evidence(0.3, 0.8, t, query=q) < t.floor
    # (the sentence coverage, not given, is the coverage)
    assert fl.features(0.3, 0.8, q, 0.5) == (0.8, 0.3, 0.0, 0.85, 0.0, 0.5, 0.3)
    # A table written before the feature existed loads with no weight on it.
    old = {"weights": {"cosine": 10.0, "coverage": 2.0}, "bias": -9.0}
    assert fl.Classifier.from_dict(old).weights == (10.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def test_sentence_coverage_from_kept_sentences_is_the_best_sentence_s_coverage() -> None:
    """best_sentence over a text's kept `sentences`, its term tests shared by one query's
    texts, is the max of coverage() over the sentences' words, float for float."""
    from memctl.search.floor.words import TermHits, best_sentence, sentences

    terms = [
        fl.WeightedTerm(w, lambda x, t=t: x.lower().startswith(t))
        for t, w in (("pixel", 2.3), ("batter", 0.7), ("mah", 1.1))
    ]
    texts = [
        "Google sold phones. The Pixel battery holds 4000 mAh. Ads ran.",
        "The Pixel launched in May.\nIts battery was not discussed; reviews were mixed.",
        "batteries! mAh? pixels; nothing",
        "no words of the query here.\n\n...",
        "",
        "Pixel; battery; mAh",
    ]
    hits = TermHits(terms)
    for text in texts:
        parts = [
            p.replace(",", " ").split()
            for p in text.replace("\n", ".")
            .replace("!", ".")
            .replace("?", ".")
            .replace(";", ".")
            .split(".")
        ]
        expected = max((fl.coverage(terms, words) for words in parts if words), default=0.0)
        assert best_sentence(hits, sentences(text)) == expected == fl.sentence_coverage(terms, text)
        # Told which words may match (a superset of those that do), it tests only those.
        maybe = [w for w in re.findall(r"\w+", text) if any(t.matches(w) for t in terms)]
        assert best_sentence(TermHits(terms), sentences(text), [*maybe, "zz"]) == expected
    nothing = [fl.WeightedTerm(0.0, lambda x: True)]
    assert best_sentence(TermHits(nothing), sentences("a b. c")) == 1.0
    assert best_sentence(TermHits(nothing), sentences("... !")) == 0.0


def test_a_query_s_kept_term_tests_give_coverage_float_for_float() -> None:
    """TermHits.coverage (the Judge's: each word tested once per query, shared with the
    sentence coverage) is coverage() over the same words, across a query's texts."""
    from memctl.search.floor.words import TermHits

    terms = [
        fl.WeightedTerm(w, lambda x, t=t: x.lower().startswith(t))
        for t, w in (("pixel", 2.3), ("batter", 0.7), ("mah", 1.1), ("pix", 0.4))
    ]
    hits = TermHits(terms)
    for words in (
        ["Google", "Pixel", "battery"],
        ["mAh", "pixels", "mAh", "zz"],
        [],
        ["nothing", "here"],
        ["Pixel", "batteries", "mAh"],
    ):
        assert hits.coverage(words) == fl.coverage(terms, words)
        assert hits.coverage(iter(words)) == fl.coverage(terms, words)  # any iterable
    nothing = [fl.WeightedTerm(0.0, lambda x: True)]
    assert TermHits(nothing).coverage(["a"]) == 1.0 == fl.coverage(nothing, ["a"])


def test_the_best_sentence_coverage_tells_words_together_from_words_scattered() -> None:
    terms = [
        fl.WeightedTerm(w, lambda x, t=t: x.lower() == t)
        for t, w in (("pixel", 2.0), ("battery", 1.0))
    ]
    together = "Google sold phones. The Pixel battery holds 4000 mAh. Ads ran."
    scattered = "The Pixel launched in May.\nIts battery was not discussed; reviews were mixed."
    assert fl.sentence_coverage(terms, together) == 1.0
    assert fl.sentence_coverage(terms, scattered) == pytest.approx(2.0 / 3.0)
    assert fl.coverage(terms, scattered.replace(".", " ").split()) == 1.0  # the snippet's
    assert fl.sentence_coverage(terms, "") == 0.0
    # A classifier that weighs it: the same coverage and cosine, only the one whose
    # words come together passes; a model of six weights (an older table) ignores it.
    model = fl.Classifier((10.0, 2.0, 0.0, 0.0, 0.0, 0.0, 4.0), -13.0)
    t = FloorThresholds(0.3, classifier=fl.ByScript((("latin", model),)))
    q = fl.QuerySignals(best_cosine=0.85, lowest_cosine=0.7, script="latin")
    assert fl.evidence(1.0, 0.8, t, query=q, sentence=1.0) >= t.floor
    assert fl.evidence(1.0, 0.8, t, query=q, sentence=2.0 / 3.0) < t.floor
    six = fl.Classifier((10.0, 2.0, 0.0, 0.0, 0.0, 0.0), -9.0)
    assert six.weights[-1] == 0.0 and len(six.weights) == len(fl.FEATURES)


def test_fit_classifier_learns_from_the_words_lists_rank() -> None:
    # Own gold results and foreign results share words and cosines alike; only the gold
    # ones are BM25's first, so that is what the fit must read.
    signals = fl.QuerySignals(best_cosine=0.85, lowest_cosine=0.7, script="hebrew")
    own = [
        Question(True, (Observed(c, v, gold=True, bm25_rank=1.0),), 0.0, signals)
        for c, v in ((0.5, 0.82), (0.4, 0.84), (0.6, 0.81), (0.5, 0.83))
    ]
    foreign = [
        Question(False, (Observed(c, v, bm25_rank=0.2), Observed(c, v)), 0.0, signals)
        for c, v in ((0.5, 0.83), (0.6, 0.82), (0.4, 0.81), (0.5, 0.84))
    ]
    chosen, results = floor_learn.fit_classifier({"heq": own + foreign}, max_own_lost=0.0)
    assert results["heq"].own_lost == 0.0 and results["heq"].foreign_rejected == 1.0
    assert chosen.classifier is not None
    weights = chosen.classifier.for_result("hebrew", False).to_dict()["weights"]
    assert weights["bm25_rank"] > 0


def test_recall_counts_the_gold_items_the_floor_keeps() -> None:
    # locomo_check's recall@k: the share of a question's gold items some kept result shows.
    question = Question(
        True,
        (Observed(0.9, 0.6, gold=True, shows=(0, 1)), Observed(0.1, 0.1, gold=True, shows=(2,))),
        gold_items=4,
    )
    foreign = Question(False, (Observed(0.9, 0.9),))
    assert ff.recall([question, foreign], None) == 0.75
    assert ff.recall([question, foreign], FloorThresholds(0.5, 0.5)) == 0.5
    assert ff.recall([foreign], None) == 0.0


def test_fit_classifier_holds_each_sets_own_loss_target() -> None:
    signals = fl.QuerySignals(best_cosine=0.85, lowest_cosine=0.7, script="latin")
    # "strict" has one own answer that looks like a foreign result; at a 0 loss target it
    # must keep it, which keeps the foreign results too; at 0.5 it may drop it. Each
    # own answer comes second, after a better near-answer: the later bar (floor.keep),
    # which decides a foreign question, holds it too.
    own = [
        Question(True, (Observed(0.9, 0.9), Observed(c, v, gold=True)), 0.0, signals)
        for c, v in ((0.8, 0.84), (0.7, 0.85), (0.2, 0.80))
    ]
    foreign = [
        Question(False, (Observed(0.2, 0.80), Observed(0.25, 0.80)), 0.0, signals) for _ in range(3)
    ]
    groups = {"strict": own + foreign}
    tight, res_tight = floor_learn.fit_classifier(
        groups, max_own_lost=0.5, own_lost_by_set={"strict": 0.0}
    )
    loose, res_loose = floor_learn.fit_classifier(
        groups, max_own_lost=0.0, own_lost_by_set={"strict": 0.5}
    )
    assert res_tight["strict"].own_lost == 0.0 and res_tight["strict"].foreign_rejected == 0.0
    assert res_loose["strict"].own_lost <= 0.5 and res_loose["strict"].foreign_rejected == 1.0
    assert tight.classifier is not None and loose.classifier is not None


def test_a_query_with_no_word_in_the_vault_keeps_only_cross_script_results() -> None:
    model = fl.Classifier((100.0, 10.0, 0.0, 0.0, 0.0, 0.0), -80.0)
    t = FloorThresholds(0.3, max_missing=1.0, classifier=fl.ByScript((("latin", model),)))
    q = fl.QuerySignals(missing=1.0, best_cosine=0.83, lowest_cosine=0.7, script="latin")
    # A cosine of 0.83 alone would pass (83 - 80 > 0), but no word of the query is in
    # the vault: a result in its own script is gated, one in another script is not.
    assert fl.evidence(0.0, 0.83, t, missing=1.0, query=q) == 0.0
    assert fl.evidence(0.0, 0.83, t, missing=1.0, cross=True, query=q) >= t.floor
    assert fl.evidence(0.0, 0.83, t, missing=0.9, query=q) >= t.floor
    # Calibration drops gated results whatever the weights and fits without them.
    own = [Question(True, (Observed(0.8, 0.85, gold=True),), 0.0, q) for _ in range(3)]
    foreign = [Question(False, (Observed(0.0, 0.86), Observed(0.0, 0.86)), 1.0, q)]
    chosen, results = floor_learn.fit_classifier({"set": own + foreign}, max_missing=1.0)
    assert chosen.max_missing == 1.0 and results["set"].foreign_rejected == 1.0
    assert results["set"].own_lost == 0.0


def test_keep_holds_all_but_the_best_result_to_the_later_bar() -> None:
    # The best (0.7) needs the floor only; 0.6 also its later bar (0.65), 0.66 passes it.
    assert fl.keep([0.6, 0.7, 0.66, 0.4], [0.65] * 4, 0.5) == [1, 2]
    assert fl.keep([0.6, 0.7], [0.5, 0.5], 0.5) == [0, 1]
    assert fl.keep([0.4, 0.3], [0.65, 0.65], 0.5) == []
    assert fl.keep([0.4, 0.3], [0.9, 0.9], None) == [0, 1]
    assert fl.keep([], [], 0.5) == []


def test_later_floor_is_the_classifiers_later_logits_in_its_script() -> None:
    model = fl.Classifier((100.0,), -80.0, (("latin", 0.0),), later=math.log(3.0))
    t = FloorThresholds(0.3, classifier=fl.ByScript((("latin", model),)))
    assert abs(t.later_floor("latin", False) - 0.75) < 1e-9
    assert t.later_floor("latin", True) == t.floor  # a cross-script answer: the floor
    assert FloorThresholds(0.3).later_floor("latin", False) == 0.3
    assert fl.Classifier.from_dict(model.to_dict()).later == round(model.later, 6)


def _near_answer_questions() -> list[Question]:
    """Own answers alone, and foreign questions with two near-answers as strong as the
    weakest own answer: one bar for all cannot reject them without losing it, a later
    bar can (no own question has a second result to lose)."""
    signals = fl.QuerySignals(best_cosine=0.85, lowest_cosine=0.7, script="latin")
    own = [
        Question(True, (Observed(c, v, gold=True),), 0.0, signals)
        for c, v in ((0.8, 0.84), (0.7, 0.85), (0.3, 0.81))
    ]
    foreign = [
        Question(False, (Observed(0.3, 0.81), Observed(0.3, 0.81)), 0.0, signals) for _ in range(3)
    ]
    return own + foreign


def test_fit_classifier_sets_a_later_bar_where_it_costs_no_own_answer() -> None:
    chosen, results = floor_learn.fit_classifier(
        {"set": _near_answer_questions()}, max_own_lost=0.0
    )
    assert results["set"].own_lost == 0.0 and results["set"].foreign_rejected == 1.0
    assert chosen.classifier is not None
    assert chosen.classifier.for_result("latin", False).later > 0


def test_fit_bars_keeps_the_weights_and_refits_the_bars() -> None:
    model = fl.Classifier((100.0, 10.0), -90.0, (("latin", 0.0),))
    start = FloorThresholds(0.3, max_missing=1.0, classifier=fl.ByScript((("latin", model),)))
    chosen, results = floor_learn.fit_bars(
        {"set": _near_answer_questions()}, start, max_own_lost=0.0
    )
    assert chosen.classifier is not None
    fitted = chosen.classifier.for_result("latin", False)
    assert fitted.weights == model.weights and fitted.bias == model.bias
    assert results["set"].own_lost == 0.0 and results["set"].foreign_rejected == 1.0
