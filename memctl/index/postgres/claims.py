"""Which vault a namespace of the shared index belongs to (migration 10).

Rows are keyed by the namespace (`[index] vault`, else the vault folder's name), so two
vaults that share a name, two folders both called `agent` or a `.memctl.toml` naming
another vault's, would each replace the other's rows at every `memctl index`. The first
vault to write a namespace claims it: by its git remote (every clone of one repository
shares it; a fork has its own) and the vault's folder inside the repository, and by its
place (host and folder) when it has no remote. Places that proved themselves are
recorded, so a known checkout's sync costs one query and, once the claim has its
remote, no git call. A second claimant
is refused with one line naming the fix; `memctl db release NAME` frees a namespace
whose vault has moved or gone.
"""

from __future__ import annotations

import re
import socket
import subprocess
from dataclasses import dataclass
from typing import Any

import psycopg

from memctl.errors import UsageError
from memctl.git import git_output, have_git, run_git
from memctl.vault import Vault


def migration(conn: psycopg.Connection[Any], dim: int) -> None:
    conn.execute(
        "CREATE TABLE vault_claims(vault text PRIMARY KEY, remote text, "
        "claimed_at timestamptz NOT NULL DEFAULT now(), claimed_by text NOT NULL)"
    )
    conn.execute(
        "CREATE TABLE vault_places(vault text NOT NULL REFERENCES vault_claims(vault) "
        "ON DELETE CASCADE, place text NOT NULL, PRIMARY KEY (vault, place))"
    )


class NamespaceTaken(UsageError):
    """Another vault claimed this namespace of the shared index."""


@dataclass(frozen=True)
class Claim:
    remote: str | None
    claimed_by: str  # the place that claimed it first


def place_of(vault: Vault) -> str:
    """This checkout: host and absolute folder."""
    return f"{socket.gethostname()}:{vault.root.resolve()}"


def remote_of(vault: Vault) -> str | None:
    """The vault's origin (normalised: host/path, no scheme, user or `.git`) and its folder
    inside the repository; None outside git or without a remote."""
    if not have_git():
        return None
    try:
        url = run_git(vault.root, "config", "--get", "remote.origin.url", timeout=10)
        prefix = run_git(vault.root, "rev-parse", "--show-prefix", timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if url.returncode != 0 or prefix.returncode != 0 or not git_output(url):
        return None
    folder = git_output(prefix).strip("/")
    normal = normalise_remote(git_output(url))
    return f"{normal}#{folder}" if folder else normal


def normalise_remote(url: str) -> str:
    """`git@github.com:org/repo.git`, `https://me@GitHub.com/org/repo/` and
    `ssh://git@github.com/org/repo` are one remote: `github.com/org/repo` (pure)."""
    text = url.strip()
    scp = re.match(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.*)$", text)
    if scp and "://" not in text:
        host, path = scp.group(1), scp.group(2)
    else:
        found = re.match(r"^[a-zA-Z][\w+.-]*://(?:[^@/]*@)?([^/]*)(/.*)?$", text)
        if not found:
            return text.rstrip("/").removesuffix(".git")  # a local path
        host, path = found.group(1), found.group(2) or ""
    path = path.strip("/").removesuffix(".git").rstrip("/")
    return f"{host.lower().split(':')[0]}/{path}"  # no port: ssh://host:22/x is host/x


def check_claim(conn: psycopg.Connection[Any], vault: Vault, namespace: str) -> None:
    """Claim `namespace` for `vault`, or confirm it holds it; NamespaceTaken otherwise."""
    place = place_of(vault)
    known = conn.execute(
        "SELECT c.remote IS NOT NULL FROM vault_places AS p JOIN vault_claims AS c "
        "ON c.vault = p.vault WHERE p.vault = %s AND p.place = %s",
        (namespace, place),
    ).fetchone()
    if known and known[0]:
        return  # a checkout that proved itself, of a claim known by its remote
    remote = remote_of(vault)
    if known and remote is None:
        return
    with conn.transaction():
        conn.execute(
            "INSERT INTO vault_claims(vault, remote, claimed_by) VALUES (%s, %s, %s) "
            "ON CONFLICT (vault) DO NOTHING",
            (namespace, remote, place),
        )
        row = conn.execute(
            "SELECT remote, claimed_by FROM vault_claims WHERE vault = %s FOR UPDATE",
            (namespace,),
        ).fetchone()
        claim = Claim(row[0], row[1]) if row else Claim(remote, place)
        if not belongs(claim, remote, place):
            raise NamespaceTaken(refusal(namespace, claim, remote))
        if claim.remote is None and remote is not None:
            # First claimed before it had a remote (git init, push): now known by it.
            conn.execute(
                "UPDATE vault_claims SET remote = %s WHERE vault = %s", (remote, namespace)
            )
        conn.execute(
            "INSERT INTO vault_places(vault, place) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (namespace, place),
        )


def belongs(claim: Claim, remote: str | None, place: str) -> bool:
    """Whether a vault with `remote` at `place` is the one that claimed (pure)."""
    if claim.remote is not None and remote is not None:
        return claim.remote == remote
    return claim.claimed_by == place


def refusal(namespace: str, claim: Claim, remote: str | None) -> str:
    owner = f"the clones of {claim.remote}" if claim.remote else f"the vault at {claim.claimed_by}"
    ours = f" (this one: {remote})" if remote and claim.remote else ""
    return (
        f'the shared index\'s namespace "{namespace}" belongs to {owner}{ours}: give this vault '
        f'its own, [index] vault = "NAME" in .memctl.toml; if it is that vault, moved, run '
        f"`memctl db release {namespace}` first"
    )


def release(conn: psycopg.Connection[Any], namespace: str) -> bool:
    """Free `namespace` (its rows stay): the next vault to write it claims it."""
    with conn.transaction():
        done = conn.execute("DELETE FROM vault_claims WHERE vault = %s", (namespace,))
    return bool(done.rowcount)
