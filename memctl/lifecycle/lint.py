"""`memctl lint`: what is wrong with the vault, by file:line.

Errors: core.md over its cap (with the lines to cut), secrets. Warnings: missing core
sections, undated / badly dated / out-of-order decisions, daily file names that are not
real dates, near-duplicates across tiers, likely contradictions.

Contradictions are checked among HOT and WARM lines only (what the agent currently
believes); COLD is history, where a changed mind is expected.
"""

from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from rapidfuzz import fuzz, process

from memctl import statements
from memctl.index.backend import has_index, open_store
from memctl.lifecycle.duplicates import (
    Neighbourhood,
    line_duplicates,
    vector_duplicates,
)
from memctl.lifecycle.hot import content_lines, line_count, missing_sections
from memctl.lifecycle.proposals import ProposalBook
from memctl.lifecycle.rules import unmatched_supersedes
from memctl.lifecycle.secret_scan import secret_hits
from memctl.lifecycle.units import Unit, normalise, units_of
from memctl.lifecycle.worded import worded_apart_pairs
from memctl.llm import LLM, LLMError
from memctl.notes import daily_note_date, parse_decisions
from memctl.secrets import SecretHit, redact_text
from memctl.vault import CORE, DECISIONS, Vault, tier_of

if TYPE_CHECKING:
    from memctl.index.backend import IndexBackend

QUOTE_CHARS = 60  # how much of a line a finding quotes
MAX_JUDGED = 20  # LLM judge calls per lint run


def quote(line: str) -> str:
    """A line as a finding quotes it: secrets redacted first, then cut (a cut token would
    no longer match its pattern and leak in part)."""
    return redact_text(line.strip())[:QUOTE_CHARS]


Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    severity: Severity
    code: str
    path: str
    line: int
    message: str
    other: str | None = None  # a pair's other side, "path:line" (duplicates, contradictions)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.other is None:
            del data["other"]
        return data


@dataclass
class LintReport:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "findings": [f.to_dict() for f in self.findings],
            "notes": self.notes,
        }


# -- pure checks ------------------------------------------------------------------------------


def check_core(
    text: str, cap: int, sections: tuple[str, ...], suggestions: list[tuple[int, str]]
) -> list[Finding]:
    findings = []
    count = line_count(text)
    if count > cap:
        over = count - cap
        ideas = suggestions or [(c.number, c.text) for c in content_lines(text)]
        named = ", ".join(f"line {n} ({quote(t)})" for n, t in ideas[:over])
        findings.append(
            Finding(
                "error",
                "hot-over-cap",
                CORE,
                cap + 1,
                f"core.md has {count} lines, over its cap of {cap}: cut {over} line(s), e.g. {named}",
            )
        )
    for name in missing_sections(text, sections):
        findings.append(
            Finding("warning", "missing-section", CORE, 1, f"core.md has no '## {name}' section")
        )
    return findings


def check_decisions(text: str) -> list[Finding]:
    findings = []
    previous = None
    for d in parse_decisions(text):
        if d.raw_date is None:
            findings.append(
                Finding(
                    "warning",
                    "undated-decision",
                    DECISIONS,
                    d.line_start,
                    f"decision '{d.title}' has no date (## YYYY-MM-DD — title)",
                )
            )
        elif d.date is None:
            findings.append(
                Finding(
                    "warning",
                    "bad-date",
                    DECISIONS,
                    d.line_start,
                    f"decision date {d.raw_date} is not a real date",
                )
            )
        else:
            if previous is not None and d.date < previous:
                findings.append(
                    Finding(
                        "warning",
                        "out-of-order",
                        DECISIONS,
                        d.line_start,
                        f"decision of {d.date} comes after one of {previous}",
                    )
                )
            previous = max(previous, d.date) if previous else d.date
    for line, reference in unmatched_supersedes(parse_decisions(text)):
        findings.append(
            Finding(
                "warning",
                "supersedes-unknown",
                DECISIONS,
                line,
                f"'Supersedes: {reference}' names no decision (a date, or a title word for "
                "word); it retires nothing",
            )
        )
    return findings


def check_daily_names(rel_paths: list[str]) -> list[Finding]:
    return [
        Finding(
            "warning", "bad-daily-name", p, 1, "daily note name is not a real date (YYYY-MM-DD.md)"
        )
        for p in rel_paths
        if daily_note_date(p.rsplit("/", 1)[-1]) is None
    ]


def secret_findings(path: str, hits: list[SecretHit]) -> list[Finding]:
    return [
        Finding(
            "error",
            "secret",
            path,
            h.line,
            f"possible {h.kind} ({h.preview}): remove it, the vault goes to git",
        )
        for h in hits
    ]


def likely_contradictions(units: list[Unit]) -> list[tuple[Unit, Unit, str]]:
    """Same statement with opposite polarity, or with a different number, or one subject
    given different values in other words (lifecycle.worded; HOT and WARM only).

    The decision is memctl.statements', which search also uses to rank the newer of two
    conflicting memories first; rapidfuzz only narrows the pairs worth asking about.
    """
    import numpy as np  # lazily: keeps CLI start-up fast

    current = [u for u in units if u.tier in ("hot", "warm")]
    if len(current) < 2:
        return []
    no_digits = [
        statements.NUMBER.sub("#", " ".join(statements.NEGATION.sub(" ", u.norm).split()))
        for u in current
    ]
    found = []
    seen: set[tuple[int, int]] = set()
    scores = process.cdist(
        no_digits, no_digits, scorer=fuzz.ratio, score_cutoff=85, dtype=np.uint8, workers=1
    )
    for i, j in zip(*np.nonzero(scores), strict=True):
        if j <= i or current[i].norm == current[j].norm:
            continue
        reason = statements.polarity_or_number_conflict(current[i].norm, current[j].norm)
        if reason:
            found.append((current[i], current[j], reason))
            seen.add((int(i), int(j)))
    return found + worded_apart_pairs(current, seen)


