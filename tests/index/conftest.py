"""Helpers for the index tests: a vault with a few multilingual notes, and FTS lookups."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.index.store import Store
from memctl.vault import Vault

DAILY_TEXT = (
    "# 2026-11-20\n\n"
    "- 09:00 deploy blocked on the DNS change #ops\n"
    "- 09:30 позвонить провайдеру насчёт базы данных\n"
    "- 10:00 הפריסה נחסמה בגלל שינוי בבית הספר\n"
)
DECISIONS_TEXT = (
    "# Decisions\n\n"
    "## 2026-11-02 — Use SQLite\n\none file, no server, WAL is enough\n\n"
    "## 2026-11-03 — Заметки в markdown\n\nгит дружит с текстом\n"
)


@pytest.fixture
def notes_vault(vault: Vault) -> Vault:
    (vault.daily_dir / "2026-11-20.md").write_text(DAILY_TEXT, encoding="utf-8")
    vault.decisions_path.write_text(DECISIONS_TEXT, encoding="utf-8")
    return vault


def fts_paths(vault: Vault, query: str, table: str = "chunks_fts") -> list[str]:
    """Paths of chunks matching an FTS query, the way search reads the index."""
    with Store.open(vault) as store:
        rows = store.conn.execute(
            f"SELECT c.path FROM {table} JOIN chunks AS c ON c.id = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY c.path",
            (query,),
        ).fetchall()
    return [row[0] for row in rows]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
