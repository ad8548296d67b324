"""What a kept Searcher remembers between searches (counts, chunks' words, records, files'
chunks) and when it forgets them, and the bounds that let diversity skip snippets: none
of it may change a result."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from memctl.index.sqlite import candidates as lists
from memctl.index.sqlite import lexical as cand
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.index.usage import ChunkRecord
from memctl.lexical.parse import parse_query
from memctl.search.hybrid import Searcher
from memctl.search.kept import IndexMemory, _FileRows
from memctl.search.present.results import (
    RANK_SHARES,
    Snippets,
    chunk_snippet,
    context_window,
    matcher_for,
    snippet_lines,
)
from memctl.search.present.snippets import Snippet
from memctl.search.rank.ranking import diversify, reach
from memctl.search.rank.scoring import Policy
from memctl.vault import Vault

NOW = datetime(2026, 11, 22, 9, 30)


def test_counts_are_kept_until_cleared(vault: Vault) -> None:
    (vault.root / "memory/daily/2026-11-20.md").write_text(
        "# 2026-11-20\n\n- 10:00 backup every night\n- 11:00 backup moved\n", encoding="utf-8"
    )
    sync(vault, embed=False, now=NOW)
    counts = cand.KeptCounts()
    with Store.open(vault) as store:
        assert cand.doc_freqs(store.conn, ["backup"], cap=10, counts=counts) == {"backup": 1}
        rows = cand.row_count(store.conn, counts)
        assert counts.capped == {('"backup"', 10): 1} and counts.rows == rows
        counts.capped['"backup"', 10] = 7  # what is kept is what is answered
        assert cand.doc_freqs(store.conn, ["backup"], cap=10, counts=counts) == {"backup": 7}
        counts.clear()
        assert cand.doc_freqs(store.conn, ["backup"], cap=10, counts=counts) == {"backup": 1}


def test_a_refresh_forgets_what_searches_read_from_the_index(fixture_copy: Vault) -> None:
    note = fixture_copy.root / "memory" / "daily" / "2026-11-22.md"
    with Searcher(fixture_copy, fresh=False) as searcher:
        before = searcher.search("zanzibar", k=3, log=False, now=NOW, mode="lexical", explain=True)
        assert all("zanzibar" not in (r.explain or {}).get("terms", []) for r in before.results)
        note.write_text("# 2026-11-22\n\n- 08:00 zanzibar gateway timeout\n", encoding="utf-8")
        searcher.refresh(NOW)
        after = searcher.search("zanzibar", k=3, log=False, now=NOW, mode="lexical", explain=True)
    assert after.results[0].path == "memory/daily/2026-11-22.md"
    # The word's count was read again: the lexical plan asks FTS5 for it.
    assert after.results[0].explain is not None
    assert "zanzibar" in after.results[0].explain["terms"]


def _long_log(vault: Vault) -> None:
    lines = ["# 2026-11-20", ""]
    for i in range(120):
        word = "backup" if i % 7 == 0 else "deploy"
        lines.append(f"- {i:02d}:00 {word} step {i} " + "detail " * (i % 5))
        if i % 3 == 2:
            lines.append("")
    (vault.root / "memory/daily/2026-11-20.md").write_text("\n".join(lines), encoding="utf-8")
    (vault.root / "memory/decisions.md").write_text(
        "# Decisions\n\n## Backups\n\nbackup nightly\nkept for 30 days\n\n## Deploys\n\ndeploy "
        "on Tuesdays\n",
        encoding="utf-8",
    )
    sync(vault, embed=False, now=NOW)


@pytest.mark.parametrize("budget", [10, 25, 60, 200])
@pytest.mark.parametrize("query", ["backup", "deploy step", "detail 7", "nothing here"])
def test_a_snippet_stays_within_its_chunks_reach(vault: Vault, budget: int, query: str) -> None:
    _long_log(vault)
    parsed = parse_query(query)
    with Store.open(vault) as store:
        ids = store.chunk_ids()
        records = store.chunks_by_ids(ids)
        plan = cand.plan_lexical(store.conn, parsed, 0.5)
        matcher = matcher_for(parsed, plan)
        assert len(records) > 10
        for record in records:
            snip = chunk_snippet(store, record, matcher, budget)
            lo, hi = reach(record, budget)
            assert lo <= snip.line_start <= snip.line_end <= hi, (record.line_start, snip)


def _record(cid: int, text: str, lines: tuple[int, int]) -> ChunkRecord:
    return ChunkRecord(
        id=cid, path="memory/daily/a.md", line_start=lines[0], line_end=lines[1], heading="",
        text=text, hash=f"h{cid}", tier="warm", source="daily", date=None, tags=[],
        importance=0.5, embedded=False, created_at=None, last_referenced_at=None, access_count=0,
    )  # fmt: skip


def test_diversify_makes_no_snippet_for_chunks_too_far_apart_to_meet() -> None:
    records = {
        1: _record(1, "backup every night", (3, 3)),
        2: _record(2, "backup moved to four", (5, 5)),
        3: _record(3, "backup checked weekly", (400, 400)),
    }
    made: list[int] = []

    def snippet(cid: int) -> Snippet:
        made.append(cid)
        r = records[cid]
        return Snippet(r.text, r.line_start - 2, r.line_end + 2, (), False)

    scores = {1: 0.9, 2: 0.8, 3: 0.7}
    unbounded = diversify(scores, records, snippet, 3, Policy())
    assert set(made) == {1, 2, 3}
    made.clear()
    bounded: Any = diversify(scores, records, snippet, 3, Policy(), snippet_tokens=50)
    assert bounded == unbounded == [1, 3]  # 1 and 2 show the same lines
    assert 3 not in made and set(made) == {1, 2}


def test_diversify_keeps_word_overlaps_by_chunk_pair_and_chooses_the_same() -> None:
    records = {
        cid: replace(_record(cid, text, (10 * cid, 10 * cid)), path=f"memory/notes/{cid}.md")
        for cid, text in enumerate(
            ["backup every night", "backup every night at two", "deploy on fridays", "x y"],
            start=1,
        )
    }

    def snippet(cid: int) -> Snippet:
        r = records[cid]
        return Snippet(r.text, r.line_start, r.line_end, (), False)

    scores = {1: 0.9, 2: 0.85, 3: 0.6, 4: 0.5}
    policy = Policy(duplicate_similarity=0.5)
    plain = diversify(scores, records, snippet, 3, policy)
    overlaps: dict[tuple[int, int], float] = {}
    assert diversify(scores, records, snippet, 3, policy, overlaps=overlaps) == plain
    assert overlaps and all(a < b for a, b in overlaps)
    assert overlaps[(1, 2)] == 0.6  # 3 shared words of 5
    overlaps[(1, 2)] = 0.0  # what is kept is what it reads
    assert diversify(scores, records, snippet, 3, policy, overlaps=overlaps) == [1, 2, 3]
    assert plain == [1, 3, 4]


@pytest.mark.parametrize("budget", [10, 25, 60, 200])
@pytest.mark.parametrize("query", ["backup", "deploy step", "detail 7"])
def test_snippets_reach_holds_every_snippet(vault: Vault, budget: int, query: str) -> None:
    """Snippets.reach (the closer bound diversity uses) holds the snippet, and is exactly
    its lines when the chunk fits the budget."""
    _long_log(vault)
    parsed = parse_query(query)
    with Store.open(vault) as store:
        records = {r.id: r for r in store.chunks_by_ids(store.chunk_ids())}
        plan = cand.plan_lexical(store.conn, parsed, 0.5)
        snippets = Snippets(store, records, matcher_for(parsed, plan), budget)
        exact = 0
        for cid in records:
            lo, hi = snippets.reach(cid)
            snip = snippets(cid)
            assert lo <= snip.line_start <= snip.line_end <= hi, (cid, snip)
            exact += (lo, hi) == (snip.line_start, snip.line_end)
        assert exact > 0


def test_a_files_chunks_read_once_answer_as_context_rows_does(vault: Vault) -> None:
    _long_log(vault)
    memory = IndexMemory()
    with Store.open(vault) as store:
        read = memory.context_reader(store)
        for path in ("memory/daily/2026-11-20.md", "memory/decisions.md", "memory/none.md"):
            for lo in range(-5, 170, 7):
                for hi in (lo, lo + 3, lo + 40):
                    window = ("", path, lo, hi)
                    assert list(read(window)) == store.context_rows(*window)
        assert set(memory.files) == {
            "memory/daily/2026-11-20.md",
            "memory/decisions.md",
            "memory/none.md",
        }


def test_a_windows_lines_cut_from_its_files_answer_as_its_rows_laid_out(vault: Vault) -> None:
    _long_log(vault)
    memory = IndexMemory()
    with Store.open(vault) as store:
        ids = [int(i) for (i,) in store.conn.execute("SELECT id FROM chunks")]
        laid = memory.context_lines(store)
        cut = 0
        for record in store.chunks_by_ids(ids):
            plain = snippet_lines(store, record)
            assert snippet_lines(store, record, laid=laid) == plain
            cut += laid(context_window(record)) is not None
        assert cut == len(ids) > 10  # every window here: its chunks own their lines


def test_a_files_lines_are_cut_only_when_its_chunks_own_their_lines() -> None:
    plain = _FileRows([(3, 4, "a\nb"), (7, 7, "c")])
    assert plain.lines(5, 6) is None  # no chunk overlaps
    assert plain.lines(4, 7) == (["a", "b", "", "", "c"], 3)
    assert plain.lines(1, 3) == (["a", "b"], 3)
    # Two chunks over the same lines, a text with more lines than its range, or fewer:
    # the window's own rows are laid out instead (what they hold depends on the window).
    for rows in (
        [(3, 5, "a\nb\nc"), (4, 4, "x")],
        [(3, 3, "a\nb"), (7, 7, "c")],
        [(3, 5, "a"), (7, 7, "c")],
    ):
        assert _FileRows(rows).lines(1, 9) is None


def _access(searcher: Searcher, query: str) -> int:
    found = searcher.search(query, k=1, log=False, now=NOW, mode="lexical", explain=True)
    assert found.results and found.results[0].explain is not None
    return int(found.results[0].explain["access_count"])


def test_a_kept_searcher_reads_usage_logged_by_another_connection(vault: Vault) -> None:
    _long_log(vault)
    with Searcher(vault, fresh=False) as searcher:
        searcher.refresh(NOW)
        top = searcher.search("nightly", k=1, log=False, now=NOW, mode="lexical").results[0]
        assert _access(searcher, "nightly") == 0
        with Store.open(vault) as other:
            other.record_references([(top.hash, top.path)], "search", "nightly", NOW)
        assert _access(searcher, "nightly") == 1  # the state database's data_version moved
        searcher.search("nightly", k=1, log=True, now=NOW, mode="lexical")
        assert _access(searcher, "nightly") == 2  # its own log forgets what it counted


def test_a_kept_searcher_forgets_what_another_connection_reindexed(vault: Vault) -> None:
    _long_log(vault)
    with Searcher(vault, fresh=False) as searcher:
        searcher.refresh(NOW)
        assert searcher.search("zanzibar", log=False, now=NOW, mode="lexical").results == []
        before = searcher.search("backup", log=False, now=NOW, mode="lexical").results
        note = vault.root / "memory/daily/2026-11-20.md"
        note.write_text(
            note.read_text(encoding="utf-8").replace("backup", "zanzibar"), encoding="utf-8"
        )
        sync(vault, embed=False, now=NOW)  # another connection: the index's data_version moves
        after = searcher.search("zanzibar", log=False, now=NOW, mode="lexical").results
    assert before and after
    assert all("zanzibar" in r.snippet for r in after)


TOK = 200


def _sized(vault: Vault, by_rank: bool, result_tokens: int = 0, **kw: Any) -> list[Any]:
    with Searcher(vault, fresh=False) as searcher:
        searcher.settings = replace(
            searcher.settings,
            snippet_tokens=TOK,
            snippet_by_rank=by_rank,
            result_tokens=result_tokens,
        )
        return searcher.search("backup", log=False, now=NOW, mode="lexical", **kw).results


def test_snippets_sized_by_rank_give_the_first_results_more_and_never_overlap(
    vault: Vault,
) -> None:
    _long_log(vault)
    even, ranked = _sized(vault, False, k=5), _sized(vault, True, k=5)
    assert [r.chunk_lines for r in ranked] == [r.chunk_lines for r in even]
    daily = [i for i, r in enumerate(even) if r.source == "daily"]  # decisions stand alone
    assert ranked[daily[-1]].tokens < even[daily[-1]].tokens
    assert sum(r.tokens for r in ranked[:2]) > sum(r.tokens for r in even[:2])
    for rank in range(2):  # a larger share only adds lines
        assert ranked[rank].line_start <= even[rank].line_start
        assert even[rank].line_end <= ranked[rank].line_end
    for rank, r in enumerate(ranked):
        share = RANK_SHARES[min(rank, len(RANK_SHARES) - 1)]
        assert r.tokens <= max(int(TOK * share), TOK) + 2
    for a in ranked:
        for b in ranked:
            if a is not b and a.path == b.path:
                assert a.line_end < b.line_start or b.line_end < a.line_start
    # --budget adds up the sizes the floor priced: they stay even.
    assert [(r.line_start, r.tokens) for r in _sized(vault, True, budget=200)] == [
        (r.line_start, r.tokens) for r in _sized(vault, False, budget=200)
    ]


@pytest.mark.parametrize("by_rank", [False, True])
def test_result_tokens_grow_the_results_snippets_not_what_was_ranked(
    vault: Vault, by_rank: bool
) -> None:
    """result_tokens remakes only the results' snippets: the same chunks in the same
    order (candidates are compared at snippet_tokens), each showing at least the lines it
    showed, none overlapping another; --budget keeps the sizes it priced."""
    _long_log(vault)
    base = _sized(vault, by_rank, k=5)
    wide = _sized(vault, by_rank, result_tokens=2 * TOK, k=5)
    assert [r.chunk_lines for r in wide] == [r.chunk_lines for r in base]
    assert sum(r.tokens for r in wide) > sum(r.tokens for r in base)
    shares = RANK_SHARES if by_rank else (1.0,)
    for rank, (w, b) in enumerate(zip(wide, base, strict=True)):
        assert w.tokens <= max(int(2 * TOK * shares[min(rank, len(shares) - 1)]), TOK) + 2
        if w.tokens > b.tokens:
            assert w.line_start <= b.line_start and b.line_end <= w.line_end
    for a in wide:
        for b in wide:
            if a is not b and a.path == b.path:
                assert a.line_end < b.line_start or b.line_end < a.line_start
    # The same budget as snippet_tokens changes nothing.
    same = _sized(vault, by_rank, result_tokens=TOK, k=5)
    assert [(r.line_start, r.line_end) for r in same] == [(r.line_start, r.line_end) for r in base]
    assert [(r.line_start, r.tokens) for r in _sized(vault, by_rank, 2 * TOK, budget=200)] == [
        (r.line_start, r.tokens) for r in _sized(vault, by_rank, budget=200)
    ]


@pytest.mark.parametrize("budget", [10, 60, 200])
def test_kept_fitting_snippets_answer_as_fresh_ones_for_another_query(
    vault: Vault, budget: int
) -> None:
    """A chunk that fits the budget keeps its snippet across queries (IndexMemory.fits):
    a later query gets the same window as a fresh Snippets would give it, highlighting
    its own words, not the earlier query's."""
    _long_log(vault)
    fits: dict[tuple[int, int], Snippet | None] = {}
    with Store.open(vault) as store:
        records = {r.id: r for r in store.chunks_by_ids(store.chunk_ids())}
        for query in ("backup", "deploy step", "detail 7"):
            parsed = parse_query(query)
            plan = cand.plan_lexical(store.conn, parsed, 0.5)
            kept = Snippets(store, records, matcher_for(parsed, plan), budget, fits=fits)
            fresh = Snippets(store, records, matcher_for(parsed, plan), budget)
            for cid in records:
                a, b = kept(cid), fresh(cid)
                assert (a.text, a.line_start, a.line_end, a.truncated) == (
                    b.text,
                    b.line_start,
                    b.line_end,
                    b.truncated,
                )
                assert a.highlights == b.highlights
                assert kept.reach(cid) == fresh.reach(cid)
    assert any(fit is not None for fit in fits.values())
    if budget == 10:
        assert any(fit is None for fit in fits.values())


