"""Dates for undated notes, COLD under WARM, and the newer of two conflicting facts first."""

from __future__ import annotations

import os
import subprocess
from datetime import date, datetime
from pathlib import Path

import pytest

from memctl.index.chunker import chunk_markdown
from memctl.index.dates import FallbackDates, last_commit_dates
from memctl.index.note_meta import first_heading_date, needs_fallback_date
from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.search.rank.supersession import Item, cold_under_warm, newer_first
from memctl.statements import conflict, lines_conflict, parse
from memctl.vault import Vault
from tests.search.supersession_pairs import COMPATIBLE, PAIRS

NOW = datetime(2026, 11, 22, 9, 30)
OLD_MTIME = datetime(2026, 5, 1, 12, 0).timestamp()


def test_the_fixture_has_at_least_ten_pairs_in_every_language() -> None:
    assert len(PAIRS) >= 10
    assert {lang for lang, *_ in PAIRS} == {"en", "he", "ru"}


@pytest.mark.parametrize(("lang", "old", "new", "query"), PAIRS)
def test_every_pair_is_detected_as_a_conflict(lang: str, old: str, new: str, query: str) -> None:
    assert lines_conflict(new, old) is not None
    assert lines_conflict(old, new) is not None


@pytest.mark.parametrize(("a", "b"), COMPATIBLE)
def test_compatible_statements_are_not_conflicts(a: str, b: str) -> None:
    assert lines_conflict(a, b) is None


def test_statement_parts() -> None:
    s = parse("- 10:15 Moved the billing service to port 9090 on 2026-11-20")
    assert s.values == {"9090"} and not s.negated  # a time stamp and a date are not values
    assert conflict(parse("we never deploy on Fridays"), parse("We deploy on Fridays")) is not None


def test_first_heading_date_and_fallback_need() -> None:
    assert first_heading_date(["", "# Billing, archived 2026-09-09", "text"]) == date(2026, 9, 9)
    assert first_heading_date(["text first", "# 2026-09-09"]) is None
    assert first_heading_date(["# Billing notes"]) is None
    assert needs_fallback_date("# Billing notes\n\nport 8080\n", "memory/archive/billing.md")
    assert not needs_fallback_date("# Billing 2026-09-09\n", "memory/archive/billing.md")
    assert not needs_fallback_date("---\ndate: 2026-01-02\n---\nx\n", "memory/archive/a.md")
    assert not needs_fallback_date("# x\n", "memory/archive/2026-01-02.md")
    assert not needs_fallback_date("## Identity\n", "memory/core.md")  # always current
    # A roll-up of packed daily notes is dated per section by the lifecycle rules.
    rollup = "# Notes\n\n## 2026-09-07\n\n- note\n"
    assert not needs_fallback_date(rollup, "memory/archive/2026-09.md")


def test_chunker_dates_in_order_front_matter_heading_then_fallback() -> None:
    fallback = date(2026, 3, 4)
    front = "---\ndate: 2026-01-02\n---\n# Notes, archived 2026-09-09\n\nport 8080\n"
    assert chunk_markdown(front, "memory/archive/a.md", fallback_date=fallback)[0].date == (
        "2026-01-02"
    )
    heading = "# Notes, archived 2026-09-09\n\nport 8080\n"
    assert chunk_markdown(heading, "memory/archive/a.md", fallback_date=fallback)[0].date == (
        "2026-09-09"
    )
    plain = "# Notes\n\nport 8080\n"
    assert chunk_markdown(plain, "memory/archive/a.md", fallback_date=fallback)[0].date == (
        "2026-03-04"
    )
    assert chunk_markdown(plain, "memory/archive/a.md")[0].date is None
    core = chunk_markdown("## Identity\n\nI am\n", "memory/core.md", fallback_date=fallback)
    assert core[0].date is None


