"""Building vaults with dated content for lifecycle tests."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from memctl.vault import Vault


def write(vault: Vault, rel: str, text: str, modified: datetime | None = None) -> Path:
    path = vault.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if modified is not None:
        stamp = modified.timestamp()
        os.utime(path, (stamp, stamp))
    return path


def snapshot(vault: Vault) -> dict[str, bytes]:
    """Every file under memory/ by relative path."""
    return {
        p.relative_to(vault.root).as_posix(): p.read_bytes()
        for p in sorted((vault.root / "memory").rglob("*"))
        if p.is_file()
    }


DECISIONS = """# Decisions

## 2026-09-01 — Use SQLite for the index

one file, no server

## 2026-09-02 — Хранить заметки в markdown

Заменено: решили хранить в git

## 2026-09-05 — לשמור גיבוי יומי

גיבוי כל לילה בשעה 03:00

## 2026-09-20 — Use SQLite for the index

again, now with WAL
"""
