"""`capture`'s similar-memory lookup through the shared index (a real PostgreSQL)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

import memctl.agent.capture_neighbours as capture_module
from memctl import memory
from memctl.agent.capture import Neighbourhood, load_memories
from memctl.index.backend import open_store
from memctl.index.embed import get_embedder
from memctl.index.sync import sync
from memctl.memory import init_vault
from tests.postgres.conftest import use_postgres
from tests.search.conftest import NOW

QUERY = "Which cloud stores our DB snapshots?"


def test_large_vault_widens_the_pool_with_the_shared_index(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL as on SQLite: a memory the tiny lexical pool misses is found through
    the index's nearest vectors, and only this vault's chunks are asked for."""
    roots = {name: tmp_path / name for name in ("alice", "bob")}
    vaults = {}
    for name, root in roots.items():
        init_vault(root)
        vaults[name] = use_postgres(root, name, pg_url, monkeypatch)
        for i in range(30):
            memory.add_note(
                vaults[name],
                f"Deploy ticket {i}: the backup job for service {i} finished",
                day=date(2026, 11, 20),
            )
    alice, bob = vaults["alice"], vaults["bob"]
    memory.add_note(
        alice, "Nightly database dumps are kept in Backblaze B2 for a month", day=date(2026, 11, 19)
    )
    # Bob's note on the same path and lines: a chunk id of Alice's must not land on it.
    memory.add_note(bob, "The office plants are watered on Fridays", day=date(2026, 11, 19))
    monkeypatch.setattr(capture_module, "FULL_COMPARE_LIMIT", 0)
    monkeypatch.setattr(capture_module, "_POOL", 3)
    lexical_only = Neighbourhood(alice, load_memories(alice), []).nearest(QUERY, k=1)
    assert "Backblaze" not in lexical_only[0][0].text
    for vault in (alice, bob):
        sync(vault, embed=True, now=NOW)

    notices: list[str] = []
    hood = Neighbourhood(alice, load_memories(alice), notices)
    [(best, cosine, _)] = hood.nearest(QUERY, k=1)
    assert notices == []
    assert "Backblaze" in best.text and hood.index_hits > 0
    assert 0.0 < cosine < 0.92  # related, not a duplicate (calibrated cosine)

    # The lookup asks for this vault's chunks only: Alice's Backblaze chunk, the nearest in
    # the team's index, is never among Bob's neighbours.
    query = get_embedder(bob.settings).embed_query(QUERY)
    with open_store(bob) as store:
        own = set(store.chunk_ids())
        near = store.nearest(query, 50)
    with open_store(alice) as store:
        theirs = store.nearest(query, 1)
    assert near and set(near) <= own
    assert set(theirs) - own and not set(theirs) & set(near)
