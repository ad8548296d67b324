"""Context assembly: what an agent loads every turn, laid out so the prompt cache works.

Layout, most stable first: HOT (core.md) and the memory-tool guide form the stable
prefix; a cache breakpoint follows them. WARM (recent decisions, then the last daily
notes) changes a few times a day and gets the second breakpoint. COLD snippets depend
on the query and the date line changes daily, so they come last, uncached. Nothing that
changes every turn (time of day, ids) is ever placed before a breakpoint.

Budget policy (pure, `fit_budget`): HOT and the tool guide are never cut (an over-cap
core.md is a lint error, not something to hide here); WARM shrinks first, oldest first;
then COLD, lowest-ranked first. Every dropped block is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from memctl import clock, memory
from memctl.errors import MemctlError
from memctl.notes import daily_note_date
from memctl.tokens import estimate_tokens
from memctl.vault import Vault

TOKEN_METHOD = (
    "memctl.tokens estimate: ceil(len/4) per run of word characters, 1 per other "
    "non-space character (errs high)"
)

Kind = Literal["hot", "tools", "warm", "cold", "date"]
# Lower rank = dropped earlier when over budget; HOT/tools/date are never dropped.
_NEVER_DROPPED = ("hot", "tools", "date")


@dataclass(frozen=True)
class ContextBlock:
    kind: Kind
    title: str
    text: str
    path: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    day: date | None = None  # for WARM: which day it belongs to (oldest dropped first)
    rank: int = 0  # for COLD: search rank, 0 = best

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.render())

    def render(self) -> str:
        where = ""
        if self.path:
            where = f" ({self.path}"
            if self.line_start is not None:
                where += f":{self.line_start}-{self.line_end}"
            where += ")"
        return f"<!-- {self.title}{where} -->\n{self.text.strip()}\n"

    def ref(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "tokens": self.tokens,
        }


@dataclass
class AssembledContext:
    blocks: list[ContextBlock]
    dropped: list[ContextBlock]
    budget: int
    notices: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(b.tokens for b in self.blocks)

    def text(self) -> str:
        return "\n".join(b.render() for b in self.blocks)

    def anthropic_system(self) -> list[dict[str, Any]]:
        """Messages API `system` blocks: one per layer, breakpoints after the stable layers."""
        layers: list[tuple[list[ContextBlock], bool]] = [
            ([b for b in self.blocks if b.kind in ("hot", "tools")], True),
            ([b for b in self.blocks if b.kind == "warm"], True),
            ([b for b in self.blocks if b.kind in ("cold", "date")], False),
        ]
        system: list[dict[str, Any]] = []
        for blocks, cached in layers:
            if not blocks:
                continue
            item: dict[str, Any] = {
                "type": "text",
                "text": "\n".join(b.render() for b in blocks),
            }
            if cached:
                item["cache_control"] = {"type": "ephemeral"}
            system.append(item)
        return system

    def summary(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "tokens": self.tokens,
            "token_method": TOKEN_METHOD,
            "blocks": [b.ref() for b in self.blocks],
            "dropped": [b.ref() for b in self.dropped],
            "notices": self.notices,
        }


def order_blocks(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """Stable prefix first: hot, tools, warm decisions/notes (oldest first), cold by rank, date."""
    kind_order = {"hot": 0, "tools": 1, "warm": 2, "cold": 3, "date": 4}
    indexed = list(enumerate(blocks))
    indexed.sort(
        key=lambda item: (
            kind_order[item[1].kind],
            item[1].rank if item[1].kind == "cold" else 0,
            item[0],
        )
    )
    return [b for _, b in indexed]


def drop_order(blocks: Sequence[ContextBlock]) -> list[ContextBlock]:
    """The blocks a budget may drop, first to go first: WARM oldest day first, then COLD
    worst rank first. HOT, the tool guide and the date line are never among them."""
    warm = [b for b in blocks if b.kind == "warm"]
    # Oldest first; undated WARM blocks count as oldest. Ties: later in the file is newer.
    warm_order = sorted(warm, key=lambda b: (b.day or date.min, b.line_start or 0))
    cold_order = sorted((b for b in blocks if b.kind == "cold"), key=lambda b: -b.rank)
    return warm_order + cold_order


def fit_budget(
    blocks: Sequence[ContextBlock], budget: int
) -> tuple[list[ContextBlock], list[ContextBlock], list[str]]:
    """Drop WARM (oldest day first), then COLD (worst rank first) until within `budget`.

    Returns (kept in input order, dropped in drop order, notices). HOT, the tool guide and
    the date line are never dropped; if they alone exceed the budget, a notice says so.
    """
    kept = list(blocks)
    dropped: list[ContextBlock] = []
    notices: list[str] = []

    def total() -> int:
        return sum(b.tokens for b in kept)

    for victim in drop_order(kept):
        if total() <= budget:
            break
        kept.remove(victim)
        dropped.append(victim)
    if total() > budget:
        fixed = sum(b.tokens for b in kept if b.kind in _NEVER_DROPPED)
        notices.append(
            f"over budget: the never-cut blocks (core.md, tool guide) alone take {fixed} "
            f"tokens of {budget}; shorten core.md (`memctl lint` enforces its cap)"
        )
    if dropped:
        n_warm = sum(1 for b in dropped if b.kind == "warm")
        n_cold = len(dropped) - n_warm
        notices.append(f"budget {budget} tokens: dropped {n_warm} WARM and {n_cold} COLD block(s)")
    return kept, dropped, notices


def tool_guide() -> str:
    """A few lines telling the model which memory tools exist (part of the stable prefix)."""
    from memctl.agent.tools import TOOL_SPECS

    lines = ["Memory tools available to you:"]
    lines.extend(f"- {spec.name}: {spec.summary}" for spec in TOOL_SPECS)
    return "\n".join(lines)


def gather_blocks(
    vault: Vault,
    *,
    query: str | None = None,
    cold_k: int = 5,
    include_tools: bool = True,
    today: date | None = None,
) -> tuple[list[ContextBlock], list[str]]:
    """Read HOT, WARM and (with a query) COLD from the vault as blocks, plus notices."""
    today = today or clock.today()
    notices: list[str] = []
    core = memory.load_core(vault)
    blocks = []
    if core is not None:
        blocks.append(
            ContextBlock(
                "hot", "HOT memory: core", core.text, core.path, core.line_start, core.line_end
            )
        )
    if include_tools:
        blocks.append(ContextBlock("tools", "memory tools", tool_guide()))
    decisions = memory.load_recent_decisions(vault)
    parsed = {d.line_start: d for d in memory.load_decisions(vault)}
    # Oldest first inside the layer, so a new decision only appends to the cached text.
    for item in reversed(decisions):
        dec = parsed.get(item.line_start)
        blocks.append(
            ContextBlock(
                "warm",
                "WARM decision",
                item.text,
                item.path,
                item.line_start,
                item.line_end,
                day=dec.date if dec else None,
            )
        )
    for note in memory.load_recent_daily(vault):
        name = note.path.rsplit("/", 1)[-1]
        blocks.append(
            ContextBlock(
                "warm",
                "WARM daily note",
                note.text,
                note.path,
                note.line_start,
                note.line_end,
                day=daily_note_date(name),
            )
        )
    if query:
        try:
            cold, cold_notices = cold_blocks(vault, query, k=cold_k)
        except MemctlError as exc:
            # HOT and WARM are still worth loading when the index cannot be searched.
            cold, cold_notices = [], [f"COLD left out: search failed ({exc})"]
        blocks.extend(cold)
        notices.extend(cold_notices)
    blocks.append(ContextBlock("date", "today", f"Today is {today.isoformat()}."))
    return blocks, vault.take_notices() + notices


def cold_blocks(vault: Vault, query: str, *, k: int) -> tuple[list[ContextBlock], list[str]]:
    """The top COLD (archive) snippets for `query`, via hybrid search."""
    from memctl.search import search
    from memctl.search.hybrid import Filters

    response = search(vault, query, k=k, filters=Filters(tier="cold"), log=True)
    blocks = [
        ContextBlock(
            "cold",
            "COLD snippet",
            hit.snippet,
            hit.path,
            hit.line_start,
            hit.line_end,
            rank=rank,
        )
        for rank, hit in enumerate(response.results)
    ]
    notices = list(response.notices)
    if response.below_floor:
        notices.append(f"COLD: {response.below_floor} snippets below the relevance floor left out")
    return blocks, notices


def assemble(
    vault: Vault,
    *,
    query: str | None = None,
    budget: int | None = None,
    cold_k: int = 5,
    include_tools: bool = True,
    today: date | None = None,
    record: bool = True,
) -> AssembledContext:
    """HOT + WARM (+ COLD for `query`) in cache-friendly order, fitted to `budget` tokens."""
    budget = vault.settings.agent.context_budget_tokens if budget is None else budget
    blocks, notices = gather_blocks(
        vault, query=query, cold_k=cold_k, include_tools=include_tools, today=today
    )
    kept, dropped, budget_notices = fit_budget(order_blocks(blocks), budget)
    result = AssembledContext(kept, dropped, budget, notices + budget_notices)
    if record:
        from memctl.agent.references import record_loaded

        note = record_loaded(
            vault,
            [(b.path, b.line_start, b.line_end) for b in kept if b.kind in ("hot", "warm")],
            kind="context",
            query=query,
        )
        if note:
            result.notices.append(note)
    return result
