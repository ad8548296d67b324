"""The reranking stage: its features, its model, and how its probabilities reorder."""

from __future__ import annotations

import math
import re
from datetime import datetime

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.frozen import filled
from memctl.index.usage import ChunkRecord
from memctl.search.floor.rule import WeightedTerm
from memctl.search.rank import ranking
from memctl.search.rerank import windows
from memctl.search.rerank.lines import LineWords, TextViews
from memctl.search.rerank.model import (
    FEATURES,
    Candidate,
    Model,
    Shown,
    features,
    rerank,
)
from memctl.vault import Vault

from .conftest import NOW, copy_fixture


def term(word: str, weight: float) -> WeightedTerm:
    return WeightedTerm(weight, lambda w: w.lower() == word)


def shown(text: str, start: int, chunk: tuple[int, int], cosine: float | None) -> Shown:
    lines = text.split("\n")
    chunk_text = "\n".join(lines[chunk[0] - start : chunk[1] - start + 1])
    return Shown(
        path="memory/daily/2026-11-01.md",
        text=text,
        line_start=start,
        line_end=start + len(lines) - 1,
        chunk_text=chunk_text,
        chunk_start=chunk[0],
        chunk_end=chunk[1],
        chunk_cosine=cosine,
        window_cosine=cosine,
        mean_cosine=cosine,
    )


def candidate(relevance: float, composite: float) -> Candidate:
    return Candidate(
        parts={"fts": 1.0}, date_match=False, relevance=relevance, boosted=relevance,
        composite=composite, cold=False,
    )  # fmt: skip


def test_window_features_see_the_reply_after_the_chunk() -> None:
    terms = [term("piano", 2.0), term("lessons", 1.0)]
    views = {
        # The chunk (line 3) asks; the reply after it names the piano.
        1: shown("- A: any news?\n- B: what lessons?\n- A: piano, every Monday", 2, (3, 3), 0.8),
        2: shown("- C: lessons are fun", 10, (10, 10), 0.9),
    }
    cands = {1: candidate(0.5, 0.4), 2: candidate(0.9, 0.8)}
    rows = features([2, 1], cands, views, terms)
    row = dict(zip(FEATURES, rows[1], strict=True))
    assert row["cover_chunk"] == pytest.approx(1 / 3)
    assert row["cover_window"] == pytest.approx(1.0)
    assert row["cover_after"] == pytest.approx(2 / 3)
    assert row["cover_before"] == 0.0
    assert row["cos_chunk"] == pytest.approx(0.8 - 0.9)  # against the query's best cosine
    assert row["rank"] == 0.5 and row["score_share"] == pytest.approx(0.5)
    assert row["lines_after"] == pytest.approx(1 / 3)
    top = dict(zip(FEATURES, rows[2], strict=True))
    assert top["rank"] == 1.0 and top["cos_chunk"] == 0.0


def test_support_is_another_candidate_the_window_shows() -> None:
    views = {
        1: shown("- A: hello\n- B: the answer", 1, (1, 1), 0.8),
        2: shown("- B: the answer", 2, (2, 2), 0.8),
    }
    cands = {1: candidate(0.3, 0.3), 2: candidate(0.7, 0.7)}
    rows = features([2, 1], cands, views, [term("answer", 1.0)])
    assert rows[1][FEATURES.index("support")] == 0.7
    assert rows[2][FEATURES.index("support")] == 0.0


def test_model_probability_is_a_standardised_logistic() -> None:
    n = len(FEATURES)
    model = Model(FEATURES, (1.0,) * n, (2.0,) * n, (0.5,) + (0.0,) * (n - 1), -1.0, 30)
    row = [5.0] + [0.0] * (n - 1)
    assert model.probability(row) == pytest.approx(1 / (1 + math.exp(-(-1.0 + 0.5 * 2.0))))
    assert rerank(model, {7: row}) == {7: pytest.approx(0.5)}


