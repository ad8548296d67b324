"""The newer value first, by content (issue 31 item 2): different values for one subject in
other words are detected in three languages, ranked newer first under another title, shown
as superseded_by, and reported by lint; the negatives are left alone."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.sync import sync
from memctl.lifecycle.units import units_of
from memctl.lifecycle.worded import worded_apart_pairs
from memctl.search.floor.rule import with_the_newer
from memctl.search.hybrid import Searcher
from memctl.search.rank.supersession import Item, effective_day
from memctl.statement_values import (
    changed_value,
    claims,
    first_apart,
    names_older,
    qualified_apart,
    query_stems,
)
from memctl.vault import Vault
from tests.search.fresh_pairs import HARD_NEGATIVES, MORE_PAIRS, NEGATIVES, PAIRS

NOW = datetime(2026, 11, 22, 9, 30)
LANGS = ("en", "he", "ru")


def _apart(old: str, new: str, question: str = "") -> str | None:
    return first_apart(claims(new), claims(old), query_stems(question))


def test_the_fixture_has_thirty_pairs_and_negatives_in_every_language() -> None:
    assert len(PAIRS) >= 30
    assert {lang for lang, *_ in PAIRS} == set(LANGS)
    assert len(NEGATIVES) >= 12


@pytest.mark.parametrize("lang", LANGS)
def test_most_pairs_are_detected_in_every_language(lang: str) -> None:
    mine = [(old, new, q) for code, old, new, q in PAIRS if code == lang]
    missed = [(old, new) for old, new, q in mine if _apart(old, new, q) is None]
    # 29 of the 32 today: a speaker before the subject, "built on" / "building on", a
    # subject of one word ("newsletter": a topic, too loose to judge by).
    assert len(missed) <= 2, missed
    assert len(mine) - len(missed) >= 9


@pytest.mark.parametrize(("old", "new"), NEGATIVES)
def test_negatives_are_not_worded_apart(old: str, new: str) -> None:
    assert _apart(old, new) is None
    assert _apart(old, new, old + " " + new) is None  # not even when the query names both


def test_values_and_subjects_in_three_languages() -> None:
    (en,) = claims("- 08:30 Boris: invoices now render through Grover")
    assert en.subject == {"invoi", "rende"} and en.values == {("name", "grover")}
    (he,) = claims("מחיר המנוי החודשי עלה ל-60 שקלים")
    assert ("number", "60") in he.values
    (ru,) = claims("экскурсии теперь по средам и пятницам")
    assert {v for k, v in ru.values if k == "day"} == {"day:4", "day:6"}
    assert {v for k, v in claims("הסדנה מתקיימת בשני וברביעי")[0].values} == {"day:2", "day:4"}
    assert claims("the Cabernet 2023 bottling moved to 15 December")[0].values == {
        ("name", "cabernet"),  # a vintage names the wine, it is no value
        ("number", "15"),
        ("month", "month:12"),
    }


def test_an_undated_archive_section_is_dated_by_its_heading_for_supersession() -> None:
    today = date(2026, 11, 22)
    text = "# Workshop\n## 2026-03-02\n- on Tuesdays at 10:00\n"
    assert effective_day(Item("cold", "archive", None, text), today) == date(2026, 3, 2)
    assert effective_day(Item("cold", "archive", None, "# Workshop\n- x\n"), today) is None
    assert effective_day(Item("hot", "core", None, text), today) == today


def _fresh_vault(root: Path, pairs: list[tuple[str, str, str, str]] = PAIRS + MORE_PAIRS) -> Vault:
    """Each old statement in its own archive note under its own title, dated only in a
    `## YYYY-MM-DD` heading; each new one in a daily note of this month."""
    from memctl.memory import init_vault

    init_vault(root)
    vault = Vault(root)
    for i, (_lang, old, new, _q) in enumerate(pairs):
        (vault.archive_dir / f"topic-{i}.md").write_text(
            f"# Topic {i} notes\n\n## 2026-0{i % 6 + 3}-1{i % 9}\n\n- {old}\n- filed by the office\n"
        )
        day = f"2026-11-{i % 20 + 1:02d}"
        note = vault.daily_dir / f"{day}.md"
        before = note.read_text() if note.exists() else f"# {day}\n\n"
        note.write_text(before + f"- 1{i % 10}:00 {new}\n\n")
    return vault


@pytest.fixture(scope="module")
def fresh_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    vault = _fresh_vault(tmp_path_factory.mktemp("fresh") / "vault")
    sync(vault, now=NOW)
    return vault


def _ranks(
    vault: Vault, old: str, new: str, question: str
) -> tuple[int | None, int | None, str | None]:
    with Searcher(vault) as searcher:
        response = searcher.search(question, k=5, log=False, now=NOW, use_floor=False)
    texts = [" ".join(r.snippet.split()) for r in response.results]
    new_at = next((i for i, t in enumerate(texts) if new in t), None)
    old_at = next((i for i, t in enumerate(texts) if old in t), None)
    by = response.results[old_at].superseded_by if old_at is not None else None
    return new_at, old_at, by


def test_the_newer_value_ranks_first(fresh_vault: Vault) -> None:
    newer_first = 0
    for lang in LANGS:
        mine = [(o, n, q) for code, o, n, q in PAIRS if code == lang]
        wins = 0
        for old, new, question in mine:
            new_at, old_at, _ = _ranks(fresh_vault, old, new, question)
            wins += new_at is not None and (old_at is None or new_at < old_at)
        assert wins >= len(mine) - 3, (lang, wins, len(mine))
        newer_first += wins
    assert newer_first >= 27


def test_more_pairs_in_other_words_rank_newer_first(fresh_vault: Vault) -> None:
    """Synonyms ("served on" / "listens on"), "from 100 to 250", in three languages: found
    by words or by the facts' meaning. Across languages e5-small puts a fact and its
    translation (cosine 0.78-0.85) below unrelated facts of one language (0.86-0.90): those
    pairs are the model's limit, counted apart and not required."""
    same = [p for p in MORE_PAIRS if ">" not in p[0]]
    across = [p for p in MORE_PAIRS if ">" in p[0]]
    assert len(same) >= 10 and len(across) >= 3
    assert {lang for lang, *_ in same} == set(LANGS)
    wins = {lang: 0 for lang in LANGS}
    for lang, old, new, question in same:
        new_at, old_at, by = _ranks(fresh_vault, old, new, question)
        won = new_at is not None and (old_at is None or new_at < old_at)
        wins[lang] += won
        assert not won or old_at is None or by is not None  # placed below and named
    # 11 of 11 today.
    assert sum(wins.values()) >= len(same) - 1, wins
    assert all(wins[lang] >= 3 for lang in LANGS), wins


