"""Issue 31 item 4, names in any script: a word the vault uses as a speaker label is a
name (Hebrew has no capitals), and a result that shows none of the names a question says
does not pass on its meaning alone (floor/terms.py, evidence.Judge, against.py), in
English, Hebrew and Russian."""

from __future__ import annotations

import pytest

from memctl.lexical.parse import parse_query
from memctl.search.floor import evidence as ev
from memctl.search.floor import rule as fl
from memctl.search.floor import table as floor_table
from memctl.search.floor.evidence import Judge, Judged
from memctl.search.floor.script import query_script
from memctl.search.floor.terms import named_by_labels
from memctl.search.floor.words import WeightedTerm, label_words

E5 = "intfloat/multilingual-e5-small-q4"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- 09:40 Boris: Sentry quota at 85%\n- 10:00 Yael: new labels", {"boris", "yael"}),
        ("- 11:30 ליאת: הספק העלה מחירים\n- 12:00 נועם: קופון חדש", {"ליאת", "נועם"}),
        ("- 12:50 Ирина: члены клуба просят видео", {"ирина"}),
        ("- **Boris**: the droplet restarted", {"boris"}),
        ("- **Caroline:** I went to the group.", {"caroline"}),
        # Not a speaker's name: two words, an identifier, a plain line, a mid-line colon.
        ("- 08:15 Fire inspector: at most 90 people", set()),
        ("- 08:40 GC-201: Bit payments work", set()),
        ("Boris: a plain line, no bullet", set()),
        ("- the ratio is 2:1 now", set()),
    ],
)
def test_a_bullets_speaker_label_is_a_name(text: str, said: set[str]) -> None:
    assert label_words(text) == said


QUESTIONS = {
    # A question naming a person the vault's bullets label, the name, and a bullet in the
    # question's language about a holiday that does not name them.
    "en": (
        "When does Boris go on holiday?",
        "- 09:40 Boris: Sentry quota at 85%",
        "boris",
        "- 10:00 Michal: the whole team goes on holiday after the harvest",
    ),
    "he": (
        "מתי ליאת יוצאת לחופשה?",
        "- 11:30 ליאת: הספק העלה מחירים",
        "ליאת",
        "- 10:00 מיכל: היקב יסגר לשבוע אחרי הבציר לחופשה של כל הצוות",
    ),
    "ru": (
        "Когда Ирина уходит в отпуск?",
        "- 12:50 Ирина: клуб просит видео",
        "ирина",
        "- 10:00 Михаил: вся команда уходит в отпуск после сбора урожая",
    ),
}


@pytest.mark.parametrize("lang", sorted(QUESTIONS))
def test_a_question_names_whom_the_vault_labels(lang: str) -> None:
    asked, bullet, name, _ = QUESTIONS[lang]
    terms = ev.floor_terms(parse_query(asked))
    found = named_by_labels(terms, [bullet, "- 10:00 a line with no label"])
    assert [terms[i].text for i in found] == [name]
    # No chunk labels it: not known as a name this way.
    assert named_by_labels(terms, ["- 10:00 a line with no label"]) == frozenset()


def _term(word: str) -> WeightedTerm:
    return WeightedTerm(1.0, lambda seen: seen.lower() == word)


@pytest.mark.parametrize("lang", sorted(QUESTIONS))
def test_a_result_without_the_name_is_unnamed(lang: str) -> None:
    asked, bullet, name, other = QUESTIONS[lang]
    words = [t.text for t in ev.floor_terms(parse_query(asked))]
    at = words.index(name)
    signals = fl.QuerySignals(
        script=query_script(asked), names=frozenset({at}), known=frozenset({at})
    )
    judge = Judge([_term(w) for w in words], {}, {}, floor_table.table()[E5], signals)
    assert judge.judge(1, "a.md", 1, 1, other).unnamed is True
    assert judge.judge(2, "b.md", 1, 1, bullet).unnamed is False
    # A name the vault does not hold (not known) leaves every result as it was.
    plain = Judge([_term(w) for w in words], {}, {}, floor_table.table()[E5], fl.QuerySignals())
    assert plain.judge(3, "c.md", 1, 1, other).unnamed is False


class _Record:
    def __init__(self, text: str) -> None:
        self.text = text


def test_an_unnamed_result_is_not_nearest_in_meaning() -> None:
    thresholds = floor_table.table()[E5]
    records = {1: _Record("- 10:00 a"), 2: _Record("- 11:00 b")}
    # The nearest in meaning (1) stands out, but shows none of the names asked about.
    judged = {
        1: Judged(0.0, 0.85, 0.2, standout=0.05, unnamed=True),
        2: Judged(0.3, 0.80, 0.9, standout=0.0),
    }
    out = ev.nearest_in_meaning(judged, records, thresholds, 0.0)
    assert out[1].nearest is False and out[1].evidence == 0.2
    # The same result naming them passes on its meaning, as before.
    judged[1] = Judged(0.0, 0.85, 0.2, standout=0.05)
    out = ev.nearest_in_meaning(judged, records, thresholds, 0.0)
    assert out[1].nearest is True and out[1].evidence == pytest.approx(thresholds.floor)