def test_weights_must_match_the_features() -> None:
    with pytest.raises(ValueError, match="retrain"):
        Model.from_dict({"features": ["fts"], "mean": [0], "scale": [1], "coef": [0],
                         "intercept": 0})  # fmt: skip


def test_the_shipped_weights_load() -> None:
    model = windows.model()
    assert model.names == FEATURES and len(model.coef) == len(FEATURES)
    assert 10 <= model.candidates <= 100


def record(cid: int, tier: str = "warm") -> ChunkRecord:
    return ChunkRecord(
        cid, f"memory/daily/2026-11-0{cid}.md", 1, 1, "", f"note {cid}", f"h{cid}", tier,
        "daily", None, [], 0.5, True, None, None, 0,
    )  # fmt: skip


def test_rescore_puts_the_reranked_above_the_rest_and_keeps_cold_under_warm() -> None:
    records = {i: record(i, "cold" if i == 3 else "warm") for i in (1, 2, 3, 4)}
    scored = ranking.Scored(
        scores={1: 0.9, 2: 0.8, 3: 0.7, 4: 0.95},
        relevance={1: 0.9, 2: 0.8, 3: 0.7, 4: 0.95},
        composite={1: 0.9, 2: 0.8, 3: 0.7, 4: 0.95},
        factors={1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0},
    )
    # 4 was not reranked: it falls below every reranked candidate; the COLD 3, though
    # judged the most likely, stays under the WARM 2 it is no more relevant than.
    out = ranking.rescore(scored, {1: 0.6, 2: 0.9, 3: 0.9}, records, datetime(2026, 11, 22))
    assert out[4] < min(out[1], out[2], out[3])
    assert out[2] > out[3] > out[1]


def test_explain_shows_the_rerank_score_and_the_setting_turns_it_off(
    runner: CliRunner, tmp_path: object
) -> None:
    from pathlib import Path

    vault: Vault = copy_fixture(Path(str(tmp_path)))
    env = {"MEMCTL_NOW": NOW.isoformat()}
    indexed = runner.invoke(app, ["--vault", str(vault.root), "index"], env=env)
    assert indexed.exit_code == 0, indexed.output
    args = ["--vault", str(vault.root), "search", "deploy checklist", "--explain", "--json"]
    out = runner.invoke(app, [*args, "--no-log"], env=env)
    assert out.exit_code == 0, out.output
    import json

    results = json.loads(out.stdout)["results"]
    assert results and all(isinstance(r["explain"]["rerank"], float) for r in results)
    (vault.root / ".memctl.toml").write_text("[search]\nrerank = false\n", encoding="utf-8")
    out = runner.invoke(app, [*args, "--no-log"], env=env)
    assert out.exit_code == 0, out.output
    assert all(r["explain"]["rerank"] is None for r in json.loads(out.stdout)["results"])


