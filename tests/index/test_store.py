"""The store's reading and usage side: chunks_by_ids, references, counts by hash."""

from __future__ import annotations

from datetime import datetime

import pytest

from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.vault import Vault

T0 = datetime(2026, 11, 20, 9, 0)
T1 = datetime(2026, 11, 21, 9, 0)
T2 = datetime(2026, 11, 22, 9, 0)


def _ids_by_text(store: Store) -> dict[str, tuple[int, str, str]]:
    rows = store.conn.execute("SELECT id, hash, path, text FROM chunks").fetchall()
    return {text: (cid, digest, path) for cid, digest, path, text in rows}


def test_chunks_by_ids_keeps_order_skips_missing_and_joins_usage(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False, now=T0)
    with Store.open(notes_vault) as store:
        ids = [row[0] for row in store.conn.execute("SELECT id FROM chunks ORDER BY id DESC")]
        records = store.chunks_by_ids([ids[1], 999_999, ids[0], ids[1]])
        assert [r.id for r in records] == [ids[1], ids[0]]
        record = records[0]
        assert record.created_at == "2026-11-20T09:00:00"
        assert record.last_referenced_at is None and record.access_count == 0
        assert record.tier in ("hot", "warm") and isinstance(record.tags, list)
        assert store.chunks_by_ids([]) == []
        daily = next(r for r in store.chunks_by_ids(ids) if r.source == "daily")
        assert daily.tags == ["ops"] and daily.date == "2026-11-20" and daily.importance == 0.5
        assert "провайдеру" in daily.text and "נחסמה" in daily.text


def test_references_count_once_per_call_and_by_window(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False, now=T0)
    with Store.open(notes_vault) as store:
        chunks = _ids_by_text(store)
        (cid, digest, path) = next(v for t, v in chunks.items() if "SQLite" in t)
        store.record_references([(digest, path), (digest, path)], "search", "база", T1)
        store.record_references([(digest, path)], "context", None, T2)
        [record] = store.chunks_by_ids([cid])
        assert record.access_count == 2 and record.last_referenced_at == "2026-11-22T09:00:00"
        assert store.reference_counts(T0) == {digest: 2}
        assert store.reference_counts(T2) == {digest: 1}
        assert store.reference_counts(datetime(2026, 11, 23)) == {}
        with pytest.raises(ValueError, match="reference kind"):
            store.record_references([(digest, path)], "peek", None, T2)


def test_usage_follows_the_text_through_rechunking_and_rebuild(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False, now=T0)
    with Store.open(notes_vault) as store:
        text, (_cid, digest, path) = next(
            (t, v) for t, v in _ids_by_text(store).items() if "SQLite" in t
        )
        store.record_references([(digest, path)], "tool", "sqlite", T1)
    decisions = notes_vault.decisions_path
    decisions.write_text("\n\n\n" + decisions.read_text(encoding="utf-8"), encoding="utf-8")
    sync(notes_vault, embed=False, now=T2)
    sync(notes_vault, embed=False, full=True, now=T2)
    with Store.open(notes_vault) as store:
        new_id, new_digest, _ = _ids_by_text(store)[text]
        [record] = store.chunks_by_ids([new_id])
    assert new_digest == digest and record.access_count == 1
    assert record.created_at == "2026-11-20T09:00:00"  # first seen, not re-indexed


def test_id_and_path_lists_longer_than_one_batch_are_read_in_batches(notes_vault: Vault) -> None:
    sync(notes_vault, embed=False, now=T0)
    with Store.open(notes_vault) as store:
        rows = store.conn.execute("SELECT id, hash, text, path FROM chunks ORDER BY id").fetchall()
        # The real ids sit past the first batch of 500, among ids that do not exist.
        ids = [*range(10_000, 11_200), *(r[0] for r in rows)]
        assert sorted(store.still_pending(ids)) == sorted((h, t) for _, h, t, _ in rows)
        assert store.fill_pending_from_cache(ids) == 0  # nothing cached, nothing filled
        paths = [f"memory/none-{i}.md" for i in range(1200)] + sorted({r[3] for r in rows})
        assert {s.hash for s in store.chunks_in_paths(paths)} == {r[1] for r in rows}
        assert store.still_pending([]) == [] and store.chunks_in_paths([]) == []
