"""The lexical plan every backend's candidate lists share (pure policy, no I/O): the
filters a search carries, which of the query's words the words list asks for (common ones
dropped, typos corrected, prefixes kept), and the lists found. The SQLite index counts the
words in memctl.index.sqlite.lexical, a shared server in memctl.index.postgres.search;
both plan with `build_plan`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memctl.lexical.crossing import asks_name
from memctl.lexical.parse import Query, Term, fts_expression, quote

TYPO_MIN_LENGTH = 4
# Posting lists this short cost little even in an OR query, so pruning starts above it:
# small vaults keep every word (measured on LoCoMo: pruning there cost 0.014 recall@5).
COMMON_MIN_ROWS = 2000
TYPO_MIN_RATIO = 80.0


@dataclass
class Candidates:
    """A search's candidate lists (name -> chunk id -> raw score) and the lexical plan
    they were read with, from either backend's CandidateSource."""

    plan: LexicalPlan
    lists: dict[str, dict[int, float]]
    started: float  # perf_counter when the lists' queries began (timings["search_ms"])
    vector: Any = None  # the query's vector, when the vector list was searched


@dataclass(frozen=True)
class Filters:
    """Restrict a search to a tier, a source, or a date range (inclusive).

    `scope` names the vaults a shared index searches: () is the searching vault's own,
    ("*",) the whole team's. A SQLite index holds one vault only.
    """

    tier: str | None = None
    source: str | None = None
    since: date | None = None
    until: date | None = None
    path: str | None = None  # a vault-relative path prefix, e.g. "memory/archive/2025-"
    scope: tuple[str, ...] = ()

    def sql(self, alias: str = "c") -> tuple[str, list[Any]]:
        """An SQL condition on `chunks AS alias` ('1' when nothing is filtered)."""
        parts: list[str] = []
        params: list[Any] = []
        if self.tier:
            parts.append(f"{alias}.tier = ?")
            params.append(self.tier)
        if self.source:
            parts.append(f"{alias}.source = ?")
            params.append(self.source)
        if self.since:
            parts.append(f"{alias}.date >= ?")
            params.append(self.since.isoformat())
        if self.until:
            parts.append(f"{alias}.date <= ?")
            params.append(self.until.isoformat())
        if self.path:
            # substr, not LIKE: `_` and `%` are ordinary characters in a path.
            parts.append(f"substr({alias}.path, 1, ?) = ?")
            params.extend([len(self.path), self.path])
        return (" AND ".join(parts) or "1"), params

    def active(self) -> bool:
        return any((self.tier, self.source, self.since, self.until, self.path))


@dataclass
class LexicalPlan:
    """What the words list will ask FTS5, and why (shown by --explain)."""

    forms: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # too common to be worth their cost
    corrections: dict[str, str] = field(default_factory=dict)  # typo → vocabulary word
    # A word the index lacks → the vault's words spelling it in another script (crossing)
    crossings: dict[str, list[str]] = field(default_factory=dict)
    all_common: bool = False  # every word is common: rank only the newest matches
    # Rows holding each form looked at, counted up to `cap` (the relevance floor's IDF).
    doc_freqs: dict[str, int] = field(default_factory=dict)
    cap: int = 0

    def term_forms(self, term: Term) -> list[str]:
        """The forms a query word may take in the index: its own, its typo correction and
        its spellings in the vault's other scripts."""
        fixed = self.corrections.get(term.text)
        return [*term.forms(), *([fixed] if fixed else []), *self.crossings.get(term.text, ())]

    def reach(self, terms: Sequence[Term]) -> float:
        """The share of the query's words the index holds in some form (its own, a
        Hebrew variant, a stem's prefix, a correction): 1.0 for a query of no words."""
        if not terms:
            return 1.0
        known = sum(
            1
            for term in terms
            if any(self.doc_freqs.get(form, 0) > 0 for form in self.term_forms(term))
            or (term.stem is not None and term.stem in self.prefixes)
        )
        return known / len(terms)

    def expression(self) -> str:
        parts = [fts_expression(self.forms, self.prefixes)]
        parts += [quote(p) for p in self.phrases]
        return " OR ".join(p for p in parts if p)


