"""Issue 31: a relevance floor that judges a result against this vault's own candidates
for its query (memctl/search/floor/standout.py), so a new vault is judged fairly."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from memctl.config import DEFAULT_EMBED_MODEL
from memctl.memory import add_note, init_vault, template_dir
from memctl.search import search
from memctl.search.floor import evidence as ev
from memctl.search.floor import standout as so
from memctl.search.floor import table as floor_table
from memctl.search.floor.evidence import Judged
from memctl.vault import Vault

E5 = "intfloat/multilingual-e5-small-q4"
NOTES = (
    "The staging database password rotates every ninety days; Noa owns the rotation.",
    "Our office moved to the fourth floor of the Azrieli tower in March.",
)


def test_a_chunk_of_template_lines_only_is_template_only() -> None:
    core = (template_dir() / "memory" / "core.md").read_text(encoding="utf-8")
    assert so.template_only(core)
    assert so.template_only("## Identity\n\n## Iron rules\n")
    assert not so.template_only("## Identity\n\nI am the back-office agent of Maslul.\n")
    assert not so.template_only("")


def test_meaning_alone_needs_a_sentence() -> None:
    assert not so.restates(2)  # a name or a term the vault does not hold
    assert so.restates(so.MEANING_MIN_WORDS)


def test_meaning_alone_passes_from_the_margin_on() -> None:
    assert so.meaning_evidence(so.STANDOUT_MARGIN - 0.001, 0.5) == 0.0
    assert so.meaning_evidence(so.STANDOUT_MARGIN, 0.5) == pytest.approx(0.5)
    assert 0.5 < so.meaning_evidence(0.05, 0.5) <= 1.0
    assert so.standout(0.85, so.typical([0.85, 0.80, 0.78])) == pytest.approx(0.04)
    assert so.standout(None, 0.8) == 0.0


@pytest.fixture(scope="module")
def two_notes(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """A vault made by `memctl init` holding two notes of one day, as `memctl add` writes
    them, never indexed or searched."""
    root: Path = tmp_path_factory.mktemp("two-notes")
    init_vault(root)
    vault = Vault(root)
    for minute, note in enumerate(NOTES):
        add_note(vault, note, day=date(2026, 11, 20), at=datetime(2026, 11, 20, 9, minute))
    return vault


@pytest.mark.skipif(DEFAULT_EMBED_MODEL != E5, reason="the floor's margin is e5's")
def test_the_first_search_of_a_new_vault_with_two_notes_finds_a_paraphrase(
    two_notes: Vault,
) -> None:
    # No word of the question is in the vault: before, every candidate had evidence 0
    # ("5 results below the relevance floor") and the search found nothing.
    response = search(two_notes, "how often is the test db secret replaced", k=5, log=False)
    assert response.missing == pytest.approx(1.0)
    assert [r.path for r in response.results] == ["memory/daily/2026-11-20.md"]
    assert response.results[0].evidence >= 0.5
    # Questions about what the vault never mentions still get nothing, and the
    # template's empty sections (which every query scores high against) are no answer.
    for foreign in (
        "root:x:0",
        "zzzqqq nonexistent",
        "what is the capital of Australia",
        "who won the 1998 world cup",
    ):
        response = search(two_notes, foreign, k=5, log=False)
        assert response.results == [], foreign
    russian = search(two_notes, "кто отвечает за смену паролей", k=5, log=False)
    assert [r.path for r in russian.results] == ["memory/daily/2026-11-20.md"]
    hebrew = search(
        two_notes, "כל כמה זמן מחליפים את הסיסמה של מסד הנתונים לבדיקות", k=5, log=False
    )
    assert [r.path for r in hebrew.results] == ["memory/daily/2026-11-20.md"]


# One query's chosen results in each language: 1 has the most evidence (its words), 2 the
# highest cosine (a paraphrase sharing no word with its note), 3 a near-answer naming the
# person asked about.
RESULTS = {
    "en": ("Dana booked the Crete flights", "The hotel keeps late check-in open", "Dana moved"),
    "he": ("דנה הזמינה טיסות לכרתים", "המלון משאיר צ'ק-אין מאוחר פתוח", "השולחן של דנה עבר"),
    "ru": ("Дана забронировала рейсы на Крит", "Отель держит поздний заезд", "Стол Даны переехал"),
}


def _judged(cosine: float, evidence: float, standout: float, cross: bool = False) -> Judged:
    return Judged(0.0, cosine, evidence, cross=cross, standout=standout)


@pytest.mark.parametrize("lang", sorted(RESULTS))
def test_the_result_nearest_in_meaning_passes_when_it_stands_out(lang: str) -> None:
    thresholds = floor_table.table()[E5]
    records = {i: SimpleNamespace(text=t) for i, t in enumerate(RESULTS[lang], 1)}
    judged = {
        1: _judged(0.80, 0.95, 0.005),
        2: _judged(0.83, 0.20, so.NEAREST_MARGIN + 0.005),
        3: _judged(0.79, 0.90, -0.005),
    }
    out = ev.nearest_in_meaning(judged, records, thresholds, missing=0.0)
    assert out[2].nearest and out[2].evidence == pytest.approx(thresholds.floor)
    assert not out[1].nearest and not out[3].nearest
    assert (out[1].evidence, out[3].evidence) == (0.95, 0.90)
    # Nearest but not standing out: judged as the best one is, on its own evidence.
    flat = {**judged, 2: _judged(0.83, 0.20, so.NEAREST_MARGIN - 0.005)}
    out = ev.nearest_in_meaning(flat, records, thresholds, missing=0.0)
    assert out[2].nearest and out[2].evidence == pytest.approx(0.20)
    # A gated query (against_the_vault's own rule) or a filtered list: nothing changes.
    assert ev.nearest_in_meaning(judged, records, thresholds, missing=1.0) == judged
    assert ev.nearest_in_meaning(judged, records, thresholds, 0.0, whole=False) == judged
    # A chunk of the template's lines alone is never the nearest.
    records[2] = SimpleNamespace(text="## Identity\n\n## Iron rules\n")
    out = ev.nearest_in_meaning(judged, records, thresholds, missing=0.0)
    assert [cid for cid, seen in out.items() if seen.nearest] == [1]
