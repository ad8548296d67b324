"""Auto-capture: turn a conversation into memory writes, through five gates.

1. extraction (LLM): candidate facts, behavioural rules and decisions;
2. validation (pure, `capture_rules.validation_reason`): filler and transient state dropped;
3. near-duplicate (no LLM): cosine >= [lifecycle] duplicate_cosine to an existing memory,
   or an almost identical text, is skipped before any further LLM call;
4. judgment (LLM, per survivor): ADD, UPDATE, DELETE or NOOP against its closest memories
   (no neighbours at all: ADD without asking);
5. contradiction check (LLM): against high-importance memories (core, decisions); a
   candidate that contradicts one it does not explicitly update is held as CONFLICT.

UPDATE and DELETE never lose a memory: the old text is first appended to
`memory/archive/superseded.md` with a pointer to what replaced it, and only then removed
from where it was. Core lines are never changed here (core goes through review).

The parts: capture_rules.py (pure: validation, parsing, the candidate), capture_neighbours.py
(similar existing memories), capture_prompts.py, capture_write.py (writes and retirements).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memctl import clock
from memctl.agent.capture_neighbours import Neighbourhood, bare, comparable, load_memories
from memctl.agent.capture_prompts import (
    CONTRADICTION_SCHEMA,
    CONTRADICTION_SYSTEM,
    EXTRACT_SCHEMA,
    EXTRACT_SYSTEM,
    JUDGE_SCHEMA,
    JUDGE_SYSTEM,
)
from memctl.agent.capture_rules import (
    HIGH_IMPORTANCE,
    SUPERSEDED,
    Candidate,
    MemoryItem,
    clip_transcript,
    conversation_text,
    validation_reason,
)
from memctl.agent.capture_write import apply
from memctl.errors import MemctlError, UsageError
from memctl.llm import LLM, LLMError
from memctl.vault import Vault

# The pipeline's parts, importable from here as before the split.
__all__ = [
    "CONTRADICTION_SYSTEM",
    "EXTRACT_SYSTEM",
    "JUDGE_SYSTEM",
    "NO_KEY_FOR_CAPTURE",
    "SUPERSEDED",
    "Candidate",
    "CaptureReport",
    "Neighbourhood",
    "apply",
    "bare",
    "capture",
    "comparable",
    "load_memories",
]

NO_KEY_FOR_CAPTURE = (
    "capture needs the LLM and ANTHROPIC_API_KEY is not set: nothing was read or written"
)


@dataclass
class CaptureReport:
    dry_run: bool
    candidates: list[Candidate] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    llm_calls: int = 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.candidates:
            out[c.outcome] = out.get(c.outcome, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "candidates": [c.to_dict() for c in self.candidates],
            "llm_calls": self.llm_calls,
            "notices": self.notices,
        }


def _memories_block(neighbours: list[tuple[MemoryItem, float, float]]) -> str:
    return "\n\n".join(
        f'<memory id="{m.id}">\n{m.text.strip()}\n</memory>' for m, _, _ in neighbours
    )


def extract(llm: LLM, vault: Vault, transcript: str, report: CaptureReport) -> list[Candidate]:
    report.llm_calls += 1
    answer = llm.complete_json(
        vault.settings.llm.extract_model,
        EXTRACT_SYSTEM,
        f"<conversation>\n{transcript}\n</conversation>",
        EXTRACT_SCHEMA,
        max_tokens=2048,
    )
    return [
        Candidate(
            text=m["text"].strip(),
            kind=m["kind"],
            title=(m.get("title") or "").strip() or None,
            durable=m["durable"],
        )
        for m in answer["memories"]
    ]


def judge(
    llm: LLM,
    vault: Vault,
    cand: Candidate,
    neighbours: list[tuple[MemoryItem, float, float]],
    report: CaptureReport,
) -> None:
    if not neighbours:
        cand.outcome, cand.reason, cand.final_text = "ADD", "no similar memory exists", cand.text
        return
    report.llm_calls += 1
    answer = llm.complete_json(
        vault.settings.llm.extract_model,
        JUDGE_SYSTEM,
        f'<new kind="{cand.kind}">\n{cand.text}\n</new>\n\n<existing>\n'
        f"{_memories_block(neighbours)}\n</existing>",
        JUDGE_SCHEMA,
        max_tokens=1024,
    )
    action, reason = answer["action"], answer["reason"].strip()
    by_id = {m.id: m for m, _, _ in neighbours if m.source != "captured"}
    if action in ("UPDATE", "DELETE"):
        target = by_id.get(answer["target"] or "")
        if target is None:
            cand.outcome = "error"
            cand.reason = f"judge chose {action} without a valid target ({answer['target']!r})"
            return
        cand.target = target
    cand.outcome, cand.reason = action, reason
    if action in ("ADD", "UPDATE"):
        cand.final_text = answer["text"].strip() or cand.text
    if cand.target is not None and cand.target.source == "core":
        cand.outcome = "CONFLICT"
        cand.reason = (
            f"would {action} a core memory line; core changes go through review "
            f"(update_core_memory / memctl promote): {reason}"
        )


def check_contradiction(
    llm: LLM, vault: Vault, cand: Candidate, hood: Neighbourhood, report: CaptureReport
) -> None:
    high = hood.nearest(cand.final_text or cand.text, min_importance=HIGH_IMPORTANCE)
    if cand.target is not None:
        # Superseding a decision is what UPDATE is for; check the others.
        high = [h for h in high if h[0].id != cand.target.id]
    if not high:
        return
    report.llm_calls += 1
    answer = llm.complete_json(
        vault.settings.llm.review_model,
        CONTRADICTION_SYSTEM,
        f"<new>\n{cand.final_text or cand.text}\n</new>\n\n<high_importance>\n"
        f"{_memories_block(high)}\n</high_importance>",
        CONTRADICTION_SCHEMA,
        max_tokens=512,
    )
    if answer["contradicts"]:
        by_id = {m.id: m for m, _, _ in high}
        cand.outcome = "CONFLICT"
        cand.target = by_id.get(answer["target"] or "", cand.target)
        cand.reason = f"contradicts a high-importance memory: {answer['reason'].strip()}"


def capture(
    vault: Vault,
    raw: str,
    llm: LLM | None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
    mark: str = "",
    limit: int | None = None,
) -> CaptureReport:
    """Run the pipeline on a conversation (messages JSON or plain text).

    `mark` ends every written text (a session mark); past `limit` writes (ADD, UPDATE),
    a candidate that would be written is `capped` instead.
    """
    if llm is None:
        raise MemctlError(NO_KEY_FOR_CAPTURE, exit_code=2)
    now = now or clock.now()
    if not raw.strip():
        raise UsageError("empty conversation: nothing to capture")
    report = CaptureReport(dry_run=dry_run)
    transcript, clipped = clip_transcript(conversation_text(raw))
    if clipped:
        report.notices.append("long conversation: only its most recent part was read")
    report.candidates = extract(llm, vault, transcript, report)
    hood = Neighbourhood(vault, load_memories(vault), report.notices)
    settings = vault.settings.lifecycle
    for cand in report.candidates:
        why = validation_reason(cand.text, durable=cand.durable)
        if why:
            cand.outcome, cand.reason = "invalid", why
            continue
        neighbours = hood.nearest(cand.text)
        if neighbours:
            best, cosine, ratio = neighbours[0]
            cand.similarity = cosine if cosine >= 0 else ratio / 100
            if cosine >= settings.duplicate_cosine or ratio >= settings.duplicate_ratio:
                cand.outcome, cand.target = "duplicate", best
                cand.reason = (
                    f"near-duplicate of {best.path}:{best.line_start} "
                    f"(cosine {cosine:.3f}, text ratio {ratio:.0f})"
                )
                continue
        try:
            judge(llm, vault, cand, neighbours, report)
            if cand.outcome in ("ADD", "UPDATE"):
                check_contradiction(llm, vault, cand, hood, report)
        except LLMError as exc:
            cand.outcome, cand.reason = "error", f"LLM step failed, nothing written: {exc}"
            continue
        if cand.outcome in ("ADD", "UPDATE") and limit is not None:
            if limit <= 0:
                cand.outcome, cand.reason = "capped", "the session's capture cap is reached"
                continue
            limit -= 1
        if not dry_run:
            apply(vault, cand, now, mark)
        if cand.outcome in ("ADD", "UPDATE"):
            hood.add(cand.final_text or cand.text, (cand.written or {}).get("path", "(planned)"))
    return report
