"""What a result shows: its snippet (widened into a running log's neighbouring lines),
the SearchResult built from it, and, with explain, how it was scored."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memctl.index.protocol import ContextWindow, IndexBackend
from memctl.index.usage import ChunkRecord
from memctl.lexical.parse import Query
from memctl.lexical.plan import LexicalPlan
from memctl.search.floor.evidence import Judged, Verdict
from memctl.search.present.snippets import Snippet, best_snippet, fitted_snippet
from memctl.search.query.matcher import Matcher, TextWords
from memctl.search.rank.meaning import Fact
from memctl.search.rank.ranking import CONTEXT_SOURCES
from memctl.search.rank.scoring import Weights
from memctl.search.results import SearchResult
from memctl.tokens import estimate_tokens

# How far around a chunk the snippet may look for context lines.
CONTEXT_LINES = 40
# Each result's share of `snippet_tokens` by rank (the last for any further rank): the
# first result is the likeliest answer and its neighbouring lines the likeliest to hold
# the rest of it. Measured on LoCoMo dev conversations 0-2 (docs/search.md, "Snippet
# budget"): 1.6/1.2/1.0/0.6/0.6 found more evidence than the same budget spread evenly.
RANK_SHARES = (1.6, 1.2, 1.0, 0.6, 0.6)


def matcher_for(
    parsed: Query, plan: LexicalPlan, texts: dict[str, TextWords] | None = None
) -> Matcher:
    """What a snippet highlights: the query's word forms, typo corrections, spellings in
    another script, identifiers' parts, and word stems as prefixes (`texts`: see Matcher)."""
    exact = {f for t in parsed.content_terms for f in t.forms()}
    exact |= set(plan.corrections.values())
    exact.update(form for forms in plan.crossings.values() for form in forms)
    for ident in parsed.identifiers:
        exact.update(w.lower() for w in ident.replace(".", " ").replace("_", " ").split())
    prefixes = tuple(t.stem for t in parsed.content_terms if t.stem)
    return Matcher(exact=frozenset(exact), prefixes=prefixes, texts=texts)


def context_window(record: ChunkRecord) -> ContextWindow:
    """The lines around a chunk its snippet may widen into."""
    lo = max(record.line_start - CONTEXT_LINES, 1)
    return (record.vault, record.path, lo, record.line_end + CONTEXT_LINES)


def chunk_snippet(
    store: IndexBackend,
    record: ChunkRecord,
    matcher: Matcher,
    tokens: int,
    context: Mapping[ContextWindow, Sequence[tuple[int, int, str]]] | None = None,
    line_costs: dict[str, int] | None = None,
) -> Snippet:
    """The best window of the chunk, widened with neighbouring lines of the same file
    (from `context` when fetched already).

    Only running logs (daily notes, the archive) are widened: their neighbouring lines
    are the same day's story, while a decision or a core section stands alone.
    """
    lines, first, core = snippet_lines(store, record, context)
    return best_snippet(lines, first, matcher, tokens, core=core, line_costs=line_costs)


SnippetLines = tuple[list[str], int, tuple[int, int] | None]


def snippet_lines(
    store: IndexBackend,
    record: ChunkRecord,
    context: Mapping[ContextWindow, Sequence[tuple[int, int, str]]] | None = None,
    read: Callable[[ContextWindow], Sequence[tuple[int, int, str]]] | None = None,
    laid: Callable[[ContextWindow], tuple[list[str], int] | None] | None = None,
) -> SnippetLines:
    """What chunk_snippet chooses among: lines, the first one's number, the chunk's own
    lines among them (None: all of them). `read`: how to read a window not in
    `context` (default: store.context_rows); `laid`: the window's lines and the first
    one's number as laid out below, when the caller keeps them (None: lay them out)."""
    if record.source not in CONTEXT_SOURCES:
        return record.text.split("\n"), record.line_start, None
    window = context_window(record)
    known = laid(window) if laid is not None else None
    if known is not None:
        lines, start = known
        return lines, start, (record.line_start - start, record.line_end - start)
    rows = (context or {}).get(window)
    if rows is None:
        rows = read(window) if read else store.context_rows(*window)
        if isinstance(context, dict):
            context[window] = rows
    if not rows:
        return record.text.split("\n"), record.line_start, (0, record.line_end - record.line_start)
    first = min(rows)[0]  # the least first line (tuples compare it first; C, no generator)
    return laid_out(rows, first), first, (record.line_start - first, record.line_end - first)