@pytest.fixture(scope="module")
def negatives_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    pairs = [("neg", old, new, q) for old, new, q in HARD_NEGATIVES]
    pairs += [("neg", old, new, old) for old, new in NEGATIVES]
    vault = _fresh_vault(tmp_path_factory.mktemp("negatives") / "vault", pairs)
    sync(vault, now=NOW)
    return vault


def test_hard_negatives_are_never_superseded_in_a_vault(negatives_vault: Vault) -> None:
    """The same subject with compatible values, or another subject sharing words, with a
    question about the old one: by words nor by meaning, the old one is not superseded."""
    assert len(HARD_NEGATIVES) >= 8
    assert {script for *_, q in HARD_NEGATIVES for script in _scripts(q)} == set(LANGS)
    superseded = []
    for old, new, question in HARD_NEGATIVES + [(o, n, o) for o, n in NEGATIVES]:
        _new_at, _old_at, by = _ranks(negatives_vault, old, new, question)
        if by is not None:
            superseded.append((old, new, by))
    assert superseded == []


def _scripts(text: str) -> set[str]:
    if any("\u0590" <= ch <= "\u05ff" for ch in text):
        return {"he"}
    return {"ru"} if any("\u0400" <= ch <= "\u04ff" for ch in text) else {"en"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "the public API allows 100 requests per minute",
            "we raised the public API limit from 100 to 250 requests per minute",
        ),
        ("החבילה הבסיסית עולה 99 שקלים", "העלינו את החבילה הבסיסית מ-99 ל-129 שקלים"),
        ("лимит публичного API — 100 запросов", "лимит публичного API подняли со 100 до 250"),
    ],
)
def test_a_change_from_one_value_to_another_in_three_languages(old: str, new: str) -> None:
    """ "From 100 to 250" names the old value too: still a change (the words of change)."""
    assert changed_value(new, old) == "same meaning, changed number"
    assert changed_value(old, new) is None  # the old one says no change
    # Without a word of change two numbers are two facts, not a revision.
    assert changed_value("the public API served 250 requests per minute at the peak", old) is None


def test_changed_value_needs_a_shared_subject_and_a_name_written_as_one() -> None:
    # Another thing of one place: two words shared, a lowercase word after "changed to".
    assert (
        changed_value(
            "the orchard hall lights changed to warm LED",
            "Tamar tested the sound system in the orchard hall",
        )
        is None
    )
    assert (
        changed_value(
            "Yael moved the label printing to Print-Tec",
            "labels are printed at Galil Print, label printing takes two weeks",
        )
        == "same meaning, changed to another"
    )
    # One shared word is a topic ("product photos" / "product search").
    assert (
        changed_value(
            "the product photos now load as WebP, 40% lighter",
            "product search runs on Elasticsearch 7 with 1.5 GB",
        )
        is None
    )
    assert changed_value(
        "домен магазина теперь продлеваем через Cloudflare",
        "домен магазина продлеваем через Namecheap",
    )
    assert changed_value(
        "הדומיין של החנות מחודש עכשיו דרך Cloudflare", "הדומיין של החנות מחודש דרך Namecheap"
    )


