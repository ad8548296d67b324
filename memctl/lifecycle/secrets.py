"""Secrets that must not sit in a vault that goes to git (pure: text in, hits out).

Patterns favour precision: known key formats match on shape; a generic
`password: value` matches only a single-token value that is not a placeholder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("AWS secret key", re.compile(r"aws_secret_access_key\s*[=:]\s*[A-Za-z0-9/+=]{40}", re.I)),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("Stripe live key", re.compile(r"\b(?:sk|rk)_live_[0-9a-zA-Z]{16,}")),
    ("private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    (
        "JSON web token",
        re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"),
    ),
    ("password in a URL", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]{3,}@[^\s]+", re.I)),
]

_ASSIGNED = re.compile(
    r"(?:password|passwd|pwd|passphrase|secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|"
    r"пароль|секрет|токен|סיסמה|סיסמא)\s*(?:=|:|—)\s*[\"'`]?([^\s\"'`]{6,})",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^(?:<.*>|\$\{?.*|\*+|x+|\.+|redacted|changeme|example|none|null|\{.*\})$", re.I
)


@dataclass(frozen=True)
class SecretHit:
    line: int  # 1-based
    kind: str
    preview: str  # redacted: never print the secret itself


def redact(value: str) -> str:
    return value[:4] + "…" if len(value) > 4 else "…"


def find_secrets(text: str) -> list[SecretHit]:
    hits = []
    for number, line in enumerate(text.splitlines(), start=1):
        found = False
        for kind, pattern in _PATTERNS:
            match = pattern.search(line)
            if match:
                hits.append(SecretHit(number, kind, redact(match.group(0))))
                found = True
                break
        if found:
            continue
        match = _ASSIGNED.search(line)
        if match and not _PLACEHOLDER.match(match.group(1)):
            hits.append(SecretHit(number, "password or token", redact(match.group(1))))
    return hits