def laid_out(rows: Sequence[tuple[int, int, str]], first: int) -> list[str]:
    """The lines of a file's rows from line `first` to the last row's end, each row's lines
    at its line numbers (a later row's over an earlier's where they overlap) and a blank
    line where no row is: lines between two chunks of a file are blank (the chunker keeps
    every other line)."""
    last = max(r[1] for r in rows)
    size = last - first + 1
    lines: list[str] = []
    # Rows in line order that do not overlap (what both backends read) are laid end to end,
    # each split once and copied in C: no per-line step.
    for start, _end, text in rows:
        gap = start - first - len(lines)
        if gap < 0:
            return _slotted(rows, first, size)
        if gap:
            lines.extend([""] * gap)
        lines.extend(text.split("\n"))
    if len(lines) > size:
        return _slotted(rows, first, size)
    lines.extend([""] * (size - len(lines)))
    return lines


def _slotted(rows: Sequence[tuple[int, int, str]], first: int, size: int) -> list[str]:
    """laid_out line by line, for rows out of order or overlapping."""
    slots: list[str | None] = [None] * size
    for start, _end, text in rows:
        for offset, line in enumerate(text.split("\n")):
            slots[start - first + offset] = line
    return ["" if line is None else line for line in slots]


# Facts whose cosines with the query lie this close to the nearest one's are a tie e5
# cannot break (the vault-shaped set's tune split: where the nearest fact of a gold chunk
# was not the gold line, the gold stood within 0.01 of it in 5 of 13): a snippet holds
# as many of them as fit beside the nearest.
NEAR_FACT = 0.01


def fact_lines(record: ChunkRecord, facts: Sequence[Fact]) -> tuple[tuple[int, int], ...]:
    """The file lines (first, last) of the chunk's fact nearest the query in meaning
    (rank/meaning.py), then of those within NEAR_FACT of it; () when no unit of the
    chunk was compared (it holds one fact, or none is embedded)."""
    units = sorted((f for f in facts if f.unit), key=lambda f: -f.cosine)
    lines = record.text.split("\n")
    spans: list[tuple[int, int]] = []
    for fact in units:
        if fact.cosine < units[0].cosine - NEAR_FACT:
            break
        body = fact.body.split("\n")
        # A fact's body is its unit's lines as units_of cut them: found where they stand.
        at = next(
            (i for i in range(len(lines) - len(body) + 1) if lines[i : i + len(body)] == body),
            None,
        )
        if at is None:
            if not spans:
                return ()
            continue
        spans.append((record.line_start + at, record.line_start + at + len(body) - 1))
    return tuple(spans)


