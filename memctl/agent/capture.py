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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rapidfuzz import fuzz, process

from memctl import clock, memory
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
    MemoryItem,
    clip_transcript,
    conversation_text,
    memory_items,
    remove_block,
    superseded_entry,
    validation_reason,
)
from memctl.agent.tools import default_title
from memctl.errors import MemctlError, UsageError
from memctl.llm import LLM, LLMError
from memctl.vault import (
    ARCHIVE_DIR,
    Vault,
    append_block,
    source_of,
    update_file,
)

SUPERSEDED = f"{ARCHIVE_DIR}/superseded.md"
NO_KEY_FOR_CAPTURE = (
    "capture needs the LLM and ANTHROPIC_API_KEY is not set: nothing was read or written"
)
NEIGHBOURS = 5
FULL_COMPARE_LIMIT = 400  # memories embedded one by one per capture, at most
_POOL = 20

_STAMP = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\d{1,2}:\d{2}\s+)?")


def bare(text: str) -> str:
    """A memory's words without its list marker and time stamp (what similarity compares)."""
    return " ".join(_STAMP.sub("", text).split())


def comparable(text: str) -> str:
    """Text reduced for the near-duplicate ratio: no bullet, no time stamp, no case."""
    return bare(text).casefold()


@dataclass
class Candidate:
    text: str
    kind: str
    title: str | None = None
    durable: bool = True
    outcome: str = (
        "pending"  # invalid | duplicate | ADD | UPDATE | DELETE | NOOP | CONFLICT | error
    )
    reason: str = ""
    similarity: float | None = None
    target: MemoryItem | None = None
    final_text: str | None = None
    written: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "title": self.title,
            "outcome": self.outcome,
            "reason": self.reason,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "target": self.target.ref() if self.target else None,
            "final_text": self.final_text,
            "written": self.written,
        }


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


def load_memories(vault: Vault) -> list[MemoryItem]:
    items: list[MemoryItem] = []
    for path in vault.memory_files():
        rel = vault.rel(path)
        source = source_of(rel)
        if source is None or rel == SUPERSEDED:
            continue
        text = vault.read_memory(path)  # a link leaving the vault is skipped with a notice
        if text is not None:
            items.extend(memory_items(rel, source, text))
    return items


class Neighbourhood:
    """Nearest existing memories of a text: embeddings when the model loads, else lexical."""

    def __init__(self, vault: Vault, items: list[MemoryItem], notices: list[str]) -> None:
        self.vault = vault
        self.items = items
        self.notices = notices
        self._plain = [comparable(i.text) for i in items]
        self._embedder: Any = None
        self._vectors: dict[str, Any] = {}
        self.index_hits = 0  # pool members found through the index (large vaults)
        try:
            from memctl.index.embed import get_embedder

            self._embedder = get_embedder(vault.settings)
        except Exception as exc:  # no model on this machine: lexical similarity still works
            notices.append(f"embeddings unavailable, near-duplicates found lexically only ({exc})")

    def add(self, text: str, path: str) -> None:
        """A memory written by this run, so a later candidate repeating it is a duplicate."""
        item = MemoryItem(f"new:{len(self.items)}", path, 0, 0, text, "captured")
        self.items.append(item)
        self._plain.append(comparable(text))

    def nearest(
        self, text: str, k: int = NEIGHBOURS, *, min_importance: float = 0.0
    ) -> list[tuple[MemoryItem, float, float]]:
        """Up to k (item, cosine or -1 without embeddings, text ratio 0..100), best first."""
        allowed = [i for i, item in enumerate(self.items) if item.importance >= min_importance]
        if not allowed:
            return []
        plain = comparable(text)
        choices = {i: self._plain[i] for i in allowed}
        lexical = process.extract(plain, choices, scorer=fuzz.token_set_ratio, limit=_POOL)
        pool = {i for _, _, i in lexical}
        if self._embedder is not None:
            import numpy as np

            query = self._embedder.embed_passages([bare(text)])[0]
            # Small vaults are compared in full, which catches paraphrases with no word in
            # common; in large ones the index's nearest chunks widen the lexical pool.
            if len(allowed) <= FULL_COMPARE_LIMIT:
                pool = set(allowed)
            else:
                pool |= self._index_pool(query) & set(allowed)
            missing = [self.items[i] for i in pool if self.items[i].id not in self._vectors]
            if missing:
                rows = self._embedder.embed_passages([bare(m.text) for m in missing])
                for item, row in zip(missing, rows, strict=True):
                    self._vectors[item.id] = row
            from memctl.index.embed.registry import calibrated_cosine

            model_id = self._embedder.model_id
            scored = [
                (
                    self.items[i],
                    calibrated_cosine(
                        float(np.dot(query, self._vectors[self.items[i].id])), model_id
                    ),
                    i,
                )
                for i in pool
            ]
        else:
            scored = [(self.items[i], -1.0, i) for i in pool]
        out = [(item, cos, fuzz.ratio(plain, self._plain[i])) for item, cos, i in scored]
        out.sort(key=lambda t: (t[1], t[2]), reverse=True)
        return out[:k]

    def _index_pool(self, query: Any) -> set[int]:
        """Items overlapping the index's nearest chunks to `query` (empty without an index)."""
        from memctl.index.backend import backend_of, has_index

        # vec0's nearest chunks: the SQLite index's own (a shared index is not asked).
        if backend_of(self.vault) != "sqlite" or not has_index(self.vault):
            return set()
        try:
            from memctl.index.store import Store
            from memctl.search.candidates import Filters, vec0_candidates

            with Store.open(self.vault) as store:
                if store.model_id != self._embedder.model_id:
                    return set()
                hits = vec0_candidates(store.conn, query, Filters(), _POOL)
                chunks = store.chunks_by_ids(list(hits))
        except Exception as exc:  # the lexical pool still stands
            self.notices.append(f"index not used for similar memories ({exc})")
            return set()
        pool = {
            i
            for chunk in chunks
            for i, item in enumerate(self.items)
            if item.path == chunk.path
            and item.line_start <= chunk.line_end
            and item.line_end >= chunk.line_start
        }
        self.index_hits += len(pool)
        return pool


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