def _git(root: Path, *args: str, when: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def test_fallback_date_is_the_last_commit_else_the_file_time(vault: Vault) -> None:
    archived = vault.archive_dir / "billing.md"
    archived.write_text("# Billing\n\nThe billing service runs on port 8080.\n")
    loose = vault.archive_dir / "loose.md"
    loose.write_text("# Loose\n\nnot committed\n")
    os.utime(loose, (OLD_MTIME, OLD_MTIME))
    assert last_commit_dates(vault.root) == {}  # not a git repository
    _git(vault.root, "init", "-q")
    _git(vault.root, "add", "memory/archive/billing.md")
    _git(vault.root, "commit", "-q", "-m", "old", when="2026-02-03T10:00:00")
    archived.write_text("# Billing\n\nThe billing service runs on port 8081.\n")
    _git(vault.root, "commit", "-q", "-am", "newer", when="2026-04-05T10:00:00")
    dates = FallbackDates(vault.root)
    assert dates.of("memory/archive/billing.md", 0) == date(2026, 4, 5)
    assert dates.of("memory/archive/loose.md", int(OLD_MTIME * 1e9)) == date(2026, 5, 1)
    report = sync(vault, embed=False, now=NOW)
    assert "memory/archive/billing.md" in report.changed
    from memctl.index.store import Store

    with Store.open(vault) as store:
        rows = dict(store.conn.execute("SELECT path, date FROM chunks WHERE tier = 'cold'"))
    assert rows == {
        "memory/archive/billing.md": "2026-04-05",
        "memory/archive/loose.md": "2026-05-01",
    }


def test_cold_never_outranks_an_as_relevant_warm() -> None:
    items = {
        1: Item("warm", "daily", date(2026, 10, 1), "a"),
        2: Item("cold", "archive", date(2026, 11, 21), "b"),
        3: Item("cold", "archive", None, "c"),
    }
    relevance = {1: 0.8, 2: 0.8, 3: 0.9}
    scores = {1: 0.7, 2: 0.9, 3: 0.95}
    settled = cold_under_warm(scores, relevance, items)
    assert settled[2] < settled[1]  # equal relevance: COLD below WARM
    assert settled[3] == 0.95  # more relevant: it keeps its place


def test_newer_first_settles_a_chain_and_leaves_unrelated_alone() -> None:
    items = {
        1: Item("cold", "archive", date(2026, 1, 1), "The billing service runs on port 8080."),
        2: Item("warm", "daily", date(2026, 6, 1), "Billing service moved to port 8081."),
        3: Item("warm", "daily", date(2026, 11, 1), "Moved the billing service to port 9090."),
        4: Item("cold", "archive", date(2026, 1, 1), "The auth service runs on port 7000."),
    }
    scores = {1: 0.9, 2: 0.8, 3: 0.5, 4: 0.85}
    settled, superseded = newer_first(scores, items, date(2026, 11, 22))
    assert settled[3] > settled[2] > settled[1]
    # The chain is walked newest first: each older statement names the newest one that
    # contradicts it (3), not the next link (2).
    assert superseded == {2: 3, 1: 3}
    assert settled[4] == 0.85


def _pair_vault(root: Path) -> Vault:
    """Each pair's old statement: a WARM daily note, an archive note dated in its heading,
    or an undated archive note with an old file time; the new one a recent daily note."""
    from memctl.memory import init_vault

    init_vault(root)
    vault = Vault(root)
    for i, (_lang, old, new, _query) in enumerate(PAIRS):
        kind = i % 3
        if kind == 0:
            (vault.daily_dir / f"2026-09-{i + 1:02d}.md").write_text(
                f"# 2026-09-{i + 1:02d}\n\n- 10:00 {old}\n"
            )
        elif kind == 1:
            (vault.archive_dir / f"facts-{i}.md").write_text(
                f"# Service facts, archived 2026-09-{i + 1:02d}\n\n{old}\n"
            )
        else:
            path = vault.archive_dir / f"facts-{i}.md"
            path.write_text(f"# Service facts\n\n{old}\n")
            os.utime(path, (OLD_MTIME, OLD_MTIME))
        day = f"2026-11-{i + 5:02d}"
        (vault.daily_dir / f"{day}.md").write_text(f"# {day}\n\n- 11:00 {new}\n")
    return vault


@pytest.fixture(scope="module")
def pair_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    vault = _pair_vault(tmp_path_factory.mktemp("pairs") / "vault")
    sync(vault, now=NOW)
    return vault


@pytest.mark.parametrize(("lang", "old", "new", "query"), PAIRS)
def test_the_newer_fact_ranks_first(
    pair_vault: Vault, lang: str, old: str, new: str, query: str
) -> None:
    with Searcher(pair_vault) as searcher:
        response = searcher.search(query, k=5, log=False, now=NOW, explain=True)
    texts = [r.snippet for r in response.results]
    new_rank = next(i for i, t in enumerate(texts) if new in t)
    old_ranks = [i for i, t in enumerate(texts) if old in t]
    assert not old_ranks or new_rank < old_ranks[0], texts
