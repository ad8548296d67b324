from __future__ import annotations

import numpy as np

from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.search import vectors
from memctl.search.candidates import Filters, vec0_candidates
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
    note = fixture_copy.root / "memory" / "daily" / "2026-11-22.md"
    note.write_text(
        "# 2026-11-22\n\n- 08:00 a brand new memory about lighthouses\n", encoding="utf-8"
    )
    sync(fixture_copy, now=NOW)
    with Store.open(fixture_copy) as store:
        rebuilt = vectors.load(store.conn, state, min_vectors=1)
        assert rebuilt is not None and len(rebuilt) == len(matrix) + 1
        assert sorted(p.name for p in state.glob("search-vectors-*.npy")) != first
        assert len(list(state.glob("search-vectors-*.npy"))) == 2  # the old pair is gone
