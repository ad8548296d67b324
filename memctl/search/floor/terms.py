"""The query's words the relevance floor weighs (its content words, each with its IDF
in this vault and a matcher for its forms), and which of them the vault uses as names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from memctl.lexical.parse import Query, Term
from memctl.lexical.plan import LexicalPlan
from memctl.search.floor import rule as fl
from memctl.search.floor.rule import WeightedTerm
from memctl.search.floor.words import label_words
from memctl.search.query.matcher import Matcher

if TYPE_CHECKING:
    from memctl.index.protocol import WordCounts


def weighted_terms(
    words: WordCounts, query: Query, plan: LexicalPlan, rows: int | None = None
) -> tuple[list[WeightedTerm], list[bool]]:
    """Each content word of the query with its IDF and a matcher for its forms, and
    whether the vault holds the word at all (a form, its stem, or its typo correction).
    `rows`: another backend's chunk count, where its IDF must match SQLite's (the
    reranker's features). Counts that are not `exact` (a server's, estimated from its
    plan) judge no word missing: the gate is not calibrated there."""
    rows = words.rows(plan, rows)
    terms = floor_terms(query)
    forms = {t.text: plan.term_forms(t) for t in terms}
    missing = [f for fs in forms.values() for f in fs if f not in plan.doc_freqs]
    known = dict(plan.doc_freqs)
    if missing:
        known.update(words.doc_freqs(missing, cap=plan.cap or None))
    out, present = [], []
    for term in terms:
        df = max((known.get(f, 0) for f in forms[term.text]), default=0)
        here = not words.exact or df > 0 or bool(term.stem and term.stem in plan.prefixes)
        if not here:
            # Not a word of the index as it is: perhaps behind Hebrew prefix letters.
            df = max(words.prefixed_rows(f) for f in forms[term.text])
            here = df > 0
        matcher = Matcher(
            exact=frozenset(forms[term.text]), prefixes=(term.stem,) if term.stem else ()
        )
        out.append(WeightedTerm(fl.idf(df, rows), _test_of(matcher)))
        present.append(here)
    return out, present


def floor_terms(query: Query) -> tuple[Term, ...]:
    """The query's words the floor weighs: content words of two or more characters (one
    character matches almost anything by accident), question words left out (no answer
    holds "when" or "כמה")."""
    terms = query.content_terms
    return (
        tuple(t for t in terms if len(t.text) > 1 and not fl.asks(t.text))
        or tuple(t for t in terms if len(t.text) > 1)
        or terms
    )


def _test_of(matcher: Matcher) -> Callable[[str], bool]:
    """Whether a snippet word is the query word `matcher` stands for."""
    return lambda word: matcher.matches(word) is not None


def named_by_labels(terms: Iterable[Term], texts: Iterable[str]) -> frozenset[int]:
    """Which of the query's `terms` (indexes) the vault's chunks `texts` use as a speaker
    label (words.label_words): a name the vault knows, in any script (a Hebrew question
    names ליאת without a capital; the daily notes write `- 11:30 ליאת: ...`)."""
    labels: set[str] = set()
    for text in texts:
        labels.update(label_words(text))
    if not labels:
        return frozenset()
    return frozenset(
        i
        for i, term in enumerate(terms)
        if any(form in labels for form in term.forms())
        or (term.stem and len(term.stem) >= 4 and any(la.startswith(term.stem) for la in labels))
    )
