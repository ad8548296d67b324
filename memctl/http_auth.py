"""The bearer token every memctl HTTP listener requires: made once per vault, kept 0600
under `.memctl/`, checked in constant time (stdlib only).

Loopback is not private: every local user can connect to 127.0.0.1, while the resident
process's unix socket refuses other uids. So every HTTP listener (`memctl mcp --http`,
`serve --mcp-port`, the web page) asks each request for `Authorization: Bearer <token>`.
The token is `$MEMCTL_MCP_TOKEN` when set, else the vault's `.memctl/http.token`, made
the first time and printed that once for the client's config.

A token file is trusted only if memctl could have made it: a plain file (no link),
owned by this user, that group and others cannot read, and not as git holds it (a cloned
repository can commit one, and would then know the token). Anything else is replaced by
a new token; a link there is refused, never read or written through.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memctl.git import have_git, run_git
from memctl.resident.address import write_private
from memctl.vault import STATE_DIR, Vault

TOKEN_ENV = "MEMCTL_MCP_TOKEN"
TOKEN_FILE = "http.token"
SCHEME = "Bearer"


@dataclass(frozen=True)
class Token:
    value: str
    source: Literal["env", "file", "new"]
    path: Path | None = None  # the file it is kept in (not for $MEMCTL_MCP_TOKEN)
    replaced: str | None = None  # why a token file found there was not used

    def header(self) -> str:
        """The header a client sends: `Authorization: Bearer <token>`."""
        return f"Authorization: {SCHEME} {self.value}"

    def announcement(self) -> str:
        """What a listener prints when it starts: the token itself only when just made."""
        if self.source == "env":
            return f"clients must send the bearer token in ${TOKEN_ENV}"
        where = f"{STATE_DIR}/{TOKEN_FILE}"
        if self.source == "file":
            return f"clients must send the bearer token kept in {where} (owner-only)"
        why = f" ({self.replaced})" if self.replaced else ""
        return (
            f"new bearer token{why}, kept in {where} (owner-only) and shown only now; "
            f"put this header in the client's config: {self.header()}"
        )


def vault_token(vault: Vault, env: Mapping[str, str] | None = None) -> Token:
    """The token the vault's HTTP listeners require (see the module docstring)."""
    env = os.environ if env is None else env
    if env.get(TOKEN_ENV):
        return Token(env[TOKEN_ENV], "env")
    path = vault.state_entry(TOKEN_FILE)  # a link there is refused, never followed
    why = None
    if path.exists():
        why = _untrusted(vault, path)
        if why is None:
            value = path.read_text(encoding="utf-8", errors="replace").strip()
            if _well_formed(value):
                return Token(value, "file", path)
            why = f"{STATE_DIR}/{TOKEN_FILE} did not hold a token"
    value = secrets.token_urlsafe(32)
    write_private(str(path), value + "\n")
    return Token(value, "new", path, replaced=why)


def _well_formed(value: str) -> bool:
    return len(value) >= 32 and all(c.isalnum() or c in "-_" for c in value)


def _untrusted(vault: Vault, path: Path) -> str | None:
    """Why the token file at `path` cannot be trusted; None if it can."""
    name = f"{STATE_DIR}/{TOKEN_FILE}"
    try:
        info = path.lstat()
    except OSError:
        return f"{name} could not be read"
    if not stat.S_ISREG(info.st_mode):
        return f"{name} was not a plain file"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{name} belonged to another user"
    if info.st_mode & 0o077:
        return f"{name} was readable by others"
    if _committed(vault, path):
        return f"{name} came with the repository"
    return None


def _committed(vault: Vault, path: Path) -> bool:
    """Whether git holds the file as it is: a tracked token the repository knows (one
    memctl wrote over a tracked file differs from git's, and is ours)."""
    if not have_git():
        return False
    try:
        listed = run_git(vault.root, "ls-files", "-s", "-z", "--", str(path), timeout=10)
        if listed.returncode != 0 or not listed.stdout.strip(b"\0"):
            return False
        blob = listed.stdout.split()[1]
        ours = run_git(vault.root, "hash-object", "--", str(path), timeout=10)
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return False
    return ours.returncode != 0 or ours.stdout.strip() == blob


def authorized(given: str | bytes | None, token: str) -> bool:
    """Whether an Authorization header's value is `Bearer <token>` (the scheme's case is
    free, as HTTP says; the token is compared in constant time)."""
    if given is None or not token:
        return False
    raw = given.encode("latin-1", "replace") if isinstance(given, str) else given
    scheme, _, value = raw.strip().partition(b" ")
    matches = hmac.compare_digest(value.strip(), token.encode("utf-8"))
    return scheme.lower() == SCHEME.lower().encode() and matches


def header_of(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The Authorization header among an ASGI scope's raw headers."""
    for name, value in headers:
        if name.lower() == b"authorization":
            return value
    return None


class BearerToken:
    """ASGI wrapper: a request without `Authorization: Bearer <token>` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        if not token:
            raise ValueError("an HTTP listener needs a token")
        self.app = app
        self.token = token

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and not authorized(
            header_of(scope.get("headers") or []), self.token
        ):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"text/plain"),
                        (b"www-authenticate", SCHEME.encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
            return
        await self.app(scope, receive, send)
