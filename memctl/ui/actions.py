"""The review queue's decisions, each through the same workflow as its CLI command.

approve -> `memctl promote --apply ID --section S --text LINE`, reject -> `memctl promote
--reject ID`, demote -> `memctl demote --apply` (or `--hot ID`), prune -> `memctl prune
--apply --id ID`: the vault lock, the move journal and atomic writes are theirs. Each
returns what changed, for the page to show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memctl.errors import UsageError
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.lifecycle.workflows import DemoteReport

ACTIONS = ("approve", "reject", "demote", "archive", "prune")


@dataclass
class Outcome:
    action: str
    changed: list[str] = field(default_factory=list)  # what the vault now holds differently
    refused: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # vault-relative files to look at


def decide(vault: Vault, action: str, form: Mapping[str, str]) -> Outcome:
    """Carry out one form's decision."""
    if action not in ACTIONS:
        raise UsageError(f"no such action {action!r}")
    pid = (form.get("id") or "").strip()
    if action != "demote" and not pid:
        raise UsageError("which proposal? (no id given)")
    return {
        "approve": _approve,
        "reject": _reject,
        "demote": _demote,
        "archive": _archive,
        "prune": _prune,
    }[action](vault, pid, form)


def _approve(vault: Vault, pid: str, form: Mapping[str, str]) -> Outcome:
    from memctl.lifecycle.workflows import run_promote

    line = form.get("line")
    report = run_promote(
        vault,
        apply=[pid],
        section=(form.get("section") or "").strip() or None,
        text=line.strip() if line and line.strip() else None,
    )
    out = Outcome("approve", files=["memory/core.md"])
    for p, edit in report.applied:
        out.changed += [f"core.md ## {edit.section}: + {added}" for added in edit.added] or [
            f"{p.id}: already in core.md ## {edit.section}"
        ]
        out.changed.append(f"core.md now {edit.line_count}/{edit.cap} lines")
    out.refused += [f"{p.id}: {why}" for p, why in report.refused]
    return out


def _reject(vault: Vault, pid: str, form: Mapping[str, str]) -> Outcome:
    from memctl.lifecycle.workflows import run_reject

    rejected = run_reject(vault, [pid], reason=form.get("reason") or "")
    out = Outcome("reject")
    out.changed = [f"{p.id} rejected ({p.path}:{p.line_start})" for p in rejected]
    if not rejected:
        out.refused.append(f"{pid} was already decided")
    return out


def _demote(vault: Vault, pid: str, form: Mapping[str, str]) -> Outcome:
    from memctl.lifecycle.workflows import run_demote

    return _moved("demote", run_demote(vault, apply=True))


def _archive(vault: Vault, pid: str, form: Mapping[str, str]) -> Outcome:
    from memctl.lifecycle.workflows import run_demote

    return _moved("archive", run_demote(vault, hot=[pid]))


def _moved(action: str, report: DemoteReport) -> Outcome:
    out = Outcome(action)
    out.changed = [f"moved {m['what']}: {m['from']} -> {m['to']}" for m in report.moved]
    out.changed += report.recovered
    out.refused = [f"skipped {why}" for why in report.skipped]
    out.files = list(dict.fromkeys(m["to"] for m in report.moved))
    if not report.moved and not report.skipped:
        out.refused.append("nothing to move")
    return out


def _prune(vault: Vault, pid: str, form: Mapping[str, str]) -> Outcome:
    from memctl.lifecycle.workflows import run_prune

    report = run_prune(vault, apply=True, only=[pid])
    out = Outcome("prune")
    out.changed = [f"deleted from {m['path']}: {m['what']}" for m in report.deleted]
    out.refused = list(report.skipped)
    out.files = list(dict.fromkeys(m["path"] for m in report.deleted))
    if not report.deleted and not report.skipped:
        out.refused.append(f"{pid}: nothing deleted")
    return out
