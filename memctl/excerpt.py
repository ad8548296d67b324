"""Reading around a search hit: one section (by heading) or a line range of a memory file.

An agent that got a snippet (path and lines) can open more of the same file without
loading all of it: `load_memory` with `what: "file"`, or `memctl show FILE:LINE-LINE`.
Only the vault's tier files under memory/ can be opened (a path that leaves memory/ by
`..` or a link is refused), and the text is cut to a token budget with the exact lines
shown, so the caller knows where to continue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from memctl.errors import UsageError
from memctl.tokens import estimate_tokens
from memctl.vault import Vault, tier_of

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SPEC = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:-(?P<end>\d+))?$")


@dataclass(frozen=True)
class Excerpt:
    path: str
    line_start: int
    line_end: int
    text: str
    total_lines: int
    truncated: bool = False  # the budget cut it: continue from line_end + 1

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "text": self.text,
            "total_lines": self.total_lines,
            "tokens": estimate_tokens(self.text),
        }
        if self.truncated:
            out["truncated"] = True
        return out


def parse_spec(spec: str) -> tuple[str, tuple[int, int] | None]:
    """`memory/x.md:3-9` → (path, (3, 9)); `memory/x.md:4` → (path, (4, 4)); else (spec, None)."""
    m = _SPEC.match(spec)
    if not m:
        return spec, None
    start = int(m.group("start"))
    end = int(m.group("end")) if m.group("end") else start
    return m.group("path"), (start, end)


def memory_path(rel: str) -> str:
    """`rel` checked to name a tier file under memory/ (no `..`, not absolute)."""
    cleaned = rel.strip().removeprefix("./")
    if "\x00" in cleaned:  # no file has one; the OS would refuse the name with ValueError
        raise UsageError(f"{rel!r}: a path cannot hold a NUL character")
    if not cleaned or Path(cleaned).is_absolute() or ".." in Path(cleaned).parts:
        raise UsageError(f"{rel!r}: give a vault-relative path under memory/")
    if tier_of(cleaned) is None:
        raise UsageError(
            f"{rel!r} is not a memory file (memory/core.md, daily, decisions, archive)"
        )
    return cleaned


def memory_file(vault: Vault, rel: str) -> Path:
    """The file `rel` names, if it is one of the vault's tier files under memory/ and
    the reader rule (`Vault.read_memory`) lets it be read: a file, or a `memory/` folder,
    that links out of the vault is refused with the words every other reader uses."""
    cleaned = memory_path(rel)
    path = vault.root / cleaned
    if vault.leaves_vault(path):
        raise UsageError(f"{cleaned}: skipped, it is a link that leaves the vault")
    memory = vault.memory_dir.resolve()
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise UsageError(f"{cleaned}: no such memory file") from None
    if not resolved.is_relative_to(memory) or not resolved.is_file():
        raise UsageError(f"{cleaned}: not a file inside memory/")
    return path


def excerpt_of(
    text: str,
    path: str,
    *,
    lines: tuple[int, int] | None = None,
    heading: str | None = None,
    budget: int | None = None,
) -> Excerpt:
    """The section under `heading` (to the next heading of its level or higher), or
    `lines` (1-based, inclusive; the end is clamped to the file), or the whole text;
    cut to `budget` tokens at a line boundary."""
    all_lines = text.split("\n")
    if all_lines and all_lines[-1] == "":
        all_lines.pop()
    total = len(all_lines)
    if lines is not None and heading is not None:
        raise UsageError("give a heading or a line range, not both")
    start, end = 1, total
    if lines is not None:
        start, end = lines
        if start < 1 or end < start:
            raise UsageError(f"bad line range {start}-{end}: lines count from 1, first ≤ last")
        if start > total:
            raise UsageError(f"{path} has {total} lines; line {start} does not exist")
        end = min(end, total)
    elif heading is not None:
        start, end = _section(all_lines, heading, path)
    if total == 0:
        return Excerpt(path, 0, 0, "", 0)
    chosen = all_lines[start - 1 : end]
    truncated = False
    if budget is not None:
        kept: list[str] = []
        used = 0
        for line in chosen:
            cost = estimate_tokens(line) + 1
            if kept and used + cost > budget:
                truncated = True
                break
            kept.append(line)
            used += cost
        chosen = kept
        end = start + len(chosen) - 1
    return Excerpt(path, start, end, "\n".join(chosen), total, truncated)


def _section(lines: list[str], heading: str, path: str) -> tuple[int, int]:
    """The heading equal to `heading` (case and spacing aside), else the one heading that
    contains it ("Retry policy" finds "2026-10-20 — Retry policy")."""
    want = _fold(heading.rsplit(" > ", 1)[-1].lstrip("#"))
    found: list[tuple[int, int, str]] = []  # (line index, level, text)
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m:
            found.append((i, len(m.group(1)), m.group(2)))
    exact = [h for h in found if _fold(h[2]) == want]
    partial = [h for h in found if want and want in _fold(h[2])]
    chosen = exact[:1] or (partial if len(partial) == 1 else [])
    if not chosen:
        if len(partial) > 1:
            names = ", ".join(repr(h[2]) for h in partial[:10])
            raise UsageError(f"{path}: {heading!r} matches several headings ({names})")
        known = ", ".join(repr(h[2]) for h in found[:10]) or "none"
        raise UsageError(f"{path} has no heading {heading!r} (headings: {known})")
    i, level, _ = chosen[0]
    end = len(lines)
    for j in range(i + 1, len(lines)):
        other = _HEADING.match(lines[j])
        if other and len(other.group(1)) <= level:
            end = j
            break
    while end > i + 1 and not lines[end - 1].strip():
        end -= 1
    return i + 1, end


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def read_excerpt(
    vault: Vault,
    rel: str,
    *,
    lines: tuple[int, int] | None = None,
    heading: str | None = None,
    budget: int | None = None,
) -> Excerpt:
    path = memory_file(vault, rel)
    text = vault.read_memory(path)
    if text is None:  # unreadable since memory_file looked: read_memory's notice says why
        raise UsageError(vault.notices[-1] if vault.notices else f"{rel}: cannot read it")
    return excerpt_of(text, vault.rel(path), lines=lines, heading=heading, budget=budget)