def test_qualified_subjects_are_two_things_in_three_languages() -> None:
    assert qualified_apart(
        "the staging database runs Postgres 15", "the analytics database moved to Postgres 16"
    )
    assert qualified_apart(
        "сервер логов хранит данные 30 дней", "сервер бэкапов теперь хранит данные 90 дней"
    )
    assert qualified_apart("החבילה הבסיסית עולה 99 שקלים", "החבילה המורחבת עולה עכשיו 199 שקלים")
    assert not qualified_apart(
        "тестовый сервер слушает порт 8080", "тестовый сервер перевели на порт 9090"
    )


def test_a_query_naming_the_old_name_asks_about_it() -> None:
    old = claims("all new barrels come from Tonnellerie Sabot in Burgundy")
    new = claims("from this vintage every new barrel comes from Kadar in Tokaj")
    assert names_older(query_stems("Tonnellerie Sabot barrels"), new, old)
    assert not names_older(query_stems("where do our new barrels come from"), new, old)
    # A query word the newer says too is the subject, not the old name ("Bottle-On-Wheels").
    old = claims("Amir wants the Cabernet bottled in September with Bottle-On-Wheels")
    new = claims("the Cabernet bottling moved to 15 December")
    assert not names_older(query_stems("when will the Cabernet be bottled"), new, old)


def test_superseded_by_in_json_and_explain(fresh_vault: Vault) -> None:
    _lang, old, new, question = PAIRS[1]  # Prawn, then Grover
    runner = CliRunner()
    args = ["--vault", str(fresh_vault.root), "search", question, "--all", "--no-log"]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    results = json.loads(out.stdout)["results"]
    stale = next(r for r in results if old in r["snippet"])
    fresh = next(r for r in results if new in r["snippet"])
    assert stale["superseded_by"] == f"{fresh['path']}:{fresh['line_start']}"
    assert "superseded_by" not in fresh
    listing = runner.invoke(app, [*args, "--explain"])
    assert f"superseded by {fresh['path']}:{fresh['line_start']}" in listing.stdout


def test_lint_reports_the_same_pairs_in_three_languages() -> None:
    units = []
    for i, (_lang, old, new, _q) in enumerate(PAIRS[::3]):
        units += units_of(f"memory/daily/2026-10-{i + 1:02d}.md", f"- 10:00 {old}\n")
        units += units_of(f"memory/daily/2026-11-{i + 1:02d}.md", f"- 10:00 {new}\n")
    found = {(a.text, b.text) for a, b, _ in worded_apart_pairs(units)}
    langs = {
        PAIRS[i * 3][0]
        for i in range(len(PAIRS[::3]))
        if any(PAIRS[i * 3][1] in a for a, _ in found)
    }
    assert langs == set(LANGS)
    negatives = [
        u for old, new in NEGATIVES for u in units_of("memory/core.md", f"- {old}\n- {new}\n")
    ]
    assert worded_apart_pairs(negatives) == []
    # Lint has no query: it also needs one line to say the value changed (a log's counts
    # on two days are events, not a contradiction).
    counts = units_of(
        "memory/daily/2026-10-01.md",
        "- 10:00 Kostya: 31 orders packed for the club pickup point\n"
        "- 11:00 Костя: 31 заказ собран для клуба\n"
        "- 12:00 Kostya: 25 orders packed for the club pickup point\n"
        "- 13:00 Костя: 25 заказов собрано для клуба\n",
    )
    assert worded_apart_pairs(counts) == []
    moved = units_of("memory/core.md", "- Костя: теперь 40 заказов собрано для клуба\n")
    assert worded_apart_pairs(counts + moved)


def test_with_the_newer_keeps_what_replaced_a_kept_value() -> None:
    chosen = [7, 3, 9, 4]
    assert with_the_newer(chosen, [3], {3: 7}) == [7, 3]
    assert with_the_newer(chosen, [4], {4: 9, 9: 7}) == [7, 9, 4]  # a chain of revisions
    assert with_the_newer(chosen, [3, 9], {4: 7}) == [3, 9]  # the older is not shown
    assert with_the_newer(chosen, [3], {3: 11}) == [3]  # the newer was not chosen


@pytest.mark.parametrize("lang", LANGS)
def test_a_stale_value_the_floor_keeps_brings_its_newer(
    fresh_vault: Vault, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The floor judges each result on its own words and meaning; when it keeps the older
    of two values and drops the newer (a revision worded apart from the question), the
    newer is shown all the same, above the older."""
    _code, old, new, question = next(p for p in PAIRS if p[0] == lang)
    new_at, old_at, _ = _ranks(fresh_vault, old, new, question)
    assert new_at is not None and old_at is not None and new_at < old_at
    from memctl.search.floor import rule

    # As if the floor had kept the older alone.
    monkeypatch.setattr(rule, "keep", lambda values, later, floor: [old_at])
    with Searcher(fresh_vault) as searcher:
        results = searcher.search(question, k=5, log=False, now=NOW).results
    texts = [" ".join(r.snippet.split()) for r in results]
    assert len(texts) == 2 and new in texts[0] and old in texts[1], texts
