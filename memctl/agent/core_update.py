"""`update_core_memory`: add one line to a section of core.md, never past the HOT cap."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memctl.errors import UsageError
from memctl.vault import Vault, read_text, update_file

_H2 = re.compile(r"^##\s+(.*?)\s*#*\s*$")


def section_names(core_text: str) -> list[str]:
    return [m.group(1) for line in core_text.splitlines() if (m := _H2.match(line))]


def as_bullet(text: str) -> str:
    """One core line: core.md is a list of short lines, so multi-line text is joined."""
    flat = " ".join(text.split())
    return flat if flat.startswith(("- ", "* ")) else f"- {flat}"


def insert_into_section(core_text: str, section: str, line: str) -> tuple[str, int]:
    """`core_text` with `line` appended at the end of `section` (matched case-insensitively).

    Returns the new text and the 1-based line number of the insertion. Raises UsageError
    for an unknown section, listing the ones that exist.
    """
    lines = core_text.splitlines()
    wanted = " ".join(section.split()).casefold()
    start = next(
        (
            i
            for i, row in enumerate(lines)
            if (m := _H2.match(row)) and m.group(1).casefold() == wanted
        ),
        None,
    )
    if start is None:
        names = ", ".join(section_names(core_text)) or "none"
        raise UsageError(f"core.md has no section {section!r} (sections: {names})")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    # After the section's last non-blank line, so blank separators stay where they were.
    at = end
    while at > start + 1 and not lines[at - 1].strip():
        at -= 1
    if at == start + 1:
        new = [*lines[:at], "", line, *lines[at:]]
        line_no = at + 2
    else:
        new = [*lines[:at], line, *lines[at:]]
        line_no = at + 1
    return "\n".join(new) + "\n", line_no


def add_to_core(vault: Vault, section: str, text: str, *, now: datetime) -> dict[str, Any]:
    """Review and apply one core addition: duplicate → no change; over the cap → refused."""
    cap = vault.settings.hot.cap_lines
    line = as_bullet(text)
    rel = vault.rel(vault.core_path)
    with vault.lock():
        before = read_text(vault.core_path)
        if any(" ".join(row.split()).casefold() == line.casefold() for row in before.splitlines()):
            return {"path": rel, "changed": False, "reason": "already in core memory"}
        after, line_no = insert_into_section(before, section, line)
        count = len(after.splitlines())
        if count > cap:
            raise UsageError(
                f"refused: core.md would have {count} lines, over its cap of {cap}. Archive "
                "stale core lines first (`memctl demote`), or save this with remember instead"
            )
        update_file(vault.core_path, lambda current: insert_into_section(current, section, line)[0])
    return {"path": rel, "changed": True, "line": line_no, "lines": count, "cap": cap}
