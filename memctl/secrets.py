"""Secrets that must not sit in a vault that goes to git (pure: text in, hits out).

Patterns favour precision: known key formats match on shape; a generic
`password: value` matches only a single-token value that is not a placeholder; prose
("the password is X") only when X looks like a secret (a digit, a symbol or mixed case),
or when it is quoted (a passphrase). `redact_text` hides every span found, so a report
that quotes a line (lint, maintain, a tool's notice) never repeats the secret.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("AWS secret key", re.compile(r"aws_secret_access_key\s*[=:]\s*[A-Za-z0-9/+=]{40}", re.I)),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
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

# Patterns whose group 1 is the secret (the rest of the match is context worth keeping).
_VALUE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # mysql -pPASS (the password glued to -p; a bare -p prompts), --password=PASS
    (
        "database password on a command line",
        re.compile(r"\b(?:mysql\w*|mariadb\w*)\b[^\n]*?(?:\s-p|\s--password=)([^\s\"'`]{3,})"),
    ),
    # A quoted passphrase after a password word: "password: 'correct horse battery'"
    (
        "passphrase",
        re.compile(
            r"(?:password|passphrase|passwd|пароль|парольная фраза|סיסמה|סיסמא)\S*"
            r"(?:\s+(?:is|was|это|был[аи]?|היא|הוא|זה)|\s*[:=—–-])?\s*"
            r"[\"'`“«‘]([^\"'`”»’\n]{4,}?)[\"'`”»’]",
            re.IGNORECASE,
        ),
    ),
]

_ASSIGNED = re.compile(
    r"(?:password|passwd|pwd|passphrase|secret|api[_ -]?key|access[_ -]?token|auth[_ -]?token|"
    r"пароль|секрет|токен|סיסמה|סיסמא)\s*(?:=|:|—)\s*[\"'`]?([^\s\"'`]{6,})",
    re.IGNORECASE,
)
# Prose: "the password is X", "пароль от стенда — X", "הסיסמה היא X".
_SAID = re.compile(
    r"(?:password|passphrase|passwd|пароль|סיסמה|סיסמא)\S*"
    r"(?:\s+(?:for|of|to|от|для|של)\s+\S+){0,3}"
    r"(?:\s+(?:is|was|это|был[аи]?|היא|הוא|זה)|\s+[—–-])\s+([^\s\"'`]{4,})",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^(?:<.*>|\$\{?.*|\*+|x+|\.+|redacted|changeme|example|none|null|\{.*\})$", re.I
)


# Every pattern above needs one of these (casefolded) in its line: a line without any
# cannot hold a secret. Plain substrings, casefolded once, are ~15x faster to look for than
# the patterns, which keeps a scan of a large archive (lint, every night) cheap.
_ANCHORS = (
    "sk-", "sk_live_", "rk_live_", "akia", "asia", "aws_secret", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "glpat-", "npm_", "xox", "aiza", "-----begin", "eyj",
    "://", "mysql", "mariadb", "pass", "pwd", "secret", "key", "token", "пароль", "секрет",
    "токен", "סיסמ",
)  # fmt: skip


# Changes whenever a pattern or an anchor does: what a scan found under other patterns
# is not reused (lifecycle/secret_scan.py keeps hits per file).
PATTERNS_ID = hashlib.sha256(
    repr(
        (
            [(k, p.pattern, p.flags) for k, p in _PATTERNS + _VALUE_PATTERNS],
            [(p.pattern, p.flags) for p in (_ASSIGNED, _SAID, _PLACEHOLDER)],
            _ANCHORS,
        )
    ).encode()
).hexdigest()[:16]


def _anchored(text: str) -> re.Pattern[str] | None:
    """A matcher for the anchors `text` holds (None: it holds no secret at all)."""
    folded = text.casefold()
    present = [a for a in _ANCHORS if a in folded]
    return re.compile("|".join(map(re.escape, present))) if present else None


def _looks_secret(value: str) -> bool:
    """A prose value is a secret only if it is not a plain word: a digit, a symbol, or
    mixed case after the first letter ("the password is stored" is not a leak)."""
    core = value.rstrip(".,;:!?)»”")
    if len(core) < 4 or _PLACEHOLDER.match(core):
        return False
    return (
        any(c.isdigit() for c in core)
        or any(not c.isalnum() for c in value)
        or any(c.isupper() for c in core[1:])
    )


@dataclass(frozen=True)
class SecretHit:
    line: int  # 1-based
    kind: str
    preview: str  # redacted: never print the secret itself


def redact(value: str) -> str:
    return value[:4] + "…" if len(value) > 4 else "…"


def _spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret in one line, without overlaps, in order."""
    found: list[tuple[int, int, str]] = []
    for kind, pattern in _PATTERNS:
        found += [(m.start(), m.end(), kind) for m in pattern.finditer(line)]
    for kind, pattern in _VALUE_PATTERNS:
        found += [(m.start(1), m.end(1), kind) for m in pattern.finditer(line)]
    for m in _ASSIGNED.finditer(line):
        if not _PLACEHOLDER.match(m.group(1)):
            found.append((m.start(1), m.end(1), "password or token"))
    for m in _SAID.finditer(line):
        if _looks_secret(m.group(1)):
            found.append((m.start(1), m.end(1), "password or token"))
    kept: list[tuple[int, int, str]] = []
    for span in sorted(found, key=lambda s: (s[0], -s[1])):
        if kept and span[0] < kept[-1][1]:
            continue
        kept.append(span)
    return kept


