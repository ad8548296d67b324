"""Issue 31 item 4: a result in another script than its query that is not the query's best
needs the calibrated cross_later bar (memctl/search/floor/rule.py), for English, Hebrew and
Russian questions; before, the floor alone, and a question the English notes could not
answer kept their near-answers."""

from __future__ import annotations

import pytest

from memctl.search.floor import rule as fl
from memctl.search.floor import table as floor_table
from memctl.search.floor.script import query_script

E5 = "intfloat/multilingual-e5-small-q4"

QUESTIONS = {
    "en": "What does the Haifa warehouse charge per pallet?",
    "he": "כמה גובה המחסן בחיפה על משטח?",
    "ru": "Сколько берёт склад в Хайфе за паллету?",
}


@pytest.mark.parametrize("lang", sorted(QUESTIONS))
def test_a_later_cross_script_result_needs_its_bar(lang: str) -> None:
    thresholds = floor_table.table()[E5]
    script = query_script(QUESTIONS[lang])
    bar = thresholds.later_floor(script, True)
    assert thresholds.floor < bar < 1.0
    # The best result passes at the floor; a later cross-script one between the floor
    # and its bar is left out, one above its bar kept.
    assert fl.keep([0.99, (thresholds.floor + bar) / 2], [bar, bar], thresholds.floor) == [0]
    assert fl.keep([0.99, (bar + 1.0) / 2], [bar, bar], thresholds.floor) == [0, 1]


def test_cross_later_is_kept_in_the_table() -> None:
    classifier = floor_table.table()[E5].classifier
    assert classifier is not None
    model = classifier.for_result("cyrillic", True)
    assert model.cross_later is not None
    again = fl.Classifier.from_dict(model.to_dict())
    assert again.cross_later == model.cross_later
    # A model without one leaves a cross-script result at the floor, as before.
    plain = fl.Classifier.from_dict({**model.to_dict(), "cross_later": None})
    table = fl.FloorThresholds(0.05, classifier=fl.ByScript((("cyrillic", plain),)))
    assert table.later_floor("cyrillic", True) == table.floor