JUDGE_SYSTEM = (
    "You check an agent's memory for contradictions. Given two statements, decide whether "
    "they cannot both be true now (a contradiction), as opposed to compatible, or one being "
    "a later update the other records as history. Answer by calling the `answer` tool."
)
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "contradiction": {"type": "boolean"},
        "reason": {"type": "string", "minLength": 1},
    },
    "required": ["contradiction", "reason"],
    "additionalProperties": False,
}


# -- the lint run -----------------------------------------------------------------------------


def memory_texts(vault: Vault) -> dict[str, str]:
    """Every memory file's text by vault-relative path; a link leaving the vault is skipped
    with a notice."""
    texts: dict[str, str] = {}
    for path in vault.memory_files():
        text = vault.read_memory(path)
        if text is not None:
            texts[vault.rel(path)] = text
    return texts


def lint(
    vault: Vault,
    *,
    llm: LLM | None = None,
    suggestions: list[tuple[int, str]] | None = None,
    texts: dict[str, str] | None = None,
    book: ProposalBook | None = None,
    store: IndexBackend | None = None,
) -> LintReport:
    """Check the vault. `texts`, `book` and `store` are what a caller (maintain's run)
    already loaded or opened; each is read or opened here when not given."""
    settings = vault.settings
    report = LintReport()
    texts = memory_texts(vault) if texts is None else texts
    if CORE not in texts:
        from memctl.errors import MemctlError

        raise MemctlError(f"{vault.core_path} is missing: cannot lint", exit_code=2)
    report.findings += check_core(
        texts[CORE], settings.hot.cap_lines, settings.hot.sections, suggestions or []
    )
    if DECISIONS in texts:
        report.findings += check_decisions(texts[DECISIONS])
    daily_files = [p for p in texts if p.startswith(("memory/daily/", "memory/archive/daily/"))]
    report.findings += check_daily_names(daily_files)
    for path, hits in secret_hits(vault, texts).items():
        report.findings += secret_findings(path, hits)
    with contextlib.ExitStack() as stack:
        if store is None and has_index(vault):
            store = stack.enter_context(open_store(vault))
        hood = Neighbourhood.of(store, vault.state_dir) if store is not None else None
        _duplicates(vault, texts, hood, book or ProposalBook(vault), report)
    units = [
        u for path, text in texts.items() if tier_of(path) != "cold" for u in units_of(path, text)
    ]
    contradictions = likely_contradictions(units)

    judged = 0
    for a, b, why in contradictions:
        message = f"may contradict {b.path}:{b.line} ({quote(b.text)}): {why}"
        if llm is not None and judged < MAX_JUDGED:
            judged += 1
            try:
                verdict = llm.complete_json(
                    settings.llm.review_model,
                    JUDGE_SYSTEM,
                    f"A: {redact_text(a.text)}\nB: {redact_text(b.text)}",
                    JUDGE_SCHEMA,
                    max_tokens=300,
                )
            except LLMError as exc:
                message += f" (LLM judge unavailable: {exc})"
            else:
                if not verdict["contradiction"]:
                    continue
                message += f"; LLM judge: {verdict['reason']}"
        report.findings.append(
            Finding("warning", "contradiction", a.path, a.line, message, f"{b.path}:{b.line}")
        )
    report.findings.sort(key=lambda f: (f.path, f.line, f.code))
    report.notes += vault.take_notices()
    # Every message, whatever check wrote it, is redacted once more before it leaves:
    # lint and maintain output is what cron mails.
    report.findings = [replace(f, message=redact_text(f.message)) for f in report.findings]
    return report


def _duplicates(
    vault: Vault,
    texts: dict[str, str],
    hood: Neighbourhood | None,
    book: ProposalBook,
    report: LintReport,
) -> None:
    """Near-duplicate lines (rapidfuzz) and chunks (cosine) across tiers (duplicates.py)."""
    settings = vault.settings.lifecycle
    units = [
        u for path, text in texts.items() if tier_of(path) != "cold" for u in units_of(path, text)
    ]
    promoted = _promoted_from(book)
    for a, b, score in line_duplicates(units, texts, hood, settings.duplicate_ratio):
        if (a.norm, b.path) in promoted:
            continue  # a promotion copies into HOT on purpose; the WARM original is its record
        report.findings.append(
            Finding(
                "warning",
                "near-duplicate",
                a.path,
                a.line,
                f"{score:.0f}% like {b.path}:{b.line} ({quote(b.text)})",
                f"{b.path}:{b.line}",
            )
        )
    if hood is None:
        if not has_index(vault):
            report.notes.append("no index: vector near-duplicates skipped (run `memctl index`)")
        return
    for x, y, cosine in vector_duplicates(hood, settings.duplicate_cosine):
        report.findings.append(
            Finding(
                "warning",
                "near-duplicate",
                x.path,
                x.line_start,
                f"cosine {cosine:.2f} with {y.path}:{y.line_start} ({quote(y.text.splitlines()[0])})",
                f"{y.path}:{y.line_start}",
            )
        )


def _promoted_from(book: ProposalBook) -> set[tuple[str, str]]:
    """(normalised core line, source path) of every applied promotion."""
    pairs = set()
    for p in book.of_kind("promote", ("applied",)):
        for line in (p.line or "").splitlines():
            pairs.add((normalise(line), p.path))
    return pairs