def inflects(word: str, fixed: str) -> bool:
    """Whether a correction only adds or drops an ending (hour → hours, товар → товаров,
    בקבוקים → בקבוקי): the one kind of correction an ordinary word may take."""
    return fixed.startswith(word) or (word.startswith(fixed) and len(fixed) >= TYPO_MIN_LENGTH)


def build_plan(
    query: Query,
    limit: int,
    *,
    df: Callable[[list[str]], dict[str, int]],
    stem_df: Callable[[str], int],
    correct: Callable[[str], str | None],
    exact_df: Callable[[list[str]], dict[str, int]],
    is_common: Callable[[str], bool] = lambda word: False,
    cross: Callable[[str], list[str]] = lambda word: [],
) -> LexicalPlan:
    """The lexical plan from document counts, whichever index counted them (pure policy).

    `df` counts rows per word up to `limit` + 1, `stem_df` rows matching a prefix,
    `exact_df` uncapped counts (asked only when every word is common), `is_common` whether
    a word is an ordinary word of its language (memctl.lexical.lexicon), `cross` the
    vault's words spelling an unknown, uncorrected word in another script
    (memctl.lexical.crossing).
    """
    plan = LexicalPlan()
    terms = query.content_terms
    forms = [f for t in terms for f in t.forms()]
    freqs = df(forms) if forms else {}
    kept: list[tuple[int, str]] = []
    for term in terms:
        known = [f for f in term.forms() if freqs.get(f, 0) > 0]
        stem_count = stem_df(term.stem) if term.stem else 0
        if (
            not known
            and not stem_count
            and len(term.text) >= TYPO_MIN_LENGTH
            and not term.text.isdigit()
        ):
            known = _unknown_word(plan, term, query.raw, freqs, df, correct, is_common, cross)
        for form in known:
            kept.append((freqs[form], form))
        if term.stem and 0 < stem_count <= limit:
            plan.prefixes.append(term.stem)
    common = [form for count, form in kept if count > limit]
    rare = [form for count, form in kept if count <= limit]
    if not rare and not plan.prefixes and kept:
        # Every word is common: keep the rarest one rather than answer nothing. Only
        # here are exact counts worth a walk of those posting lists.
        exact = exact_df([form for _, form in kept])
        rarest = min((exact[form], form) for _, form in kept)[1]
        rare, common = [rarest], [f for f in common if f != rarest]
        plan.all_common = True
    plan.forms = rare
    plan.dropped = common
    plan.doc_freqs = freqs
    plan.cap = limit
    plan.phrases = [i for i in query.identifiers]
    return plan


def _unknown_word(
    plan: LexicalPlan,
    term: Term,
    raw: str,
    freqs: dict[str, int],
    df: Callable[[list[str]], dict[str, int]],
    correct: Callable[[str], str | None],
    is_common: Callable[[str], bool],
    cross: Callable[[str], list[str]],
) -> list[str]:
    """The forms the index holds for a word it lacks in every form: its typo correction,
    else its spellings in the vault's other scripts when it may be a name (both recorded
    in `plan`, their counts in `freqs`)."""
    fixed = correct(term.text)
    if fixed and is_common(term.text) and not inflects(term.text, fixed):
        fixed = None
    if fixed:
        plan.corrections[term.text] = fixed
        freqs[fixed] = df([fixed])[fixed]
        return [fixed]
    if not asks_name(term.forms(), raw, is_common):
        return []
    crossed = next(filter(None, map(cross, term.forms())), [])
    if crossed:
        plan.crossings[term.text] = crossed
        freqs.update(df(crossed))
    return [form for form in crossed if freqs.get(form, 0) > 0]
