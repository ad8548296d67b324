"""Lint's secret scan of every memory file, remembering each file's hits by content hash.

The scan reads every line of every archived note (~1 s per 100k chunks, every night),
while a night changes a few files. Each file's hits are kept in `.memctl/secret-scan.json`
under the SHA-256 of its text and the patterns' fingerprint, so an unchanged file is not
scanned again; a changed file, or a memctl whose patterns changed, is scanned afresh.
The hits kept are the redacted previews lint prints, never the secrets.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from memctl.files import atomic_write_text
from memctl.secrets import PATTERNS_ID, SecretHit, find_secrets
from memctl.vault import Vault

MEMO_FILE = "secret-scan.json"


def _digest(text: str) -> str:
    # surrogatepass: a file with invalid UTF-8 is read with its bad bytes kept as
    # lone surrogates (read_exact), which plain UTF-8 cannot encode.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def secret_hits(vault: Vault, texts: Mapping[str, str]) -> dict[str, list[SecretHit]]:
    """path -> its secrets (only paths with any), scanning only files changed since the
    last call; the memo is rewritten when anything in it changed."""
    memo = vault.state_entry(MEMO_FILE)
    before: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(memo.read_text(encoding="utf-8"))
        if data["patterns"] == PATTERNS_ID:
            before = data["files"]
    after: dict[str, Any] = {}
    found: dict[str, list[SecretHit]] = {}
    for path, text in texts.items():
        digest = _digest(text)
        kept = before.get(path)
        hits: list[SecretHit] | None = None
        if kept and kept[0] == digest:
            with contextlib.suppress(ValueError, TypeError):
                hits = [SecretHit(int(h[0]), str(h[1]), str(h[2])) for h in kept[1]]
        if hits is None:
            hits = find_secrets(text)
        after[path] = [digest, [[h.line, h.kind, h.preview] for h in hits]]
        if hits:
            found[path] = hits
    if after != before:
        with contextlib.suppress(OSError):
            atomic_write_text(
                memo,
                json.dumps({"patterns": PATTERNS_ID, "files": after}, separators=(",", ":")),
            )
    return found