def find_secrets(text: str) -> list[SecretHit]:
    """One hit per line that holds a secret (the first one), redacted."""
    hits: list[SecretHit] = []
    anchors = _anchored(text)
    if anchors is None:
        return hits
    for number, line in enumerate(text.splitlines(), start=1):
        spans = _spans(line) if anchors.search(line.casefold()) else []
        if spans:
            start, end, kind = spans[0]
            hits.append(SecretHit(number, kind, redact(line[start:end])))
    return hits


def redact_text(text: str) -> str:
    """`text` with every secret replaced by its first four characters and `…[redacted]`."""
    anchors = _anchored(text) if text else None
    if anchors is None:
        return text
    out = []
    for line in text.split("\n"):
        spans = _spans(line) if anchors.search(line.casefold()) else []
        for start, end, _kind in reversed(spans):
            line = line[:start] + redact(line[start:end]) + "[redacted]" + line[end:]
        out.append(line)
    return "\n".join(out)


# `<private>…</private>`: what a user marks as never to be stored, indexed or sent to an
# LLM. An opening tag without its closing one hides everything after it (the safe side).
_PRIVATE = re.compile(r"<private\s*>.*?(?:</private\s*>|\Z)", re.IGNORECASE | re.DOTALL)
PRIVATE_MARK = "[private]"


def strip_private(text: str, *, keep_lines: bool = False) -> str:
    """`text` with every `<private>` span replaced by a visible `[private]` mark.

    `keep_lines`: the mark is followed by the span's own line breaks, so every later line
    keeps its number (what the index's file:line must point at).
    """
    if "<private" not in text.casefold():
        return text
    if not keep_lines:
        return _PRIVATE.sub(PRIVATE_MARK, text)
    return _PRIVATE.sub(lambda m: PRIVATE_MARK + "\n" * m.group(0).count("\n"), text)


# A connection URL's password (postgresql://user:PASSWORD@host, or password=... in a
# keyword string): hidden in every error shown.
_USERINFO = re.compile(
    r"(?P<head>[a-z][a-z0-9+.-]*://[^:@/\s]*)(?::(?P<password>[^@/\s]*))?@", re.IGNORECASE
)
_KEYWORD_PASSWORD = re.compile(r"(password\s*=\s*)('[^']*'|[^\s&]+)", re.IGNORECASE)


def redact_url(text: str) -> str:
    """`text` with the password of any connection URL or keyword string replaced by ***."""
    text = _USERINFO.sub(
        lambda m: m.group("head") + (":***" if m.group("password") else "") + "@", text
    )
    return _KEYWORD_PASSWORD.sub(r"\1***", text)
