"""Issue 32 item 7: one vault per namespace of the shared index (migration 10).

Two vaults whose folders are both `agent`, or a `.memctl.toml` naming another vault's
namespace, used to replace each other's rows at every `memctl index`, silently.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.index.postgres.claims import Claim, belongs, normalise_remote
from memctl.memory import init_vault
from memctl.vault import Vault
from tests.postgres.conftest import as_clone

NOTE = {
    "first": "- 10:00 the first vault's own zebra note, привет\n",
    "second": "- 10:00 the second vault's own walrus note, שלום\n",
}


def make_vault(root: Path, which: str, url: str, name: str | None = None) -> Vault:
    init_vault(root)
    (root / "memory" / "daily" / "2026-11-20.md").write_text(f"# 2026-11-20\n\n{NOTE[which]}")
    config = '[index]\nbackend = "postgres"\n' + (f'vault = "{name}"\n' if name else "")
    (root / ".memctl.toml").write_text(config, encoding="utf-8")
    return Vault(root)


def index(runner: CliRunner, root: Path) -> tuple[int, str]:
    out = runner.invoke(app, ["--vault", str(root), "index", "--no-embed"])
    assert "Traceback" not in out.output
    return out.exit_code, out.stderr


def rows(url: str, namespace: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [
            r[0]
            for r in conn.execute(
                "SELECT text FROM chunks WHERE vault = %s ORDER BY id", (namespace,)
            )
        ]


@pytest.fixture
def pg_env(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MEMCTL_DATABASE_URL", pg_url)
    return pg_url


def test_two_folders_named_alike_do_not_replace_each_other(
    tmp_path: Path, pg_env: str, runner: CliRunner
) -> None:
    first = make_vault(tmp_path / "work" / "agent", "first", pg_env)
    second = make_vault(tmp_path / "home" / "agent", "second", pg_env)
    assert index(runner, first.root)[0] == 0
    before = rows(pg_env, "agent")
    assert any("zebra" in text for text in before)
    code, stderr = index(runner, second.root)
    assert code == 2 and len(stderr.strip().splitlines()) == 1
    assert 'namespace "agent" belongs to the vault at' in stderr
    assert '[index] vault = "NAME"' in stderr and "memctl db release agent" in stderr
    assert rows(pg_env, "agent") == before
    search = runner.invoke(app, ["--vault", str(second.root), "search", "walrus"])
    assert search.exit_code == 2 and "belongs to" in search.stderr
    assert index(runner, first.root)[0] == 0  # the owner goes on as before


def test_a_config_naming_another_vaults_namespace_is_refused(
    tmp_path: Path, pg_env: str, runner: CliRunner
) -> None:
    beta = make_vault(tmp_path / "beta", "first", pg_env)
    as_clone(beta.root, "git@github.com:team/beta.git")
    assert index(runner, beta.root)[0] == 0
    before = rows(pg_env, "beta")
    other = make_vault(tmp_path / "other", "second", pg_env, name="beta")
    as_clone(other.root, "https://github.com/someone/other.git")
    code, stderr = index(runner, other.root)
    assert code == 2 and "the clones of github.com/team/beta" in stderr
    assert "(this one: github.com/someone/other)" in stderr
    assert rows(pg_env, "beta") == before


def test_clones_of_one_repository_share_their_namespace(
    tmp_path: Path, pg_env: str, runner: CliRunner
) -> None:
    """Two machines, one clone each (SSH and HTTPS URLs of the same repository)."""
    alice = make_vault(tmp_path / "m1" / "team", "first", pg_env)
    as_clone(alice.root, "git@github.com:acme/team-memory.git")
    bob = make_vault(tmp_path / "m2" / "team", "first", pg_env)
    as_clone(bob.root, "https://bob@GitHub.com/acme/team-memory/")
    assert index(runner, alice.root)[0] == 0
    assert index(runner, bob.root)[0] == 0
    (bob.root / "memory" / "daily" / "2026-11-21.md").write_text("# x\n\n- a walrus\n")
    assert index(runner, bob.root)[0] == 0
    assert any("walrus" in text for text in rows(pg_env, "team"))
    with psycopg.connect(pg_env) as conn:
        places = conn.execute("SELECT count(*) FROM vault_places WHERE vault = 'team'").fetchone()
    assert places == (2,)


def test_a_remote_added_later_keeps_the_claim(
    tmp_path: Path, pg_env: str, runner: CliRunner
) -> None:
    """Indexed first, pushed later: the claim takes the remote, and a clone then joins."""
    origin = make_vault(tmp_path / "a" / "notes", "first", pg_env)
    assert index(runner, origin.root)[0] == 0
    as_clone(origin.root, "ssh://git@git.example.com:2222/me/notes.git")
    assert index(runner, origin.root)[0] == 0
    (origin.root / "memory" / "core.md").write_text("# Core\n\n- changed\n")
    assert index(runner, origin.root)[0] == 0  # the remote is now on the claim
    clone = make_vault(tmp_path / "b" / "notes", "first", pg_env)
    as_clone(clone.root, "git@git.example.com:me/notes")
    assert index(runner, clone.root)[0] == 0


def test_db_release_frees_a_namespace(tmp_path: Path, pg_env: str, runner: CliRunner) -> None:
    first = make_vault(tmp_path / "old" / "agent", "first", pg_env)
    assert index(runner, first.root)[0] == 0
    moved = make_vault(tmp_path / "new" / "agent", "first", pg_env)
    assert index(runner, moved.root)[0] == 2
    out = runner.invoke(app, ["--vault", str(moved.root), "db", "release", "agent"])
    assert out.exit_code == 0 and "agent: released" in out.stdout
    assert index(runner, moved.root)[0] == 0
    assert index(runner, first.root)[0] == 2  # the old place is no longer the owner
    again = runner.invoke(app, ["--vault", str(moved.root), "db", "release", "nobody"])
    assert again.exit_code == 0 and "nobody: not claimed" in again.stdout


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("git@github.com:acme/team.git", "github.com/acme/team"),
        ("https://github.com/acme/team", "github.com/acme/team"),
        ("https://user:pw@GitHub.com/acme/team.git/", "github.com/acme/team"),
        ("ssh://git@github.com:22/acme/team.git", "github.com/acme/team"),
        ("git://github.com/acme/team", "github.com/acme/team"),
        ("/srv/git/team.git", "/srv/git/team"),
        ("file:///srv/git/team.git", "/srv/git/team"),
    ],
)
def test_normalise_remote(url: str, normal: str) -> None:
    assert normalise_remote(url) == normal


def test_belongs() -> None:
    by_remote = Claim("github.com/a/b", "h:/x")
    assert belongs(by_remote, "github.com/a/b", "h2:/y")
    assert not belongs(by_remote, "github.com/a/c", "h:/x")
    assert belongs(by_remote, None, "h:/x") and not belongs(by_remote, None, "h:/y")
    by_place = Claim(None, "h:/x")
    assert belongs(by_place, "github.com/a/b", "h:/x")
    assert not belongs(by_place, "github.com/a/b", "h:/y")
