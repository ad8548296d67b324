"""Settings and secrets for the shared index (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.config import settings_from_dict
from memctl.errors import UsageError
from memctl.index.backend import database_url, parse_scope
from memctl.index.postgres import words
from memctl.secrets import redact_url
from memctl.vault import Vault


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://bob:s3cr%40t@db:5432/mem", "postgresql://bob:***@db:5432/mem"),
        ("postgresql://bob@db/mem", "postgresql://bob@db/mem"),
        ("host=db user=bob password=s3cret dbname=mem", "host=db user=bob password=*** dbname=mem"),
        (
            "postgresql://bob@db/mem?password=s3cret&sslmode=require",
            "postgresql://bob@db/mem?password=***&sslmode=require",
        ),
    ],
)
def test_redact_hides_passwords(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert redact_url(f"cannot connect to {url}: refused") == f"cannot connect to {shown}: refused"


def test_index_settings_validated() -> None:
    assert settings_from_dict({}).index.backend == "sqlite"
    with pytest.raises(UsageError, match="backend must be"):
        settings_from_dict({"index": {"backend": "mysql"}})


def test_env_overrides_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".memctl.toml").write_text('[index]\nbackend = "postgres"\n')
    user = tmp_path / "user.toml"
    user.write_text('[index]\ndatabase_url = "postgresql://me@cfg/mem"\n')
    monkeypatch.setenv("MEMCTL_CONFIG", str(user))
    vault = Vault(tmp_path)
    monkeypatch.delenv("MEMCTL_DATABASE_URL", raising=False)
    assert database_url(vault) == "postgresql://me@cfg/mem"
    monkeypatch.setenv("MEMCTL_DATABASE_URL", "postgresql://me@env/mem")
    assert database_url(vault) == "postgresql://me@env/mem"
    assert parse_scope(vault, "team") == ("*",)
    assert parse_scope(vault, "own") == ()
    assert parse_scope(vault, "a, b,a") == ("a", "b")


def test_tokens_match_the_sqlite_tokenizer() -> None:
    """unicode61 with remove_diacritics 2: split on underscores, fold case and accents."""
    assert words.tokens("Café get_vault ОБНОВЛЕНИЕ וּבַבַּיִת 2026-11-20") == [
        "cafe",
        "get",
        "vault",
        "обновление",
        "ובבית",
        "2026",
        "11",
        "20",
    ]
    literal, count = words.tsvector(["a", "b", "a", "it's"])
    assert literal == "'a':1,3 'b':2 'it''s':4" and count == 4
    assert words.tsquery(["Deploy"], ["деплo"], ["get_vault"]) == (
        "'deploy' | 'деплo':* | ('get' <-> 'vault')"
    )
