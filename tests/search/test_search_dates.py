"""Searches that say a date: the notes dated then come first, a date alone is the whole
question, the date's words are not keywords, and an undated answer is still found."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli.app import app
from memctl.index.sqlite import lexical as cand
from memctl.index.sync import sync
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import Filters
from memctl.search.hybrid import Searcher
from memctl.search.query.dates import read_dates
from memctl.search.rank.dated import dated_query, merged
from memctl.search.trace import SearchTrace
from memctl.vault import Vault
from tests.search.dated_vault import NOW, write_vault


@pytest.fixture(scope="module")
def dated_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    vault = Vault(write_vault(tmp_path_factory.mktemp("dated")))
    sync(vault, embed=True, now=NOW)
    return vault


def paths(vault: Vault, query: str, **options: object) -> list[str]:
    with Searcher(vault) as searcher:
        response = searcher.search(query, now=NOW, log=False, **options)  # type: ignore[arg-type]
    return [r.path.removeprefix("memory/") for r in response.results]


# (question, the note that answers it): each has a newer or better-worded decoy.
CASES = [
    ("Which ticket was deployed to production the day before yesterday?", "daily/2026-11-26.md"),
    ("Which ticket was deployed to production yesterday?", "daily/2026-11-27.md"),
    ("איזה אוטובוס הזמנו בשבוע שעבר?", "daily/2026-11-19.md"),
    ("О чём говорили с Иваном во вторник?", "daily/2026-11-24.md"),
    ("What did we note about Georgia in March?", "archive/georgia-recce.md"),
]


@pytest.mark.parametrize(("question", "gold"), CASES)
def test_the_note_dated_then_comes_first(dated_vault: Vault, question: str, gold: str) -> None:
    assert paths(dated_vault, question)[:1] == [gold]


def test_a_date_alone_returns_that_days_notes(dated_vault: Vault) -> None:
    for question in ("what did we do yesterday?", "что было вчера?", "מה עשינו אתמול?"):
        assert paths(dated_vault, question) == ["daily/2026-11-27.md"], question
    # Not the note that merely says "Yesterday's" (2026-11-26), nor anything undated.
    assert paths(dated_vault, "yesterday") == ["daily/2026-11-27.md"]
    assert paths(dated_vault, "what happened on 2026-07-14?") == []  # no note that day


@pytest.mark.parametrize(
    "question",
    ["What went out to customers yesterday?", "מה יצא ללקוחות אתמול?", "Что ушло клиентам вчера?"],
)
def test_a_date_the_only_known_word_keeps_the_day_not_other_days(
    dated_vault: Vault, question: str
) -> None:
    # No word of the question but its date is in the vault: the note the date picked out
    # is the answer, not dropped by the gate, and a note of another day sharing no word
    # (in another script, whose lenient cross-lingual bar it passed) is not kept beside it.
    assert paths(dated_vault, question) == ["daily/2026-11-27.md"]


def test_an_undated_or_otherwise_dated_answer_is_still_found(dated_vault: Vault) -> None:
    # A boost, not a filter: nothing is dated in July, and core.md is undated.
    assert "archive/georgia-recce.md" in paths(dated_vault, "Kartli Coaches buses in July")
    assert "core.md" in paths(dated_vault, "when may we deploy to production? asked yesterday")


def test_since_and_until_filter_and_no_date_is_read(dated_vault: Vault) -> None:
    with Searcher(dated_vault) as searcher:
        response = searcher.search(
            "deployed to production yesterday",
            now=NOW,
            log=False,
            filters=Filters(since=date(2026, 11, 26), until=date(2026, 11, 26)),
        )
    assert response.dates is None
    assert {r.path for r in response.results} == {"memory/daily/2026-11-26.md"}


def test_the_setting_turns_it_off(dated_vault: Vault, tmp_path: Path) -> None:
    question, gold = CASES[2]
    shutil.copytree(dated_vault.root, tmp_path / "off")
    (tmp_path / "off" / ".memctl.toml").write_text("[search]\ndates = false\n", encoding="utf-8")
    with Searcher(Vault(tmp_path / "off")) as searcher:
        response = searcher.search(question, now=NOW, log=False)
    assert response.dates is None
    # Without the date the newer booking (recency) wins: the case above tests the stage.
    assert response.results[0].path != f"memory/{gold}"


def test_json_and_explain_say_the_range(
    dated_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMCTL_NOW", NOW.isoformat())
    runner = CliRunner()
    root = str(dated_vault.root)
    done = runner.invoke(
        app, ["--vault", root, "search", "--no-log", "--json", "deployed last Tuesday"]
    )
    assert done.exit_code == 0, done.output
    dates = json.loads(done.stdout)["dates"]
    assert dates["ranges"] == [
        {"said": "last Tuesday", "since": "2026-11-24", "until": "2026-11-24"}
    ]
    assert dates["confined"] is False and dates["found"] is True
    done = runner.invoke(app, ["--vault", root, "search", "--no-log", "--explain", "вчера"])
    assert done.exit_code == 0, done.output
    assert "dates: 'вчера' = 2026-11-27 (searched inside it only)" in done.output
    done = runner.invoke(app, ["--vault", root, "search", "--no-log", "--json", "Kartli"])
    assert "dates" not in json.loads(done.stdout)


def test_date_words_leave_the_keywords() -> None:
    parsed = parse_query("which ticket went out yesterday")
    dated = dated_query(parsed, read_dates(parsed.raw, NOW.date()), Filters())
    assert dated is not None and not dated.carried
    assert [t.text for t in dated.parsed.terms] == ["which", "ticket", "went", "out"]
    assert dated.share == pytest.approx(1 / 4)  # yesterday among ticket, went, out
    only = dated_query(
        parse_query("what did we do yesterday?"), read_dates("yesterday", NOW.date()), Filters()
    )
    assert only is not None and only.carried
    assert only.filters(Filters(tier="warm")) == Filters(
        tier="warm", since=date(2026, 11, 27), until=date(2026, 11, 27)
    )
    assert dated_query(parsed, None, Filters()) is None
    assert (
        dated_query(parsed, read_dates("yesterday", NOW.date()), Filters(since=date(2026, 1, 1)))
        is None
    )


def test_merged_lists_keep_every_candidate_once() -> None:
    out = merged({"fts": {1: 2.0, 2: 1.0}}, {"fts": {2: 1.0, 3: 0.5}, "vector": {3: 0.8}})
    assert out == {"fts": {1: 2.0, 2: 1.0, 3: 0.5}, "vector": {3: 0.8}}


def test_the_trace_holds_the_range_read(dated_vault: Vault) -> None:
    trace = SearchTrace()
    with Searcher(dated_vault) as searcher:
        searcher.search("что Иван говорил во вторник?", now=NOW, log=False, trace=trace)
    assert trace.dated is not None and not trace.dated.carried
    assert [(r.start, r.end) for r in trace.dated.said.ranges] == [
        (date(2026, 11, 24), date(2026, 11, 24))
    ]
    assert trace.query is not None
    assert "вторник" not in [t.text for t in trace.query.terms]


def test_a_date_range_has_its_vectors_scored_exactly(
    dated_vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = Filters(since=date(2026, 11, 24), until=date(2026, 11, 27))
    with Searcher(dated_vault) as searcher:
        conn = searcher.store.conn  # type: ignore[attr-defined]
        qvec = searcher.embed_query("who booked the bus?")
        exact = cand.vectors_within(conn, qvec, day, 30)
        whole = cand.vec0_candidates(conn, qvec, Filters(), 100)
        dates = dict(conn.execute("SELECT id, date FROM chunks").fetchall())
        inside = {
            cid for cid, when in dates.items() if when and "2026-11-24" <= when <= "2026-11-27"
        }
        assert len(inside) >= 4 and inside <= set(whole)
        assert exact is not None and set(exact) == inside
        for cid, cosine in exact.items():  # the same cosines as sqlite-vec's
            assert cosine == pytest.approx(whole[cid], abs=1e-5)
        monkeypatch.setattr(cand, "EXACT_FILTERED", len(inside) - 1)
        assert cand.vectors_within(conn, qvec, day, 30) is None  # too many: over-fetch instead


def test_a_range_no_note_matches_leaves_the_words_as_words(dated_vault: Vault) -> None:
    # Nothing is dated on Monday 2026-11-23 (a vault of other years is the same): the
    # date's words search as words and nothing is boosted.
    trace = SearchTrace()
    with Searcher(dated_vault) as searcher:
        response = searcher.search("Kartli Coaches on Monday", now=NOW, log=False, trace=trace)
    assert response.dates is not None
    assert response.dates["found"] is False and response.dates["boost"] == 1.0
    assert trace.query is not None and "monday" in [t.text for t in trace.query.terms]
    assert [r.path for r in response.results][:1] == ["memory/archive/georgia-recce.md"]