class Snippets:
    """Each candidate's snippet, made once per search (diversity, the floor and the
    results all look at it)."""

    def __init__(
        self,
        store: IndexBackend,
        records: Mapping[int, ChunkRecord],
        matcher: Matcher,
        tokens: int,
        likely: Sequence[int] = (),
        context: dict[ContextWindow, Sequence[tuple[int, int, str]]] | None = None,
        line_costs: dict[str, int] | None = None,
        read: Callable[[ContextWindow], Sequence[tuple[int, int, str]]] | None = None,
        fits: dict[tuple[int, int], Snippet | None] | None = None,
        laid: Callable[[ContextWindow], tuple[list[str], int] | None] | None = None,
        facts: Mapping[int, tuple[tuple[int, int], ...]] | None = None,
    ) -> None:
        """`facts`: the file lines of each candidate's fact nearest the query and of those
        nearly as near, where known (fact_lines): its snippet holds the first unless query
        words choose better lines (snippets.best_snippet). `context` and `line_costs`:
        windows and line prices kept from earlier searches (memctl.search.kept), filled in
        as this one reads more; `read` reads a window (default: store.context_rows); `fits`:
        the snippets of chunks that fit the budget whole, by (chunk id, budget), kept the
        same way (None: those fitting, not yet); `laid`: a window's lines cut from its
        file's, kept (see snippet_lines)."""
        self._read = read
        self._laid = laid
        self._store, self._records, self._matcher, self.tokens = store, records, matcher, tokens
        self.matcher = matcher
        self._made: dict[int, Snippet] = {}
        self._lines: dict[int, SnippetLines] = {}
        self._costs: dict[str, int] = {} if line_costs is None else line_costs
        self._fits: dict[tuple[int, int], Snippet | None] = {} if fits is None else fits
        self._facts = facts or {}
        # The neighbouring chunks of every running-log candidate likely to be shown, fetched
        # at once: one round trip on PostgreSQL instead of one per snippet.
        windows = list(
            dict.fromkeys(
                context_window(records[cid])
                for cid in likely
                if cid in records and records[cid].source in CONTEXT_SOURCES
            )
        )
        self._context = {} if context is None else context
        if windows:
            self._context.update(zip(windows, store.context_windows(windows), strict=True))

    def __call__(self, cid: int) -> Snippet:
        if cid not in self._made:
            self._made[cid] = self.made_at(cid, self.tokens)
        return self._made[cid]

    def made_at(self, cid: int, tokens: int) -> Snippet:
        """best_snippet's answer at this budget (a chunk that fits it whole: kept)."""
        fit = self._fit(cid, tokens)
        if fit is not None:
            return fit.for_matcher(self._matcher)
        lines, first, core = self._lines_of(cid)
        facts = self._facts.get(cid, ())
        return best_snippet(
            lines,
            first,
            self._matcher,
            tokens,
            core=core,
            line_costs=self._costs,
            facts=[(a - first, b - first) for a, b in facts],
        )

    def by_rank(
        self,
        ranked: Sequence[int],
        tokens: int | None = None,
        shares: Sequence[float] = RANK_SHARES,
    ) -> dict[int, Snippet]:
        """The results' snippets with budgets by rank (`shares` of `tokens`, default the
        search's budget), best first: each is remade at its rank's share of the budget and
        kept when it shows no line another result shows (the later ones' snippets as they
        stand, the earlier ones' as remade) and, when larger, holds every line it showed;
        otherwise it stays as it was."""
        base = self.tokens if tokens is None else tokens
        out: dict[int, Snippet] = {}
        for rank, cid in enumerate(ranked):
            budget = max(int(base * shares[min(rank, len(shares) - 1)]), 1)
            if budget == self.tokens:
                out[cid] = self(cid)
                continue
            remade = self.made_at(cid, budget)
            path = self._records[cid].path
            others = [
                out[other] if other in out else self(other)
                for other in ranked
                if other != cid and self._records[other].path == path
            ]
            even = self(cid)
            clash = any(
                remade.line_start <= o.line_end and o.line_start <= remade.line_end for o in others
            )
            # A bigger budget may centre a window elsewhere in a long chunk: a larger share
            # only ever adds lines to what the result showed.
            lost = budget > self.tokens and not (
                remade.line_start <= even.line_start and even.line_end <= remade.line_end
            )
            out[cid] = even if clash or lost else remade
        return out

    def reach(self, cid: int) -> tuple[int, int]:
        """Lines this candidate's snippet can show, found without the query's words
        (the fitted snippet, else the chunk): diversity compares two chunks' snippets only when these meet."""
        fit = self._fit(cid)
        if fit is not None:
            return fit.line_start, fit.line_end
        lines, first, core = self._lines_of(cid)
        lo, hi = core or (0, len(lines) - 1)
        return first + lo, first + hi

    def _fit(self, cid: int, tokens: int | None = None) -> Snippet | None:
        """The chunk's snippet when it fits the budget (default: the search's) whole: the
        same for every query, so a kept Searcher makes it once per chunk and budget (most
        chunks of a running log fit)."""
        key = (cid, self.tokens if tokens is None else tokens)
        if key in self._fits:
            return self._fits[key]
        lines, first, core = self._lines_of(cid)
        fit = self._fits[key] = fitted_snippet(lines, first, key[1], core, self._costs)
        return fit

    def _lines_of(self, cid: int) -> SnippetLines:
        if cid not in self._lines:
            self._lines[cid] = snippet_lines(
                self._store, self._records[cid], self._context, self._read, self._laid
            )
        return self._lines[cid]