@pytest.mark.parametrize("mode", ["hybrid", "lexical"])
def test_a_kept_searcher_s_window_list_on_its_second_connection_answers_as_one_connection(
    indexed_fixture: Vault, mode: str
) -> None:
    queries = ["why sqlite", "backup schedule", "deploy friday", "kubernetes migration"]
    with Searcher(indexed_fixture) as fresh:
        expected = [
            fresh.search(q, log=False, now=NOW, mode=mode, explain=True).to_dict() for q in queries
        ]
    with Searcher(indexed_fixture, fresh=False) as kept:
        for _ in range(2):
            answers = [
                kept.search(q, log=False, now=NOW, mode=mode, explain=True).to_dict()
                for q in queries
            ]
            assert answers == expected
        source = kept.candidates
        assert isinstance(source, lists.SqliteCandidates)
        assert source._beside is not None  # the window list ranked on the second connection
    assert source._beside is None  # closed with the Searcher


def test_the_product_ahead_ends_with_the_lists_when_a_lexical_list_raises(
    indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from memctl.index.sqlite import vectors

    rows = np.eye(4, dtype=np.float32)
    matrix = vectors.VectorMatrix(np.arange(4, dtype=np.int64), rows)
    ended: list[bool] = []

    class Spied(vectors.Ahead):
        def __exit__(self, *exc: object) -> None:
            ended.append(True)
            super().__exit__(*exc)

    def broken(*args: Any, **kwargs: Any) -> dict[int, float]:
        raise RuntimeError("the words list failed")

    worker = ThreadPoolExecutor(max_workers=1)
    try:
        with Searcher(indexed_fixture, fresh=False) as kept:
            monkeypatch.setattr(
                lists.SqliteCandidates,
                "vector_ahead",
                lambda self, qvec, filters, limit: Spied(worker, matrix, rows[0], limit),
            )
            monkeypatch.setattr(lists.cand, "fts_candidates", broken)
            with pytest.raises(RuntimeError, match="words list failed"):
                kept.search("why sqlite", log=False, now=NOW, vector=rows[0])
    finally:
        worker.shutdown()
    assert ended == [True]  # the BLAS hold released, the product not left running


def test_the_vector_product_started_first_answers_as_one_started_beside_the_lists(
    fixture_copy: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept Searcher holding the matrix starts the product before the index's counts
    and the lexical plan (SqliteCandidates.vector_first): the same answers as when it starts with
    the lists, none for a query with no words or a mode without vectors, and its span
    ends with the search, also when a statement before the lists raises."""
    import contextlib

    from memctl.index.sqlite import vectors

    queries = ["why sqlite", "backup schedule", "deploy friday", "kubernetes migration"]
    started: list[bool] = []
    ended: list[bool] = []
    order: list[str] = []

    class Spied(vectors.Ahead):
        def __init__(self, *args: Any) -> None:
            started.append(True)
            order.append("product")
            super().__init__(*args)

        def __exit__(self, *exc: object) -> None:
            ended.append(True)
            super().__exit__(*exc)

    plan = lists.cand.plan_lexical

    def planned(*args: Any, **kwargs: Any) -> Any:
        order.append("plan")
        return plan(*args, **kwargs)

    monkeypatch.setattr(lists.cand, "plan_lexical", planned)
    monkeypatch.setattr(vectors, "Ahead", Spied)
    with Searcher(fixture_copy, fresh=False) as kept:
        source = kept.candidates
        assert isinstance(source, lists.SqliteCandidates)
        source.matrix = vectors.load(source.conn, fixture_copy.state_dir, min_vectors=1)
        first = []
        for q in queries:
            first.append(kept.search(q, log=False, now=NOW, explain=True).to_dict())
            assert order == ["product", "plan"]
            order.clear()
        assert len(ended) == len(queries)
        kept.search("the", log=False, now=NOW, mode="lexical")
        kept.search("!!", log=False, now=NOW)
        assert len(started) == len(queries)
        order.clear()
        with monkeypatch.context() as patch:
            patch.setattr(
                lists.SqliteCandidates, "vector_first", lambda *a: contextlib.nullcontext()
            )
            later = [kept.search(q, log=False, now=NOW, explain=True).to_dict() for q in queries]
        assert order[:2] == ["plan", "product"]
        assert later == first and len(started) == len(ended) == 2 * len(queries)

        def broken(*args: Any) -> int:
            raise RuntimeError("the count failed")

        monkeypatch.setattr(Store, "pending_count", broken)
        with pytest.raises(RuntimeError, match="count failed"):
            kept.search(queries[0], log=False, now=NOW)
    assert len(started) == len(ended) == 2 * len(queries) + 1


def test_kept_window_vectors_answer_as_a_fresh_searcher(fixture_copy: Vault) -> None:
    """The reranker's windows' vectors (kept while the index is unchanged) change no
    result, for a query seen again or not."""
    queries = ["deploy checklist", "backup retention", "deploy checklist"]
    with Searcher(fixture_copy, fresh=False) as kept:
        again = [kept.search(q, log=False, now=NOW, explain=True).to_dict() for q in queries]
        assert kept._kept.windows
    assert any(r["explain"]["rerank"] is not None for r in again[0]["results"])
    for query, got in zip(queries, again, strict=True):
        with Searcher(fixture_copy, fresh=False) as fresh:
            assert fresh.search(query, log=False, now=NOW, explain=True).to_dict() == got


def test_kept_windows_are_bounded() -> None:
    from memctl.search.kept import WINDOWS_KEPT
    from memctl.search.rerank.windows import WindowVectors

    memory = IndexMemory()
    for i in range(WINDOWS_KEPT + 1):
        memory.windows.windows["v", "p", i, i] = WindowVectors({})
    memory.check(None)
    assert not memory.windows