def test_the_quick_word_tests_leave_every_feature_as_it_was() -> None:
    """The snippets' matcher, the kept line words and the substring needles only skip
    words that match no query word: every row is the one the plain word loop gives,
    for Hebrew prefix letters, a stem, and a form holding a sigma."""
    from memctl.search.present.snippets import Matcher

    text = (
        "**Dana:** the ΟΔΟΣ.Α road and the deploys\nblank words here\n\n"
        "בבית deploy deploy ΟΔΟΣ\n**Omer:** nothing at all"
    )
    view = shown(text, 10, (11, 12), 0.5)
    other = shown("deploy again\nand οδος", 20, (20, 21), 0.4)
    terms = [
        term("deploy", 2.0),
        WeightedTerm(1.0, lambda w: w.lower().startswith("deplo")),
        term("בית", 1.5),
        term("οδος", 1.0),
        term("οδοσ", 0.5),
    ]
    order = [1, 2]
    cands = {1: candidate(0.9, 0.9), 2: candidate(0.5, 0.5)}
    views = {1: view, 2: other}
    plain = features(order, cands, views, terms, frozenset({"dana"}))
    matcher = Matcher(exact=frozenset({"deploy", "בית", "οδος", "οδοσ"}), prefixes=("deplo",))
    kept: LineWords = {}
    for _ in range(2):  # the second time from the kept line words
        quick = features(
            order,
            cands,
            views,
            terms,
            frozenset({"dana"}),
            matcher.matches,
            kept,
            matcher.exact | set(matcher.prefixes),
        )
        assert quick == plain
    assert kept
    without_sigma = features(
        order,
        cands,
        views,
        terms[:3],
        frozenset(),
        matcher.matches,
        None,
        {"deploy", "deplo", "בית"},
    )
    assert without_sigma == features(order, cands, views, terms[:3])
    # Told the matcher's stems, only words whose lowercase is a form, starts with a stem or
    # with a Hebrew prefix letter are tested: the rows stay the plain loop's.
    plain_three = features(order, cands, views, terms[:3], frozenset({"dana"}))
    stems = Matcher(exact=frozenset({"deploy", "בית"}), prefixes=("deplo",))
    kept = {}
    for _ in range(2):
        assert (
            features(
                order,
                cands,
                views,
                terms[:3],
                frozenset({"dana"}),
                stems.matches,
                kept,
                stems.exact | set(stems.prefixes),
                stems.prefixes,
            )
            == plain_three
        )
    # A line without a needle (first seen) is not split into words: it is not kept.
    assert "deploy again" in kept and "blank words here" not in kept


def test_kept_line_and_window_views_leave_every_feature_as_it_was() -> None:
    """Lines' and windows' views kept across searches (by text, whatever the query) give
    the rows worked out afresh, for one query after another; a line with a word between
    two query words breaks their phrase, a blank line does not."""
    views = {
        1: shown("deploy\n\nroad\n**Dana:** hello", 10, (10, 10), 0.5),
        2: shown("deploy\nfoo\nroad\n", 20, (22, 22), 0.4),
        3: shown("nothing here\n**Omer:** road deploy", 30, (31, 31), None),
    }
    order = [1, 2, 3]
    cands = {1: candidate(0.9, 0.9), 2: candidate(0.5, 0.5), 3: candidate(0.3, 0.2)}
    kept = TextViews()
    queries = [
        [term("deploy", 2.0), term("road", 1.0)],
        [term("road", 1.0)],
        [term("hello", 1.0), term("deploy", 0.5)],
    ]
    for terms in queries * 2:
        rows = features(order, cands, views, terms, frozenset({"dana"}), views=kept)
        assert rows == features(order, cands, views, terms, frozenset({"dana"}))
    assert kept.lines and kept.windows
    adjacent = FEATURES.index("adjacent")
    rows = features(order, cands, views, queries[0], views=kept)
    assert [rows[c][adjacent] for c in order] == [1.0, 0.0, 1.0]


def test_adjacent_pairs_are_the_word_by_word_loop() -> None:
    """The `adjacent` feature from each line's pairs and its first and last query word
    (worked out once per line) equals the loop over every word of the window's lines:
    pairs side by side within a line, and across lines with no worded line between."""
    import random

    rng = random.Random(7)
    vocab = ["deploy", "road", "piano", "foo", "bar", "Deploy", "ROAD", "x"]
    terms = [term("deploy", 2.0), term("road", 1.0), term("piano", 0.5)]

    def plain(text: str) -> float:
        pairs: set[tuple[int, int]] = set()
        previous: int | None = None
        for line in text.split("\n"):
            for word in re.findall(r"\w+", line):
                here = next((i for i, t in enumerate(terms) if t.matches(word)), None)
                if here is not None and previous is not None and here != previous:
                    pairs.add((min(here, previous), max(here, previous)))
                previous = here
        return min(len(pairs) / (len(terms) - 1), 1.0)

    adjacent = FEATURES.index("adjacent")
    kept = TextViews()
    for _ in range(200):
        lines = [
            " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 5)))
            for _ in range(rng.randint(1, 6))
        ]
        text = "\n".join(lines)
        views = {1: shown(text, 10, (10, 10), 0.5)}
        row = features([1], {1: candidate(0.9, 0.9)}, views, terms, views=kept)[1]
        assert row[adjacent] == plain(text)