def result(
    record: ChunkRecord, snip: Snippet, score: float, judged: Judged, vault_name: str
) -> SearchResult:
    return SearchResult(
        path=record.path,
        line_start=snip.line_start,
        line_end=snip.line_end,
        heading=record.heading,
        snippet=snip.text,
        score=score,
        tier=record.tier,
        source=record.source,
        date=record.date,
        highlights=snip.highlights,
        hash=record.hash,
        vault=record.vault or vault_name,
        chunk_lines=(record.line_start, record.line_end),
        evidence=judged.evidence,
        coverage=judged.coverage,
        cosine=judged.cosine,
        cross=judged.cross,
        tokens=estimate_tokens(snip.text),
    )


def explain(
    detail: dict[str, Any],
    record: ChunkRecord,
    plan: LexicalPlan,
    weights: Weights,
    verdict: Verdict,
    judged: Judged,
    rerank: float | None = None,
) -> dict[str, Any]:
    """`--explain`: the scoring detail plus the query's terms, the weights, the reranker's
    probability (null when it did not rerank this result) and the floor."""
    return {
        **detail,
        "rerank": None if rerank is None else round(rerank, 6),
        "chunk_lines": [record.line_start, record.line_end],
        "terms": plan.forms,
        "prefixes": plan.prefixes,
        "dropped_common": plan.dropped,
        "corrections": plan.corrections,
        "crossings": plan.crossings,
        "weights": {"fts": weights.fts, "trigram": weights.trigram, "vector": weights.vector},
        "floor": {
            "missing": round(verdict.missing, 4),
            "coverage": round(judged.coverage, 4),
            "sentence_coverage": round(judged.sentence, 4),
            "cosine": None if judged.cosine is None else round(judged.cosine, 4),
            "cross_script": judged.cross,
            "standout": round(judged.standout, 4),
            # The bar when another result of the query has more evidence (floor.keep).
            "nearest": judged.nearest,
            # Its best sentence holds only names the query says (floor names_alone).
            "named": judged.named,
            # A note whose fact in the query's script stands out (floor/facts.py).
            "fact": judged.fact,
            # It shows none of the known names the query says (floor Judge._unnamed).
            "unnamed": judged.unnamed,
            # It holds no value of the kind the query asks for (floor/asked.py).
            "unasked": judged.unasked,
            # The query names what the vault never mentions (floor Judged.unknown).
            "unknown": judged.unknown,
            # The result nearest in meaning, or a note whose fact stands out, is held to
            # the floor alone (floor.evidence.nearest_in_meaning, floor/facts.py).
            "later_floor": round(
                verdict.thresholds.floor
                if judged.nearest or judged.fact
                else verdict.thresholds.later_floor(
                    verdict.signals.script if verdict.signals else None, judged.cross
                ),
                4,
            ),
            "thresholds": verdict.thresholds.to_dict(),
        },
    }
