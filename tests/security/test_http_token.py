"""Issue 32 item 3: every HTTP listener requires a bearer token (memctl.http_auth).

Loopback is open to every local user; the unix socket refuses other uids, so HTTP must
not be weaker. The token file is trusted only if this user made it, unshared, untracked.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest

from memctl.errors import UsageError
from memctl.http_auth import TOKEN_ENV, TOKEN_FILE, BearerToken, authorized, vault_token
from memctl.vault import Vault
from tests.security.hostile_clone import clone, plant


def test_a_token_is_made_once_kept_owner_only_and_printed_once(vault: Vault) -> None:
    first = vault_token(vault, env={})
    path = vault.root / ".memctl" / TOKEN_FILE
    assert first.source == "new" and first.path == path and first.replaced is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text().strip() == first.value and len(first.value) >= 40
    assert f"Authorization: Bearer {first.value}" in first.announcement()
    again = vault_token(Vault(vault.root), env={})
    assert again.source == "file" and again.value == first.value
    assert first.value not in again.announcement() and TOKEN_FILE in again.announcement()


def test_the_environment_token_wins_and_nothing_is_written(vault: Vault) -> None:
    token = vault_token(vault, env={TOKEN_ENV: "from-the-env"})
    assert token.value == "from-the-env" and token.source == "env"
    assert "from-the-env" not in token.announcement()
    assert not (vault.root / ".memctl" / TOKEN_FILE).exists()


def test_a_token_file_others_can_read_is_replaced(vault: Vault) -> None:
    path = vault.state_dir / TOKEN_FILE
    path.write_text("k" * 43 + "\n")
    os.chmod(path, 0o644)
    token = vault_token(vault, env={})
    assert token.source == "new" and token.value != "k" * 43
    assert token.replaced is not None and "readable by others" in token.replaced
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_committed_token_is_never_used(tmp_path: Path) -> None:
    """A cloned repository that commits `.memctl/http.token` knows it; with umask 077 the
    checkout is 0600 like memctl's own, so what tells it apart is that git tracks it."""
    planted = "p" * 43

    def prepare(root: Path) -> None:
        (root / ".memctl").mkdir()
        (root / ".memctl" / TOKEN_FILE).write_text(planted + "\n")

    root = clone(plant(tmp_path / "origin", prepare), tmp_path / "shared")
    os.chmod(root / ".memctl" / TOKEN_FILE, 0o600)
    token = vault_token(Vault(root), env={})
    assert token.value != planted and token.source == "new"
    assert token.replaced is not None and "came with the repository" in token.replaced
    assert vault_token(Vault(root), env={}).value == token.value  # replaced: now ours


def test_a_token_link_is_refused_and_its_target_untouched(vault: Vault, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    os.symlink(outside, vault.state_dir / TOKEN_FILE)
    with pytest.raises(UsageError, match=r"http\.token is a symbolic link"):
        vault_token(vault, env={})
    assert outside.read_text() == "precious\n"


@pytest.mark.parametrize(
    ("header", "ok"),
    [
        (None, False),
        ("", False),
        ("Bearer", False),
        ("Bearer right-token", True),
        ("bearer right-token", True),
        ("Bearer  right-token ", True),
        ("Bearer right-toke", False),
        ("Bearer right-tokenX", False),
        ("Basic right-token", False),
        ("right-token", False),
        (b"Bearer right-token", True),
        ("Bearer правильный", False),
    ],
)
def test_authorized(header: str | bytes | None, ok: bool) -> None:
    assert authorized(header, "right-token") is ok
    assert authorized(header, "") is False


def test_the_asgi_wrapper_refuses_before_the_app_runs() -> None:
    reached: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    wrapped = BearerToken(app, "right-token")

    async def request(headers: list[tuple[bytes, bytes]]) -> int:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "path": "/mcp", "headers": headers}
        await wrapped(scope, receive, send)
        return int(sent[0]["status"])

    assert anyio.run(request, []) == 401
    assert anyio.run(request, [(b"authorization", b"Bearer wrong")]) == 401
    assert reached == []
    assert anyio.run(request, [(b"authorization", b"Bearer right-token")]) == 200
    assert reached == ["/mcp"]
    with pytest.raises(ValueError):
        BearerToken(app, "")