def test_a_windows_vectors_are_what_numpy_would_compute() -> None:
    """windows.WindowVectors sums a window's vectors row by row and windows.shown takes
    the chunk and mean cosines by `.dot` rather than `@`: each must give the floats the
    plain NumPy expressions give (np.sum(axis=0), np.linalg.norm, `@`), or the
    reranker's cosines would move in their last bits."""
    import numpy as np

    from memctl.search.rerank.windows import WindowVectors

    rng = np.random.default_rng(3)
    q = rng.normal(size=384).astype(np.float32)
    q /= np.linalg.norm(q)
    for n in (1, 2, 3, 7):
        rows = rng.normal(size=(n, 384)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        window = WindowVectors({i: row for i, row in enumerate(rows)})
        assert window.ids == tuple(range(n))
        assert window.total is not None
        assert np.array_equal(window.total, np.sum(rows, axis=0))
        assert window.norm == float(np.linalg.norm(np.sum(rows, axis=0)))
        assert float(window.total.dot(q)) == float(np.sum(rows, axis=0) @ q)
        for row in rows:
            assert float(row.dot(q)) == float(row @ q)
    empty = WindowVectors({})
    assert (empty.ids, empty.total, empty.norm) == ((), None, 0.0)


def test_windows_fill_shown_and_candidates_as_their_init_does() -> None:
    """windows fills Shown and Candidate in place (memctl.frozen): equal to the dataclass's
    own, frozen."""
    import dataclasses

    values = ("memory/a.md", "text", 1, 4, "chunk", 2, 3, 0.5, None, 0.25)
    made = filled(Shown, windows._SHOWN, values)
    assert made == Shown(*values) and repr(made) == repr(Shown(*values))
    assert hash(made) == hash(Shown(*values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.text = "other"  # type: ignore[misc]
    cand = ({"fts": 1.0}, False, 0.5, 0.6, 0.7, True)
    assert filled(Candidate, windows._CANDIDATE, cand) == Candidate(*cand)


@pytest.mark.parametrize(
    "body",
    [
        "- 09:10 a wild boar broke the fence of block 6 again",
        "- 09:10 ליאת: המקדמה לא מוחזרת לפי החוזה",
        "- 09:10 члены клуба просят видео о хранении вина",
    ],
)
def test_a_windows_mean_reads_the_candidate_by_its_fact(body: str) -> None:
    """windows.fact_mean: the window's mean vector with the candidate's chunk swapped for
    its fact nearest the query (less the short-text bias); a chunk known only whole
    (Fact.unit False) gives nothing to swap."""
    import numpy as np

    from memctl.search.rank.meaning import SHORT_TEXT_BIAS, Fact
    from memctl.search.rerank.windows import WindowVectors, fact_mean

    def unit(v: np.ndarray) -> np.ndarray:
        out: np.ndarray = (v / np.linalg.norm(v)).astype(np.float32)
        return out

    rng = np.random.default_rng(7)
    q = unit(rng.normal(size=64))
    fact = unit(q + 0.3 * rng.normal(size=64))  # the bullet that answers
    others = [unit(rng.normal(size=64)) for _ in range(3)]  # the day's other bullets
    chunk = unit(fact + sum(others))  # the day's averaged vector
    neighbour = unit(rng.normal(size=64))  # another chunk the window shows
    window = WindowVectors({1: chunk, 2: neighbour})
    plain = float(window.total.dot(q)) / window.norm  # type: ignore[union-attr]
    found = (Fact(body, fact, float(fact @ q)), Fact("other", others[0], float(others[0] @ q)))
    swapped = unit(fact + neighbour)
    read = fact_mean(window, chunk, found, q)
    assert read == pytest.approx(float(swapped @ q) - SHORT_TEXT_BIAS, abs=1e-5)
    assert read > plain + 0.1
    assert fact_mean(window, chunk, (Fact(body, chunk, float(chunk @ q), unit=False),), q) == -1.0