def _write_new(vault: Vault, cand: Candidate, now: datetime) -> dict[str, Any]:
    text = cand.final_text or cand.text
    if cand.kind == "decision":
        title = cand.title or default_title(text)
        path = memory.add_decision(vault, title, text, day=now.date())
        return {"path": vault.rel(path), "kind": "decision", "title": title}
    path = memory.add_note(vault, text, at=now)
    return {"path": vault.rel(path), "kind": "note"}


def _retire(vault: Vault, cand: Candidate, pointer: str, now: datetime) -> dict[str, Any]:
    """Archive the target with a pointer, then remove it from where it was."""
    item = cand.target
    assert item is not None
    entry = superseded_entry(now.date().isoformat(), item, cand.outcome, pointer, cand.reason)
    archive = vault.root / SUPERSEDED

    def add_entry(before: str) -> str:
        if before and not before.endswith("\n\n"):
            before = before.rstrip("\n") + "\n\n"
        return append_block(before, entry)

    removed: list[bool] = []

    def drop(before: str) -> str:
        after = remove_block(before, item.text)
        removed[:] = [after is not None]
        return before if after is None else after

    with vault.lock():
        update_file(archive, add_entry, create="# Superseded memories\n\n")
        update_file(vault.check_writable(vault.root / item.path), drop)
    out = {"archived_to": SUPERSEDED, "removed_from": item.path if removed[0] else None}
    if not removed[0]:
        out["notice"] = (
            f"{item.path} changed since it was read: the old text was archived but left in place"
        )
    return out


def apply(vault: Vault, cand: Candidate, now: datetime) -> None:
    if cand.outcome == "ADD":
        cand.written = _write_new(vault, cand, now)
    elif cand.outcome == "UPDATE":
        written = _write_new(vault, cand, now)
        pointer = f"{written['path']} ({now.date().isoformat()}): {cand.final_text or cand.text}"
        cand.written = {**written, **_retire(vault, cand, pointer, now)}
    elif cand.outcome == "DELETE":
        cand.written = _retire(
            vault, cand, f"captured on {now.date().isoformat()}: {cand.text}", now
        )


def capture(
    vault: Vault,
    raw: str,
    llm: LLM | None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
) -> CaptureReport:
    """Run the pipeline on a conversation (messages JSON or plain text)."""
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
        if not dry_run:
            apply(vault, cand, now)
        if cand.outcome in ("ADD", "UPDATE"):
            hood.add(cand.final_text or cand.text, (cand.written or {}).get("path", "(planned)"))
    return report
