"""The PostgreSQL backend: sync, search, namespaces and usage against a real server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.backend import open_store
from memctl.index.postgres.schema import LATEST
from memctl.index.sync import sync
from memctl.lifecycle.evidence import load_chunk_uses
from memctl.search import search
from memctl.search.evaluate import parse_queries
from memctl.search.hybrid import Filters, Searcher
from memctl.vault import Vault
from tests.postgres.conftest import as_clone, use_postgres
from tests.search.conftest import FIXTURE, NOW


def fixture_on_pg(tmp_path: Path, name: str, url: str, mp: pytest.MonkeyPatch) -> Vault:
    root = tmp_path / name
    shutil.copytree(FIXTURE / "memory", root / "memory")
    return use_postgres(root, name, url, mp)


def synced_fixture_on_pg(
    tmp_path: Path, name: str, url: str, indexed: Vault, mp: pytest.MonkeyPatch
) -> Vault:
    """The fixture on PostgreSQL, synced with the SQLite fixture's embedding cache: the
    same vectors without the model."""
    vault = fixture_on_pg(tmp_path, name, url, mp)
    shutil.copy(indexed.state_dir / "state.db", vault.state_dir / "state.db")
    sync(vault, embed=True, now=NOW)
    return vault


def chunk_rows(url: str, vault: str) -> list[tuple[str, int, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT path, line_start, hash FROM chunks WHERE vault = %s ORDER BY 1, 2", (vault,)
        ).fetchall()


def test_fixture_vault_ranks_alike_on_both_backends(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same vault, same queries: the same top results, in the same order, on both backends."""
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    # The SQLite fixture's embedding cache: PostgreSQL gets the same vectors without the model.
    shutil.copy(indexed_fixture.state_dir / "state.db", vault.state_dir / "state.db")
    report = sync(vault, embed=True, now=NOW)
    assert report.pending_embeddings == 0 and report.embedded == 0  # all from the cache
    lines = (FIXTURE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [q.query for q in parse_queries(lines, "queries.jsonl")]
    assert len(queries) >= 15
    with Searcher(indexed_fixture, fresh=False) as lite, Searcher(vault, fresh=False) as pg:
        for mode in ("hybrid", "bm25"):
            for text in queries:
                # Ranking parity: the relevance floor's missing-words gate is SQLite-only
                # (calibrated there), so the floor is off for this comparison.
                a = lite.search(text, k=3, log=False, now=NOW, mode=mode, use_floor=False).results
                b = pg.search(text, k=3, log=False, now=NOW, mode=mode, use_floor=False).results
                assert [(r.path, r.line_start, r.line_end) for r in a] == [
                    (r.path, r.line_start, r.line_end) for r in b
                ], (mode, text)
                # Within 1e-4 rather than equal at 4 decimals: the vector cosines differ
                # in the sixth (float32 on the server), which can straddle a rounding step.
                assert pytest.approx([r.score for r in a], abs=1e-4) == [r.score for r in b] or (
                    mode == "hybrid" and any(q in text for q in ("_", "."))
                ), (mode, text)
                # The reranker sees the same windows with the same vectors on both.
                assert [None if r.rerank is None else round(r.rerank, 3) for r in a] == [
                    None if r.rerank is None else round(r.rerank, 3) for r in b
                ] or any(q in text for q in ("_", ".")), (mode, text)


def test_namespaces_own_by_default_team_on_request(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, runner: CliRunner
) -> None:
    alice = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    bob = fixture_on_pg(tmp_path, "bob", pg_url, monkeypatch)
    (bob.root / "memory" / "daily" / "2026-11-21.md").write_text(
        "# 2026-11-21\n\n- Bob tuned the zeppelin telemetry pipeline.\n", encoding="utf-8"
    )
    sync(alice, embed=False, now=NOW)
    sync(bob, embed=False, now=NOW)
    own = search(alice, "zeppelin telemetry", k=5, now=NOW, log=False, mode="lexical")
    assert all(r.vault == "alice" for r in own.results)
    assert not any("zeppelin" in r.snippet for r in own.results)
    team = search(
        alice,
        "zeppelin telemetry",
        k=5,
        now=NOW,
        log=False,
        mode="lexical",
        filters=Filters(scope=("*",)),
    )
    assert team.results[0].vault == "bob" and "zeppelin" in team.results[0].snippet
    out = runner.invoke(
        app,
        [
            "--vault",
            str(alice.root),
            "search",
            "zeppelin",
            "--scope",
            "bob",
            "--json",
            "--no-log",
            "--mode",
            "lexical",
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {r["vault"] for r in data["results"]} == {"bob"}
    out = runner.invoke(app, ["--vault", str(alice.root), "search", "x", "--scope", "carol"])
    assert out.exit_code == 2 and "no vault named carol" in out.output


def test_parallel_lists_off_keeps_a_searcher_on_one_connection(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[index] parallel_lists = false`: a kept searcher's lists run on its own connection
    (no side connections on the server), with the same results as the lists at once."""
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    one_root = tmp_path / "one"
    shutil.copytree(vault.root, one_root)
    config = one_root / ".memctl.toml"
    config.write_text(config.read_text() + "parallel_lists = false\n", encoding="utf-8")
    one = Vault(one_root)
    assert one.settings.index.parallel_lists is False and vault.settings.index.parallel_lists
    queries = ["kubernetes", "deploy rollback window", "postgres migration plan"]

    def connections(admin: psycopg.Connection[tuple[int]]) -> int:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchone()
        assert row is not None
        return int(row[0])

    found: dict[Path, list[list[tuple[str, int, float]]]] = {}
    opened: dict[Path, int] = {}
    # Autocommit: pg_stat_activity is read once per transaction.
    with psycopg.connect(pg_url, autocommit=True) as admin:
        for v in (one, vault):  # one first: a closed connection's backend may linger a moment
            with Searcher(v, fresh=False) as searcher:
                found[v.root] = [
                    [
                        (r.path, r.line_start, r.score)
                        for r in searcher.search(q, k=3, now=NOW, log=False, mode="lexical").results
                    ]
                    for q in queries * 2
                ]
                opened[v.root] = connections(admin)
    assert found[vault.root] == found[one_root] and any(found[one_root])
    assert opened[vault.root] >= 2  # its own and a side connection or two
    assert opened[one_root] == 1


def test_a_search_connection_scans_from_the_first_block(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unranked lookups (LIMIT without ORDER BY) give the same rows every search: a scan
    of a big table may not start where another scan of it happens to be, nor run in
    parallel workers."""
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    with open_store(vault) as store:
        for setting, value in (
            ("synchronize_seqscans", "off"),
            ("max_parallel_workers_per_gather", "0"),
        ):
            row = store.conn.execute(f"SHOW {setting}").fetchone()  # type: ignore[attr-defined]
            assert row is not None and row[0] == value, setting


def test_a_searcher_plans_its_lists_once_with_the_same_results(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From psycopg's fifth run of a statement on, it runs prepared with one generic plan
    (the lists have one shape whatever the query's terms); the results stay those of the
    first, planned searches, including a query of words found everywhere."""
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    queries = ["kubernetes", "deploy rollback window", "postgres migration plan", "the a"]
    with Searcher(vault, fresh=False) as searcher:
        runs = [
            [
                [
                    (r.path, r.line_start, r.score)
                    for r in searcher.search(q, k=5, now=NOW, log=False, mode=mode).results
                ]
                for q in queries
                for mode in ("lexical", "hybrid")
            ]
            for _ in range(7)
        ]
        # Its records are read anew each search: no composite factors kept for them.
        assert not searcher._kept.factors
        conn = searcher.store.conn  # type: ignore[attr-defined]
        generic = conn.execute(
            "SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0) "
            "FROM pg_prepared_statements"
        ).fetchone()
    assert all(run == runs[0] for run in runs) and any(runs[0])
    assert generic is not None and generic[0] > 0 and generic[1] == 0


def test_substring_function_gives_the_rows_of_a_plain_lookup(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memctl_substrings` (the trigram lookups, the planner kept off table scans) finds the
    rows `ILIKE` finds, under every filter, first rows first."""
    alice = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    bob = fixture_on_pg(tmp_path, "bob", pg_url, monkeypatch)
    sync(alice, embed=False, now=NOW)
    sync(bob, embed=False, now=NOW)
    with psycopg.connect(pg_url, autocommit=True) as conn:

        def via_function(patterns: list[str], *filters: object, lim: int = 1000) -> list[int]:
            return [
                r[0]
                for r in conn.execute(
                    "SELECT id FROM memctl_substrings(%s::text[], %s::text[], %s::text, "
                    "%s::text, %s::text, %s::text, %s::integer)",
                    [patterns, *filters, lim],
                )
            ]

        def plain(where: str, args: list[object]) -> list[int]:
            return [
                r[0] for r in conn.execute(f"SELECT id FROM chunks WHERE {where} ORDER BY id", args)
            ]

        everyone = via_function(["%deploy%"], None, None, None, None, None)
        assert everyone and sorted(everyone) == plain("text ILIKE %s", ["%deploy%"])
        assert {
            v for (v,) in conn.execute("SELECT vault FROM chunks WHERE id = ANY(%s)", [everyone])
        } == {"alice", "bob"}
        five = ["%e%", "%a%", "%o%", "%i%", "%deploy%"]
        assert sorted(via_function(five, None, None, None, None, None)) == plain(
            " AND ".join(["text ILIKE %s"] * 5), five
        )
        both = via_function(["%deploy%", "%roll%"], ["alice"], None, None, None, None)
        assert sorted(both) == plain(
            "text ILIKE %s AND text ILIKE %s AND vault = 'alice'", ["%deploy%", "%roll%"]
        )
        tier, source, day = schema_one(
            conn, "SELECT tier, source, date FROM chunks WHERE date IS NOT NULL LIMIT 1"
        )
        filtered = via_function(["%e%"], ["alice"], tier, source, day, day)
        assert filtered and sorted(filtered) == plain(
            "text ILIKE '%%e%%' AND vault = 'alice' AND tier = %s AND source = %s "
            "AND date >= %s AND date <= %s",
            [tier, source, day, day],
        )
        assert (
            via_function(["%e%"], ["alice"], None, None, None, None, lim=3)
            == sorted(via_function(["%e%"], ["alice"], None, None, None, None))[:3]
        )


def schema_one(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> tuple[object, ...]:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return row


def test_snippet_context_of_many_windows_in_one_statement(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """context_windows answers each (vault, path, lines) window as context_rows does."""
    alice = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    bob = fixture_on_pg(tmp_path, "bob", pg_url, monkeypatch)
    (bob.root / "memory" / "daily" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- Bob's own day.\n", encoding="utf-8"
    )
    sync(alice, embed=False, now=NOW)
    sync(bob, embed=False, now=NOW)
    day = "memory/daily/2026-11-20.md"
    windows = [
        ("alice", day, 1, 60),
        ("bob", day, 1, 60),  # another vault's file of the same name
        ("", day, 2, 3),  # "": the store's own vault
        ("alice", day, 900, 990),  # past the end of the file
        ("alice", "memory/daily/nothing.md", 1, 40),
        ("alice", day, 1, 60),  # asked twice
    ]
    with open_store(alice) as store:
        batched = store.context_windows(windows)
        one_by_one = [store.context_rows(*w) for w in windows]
    assert batched == [list(map(tuple, rows)) for rows in one_by_one]
    assert batched[0] and batched[1] and batched[0] != batched[1]
    assert batched[2] and not batched[3] and not batched[4]
    assert any("Bob's own day" in text for _, _, text in batched[1])


def test_resync_edit_and_remove_keep_every_chunk_exactly_once(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    lite_root = tmp_path / "lite"
    shutil.copytree(FIXTURE / "memory", lite_root / "memory")
    lite = Vault(lite_root)
    first = sync(vault, embed=False, now=NOW)
    again = sync(vault, embed=False, now=NOW)
    assert again.changed == [] and again.chunks_written == 0
    rows = chunk_rows(pg_url, "alice")
    assert len(rows) == len(set(rows)) == first.chunks_total
    for root in (vault.root, lite.root):
        note = root / "memory" / "daily" / "2026-11-20.md"
        note.write_text(note.read_text(encoding="utf-8") + "\n## Later\n\nA new line.\n")
        (root / "memory" / "daily" / "2026-11-12.md").unlink()
    edited = sync(vault, embed=False, now=NOW)
    assert edited.removed == ["memory/daily/2026-11-12.md"]
    sync(lite, embed=False, now=NOW)
    rows = chunk_rows(pg_url, "alice")
    with open_store(lite) as store:
        expected = sorted(
            store.conn.execute("SELECT path, line_start, hash FROM chunks").fetchall()
        )
    assert rows == [tuple(r) for r in expected]
    full = sync(vault, embed=False, full=True, now=NOW)
    assert full.full and chunk_rows(pg_url, "alice") == rows


def test_a_reader_sees_the_old_file_until_the_new_one_commits(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    path = "memory/decisions.md"
    before = [r for r in chunk_rows(pg_url, "alice") if r[0] == path]
    from memctl.index.chunker import chunk_markdown

    new = chunk_markdown("# Decisions\n\n## 2026-11-22 — only this\n\nOne decision.\n", path)
    with open_store(vault) as writer, writer.transaction():
        writer.replace_file(path, size=1, mtime_ns=1, digest="x", chunks=new, now=NOW)
        during = [r for r in chunk_rows(pg_url, "alice") if r[0] == path]
        assert during == before  # the other connection sees the whole old file
    after = [r for r in chunk_rows(pg_url, "alice") if r[0] == path]
    assert [r[2] for r in after] == [c.hash for c in new]


def test_usage_and_promotion_evidence_stay_per_vault(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    bob = fixture_on_pg(tmp_path, "bob", pg_url, monkeypatch)
    sync(alice, embed=False, now=NOW)
    sync(bob, embed=False, now=NOW)
    for _ in range(3):
        search(alice, "kubernetes", k=2, now=NOW, mode="lexical")
    alice_uses = load_chunk_uses(alice, NOW)
    bob_uses = load_chunk_uses(bob, NOW)
    assert len(alice_uses) == len(bob_uses)  # each sees its own chunks only
    assert max(u.window_references for u in alice_uses) == 3
    assert max(u.window_references for u in bob_uses) == 0
    assert any("kubernetes" in u.queries for u in alice_uses)
    with open_store(bob) as store:
        top = store.chunks_by_ids(store.chunk_ids())
        assert all(r.access_count == 0 and r.vault == "bob" for r in top)


def test_cli_index_and_db_migrate(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, runner: CliRunner
) -> None:
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    out = runner.invoke(app, ["--vault", str(vault.root), "db", "migrate", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == {
        "applied": list(range(1, LATEST + 1)),
        "schema_version": LATEST,
    }
    assert LATEST >= 3  # the substring lookup's function, the window words
    out = runner.invoke(app, ["--vault", str(vault.root), "db", "migrate"])
    assert "up to date" in out.stdout
    out = runner.invoke(app, ["--vault", str(vault.root), "index", "--no-embed", "--json"])
    assert out.exit_code == 0, out.output
    written = json.loads(out.stdout)["chunks_written"]
    out = runner.invoke(app, ["--vault", str(vault.root), "db", "status", "--json"])
    status = json.loads(out.stdout)
    assert status["vaults"][0]["vault"] == "alice"
    assert status["vaults"][0]["chunks"] == written


def test_how_a_substring_lookup_runs() -> None:
    """A scan only for substrings common enough that it stops early; the trigram index
    only for words pg_trgm finds a trigram in (else it would read the index whole)."""
    from memctl.index.postgres.substrings import SCAN_ROWS, WORDS_SCAN_ROWS, has_trigram, scanned

    assert has_trigram("abc") and has_trigram("x.abc") and has_trigram("שלום")
    assert not has_trigram("a.b") and not has_trigram("ab") and not has_trigram("a_b_c")
    assert scanned([0.5], 60) and not scanned([0.0], 60)
    assert scanned([60 / SCAN_ROWS], 60) and not scanned([60 / SCAN_ROWS / 2], 60)
    # Testing each row's words first: further down.
    assert scanned([60 / WORDS_SCAN_ROWS], 60, WORDS_SCAN_ROWS)
    assert not scanned([60 / WORDS_SCAN_ROWS], 60) and WORDS_SCAN_ROWS > SCAN_ROWS
    # Several words at once: rows holding all of them (independent words).
    assert scanned([0.5, 0.5], 60) and not scanned([0.5, 0.01], 60)


def window_columns(
    url: str, vault: str
) -> tuple[list[tuple[str, int, str | None, int]], tuple[int, int]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.path, c.line_start, w.window_words::text, coalesce(w.window_ntokens, 0) "
            "FROM chunks AS c LEFT JOIN chunk_windows AS w ON w.id = c.id "
            "WHERE c.vault = %s ORDER BY 1, 2",
            (vault,),
        ).fetchall()
        totals = conn.execute(
            "SELECT windows, window_tokens FROM vault_stats WHERE vault = %s", (vault,)
        ).fetchone()
        # A window's vault (the window list's filter) is its chunk's.
        assert not conn.execute(
            "SELECT 1 FROM chunk_windows AS w JOIN chunks AS c ON c.id = w.id "
            "WHERE w.vault <> c.vault"
        ).fetchone()
    assert totals is not None
    return rows, (int(totals[0]), int(totals[1]))


def test_windows_follow_their_file_and_the_migration_builds_the_same(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memctl.index.postgres.windows import fill

    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    sync(vault, embed=False, now=NOW)
    note = vault.root / "memory" / "daily" / "2026-11-20.md"
    # A new last chunk: the old last chunk's window now reaches into it.
    note.write_text(note.read_text(encoding="utf-8") + "\n## Later\n\nA zeppelin landed.\n")
    (vault.root / "memory" / "daily" / "2026-11-12.md").unlink()
    sync(vault, embed=False, now=NOW)
    rows, total = window_columns(pg_url, "alice")
    by_file: dict[str, int] = {}
    for path, *_ in rows:
        by_file[path] = by_file.get(path, 0) + 1
    # A chunk has a window when its file has other chunks (the window of a lone chunk
    # would rank its own words twice).
    assert all((words is not None) == (by_file[path] > 1) for path, _, words, _ in rows)
    assert any(n == 1 for n in by_file.values()) and any(n > 1 for n in by_file.values())
    # BM25's N and mean window length stay exact through edits and removals.
    assert total == (sum(w is not None for _, _, w, _ in rows), sum(n for *_, n in rows))
    last = [r for r in rows if r[0] == "memory/daily/2026-11-20.md"][-2]
    assert "'zeppelin'" in (last[2] or "")  # the neighbour's words are in the chunk before it
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DELETE FROM chunk_windows")
        conn.execute("UPDATE vault_stats SET window_tokens = 0")
        fill(conn)  # what index migration 3 runs on rows written before it
    assert window_columns(pg_url, "alice") == (rows, total)


def test_a_kept_searcher_answers_as_a_fresh_one_after_another_writers_rewrite(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Searcher kept open (fresh=False: memctl serve, an MCP server) while another
    machine rewrites a file it showed: its next search answers as a fresh Searcher's (the
    reranker's windows read anew, never the old chunks' vectors beside the new text)."""
    cache = indexed_fixture.state_dir / "state.db"
    vault = fixture_on_pg(tmp_path, "alice", pg_url, monkeypatch)
    as_clone(vault.root, "https://example.com/team/alice.git")
    shutil.copy(cache, vault.state_dir / "state.db")
    sync(vault, embed=True, now=NOW)
    elsewhere = tmp_path / "elsewhere"  # another machine's checkout of the same vault
    shutil.copytree(FIXTURE / "memory", elsewhere / "memory")
    other = use_postgres(elsewhere, "alice", pg_url, monkeypatch)
    as_clone(elsewhere, "git@example.com:team/alice.git")  # two clones of one repository
    shutil.copy(cache, other.state_dir / "state.db")
    query, daily = "deploy checklist", "memory/daily/2026-11-18.md"
    with Searcher(vault, fresh=False) as kept:
        before = kept.search(query, log=False, now=NOW, explain=True).to_dict()
        assert any(
            r["path"] == daily and r["explain"]["rerank"] is not None for r in before["results"]
        )
        # The same words in another order: the same lines, counts and statistics (a fresh
        # Searcher's BM25 figures are the kept one's), a new text and a new vector.
        note = elsewhere / daily
        old = "migrations run automatically in CI, then a rolling restart of the API pods."
        new = "a rolling restart of the API pods in CI, then migrations run automatically."
        note.write_text(note.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        assert sync(other, embed=True, now=NOW).embedded == 1
        after = kept.search(query, log=False, now=NOW, explain=True).to_dict()
    with Searcher(vault, fresh=False) as fresh:
        assert fresh.search(query, log=False, now=NOW, explain=True).to_dict() == after
    assert after != before


def test_units_vectors_of_a_shared_server_vault_come_from_its_local_cache(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Meaning per fact on PostgreSQL: the units' vectors live in the vault's local
    embedding cache, as on SQLite, and the first embedding pass marks the vault done."""
    from memctl.index.unit_embed import UNITS_VERSION
    from memctl.index.units import units_of

    vault = synced_fixture_on_pg(tmp_path, "units", pg_url, indexed_fixture, monkeypatch)
    with open_store(vault) as store:
        assert store.units_embedded() == UNITS_VERSION
        texts = [text for _, text in store.chunk_texts_after(0, 10_000)]
        hashes = {u.hash for text in texts for u in units_of(text)}
        assert len(hashes) >= 15  # the fixture's notes hold lists and sentence lines
        assert set(store.cached_vectors(sorted(hashes))) == hashes


def test_a_shared_server_vault_past_the_units_limit_embeds_and_reads_no_fact(
    tmp_path: Path, pg_url: str, indexed_fixture: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past units.UNITS_MAX_CHUNKS (stood in for by 0) a PostgreSQL vault is marked as
    such and searches exactly as with units off, reading no fact's vector (en/he/ru)."""
    import dataclasses

    from memctl.index import unit_embed
    from memctl.search.rank import meaning

    monkeypatch.setattr(unit_embed, "UNITS_MAX_CHUNKS", 0)
    monkeypatch.setattr(meaning, "LIFT_MAX_CHUNKS", 0)
    vault = synced_fixture_on_pg(tmp_path, "past", pg_url, indexed_fixture, monkeypatch)
    lines = (FIXTURE / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [q.query for q in parse_queries(lines, "queries.jsonl")]
    assert any("\u0590" <= c <= "\u05ff" for q in queries for c in q)  # Hebrew
    assert any("\u0400" <= c <= "\u04ff" for q in queries for c in q)  # Russian
    reads: list[int] = []
    with Searcher(vault, fresh=False) as pg:
        assert pg.store.units_embedded() == unit_embed.UNITS_PAST
        cached = pg.store.cached_vectors
        monkeypatch.setattr(
            pg.store, "cached_vectors", lambda hashes: reads.append(1) or cached(hashes)
        )
        on = [pg.search(q, log=False, now=NOW, explain=True).to_dict() for q in queries]
        pg.settings = dataclasses.replace(pg.settings, units=False)
        off = [pg.search(q, log=False, now=NOW, explain=True).to_dict() for q in queries]
    assert on == off
    assert not reads
