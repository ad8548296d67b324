"""A result's snippet shows the fact its chunk was found by (issue 31 item 1: match on the
small unit, show the window around it): a paraphrase of one of the last bullets of a busy
day, sharing no word with it, in English, Hebrew and Russian."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest

from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.search.bullet_days import bullet_vault

DAY = date(2026, 11, 20)
BULLETS = (
    "Omer finished the label proofs for the rosé, printing on Monday",
    "the forklift battery died again; Dana ordered a replacement from the dealer",
    "Ирина: у членов клуба из Ашдода не дошли письма о продлении",
    "ליאת: קבוצה של 22 אורחים מרעננה מגיעה ביום שלישי לטעימה",
    "Dana moved the team lunch to Thursday at the vineyard",
    "backup of the shop database to the NAS finished, 212 GB",
    "יעל: בית הדפוס מבקש עשרה ימים להדפסת התוויות עם הטבעה בזהב",
    "Костя: в холодильной камере заменили компрессор, там снова 12 градусов",
)
# A paraphrase of one of the last bullets per language, sharing no word with it.
QUESTIONS = {
    "en": ("size of last night's copy of the online store records", BULLETS[5]),
    "he": ("תוך כמה זמן יהיו מוכנות המדבקות לבקבוקים", BULLETS[6]),
    "ru": ("что починили в помещении для охлаждения вина", BULLETS[7]),
}
# Too small for the day whole: the chunk's start shows its heading and first bullets.
TOKENS = 40


@pytest.fixture(scope="module")
def busy_day(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root: Path = tmp_path_factory.mktemp("busy-day-snippets")
    vault = bullet_vault(root, [(DAY, BULLETS)])
    sync(vault, embed=True)
    return vault


@pytest.mark.parametrize("language", sorted(QUESTIONS))
def test_the_snippet_shows_the_bullet_the_day_was_found_by(busy_day: Vault, language: str) -> None:
    question, bullet = QUESTIONS[language]
    day = f"memory/daily/{DAY}.md"
    lines = (busy_day.root / day).read_text(encoding="utf-8").split("\n")
    [at] = [i + 1 for i, line in enumerate(lines) if bullet in line]
    with Searcher(busy_day) as searcher:
        searcher.settings = dataclasses.replace(
            searcher.settings, snippet_tokens=TOKENS, snippet_by_rank=False
        )
        found = searcher.search(question, k=5, log=False, use_floor=False)
    [hit] = [r for r in found.results if r.path == day]
    assert hit.line_start <= at <= hit.line_end, (hit.line_start, hit.line_end, at)
    assert bullet in hit.snippet
    assert not hit.highlights  # found by meaning alone: no query word in it
    # The lines it names are the lines it shows.
    assert lines[hit.line_start - 1 : hit.line_end] == hit.snippet.split("\n")
