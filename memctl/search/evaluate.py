"""Retrieval quality on labelled queries: recall@k, MRR and NDCG@k, overall and per category.

A labelled query is one JSON object per line:

    {"qid": "q1", "query": "...", "category": "typo",
     "gold": [{"path": "memory/decisions.md"},                      # any chunk of the file
              {"path": "memory/core.md", "lines": [4, 9]},          # a chunk overlapping lines 4-9
              {"text": "we chose SQLite"}]}                         # a snippet containing this text

`question`, `gold_files` (paths) and `gold_texts` (strings) are accepted as shorthands.
Recall counts the share of gold items found in the top k (LoCoMo's definition); a text
gold counts only when its text appears in a returned snippet, so the snippet budget is
part of what is measured.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memctl.errors import UsageError

if TYPE_CHECKING:
    from memctl.vault import Vault

_SPACE = re.compile(r"\s+")
# A long gold text cut by the snippet budget still counts when this much of it is shown.
MIN_SHOWN_CHARS = 120


@dataclass(frozen=True)
class Gold:
    path: str | None = None
    lines: tuple[int, int] | None = None
    text: str | None = None


@dataclass(frozen=True)
class LabelledQuery:
    qid: str
    query: str
    category: str
    gold: tuple[Gold, ...]


@dataclass(frozen=True)
class Hit:
    """The part of a search result the metrics look at."""

    path: str
    line_start: int  # the matched chunk's lines: a line-range gold names a chunk, not context
    line_end: int
    snippet: str


def normalise_text(text: str) -> str:
    # Markdown emphasis is dropped so "**Ana:** hi" in a snippet matches the gold "Ana: hi".
    return _SPACE.sub(" ", text.replace("**", "").replace("__", "")).strip().lower()


def matches(gold: Gold, hit: Hit) -> bool:
    if gold.path is not None and gold.path != hit.path:
        return False
    if gold.lines is not None:
        lo, hi = gold.lines
        if hit.line_end < lo or hit.line_start > hi:
            return False
    if gold.text is not None:
        want, shown = normalise_text(gold.text), normalise_text(hit.snippet.replace("…", " "))
        if want in shown:
            return True
        # The budget cut a long gold text: count it if a long stretch of it is shown.
        shown = shown.strip()
        return len(shown) >= min(MIN_SHOWN_CHARS, len(want)) and shown in want
    return True


def metrics(gold: Sequence[Gold], hits: Sequence[Hit], k: int) -> dict[str, float]:
    """recall@k (share of gold items found), reciprocal rank, NDCG@k (binary relevance)."""
    found: set[int] = set()
    first_rank = 0
    dcg = 0.0
    for rank, hit in enumerate(hits[:k], start=1):
        new = {i for i, g in enumerate(gold) if i not in found and matches(g, hit)}
        relevant = bool(new) or any(matches(g, hit) for g in gold)
        if relevant and not first_rank:
            first_rank = rank
        if new:
            dcg += 1.0 / math.log2(rank + 1)
        found |= new
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(k, len(gold)) + 1))
    return {
        "recall": len(found) / len(gold) if gold else 1.0,
        "mrr": 1.0 / first_rank if first_rank else 0.0,
        "ndcg": dcg / ideal if ideal else 0.0,
    }


def _gold_item(item: Any, where: str) -> Gold:
    if isinstance(item, str):
        return Gold(text=item)
    if not isinstance(item, dict) or not ({"path", "text"} & item.keys()):
        raise UsageError(f"{where}: each gold item needs a path or a text")
    lines = item.get("lines")
    if lines is not None:
        if not (
            isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) for n in lines)
        ):
            raise UsageError(f"{where}: gold lines must be [first, last]")
        lines = (lines[0], lines[1])
    return Gold(path=item.get("path"), lines=lines, text=item.get("text"))


def parse_queries(lines: Iterable[str], source: str = "queries") -> list[LabelledQuery]:
    out: list[LabelledQuery] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise UsageError(f"{where}: expected a JSON object")
        text = data.get("query", data.get("question"))
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f'{where}: needs a non-empty "query"')
        gold = [_gold_item(g, where) for g in data.get("gold", [])]
        gold += [Gold(path=p) for p in data.get("gold_files", []) if "gold" not in data]
        gold += [Gold(text=t) for t in data.get("gold_texts", [])]
        if not gold:
            continue  # nothing to find: recall is undefined, so the query is not scored
        out.append(
            LabelledQuery(
                qid=str(data.get("qid", number)),
                query=text,
                category=str(data.get("category_name") or data.get("category") or "all"),
                gold=tuple(gold),
            )
        )
    return out


@dataclass
class Tally:
    n: int = 0
    recall: float = 0.0
    mrr: float = 0.0
    ndcg: float = 0.0

    def add(self, m: dict[str, float]) -> None:
        self.n += 1
        self.recall += m["recall"]
        self.mrr += m["mrr"]
        self.ndcg += m["ndcg"]

    def to_dict(self) -> dict[str, float | int]:
        n = self.n or 1
        return {
            "n": self.n,
            "recall": round(self.recall / n, 4),
            "mrr": round(self.mrr / n, 4),
            "ndcg": round(self.ndcg / n, 4),
        }


@dataclass
class ModeReport:
    overall: Tally = field(default_factory=Tally)
    categories: dict[str, Tally] = field(default_factory=dict)
    per_query: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, per_query: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "overall": self.overall.to_dict(),
            "categories": {c: t.to_dict() for c, t in sorted(self.categories.items())},
        }
        if per_query:
            out["queries"] = self.per_query
        return out


SearchFn = Callable[[str, str], Sequence[Hit]]  # (query, mode) -> hits, best first


def run_eval(
    queries: Sequence[LabelledQuery], search: SearchFn, *, k: int, modes: Sequence[str]
) -> dict[str, ModeReport]:
    reports = {mode: ModeReport() for mode in modes}
    for q in queries:
        for mode in modes:
            hits = search(q.query, mode)
            m = metrics(q.gold, hits, k)
            report = reports[mode]
            report.overall.add(m)
            report.categories.setdefault(q.category, Tally()).add(m)
            report.per_query.append({"qid": q.qid, "category": q.category, **m})
    return reports


def evaluate_vault(
    vault: Vault, queries: Sequence[LabelledQuery], *, k: int, modes: Sequence[str]
) -> dict[str, ModeReport]:
    """`memctl eval`: each mode's metrics on `vault`, searched without logging (evaluating
    never changes usage counts) and without the relevance floor (ranking quality; the
    floor has its own eval, scripts/eval_shared --floor)."""
    from memctl.search.hybrid import Searcher

    with Searcher(vault) as searcher:
        searcher.refresh()  # once: the vault does not change under an eval
        searcher.fresh = False
        vectors: dict[str, Any] = {}

        def run(text: str, mode: str) -> list[Hit]:
            vector = None
            if mode in ("hybrid", "vector"):
                # One embedding per query, shared by the modes that use it.
                vector = vectors.get(text)
                if vector is None and searcher.has_vectors():
                    vector = vectors[text] = searcher.embed_query(text)
            response = searcher.search(
                text, k=k, log=False, mode=mode, vector=vector, use_floor=False
            )
            return [Hit(r.path, *r.chunk_lines, r.snippet) for r in response.results]

        return run_eval(queries, run, k=k, modes=modes)
