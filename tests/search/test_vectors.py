from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from memctl.index.sqlite import vectors
from memctl.index.sqlite.lexical import VOCAB_TABLE, Filters, ensure_vocab, vec0_candidates
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.vault import Vault
from tests.search.conftest import NOW


def test_matrix_scan_matches_vec0_and_is_rebuilt_when_the_index_changes(
    fixture_copy: Vault,
) -> None:
    state = fixture_copy.state_dir
    with Store.open(fixture_copy) as store:
        assert vectors.load(store.conn, state) is None  # small index: vec0 answers directly
        matrix = vectors.load(store.conn, state, min_vectors=1)
        assert matrix is not None
        query = np.asarray(matrix.matrix[3], dtype=np.float32)
        exact = matrix.top(query, 5)
        knn = vec0_candidates(store.conn, query, Filters(), 5)
        assert list(exact) == list(knn)
        assert all(abs(exact[i] - knn[i]) < 1e-4 for i in exact)
        first = sorted(p.name for p in state.glob("search-vectors-*.npy"))
        again = vectors.load(store.conn, state, min_vectors=1)
        assert (
            again is not None
            and sorted(p.name for p in state.glob("search-vectors-*.npy")) == first
        )
        # A matrix the caller already holds is kept while current (no fresh mapping).
        assert vectors.load(store.conn, state, min_vectors=1, previous=again) is again
    note = fixture_copy.root / "memory" / "daily" / "2026-11-22.md"
    note.write_text(
        "# 2026-11-22\n\n- 08:00 a brand new memory about lighthouses\n", encoding="utf-8"
    )
    sync(fixture_copy, now=NOW)
    with Store.open(fixture_copy) as store:
        rebuilt = vectors.load(store.conn, state, min_vectors=1, previous=matrix)
        assert rebuilt is not None and rebuilt is not matrix
        assert len(rebuilt) == len(matrix) + 1
        assert sorted(p.name for p in state.glob("search-vectors-*.npy")) != first
        assert len(list(state.glob("search-vectors-*.npy"))) == 4  # the old set is gone


def test_bit_sketch_prefilter_keeps_the_exact_top_on_clustered_vectors() -> None:
    rng = np.random.default_rng(3)
    centroids = rng.standard_normal((40, 384)).astype(np.float32) + 2.0  # a shared offset
    rows = centroids[rng.integers(0, 40, 20000)]
    rows += 0.6 * rng.standard_normal(rows.shape).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    mean = rows.mean(axis=0)
    ids = np.arange(100, 100 + len(rows), dtype=np.int64)
    matrix = vectors.VectorMatrix(ids, rows, mean, vectors.sketch(rows, mean), prefilter_min=1)
    hits = 0
    for i in range(0, 20000, 500):
        query = rows[i] + 0.02 * rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        fast, exact = matrix.top(query, 30), matrix.top(query, 30, exact=True)
        assert next(iter(fast)) == 100 + i
        assert all(abs(fast[k] - exact[k]) < 1e-5 for k in set(fast) & set(exact))
        hits += len(set(fast) & set(exact))
    assert hits / (40 * 30) >= 0.95


def test_sketch_pads_dimensions_to_whole_words() -> None:
    vecs = np.random.default_rng(0).standard_normal((3, 100)).astype(np.float32)
    bits = vectors.sketch(vecs, np.zeros(100, np.float32))
    assert bits.shape == (2, 3) and bits.dtype == np.uint64


def test_the_product_computed_ahead_in_another_thread_is_top_s_answer() -> None:
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((6000, 64)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    matrix = vectors.VectorMatrix(np.arange(6000, dtype=np.int64) * 3, rows)
    worker = ThreadPoolExecutor(max_workers=1)
    try:
        for i in (0, 17, 5999):
            query = rows[i] + 0.05 * rng.standard_normal(64).astype(np.float32)
            with vectors.Ahead(worker, matrix, query, 30) as product:
                ahead = product.result()
            assert list(ahead.items()) == list(matrix.top(query, 30).items())
            assert next(iter(ahead)) == i * 3
        # A worker busy elsewhere: the caller computes the list itself, the same.
        gate = threading.Event()
        worker.submit(gate.wait)
        query = rows[42]
        with vectors.Ahead(worker, matrix, query, 30) as product:
            inline = product.result()
        gate.set()
        assert list(inline.items()) == list(matrix.top(query, 30).items())
    finally:
        worker.shutdown()


def test_the_caches_never_read_or_write_through_planted_links(
    fixture_copy: Vault, tmp_path: Path
) -> None:
    """A cloned repository can commit `.memctl/` entries: a pointer naming a file elsewhere,
    links at the cache's own names and at its temp names. The caches read none of them and
    write through none; the search state is rebuilt beside them."""
    import os

    from memctl.lexical import vocab

    outside = tmp_path / "outside.npy"
    np.save(outside, np.zeros((3, 384), dtype=np.float32))
    victim = tmp_path / "victim.txt"
    victim.write_text("0\nzanzibarquokka\n", encoding="utf-8")  # as the vocab cache
    before = (outside.read_bytes(), victim.read_bytes())
    state = fixture_copy.state_dir
    with Store.open(fixture_copy) as store:
        sig = vectors.signature(store.conn)
        names = {part: f"search-vectors-{sig}.{part}.npy" for part in ("ids", "matrix")}
        (state / "search-vectors.json").write_text(
            json.dumps({"signature": sig, "ids": str(outside), "matrix": str(outside)}),
            encoding="utf-8",
        )
        for name in names.values():
            os.symlink(outside, state / name)
        for part in ("ids", "matrix", "mean", "bits"):
            leftover = f".search-vectors-{sig}.{part}.npy.{os.getpid()}.tmp"
            os.symlink(victim, state / leftover)
        matrix = vectors.load(store.conn, state, min_vectors=1)
        assert matrix is not None and len(matrix.ids) == store.chunk_count()
        assert not any((state / n).is_symlink() for n in names.values())
    (state / vocab._FILE).unlink(missing_ok=True)
    os.symlink(victim, state / vocab._FILE)
    with Store.open(fixture_copy) as store:
        ensure_vocab(store.conn)
        words = vocab.load(store.conn, state, VOCAB_TABLE)
        assert "zanzibarquokka" not in words.terms  # the victim was not read as the cache
        assert not (state / vocab._FILE).is_symlink()
    assert (outside.read_bytes(), victim.read_bytes()) == before
