"""Roll archived daily notes (`archive/daily/YYYY-MM-DD.md`) into `archive/YYYY-MM.md`.

Lossless: each note is kept byte for byte between markers

    <!-- memctl:note 2026-09-01.md -->
    ...the note exactly...
    <!-- memctl:end 2026-09-01.md -->

(`noeol` in the opening marker when the note had no final newline), so `unpack_month`
gives every original back. Crash-safe without a journal: the monthly file is written
first, the daily file removed second; a re-run that finds a daily note already packed
with identical content just removes it, and one packed with different content is a
conflict that keeps both.

`--summarize` puts an LLM summary between `<!-- memctl:summary -->` markers under the
month's heading; the notes below are untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import partial

from memctl.config import Settings
from memctl.llm import LLM, LLMError
from memctl.notes import daily_note_date
from memctl.vault import Vault, read_exact, read_text, update_file

_OPEN = re.compile(r"^<!-- memctl:note (\d{4}-\d{2}-\d{2}\.md)( noeol)? -->$")
SUMMARY_OPEN = "<!-- memctl:summary -->"
SUMMARY_CLOSE = "<!-- memctl:summary-end -->"

SUMMARY_SYSTEM = (
    "You summarise a month of an agent's archived daily notes in 3-8 short bullet points: "
    "decisions, outcomes, open threads. Write in the notes' own language(s). No preamble."
)


def pack_note(name: str, content: str) -> str:
    noeol = bool(content) and not content.endswith("\n")
    body = content + "\n" if noeol else content
    flag = " noeol" if noeol else ""
    return f"<!-- memctl:note {name}{flag} -->\n{body}<!-- memctl:end {name} -->\n"


def unpack_month(text: str) -> dict[str, str]:
    """Every packed note, exactly as it was, by file name."""
    notes: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i].rstrip("\n"))
        if not match:
            i += 1
            continue
        name, noeol = match.group(1), bool(match.group(2))
        close = f"<!-- memctl:end {name} -->"
        j = i + 1
        while j < len(lines) and lines[j].rstrip("\n") != close:
            j += 1
        body = "".join(lines[i + 1 : j])
        notes[name] = body[:-1] if noeol and body.endswith("\n") else body
        i = j + 1
    return notes


def note_day_at(text: str, line_number: int) -> date | None:
    """The day of the packed note holding `line_number` (1-based), if any."""
    day = None
    for number, found in note_days(text):
        if number > line_number:
            break
        day = found
    return day


def note_days(text: str) -> list[tuple[int, date | None]]:
    """(line number, day) of each packed note's opening marker, in file order."""
    markers = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("<!-- memctl:note "):
            match = _OPEN.match(line)
            if match:
                markers.append((number, daily_note_date(match.group(1))))
    return markers


def insert_note(month_text: str, month: str, name: str, content: str) -> str:
    """`month_text` with the note packed in date order; every other byte kept."""
    packed = pack_note(name, content)
    if not month_text.strip():
        return f"# {month}\n\n{packed}"
    lines = month_text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        match = _OPEN.match(line.rstrip("\n"))
        if match and match.group(1) > name:
            return "".join(lines[:i]) + packed + "\n" + "".join(lines[i:])
    body = month_text if month_text.endswith("\n") else month_text + "\n"
    return body + "\n" + packed


def with_summary(month_text: str, summary: str) -> str:
    """Put (or replace) the summary block right under the first heading."""
    block = f"{SUMMARY_OPEN}\n{summary.strip()}\n{SUMMARY_CLOSE}\n"
    start = month_text.find(SUMMARY_OPEN + "\n")
    if start >= 0:
        end = month_text.find(SUMMARY_CLOSE, start)
        if end >= 0:
            end = month_text.find("\n", end)
            end = len(month_text) if end < 0 else end + 1
            return month_text[:start] + block + month_text[end:]
    lines = month_text.splitlines(keepends=True)
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
    return "".join(lines[:at]) + "\n" + block + "".join(lines[at:])


@dataclass
class CompactReport:
    rolled: list[tuple[str, str]] = field(default_factory=list)  # (daily, month file)
    conflicts: list[str] = field(default_factory=list)
    summarized: list[str] = field(default_factory=list)
    summary_errors: list[str] = field(default_factory=list)


def compact(vault: Vault, *, llm: LLM | None = None, summarize: bool = False) -> CompactReport:
    """Roll every archived daily note into its month (caller holds the vault lock)."""
    report = CompactReport()
    folder = vault.archive_dir / "daily"
    touched: set[str] = set()
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            day = daily_note_date(path.name)
            if day is None:
                continue  # lint reports it; compact never guesses a month
            if path.is_symlink():
                # Rolling copies the content in: a link's target (maybe outside the vault)
                # must never be copied into a file that goes to git (docs/security.md).
                report.conflicts.append(f"{vault.rel(path)} is a link; only plain files are rolled")
                continue
            month = f"{day:%Y-%m}"
            month_path = vault.archive_dir / f"{month}.md"
            # read_exact: a bad byte is rolled in as it is, not a reason to stop.
            content = read_exact(path)
            packed = unpack_month(read_exact(month_path)) if month_path.exists() else {}
            rel_month = vault.rel(month_path)
            if path.name in packed and packed[path.name] != content:
                report.conflicts.append(
                    f"{vault.rel(path)} differs from the copy already in {rel_month}; both kept"
                )
                continue
            if path.name not in packed:
                update_file(
                    month_path,
                    partial(insert_note, month=month, name=path.name, content=content),
                    create="",
                    exact=True,
                )
            if unpack_month(read_exact(month_path)).get(path.name) != content:
                report.conflicts.append(
                    f"{vault.rel(path)} could not be verified in {rel_month}; kept"
                )
                continue
            path.unlink()
            touched.add(month)
            report.rolled.append((vault.rel(path), rel_month))
    if summarize and llm is not None:
        for month_path in sorted(vault.archive_dir.glob("????-??.md")):
            month = month_path.stem
            text = read_text(month_path)
            if SUMMARY_OPEN in text and month not in touched:
                continue
            _summarize(vault.settings, llm, month_path, text, report)
    return report


def _summarize(settings: Settings, llm: LLM, month_path, text: str, report: CompactReport) -> None:  # type: ignore[no-untyped-def]
    notes = unpack_month(text)
    if not notes:
        return
    source = "\n\n".join(notes[name] for name in sorted(notes))[:60_000]
    try:
        summary = llm.complete_text(
            settings.llm.summary_model, SUMMARY_SYSTEM, source, max_tokens=600
        )
    except LLMError as exc:
        report.summary_errors.append(f"{month_path.name}: {exc}")
        return
    if SUMMARY_OPEN in summary or SUMMARY_CLOSE in summary or "<!-- memctl:" in summary:
        report.summary_errors.append(
            f"{month_path.name}: summary contained memctl markers; skipped"
        )
        return
    update_file(month_path, lambda before: with_summary(before, summary))
    report.summarized.append(month_path.name)
