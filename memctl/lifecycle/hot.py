"""core.md (the HOT tier): its sections and lines, and adding to it under the cap.

The text functions are pure; `apply_core_addition` is the one writer, and it goes
through `update_file` under the vault lock, so a person saving core.md in an editor at
the same moment loses nothing (the addition is re-applied to their newer text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memctl.errors import MemctlError, UsageError
from memctl.vault import Vault, update_file

_H2 = re.compile(r"^##\s+(.*?)\s*#*\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")


class HotCapExceeded(MemctlError):
    """Adding would push core.md past its line cap; the message names lines to archive instead."""

    exit_code = 1

    def __init__(self, message: str, *, over_by: int, suggestions: list[tuple[int, str]]) -> None:
        super().__init__(message)
        self.over_by = over_by
        self.suggestions = suggestions


@dataclass(frozen=True)
class ContentLine:
    number: int  # 1-based
    text: str
    section: str | None


@dataclass(frozen=True)
class CoreEdit:
    section: str
    added: list[str]  # the lines written (empty when they were all already present)
    line_count: int  # core.md lines after the edit
    cap: int


def line_count(text: str) -> int:
    return len(text.splitlines())


def content_lines(text: str) -> list[ContentLine]:
    """Lines that hold memory: not blank, not a heading, not inside an HTML comment."""
    result = []
    section: str | None = None
    in_comment = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_comment:
            if "-->" in stripped:
                in_comment = False
            continue
        if stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = _H2.match(line)
        if heading:
            section = heading.group(1)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        result.append(ContentLine(number, line, section))
    return result


def sections(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := _H2.match(line))]


def missing_sections(text: str, required: tuple[str, ...]) -> list[str]:
    present = {s.casefold() for s in sections(text)}
    return [s for s in required if s.casefold() not in present]


def as_core_lines(text: str) -> list[str]:
    """What will be written: one bullet per non-blank line; headings are refused."""
    lines = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            raise UsageError(f"a core.md addition cannot contain a heading: {line.strip()!r}")
        if "<!--" in line or "-->" in line:
            raise UsageError("a core.md addition cannot contain an HTML comment marker")
        lines.append(line.rstrip() if _LIST.match(line) else f"- {line.strip()}")
    if not lines:
        raise UsageError("empty text: nothing to add to core.md")
    return lines


def insert_into_section(text: str, section: str, new_lines: list[str]) -> str:
    """`text` with `new_lines` at the end of `## section` (created at the end if missing).

    Lines already present anywhere in the file are skipped, so applying twice is a no-op.
    Every other byte of the file is kept.
    """
    existing = {line.rstrip() for line in text.splitlines()}
    new_lines = [line for line in new_lines if line.rstrip() not in existing]
    if not new_lines:
        return text
    lines = text.splitlines(keepends=True)
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if (m := _H2.match(line.rstrip("\r\n"))) and m.group(1).casefold() == section.casefold()
        ),
        None,
    )
    block = "".join(line + "\n" for line in new_lines)
    if start is None:
        body = text if not text or text.endswith("\n") else text + "\n"
        sep = "" if not body or body.endswith("\n\n") else "\n"
        return f"{body}{sep}## {section}\n\n{block}"
    end = next(
        (i for i in range(start + 1, len(lines)) if _H2.match(lines[i].rstrip("\r\n"))), len(lines)
    )
    last = end - 1
    while last > start and not lines[last].strip():
        last -= 1
    if last == start:
        # An empty section: leave one blank line under its heading.
        head = lines[: start + 1]
        tail = lines[start + 1 :]
        if head and not head[-1].endswith("\n"):
            head[-1] += "\n"
        while tail and not tail[0].strip():
            tail.pop(0)
        gap = "\n" if tail else ""
        return "".join([*head, "\n", block, gap, *tail])
    head = lines[: last + 1]
    if not head[-1].endswith("\n"):
        head[-1] += "\n"
    return "".join([*head, block, *lines[last + 1 :]])


def check_cap(
    before: str, after: str, cap: int, suggest: list[tuple[int, str]] | None = None
) -> None:
    """Raise `HotCapExceeded` when the change from `before` to `after` leaves core.md over
    `cap` lines; its message names lines that could be archived instead (`suggest`, else
    the oldest content lines). A change that does not grow an over-full file passes."""
    over = line_count(after) - cap
    if after == before or over <= 0 or line_count(after) <= line_count(before):
        return
    ideas = suggest or [(c.number, c.text) for c in content_lines(before)][:over]
    named = "; ".join(f"line {n}: {t.strip()}" for n, t in ideas[: max(over, 3)])
    raise HotCapExceeded(
        f"core.md would have {line_count(after)} lines, over its cap of "
        f"{cap} by {over}; archive some first ({named})",
        over_by=over,
        suggestions=ideas,
    )


def apply_core_addition(
    vault: Vault,
    section: str,
    text: str,
    *,
    suggest: list[tuple[int, str]] | None = None,
    lock: bool = True,
) -> CoreEdit:
    """Write `text` (one bullet per line) at the end of `section` in core.md, under the cap.

    Raises `HotCapExceeded` (nothing written) when core.md would exceed `hot.cap_lines`;
    its message names lines that could be archived instead (`suggest`, else the oldest
    content lines). Raises `UsageError` for an unknown section or an empty/heading text.
    `lock=False` when the caller already holds `vault.lock()` (the lock is not re-entrant).
    """
    settings = vault.settings.hot
    known = {s.casefold(): s for s in settings.sections}
    if section.casefold() not in known:
        raise UsageError(
            f"unknown core.md section {section!r}: choose one of {', '.join(settings.sections)}"
        )
    section = known[section.casefold()]
    wanted = as_core_lines(text)
    added: list[str] = []

    def change(before: str) -> str:
        after = insert_into_section(before, section, wanted)
        check_cap(before, after, settings.cap_lines, suggest)
        added[:] = [
            line
            for line in wanted
            if line in after.splitlines() and line not in before.splitlines()
        ]
        return after

    if lock:
        with vault.lock():
            final = update_file(vault.check_writable(vault.core_path), change)
    else:
        final = update_file(vault.check_writable(vault.core_path), change)
    return CoreEdit(section, added, line_count(final), settings.cap_lines)
