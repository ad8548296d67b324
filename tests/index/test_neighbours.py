"""Lint's nearest-neighbour lists: a run with the memo of the last one scans only what
changed and finds exactly what a full scan finds."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from memctl.index.neighbours import near_pairs
from memctl.index.store import NEIGHBOURS_FILE, Store
from memctl.index.sync import sync
from memctl.vault import Vault
from tests.lifecycle.helpers import write

CENTRES = np.random.default_rng(7).standard_normal((5, 384)).astype(np.float32)


def _vector(text_hash: str) -> bytes:
    """A vector fixed by the chunk's text (as the embedding cache gives), near one of 5 centres."""
    seed = int(hashlib.sha256(text_hash.encode()).hexdigest()[:8], 16)
    rng = np.random.default_rng(seed)
    v = CENTRES[seed % 5] + 0.3 * rng.standard_normal(384).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32).tobytes()


def _index(vault: Vault) -> None:
    sync(vault, embed=False)
    with Store.open(vault) as store, store.transaction():
        for chunk_id, text_hash in store.conn.execute(
            "SELECT id, hash FROM chunks WHERE embedded = 0"
        ).fetchall():
            store.conn.execute(
                "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)",
                (chunk_id, _vector(text_hash)),
            )
            store.conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))


def _pairs(vault: Vault, *, memo: bool) -> tuple[list[tuple[int, int, float]], bool]:
    """(pairs, whether every vector was read) with or without the memo."""
    scanned = []

    def blocks(rows: int) -> Any:
        scanned.append(rows)
        return None  # read vec0

    with Store.open(vault) as store:
        found = near_pairs(
            store.conn,
            min_cosine=-1.0,
            k=3,
            blocks=blocks,
            memo=vault.state_dir / NEIGHBOURS_FILE if memo else None,
        )
    return [(p.source, p.neighbour, round(p.cosine, 5)) for p in found], bool(scanned)


def _notes(vault: Vault, prefix: str, count: int, words: str) -> None:
    for n in range(count):
        body = "".join(f"## {prefix} {n}.{i}\n\n- {words} {n} {i}\n\n" for i in range(4))
        write(vault, f"memory/{prefix}-{n:02d}.md", f"# {prefix} {n}\n\n{body}")


def test_memo_scans_only_what_changed_and_matches_a_full_scan(vault: Vault) -> None:
    for n in range(1, 6):
        write(vault, f"memory/daily/2026-11-0{n}.md", f"# 2026-11-0{n}\n\n- 10:00 deploy {n}\n")
    _notes(vault, "archive/notes/part", 12, "backup")
    _index(vault)
    memo = vault.state_dir / NEIGHBOURS_FILE
    full, _ = _pairs(vault, memo=False)
    first, scanned = _pairs(vault, memo=True)
    assert first == full and scanned and memo.exists()
    again, scanned = _pairs(vault, memo=True)
    assert again == full and not scanned  # nothing changed: no vector read

    # A new archive file (new COLD rows), a changed archive file holding neighbours, a
    # removed one, and an edited daily note (its asker is new): same as a full scan.
    _notes(vault, "archive/notes/extra", 2, "deploy")
    write(vault, "memory/archive/notes/part-03.md", "# part 3\n\n- restore drill 3\n")
    (vault.root / "memory/archive/notes/part-05.md").unlink()
    write(vault, "memory/daily/2026-11-02.md", "# 2026-11-02\n\n- 10:00 deploy again 2\n")
    _index(vault)
    after, _ = _pairs(vault, memo=True)
    assert after == _pairs(vault, memo=False)[0]
    assert after != full

    # A memo of another model is not used.
    with Store.open(vault) as store, store.transaction():
        store.conn.execute("UPDATE meta SET value = 'other/model' WHERE key = 'model_id'")
    _, scanned = _pairs(vault, memo=True)
    assert scanned


def test_a_damaged_memo_means_a_full_scan(vault: Vault, tmp_path: Path) -> None:
    write(vault, "memory/daily/2026-11-01.md", "# 2026-11-01\n\n- 10:00 deploy\n")
    _notes(vault, "archive/notes/part", 3, "backup")
    _index(vault)
    (vault.state_dir / NEIGHBOURS_FILE).write_text("{not json", encoding="utf-8")
    found, scanned = _pairs(vault, memo=True)
    assert scanned and found == _pairs(vault, memo=False)[0]
