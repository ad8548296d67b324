from __future__ import annotations

import math

import pytest

from memctl.errors import UsageError
from memctl.search.evaluate import Gold, Hit, matches, metrics, parse_queries, run_eval


def hit(path: str = "a.md", lo: int = 1, hi: int = 3, snippet: str = "") -> Hit:
    return Hit(path, lo, hi, snippet)


def test_gold_kinds() -> None:
    assert matches(Gold(path="a.md"), hit())
    assert not matches(Gold(path="b.md"), hit())
    assert matches(Gold(path="a.md", lines=(3, 9)), hit())
    assert not matches(Gold(path="a.md", lines=(4, 9)), hit())
    assert matches(
        Gold(text="Ana: I adopted a dog"), hit(snippet="## D1\n**Ana:**  I adopted a   dog\n")
    )
    assert not matches(Gold(text="Ana: I adopted a cat"), hit(snippet="**Ana:** I adopted a dog"))


def test_metrics_recall_mrr_ndcg() -> None:
    gold = [Gold(path="g1.md"), Gold(path="g2.md")]
    hits = [hit("x.md"), hit("g1.md"), hit("y.md"), hit("g2.md")]
    result = metrics(gold, hits, k=5)
    assert result["recall"] == 1.0
    assert result["mrr"] == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert result["ndcg"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert metrics(gold, hits, k=2)["recall"] == 0.5
    assert metrics(gold, [], k=5) == {"recall": 0.0, "mrr": 0.0, "ndcg": 0.0}


def test_parse_queries_shorthands_and_errors() -> None:
    lines = [
        '{"question": "q1", "gold_files": ["a.md"], "category": 4, "category_name": "single-hop"}',
        '{"query": "q2", "gold_texts": ["hello"]}',
        '{"query": "no gold"}',
        "",
    ]
    parsed = parse_queries(lines)
    assert [(q.query, q.category) for q in parsed] == [("q1", "single-hop"), ("q2", "all")]
    with pytest.raises(UsageError):
        parse_queries(["not json"])
    with pytest.raises(UsageError):
        parse_queries(['{"query": "x", "gold": [{"lines": [1, 2]}]}'])


def test_run_eval_per_category() -> None:
    queries = parse_queries(
        [
            '{"query": "a", "category": "c1", "gold_files": ["a.md"]}',
            '{"query": "b", "category": "c2", "gold_files": ["b.md"]}',
        ]
    )
    reports = run_eval(
        queries,
        lambda q, mode: [hit(f"{q}.md")] if mode == "good" else [],
        k=5,
        modes=["good", "bad"],
    )
    assert reports["good"].overall.to_dict()["recall"] == 1.0
    assert reports["bad"].categories["c1"].to_dict()["mrr"] == 0.0
