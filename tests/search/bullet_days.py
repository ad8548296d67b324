"""Vaults of daily notes as `memctl add` writes them (`- HH:MM` bullets on unrelated
topics), for the search tests that need a busy day whose facts share one chunk."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, time, timedelta
from pathlib import Path

from memctl.index.sync import sync
from memctl.memory import add_note, init_vault
from memctl.vault import Vault

MINUTE = timedelta(minutes=1)


def add_bullets(vault: Vault, day: date, bullets: Sequence[str], step: timedelta = MINUTE) -> None:
    """Each bullet added to DAY's note, the first at 09:00 and each next one STEP later."""
    first = datetime.combine(day, time(9))
    for i, bullet in enumerate(bullets):
        add_note(vault, bullet, day=day, at=first + i * step)


def bullet_vault(
    root: Path, days: Iterable[tuple[date, Sequence[str]]], step: timedelta = MINUTE
) -> Vault:
    """A new vault at ROOT whose daily notes hold each day's bullets (add_bullets); not
    indexed."""
    init_vault(root)
    vault = Vault(root)
    for day, bullets in days:
        add_bullets(vault, day, bullets, step)
    return vault


def indexed_days(root: Path, first: date, days: Sequence[Sequence[str]], now: datetime) -> Vault:
    """A vault at ROOT of consecutive days from FIRST, each day's bullets an hour apart
    (bullet_vault), indexed with vectors as of NOW."""
    dated = [(first + timedelta(days=i), bullets) for i, bullets in enumerate(days)]
    vault = bullet_vault(root, dated, step=timedelta(hours=1))
    sync(vault, embed=True, now=now)
    return vault
