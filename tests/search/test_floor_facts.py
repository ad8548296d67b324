"""Issue 31, a floor that knows the vault: a note of facts in several languages judged by
the fact a query matched (memctl/search/floor/facts.py), and a name the vault knows is no
answer to what is asked about it (evidence.names_alone), in English, Hebrew and Russian."""

from __future__ import annotations

import pytest

from memctl.search.floor import evidence as ev
from memctl.search.floor import facts as fa
from memctl.search.floor import rule as fl
from memctl.search.floor.evidence import Judged
from memctl.search.floor.script import query_script
from memctl.search.floor.words import (
    TermHits,
    WeightedTerm,
    best_sentence,
    best_sentence_terms,
    names,
    sentences,
    unknown_name,
)

E5 = "intfloat/multilingual-e5-small-q4"

# A question in each language, a bullet of a mixed daily note in its own language, and
# one in each of the two others.
BULLETS = {
    "en": ("When does the tasting room open?", "Liat: the tasting room opens at ten"),
    "he": ("מתי נפתח חדר הטעימות?", "ליאת: חדר הטעימות נפתח בעשר"),
    "ru": ("Когда открывается дегустационный зал?", "Ирина: зал открывается в десять"),
}


def _facts(lang: str, own: float, foreign: list[float]) -> dict[int, list[tuple[float, str]]]:
    """Chunk 1: a mixed note with a fact in the query's language (`own`) and one in each
    other language; chunks 2..: single foreign facts making the query's typical."""
    others = [line for other, (_, line) in sorted(BULLETS.items()) if other != lang]
    facts = {1: [(own, BULLETS[lang][1]), (foreign[0], others[0]), (foreign[1], others[1])]}
    for i, cosine in enumerate(foreign[2:], 2):
        facts[i] = [(cosine, others[i % 2]), (cosine - 0.05, BULLETS[lang][1])]
    return facts


@pytest.mark.parametrize("lang", sorted(BULLETS))
def test_a_mixed_note_is_cross_lingual_only_when_its_foreign_fact_stands_out(lang: str) -> None:
    script = query_script(BULLETS[lang][0])
    typical = [0.78] * 10
    # Its best fact in the query's language, its foreign ones no nearer than the rest:
    # judged as a note in the query's language (before, the note's letters made it a
    # cross-lingual match, held to the lenient cross-lingual bar).
    flat = fa.FactScripts(_facts(lang, 0.84, [0.78, 0.77, *typical]), script)
    assert flat.typical_foreign == pytest.approx(0.78, abs=1e-3)
    assert flat.cross(1) is False
    # One foreign fact standing FOREIGN_MARGIN above the query's other foreign facts:
    # a cross-lingual answer.
    stands = fa.FactScripts(_facts(lang, 0.70, [0.80, 0.77, *typical]), script)
    assert stands.cross(1) is True
    assert stands.standout(1) == pytest.approx(0.80 - stands.typical_foreign)  # type: ignore[operator]
    below = fa.FactScripts(_facts(lang, 0.70, [0.79, 0.77, *typical]), script)
    assert below.cross(1) is False
    # No facts of its own, or too few foreign facts to make a typical: its letters decide.
    assert flat.cross(99) is None
    few = fa.FactScripts({1: _facts(lang, 0.84, [0.80, 0.77])[1]}, script)
    assert few.cross(1) is None


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("When is Noam's birthday?", {"noam"}),
        ("What is Katrin Vogel's phone number?", {"katrin", "vogel"}),
        ("Noam's birthday", set()),  # a capital that begins the question says nothing
        ("מתי יום ההולדת של Noam?", {"noam"}),  # Hebrew has no capitals: a Latin name does
        ("מתי יום ההולדת של נועם?", set()),
        ("Какая зарплата у Кости?", {"кости"}),
        ("Когда Ирина уходит в отпуск?", {"ирина"}),
        ("Where is SHEKELGATE_TERMINAL set?", set()),  # an identifier's parts, no name
    ],
)
def test_the_names_a_query_says(query: str, said: set[str]) -> None:
    from memctl.lexical.parse import parse_query

    words = [t.text for t in ev.floor_terms(parse_query(query))]
    assert {words[i] for i in names(query, words, capitals=False)} == said
    assert unknown_name(query, words, [True] * len(words)) is False
    assert unknown_name(query, words, [False] * len(words)) is bool(names(query, words))


def _term(word: str, weight: float) -> WeightedTerm:
    def matches(seen: str) -> bool:
        return seen.lower() == word

    return WeightedTerm(weight, matches)


@pytest.mark.parametrize(
    ("text", "terms", "held"),
    [
        (
            "Noam changed the banner. The birthday party of Noam is on Friday.",
            ["noam", "birthday"],
            {0, 1},
        ),
        ("נועם החליף את הבאנר. נועם עובד מחר.", ["נועם", "הולדת"], {0}),
        ("Костя заказал коробки. Склад закрыт.", ["костя", "зарплата"], {0}),
    ],
)
def test_the_best_sentence_says_which_words_it_holds(
    text: str, terms: list[str], held: set[int]
) -> None:
    weighted = [_term(t, 1.0 + i) for i, t in enumerate(terms)]
    value, found = best_sentence_terms(TermHits(weighted), sentences(text))
    assert found == held
    assert value == best_sentence(TermHits(weighted), sentences(text))


@pytest.mark.parametrize("lang", sorted(BULLETS))
def test_a_name_alone_is_held_to_the_floor(lang: str) -> None:
    thresholds = ev.table()[E5]
    floor = thresholds.floor
    judged = {
        1: Judged(0.4, 0.80, 0.99, named=True),  # only the name, and the most evidence
        2: Judged(0.4, 0.80, 0.95, named=True),
        3: Judged(0.6, 0.80, 0.97),  # the name and what is asked about it
        4: Judged(0.0, 0.80, 0.99, cross=True, named=True),  # another script: as it was
        5: Judged(0.4, 0.80, 0.30, named=True),  # under the floor: as it was
    }
    out = ev.names_alone(judged, thresholds)
    assert [out[c].evidence for c in (1, 2)] == [pytest.approx(floor)] * 2
    assert [out[c].evidence for c in (3, 4, 5)] == [0.97, 0.99, 0.30]
    # Such a result may still be the query's best one, never a later one.
    later = [thresholds.later_floor(query_script(BULLETS[lang][0]), False)] * 2
    assert fl.keep([out[1].evidence, out[2].evidence], later, floor) == [0]
