"""A labelled fixture vault, indexed once per session (the model loads once)."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest

from memctl.index.sync import sync
from memctl.vault import Vault

FIXTURE = Path(__file__).parent / "fixture_vault"
NOW = datetime(2026, 11, 22, 9, 30)


def copy_fixture(dest: Path) -> Vault:
    shutil.copytree(FIXTURE / "memory", dest / "memory")
    return Vault(dest)


@pytest.fixture(scope="session")
def indexed_fixture(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    """Read-only for tests: searches there must pass log=False (or use their own copy)."""
    vault = copy_fixture(tmp_path_factory.mktemp("fixture"))
    sync(vault, embed=True, now=NOW)
    return vault


@pytest.fixture
def fixture_copy(tmp_path: Path, indexed_fixture: Vault) -> Vault:
    """A private copy with its index (embedding cache included), safe to change."""
    dest = tmp_path / "vault"
    shutil.copytree(indexed_fixture.root, dest)
    return Vault(dest)
