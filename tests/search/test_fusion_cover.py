"""Fusion weighs a word list's mark by the share of the question its candidate holds
(scoring.covered, issue 31 item 1): a paraphrase sharing one ordinary word with an
unrelated note no longer ranks that note above the one its meaning found, in English,
Hebrew and Russian."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.search.bullet_days import bullet_vault

NOW = datetime(2026, 11, 29, 12, 0)
# Per language: days of `- HH:MM` bullets; the answer is the NAS backup's size. Each other
# day holds one word of the question (store, night, online; בלילה, באתר; ночной, записи)
# in a bullet about something else.
DAYS = {
    "en": {
        "2026-11-10": (
            "Omer finished the label proofs for the rosé, printing on Monday",
            "backup of the shop database to the NAS finished, 212 GB",
            "the Haifa courier was two hours late with the Jerusalem boxes",
        ),
        "2026-11-27": (
            "Yael: the store room behind the tasting hall gets new shelves",
            "Dana moved the team lunch to Thursday at the vineyard",
        ),
        "2026-11-25": (
            "Tomer: night frost expected on the northern blocks, sprinklers ready",
            "Amir: tank 5 cooling jacket fixed",
        ),
        "2026-11-22": (
            "Liat: the online booking form for tastings now asks for allergies",
            "Kostya: forklift battery replaced",
        ),
    },
    "he": {
        "2026-11-26": (
            "עומר סיים את הגהות התווית לרוזה, הדפסה ביום שני",
            "גיבוי של מסד הנתונים של החנות ל-NAS הסתיים, 212 GB",
            "השליח מחיפה איחר בשעתיים עם הארגזים לירושלים",
        ),
        "2026-11-10": (
            "יעל: המחסן מאחורי אולם הטעימות מקבל מדפים חדשים",
            "דנה העבירה את ארוחת הצוות ליום חמישי בכרם",
        ),
        "2026-11-20": (
            "תומר: צפוי כפור בלילה בחלקות הצפוניות, הממטרות מוכנות",
            "עמיר: מעיל הקירור של מיכל 5 תוקן",
        ),
        "2026-11-22": (
            "ליאת: טופס ההזמנה באתר לטעימות מבקש עכשיו אלרגיות",
            "קוסטיה: הוחלפה הסוללה של המלגזה",
        ),
    },
    "ru": {
        "2026-11-26": (
            "Омер закончил корректуру этикеток для розе, печать в понедельник",
            "резервное копирование базы сайта на NAS закончилось, 212 ГБ",
            "курьер из Хайфы опоздал на два часа с коробками для Иерусалима",
        ),
        "2026-11-10": (
            "Яэль: в кладовой за дегустационным залом ставят новые полки",
            "Дана перенесла обед команды на четверг на винограднике",
        ),
        "2026-11-20": (
            "Томер: ночной заморозок ожидается на северных участках, поливалки готовы",
            "Амир: рубашку охлаждения пятого танка починили",
        ),
        "2026-11-22": (
            "Лиат: форма записи на дегустации теперь спрашивает об аллергии",
            "Костя: заменили аккумулятор погрузчика",
        ),
    },
}
# A paraphrase of the backup bullet, sharing no content word with it, and the answer's day.
QUESTIONS = {
    "en": ("How big was last night's copy of the online store records?", "2026-11-10"),
    "he": ("כמה גדול היה העותק של רשומות האתר מאתמול בלילה?", "2026-11-26"),
    "ru": ("Какой объём был у ночного дубликата записей интернет-магазина?", "2026-11-26"),
}


@pytest.fixture(scope="module", params=sorted(QUESTIONS))
def language_vault(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Vault]:
    language: str = request.param
    root: Path = tmp_path_factory.mktemp(f"cover-{language}")
    days = [(date.fromisoformat(day), bullets) for day, bullets in DAYS[language].items()]
    vault = bullet_vault(root, days)
    sync(vault, embed=True)
    return language, vault


def test_one_shared_word_does_not_bury_the_note_the_vectors_found(
    language_vault: tuple[str, Vault],
) -> None:
    language, vault = language_vault
    question, day = QUESTIONS[language]
    path = f"memory/daily/{day}.md"
    with Searcher(vault) as searcher:
        vector = searcher.search(question, k=5, log=False, use_floor=False, mode="vector", now=NOW)
        hybrid = searcher.search(question, k=5, log=False, use_floor=False, now=NOW)
    # The vectors rank the backup's day first; a day holding one word of the question
    # ("night", "store"; בלילה; записи) must not pass it in hybrid mode.
    assert vector.results[0].path == path
    assert hybrid.results[0].path == path
    assert "212" in hybrid.results[0].snippet
