"""What the page shows, read through the library: the tiers, the review queue, a file's lines.

Nothing here writes the vault (actions.py does); listing the queue refreshes the proposals
exactly as `memctl promote` / `demote` / `prune` listings do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memctl import clock
from memctl.errors import UsageError
from memctl.lifecycle import history
from memctl.lifecycle.lint import Finding
from memctl.lifecycle.proposals import ProposalBook
from memctl.lifecycle.workflows import listed
from memctl.state_paths import state_path
from memctl.vault import DECISIONS, MEMORY_DIR, UnsafeStatePath, Vault

REFERENCES_SHOWN = 8  # a promotion's latest references on the review page
CONTEXT_LINES = 2  # lines either side of a pair's line


def dashboard(vault: Vault) -> dict[str, Any]:
    """The tiers at a glance: `memctl status` plus the lines to cut, the queue's size and
    the last nightly run."""
    from memctl.status import full_status

    status = full_status(vault)
    hot = status.tiers.hot
    cut: list[tuple[int, str]] = []
    if hot.over_cap:
        cut = lines_to_cut(vault)[: hot.lines - hot.cap]
    book = ProposalBook(vault)
    waiting = {
        kind: len(book.of_kind(kind, ("proposed", "approved")))
        for kind in ("promote", "archive", "prune")
    }
    runs = history.load_runs(vault)
    return {
        "status": status,
        "index": status.index,
        "cut": cut,
        "waiting": waiting,
        "last_run": runs[-1] if runs else None,
    }


def lines_to_cut(vault: Vault) -> list[tuple[int, str]]:
    """core.md's lines lint would name to cut, least recently referenced first."""
    from memctl.lifecycle import evidence
    from memctl.lifecycle.lint import quote
    from memctl.lifecycle.promote import archivable_suggestions

    now = clock.now()
    suggestions = archivable_suggestions(vault, evidence.load_chunk_uses(vault, now), now)
    return [(n, quote(text)) for n, text in suggestions]


@dataclass
class Side:
    """One side of a pair: a file's lines around one line."""

    path: str
    line: int
    lines: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class Pair:
    finding: Finding
    left: Side
    right: Side


@dataclass
class Queue:
    promote: list[dict[str, Any]]
    archive: list[dict[str, Any]]
    prune: list[dict[str, Any]]
    demote: list[dict[str, str]]
    pairs: list[Pair]
    findings: list[Finding]
    notices: list[str]
    sections: tuple[str, ...]


def review_queue(vault: Vault) -> Queue:
    """Every proposal with its evidence, the planned demotions, and lint's findings (pairs
    side by side), each refreshed as the CLI's listings refresh them."""
    from memctl.lifecycle.maintain import lint_vault
    from memctl.lifecycle.workflows import run_demote, run_promote, run_prune

    promoted = run_promote(vault)
    demoted = run_demote(vault)
    pruned = run_prune(vault)
    report = lint_vault(vault)
    promote = [listed(p) for p in promoted.proposals]
    for item, events in zip(
        promote, _references(vault, [p.hash for p in promoted.proposals]), strict=True
    ):
        item["references"] = events
    pairs = [_pair(vault, f) for f in report.findings if f.other]
    superseded = [
        Pair(
            Finding("warning", "superseded", DECISIONS, old, "superseded: moves to the archive"),
            side(vault, DECISIONS, old),
            side(vault, DECISIONS, new),
        )
        for old, new in demoted.superseded
    ]
    return Queue(
        promote=promote,
        archive=[listed(p) for p in demoted.hot],
        prune=[listed(p) for p in pruned.proposals],
        demote=demoted.planned,
        pairs=[p for p in pairs if p is not None] + superseded,
        findings=[f for f in report.findings if not f.other],
        notices=promoted.notices + pruned.notices + report.notes,
        sections=vault.settings.hot.sections,
    )


def _references(vault: Vault, hashes: list[str]) -> list[list[dict[str, Any]]]:
    """Each chunk's latest references (when, by a search or a load, which query)."""
    from memctl.index.backend import has_index, open_store
    from memctl.secrets import redact_text

    if not hashes or not has_index(vault):
        return [[] for _ in hashes]
    with open_store(vault) as store:
        events = store.reference_events(hashes, REFERENCES_SHOWN)
    return [
        [
            {"ts": ts, "kind": kind, "query": redact_text(query) if query else None}
            for ts, kind, query in events.get(h, [])
        ]
        for h in hashes
    ]


def _pair(vault: Vault, finding: Finding) -> Pair | None:
    path, _, line = (finding.other or "").rpartition(":")
    if not line.isdigit():
        return None
    return Pair(finding, side(vault, finding.path, finding.line), side(vault, path, int(line)))


def side(vault: Vault, rel: str, line: int, around: int = CONTEXT_LINES) -> Side:
    """`rel`'s lines around `line`, read through the vault's reader (confined to memory/)."""
    lines = file_lines(vault, rel)
    lo, hi = max(1, line - around), min(len(lines), line + around)
    return Side(rel, line, [(n, lines[n - 1]) for n in range(lo, hi + 1)])


def file_lines(vault: Vault, rel: str) -> list[str]:
    """A memory file's lines for the page; anything but a markdown file under memory/
    inside the vault (no `..`, no link) is a usage error, never read."""
    from memctl.secrets import redact_text

    try:
        path = state_path(vault, rel, what="the page's address", under=MEMORY_DIR)
    except UnsafeStatePath:
        raise UsageError(
            f"{rel!r} is not a memory file of this vault: the page shows markdown under "
            "memory/ only"
        ) from None
    if not path.is_file():
        raise UsageError(f"{rel} does not exist")
    text = vault.read_memory(path)
    if text is None:
        raise UsageError(f"{rel} cannot be read")
    return redact_text(text).splitlines()
