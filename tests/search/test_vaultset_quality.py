"""Quality floors on memctl's own vault-shaped set (tools/vaultset), both splits, through
the real CLI: a change that loses paraphrases, newer values, abstentions or the floor's
gold on notes shaped like the ones memctl writes fails here, not only in a lab round.

The clock and the set's "today" are pinned together, so the figures are the same on every
day and machine; each floor sits one question below the figure measured when it was set
(docs/search.md, "Current figures"), so only a real loss trips it."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Any

import pytest

from tools.vaultset import build as vs
from tools.vaultset.score import evaluate

MEMCTL = str(Path(sys.executable).with_name("memctl"))
TODAY = dt.date(2026, 11, 29)

# (split, figure) -> the least it may be. Counts are questions; hit@5 is over the
# split's answerable questions (tune 92, report 61), so one question is ~0.011 / ~0.016.
HIT5_FLOOR = {"tune": 0.80, "report": 0.688}
KIND_FLOORS: dict[str, dict[str, int]] = {
    "tune": {"paraphrase": 20, "crosslingual": 7, "temporal": 9, "newer_first": 6, "abstain": 9},
    "report": {"paraphrase": 10, "crosslingual": 1, "temporal": 6, "newer_first": 1, "abstain": 4},
}


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("vaultset")
    vs.build(out, TODAY)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MEMCTL_NOW", f"{TODAY.isoformat()}T12:00:00")
        mp.setenv("HF_HUB_OFFLINE", "1")
        measured, _ = evaluate(out, MEMCTL, ["hybrid", "vector"], k=5)
    return measured


def _count(split: dict[str, Any], figure: str) -> int:
    kinds = split["kinds"]
    if figure == "answered":
        return sum(int(e["hits"]) for kind, e in kinds.items() if kind != "abstain")
    if figure == "newer_first":
        return int(kinds["fresh"]["newer_first"])
    if figure == "abstain":
        return int(kinds["abstain"]["abstained"])
    return int(kinds[figure]["hits"])


@pytest.mark.parametrize("split", ["tune", "report"])
def test_hybrid_holds_its_floors(figures: dict[str, dict[str, Any]], split: str) -> None:
    hybrid = figures["hybrid"][split]
    assert hybrid["hit@5"] >= HIT5_FLOOR[split]
    low = {
        figure: (_count(hybrid, figure), least)
        for figure, least in KIND_FLOORS[split].items()
        if _count(hybrid, figure) < least
    }
    assert not low, f"below the floor (measured, floor): {low}"
    # Issue 31's bar: the floor keeps at least 0.97 of the gold the ranking found (a
    # result whose wider --all snippet shows the gold while the floor drops it counts).
    kept, reachable = hybrid["floor_kept"]
    assert kept >= 0.97 * reachable, f"the relevance floor hid gold: {kept} of {reachable}"


@pytest.mark.parametrize("split", ["tune", "report"])
def test_fusion_keeps_what_the_vectors_find(figures: dict[str, dict[str, Any]], split: str) -> None:
    """Issue 31: paraphrases in hybrid never below `--mode vector` (the report split met
    it at 11 against 11 when the reranker began reading the vector list's standing), and
    the answered questions of any kind not below it by more than one question."""
    hybrid, vector = figures["hybrid"][split], figures["vector"][split]
    assert _count(hybrid, "paraphrase") >= _count(vector, "paraphrase")
    assert _count(hybrid, "answered") >= _count(vector, "answered") - 1
