"""Raw evidence of each result for the relevance floor (memctl.search.floor.rule holds the policy).

Reads the word weights from the plan the lexical lists already made (document counts,
capped where counting more would cost: a word in more rows than the cap has an IDF
near zero either way) and each result's snippet, which is what an agent will see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memctl.lexical.parse import Query
from memctl.lexical.plan import LexicalPlan
from memctl.search.floor import rule as fl
from memctl.search.floor.against import (
    against_the_vault as against_the_vault,
)
from memctl.search.floor.against import names_alone as names_alone
from memctl.search.floor.against import nearest_in_meaning as nearest_in_meaning
from memctl.search.floor.against import outside_the_date
from memctl.search.floor.asked import Asked, asked_for, held_to_the_floor, unasked
from memctl.search.floor.facts import FactScripts
from memctl.search.floor.judged import Judged as Judged
from memctl.search.floor.rule import FloorThresholds, WeightedTerm
from memctl.search.floor.table import table
from memctl.search.floor.terms import floor_terms as floor_terms
from memctl.search.floor.terms import named_by_labels
from memctl.search.floor.terms import weighted_terms as weighted_terms
from memctl.search.floor.words import (
    Sentences,
    TermHits,
    best_sentence_terms,
    names,
    sentences,
    speaker_words,
)
from memctl.search.present.snippets import Snippet
from memctl.tokens import estimate_tokens, words

if TYPE_CHECKING:
    from memctl.index.protocol import WordCounts


def _distinct_words(text: str) -> Iterable[str]:
    # Coverage asks only whether each word occurs: each distinct word once.
    return dict.fromkeys(words(text))


class Judge:
    """Scores results of one query against its floor thresholds."""

    def __init__(
        self,
        terms: list[WeightedTerm],
        cosines: Mapping[int, float],
        places: Mapping[int, tuple[str, int, int]],
        thresholds: FloorThresholds,
        signals: fl.QuerySignals | None = None,
        bm25: Mapping[int, float] | None = None,
        words_of: Callable[[str], Iterable[str]] | None = None,
        sentences_of: Callable[[str], Sentences] | None = None,
        facts: FactScripts | None = None,
        asked: tuple[Asked | None, Mapping[int, str]] = (None, {}),
    ) -> None:
        """`words_of`: a snippet's words coverage need read (at least every word a term
        matches; default: all its distinct words); `sentences_of`: a snippet's
        floor_words.sentences (kept by text, when the caller keeps them); `facts`: the
        query's facts by script (a note of facts is cross-lingual by the one matched);
        `asked`: the kind of value the query asks for (floor/asked.py) and each vector
        candidate's fact nearest the query."""
        self.asked, self.nearest_fact = asked
        self.facts = facts
        self.words_of = words_of or _distinct_words
        self.sentences_of = sentences_of or sentences
        self._hits = TermHits(terms)  # each snippet word's terms, for every result
        self.signals = signals or fl.QuerySignals()
        self.missing = self.signals.missing
        self.query_script = self.signals.script
        self.terms = terms
        self.cosines = cosines
        self.places = places
        self.thresholds = thresholds
        scores = bm25 or {}
        self.bm25_ranks = {
            cid: i for i, cid in enumerate(sorted(scores, key=scores.__getitem__, reverse=True))
        }
        # Each file's vector candidates (line_start, line_end, cosine): a result looks
        # only at its own file's, not at every candidate.
        self._by_path: dict[str, list[tuple[int, int, float]]] = {}
        for other, value in cosines.items():
            place = places.get(other)
            if place:
                self._by_path.setdefault(place[0], []).append((place[1], place[2], value))

    def judge(
        self,
        cid: int,
        path: str,
        line_start: int,
        line_end: int,
        text: str,
        chunk: str = "",
        dated: bool = False,
    ) -> Judged:
        """`text`: the snippet (what coverage reads); `chunk`: the text that was embedded,
        whose script sets the cosine's bar (a snippet can be mostly a Latin front matter
        above a Russian paragraph); `dated`: it is dated inside the range the query says
        (its letters, not its facts, say whether it is cross-lingual: the date already
        picked that day's note out of the vault, whose other facts are no typical)."""
        words = list(self.words_of(text))  # every word a term matches, perhaps more
        cover = self._hits.coverage(words)  # each word tested once per query
        cosine = self._cosine(cid, path, line_start, line_end)
        cross = self.facts.cross(cid) if self.facts is not None and not dated else None
        fact = False
        if cross is None:
            cross = fl.cross_script(self.query_script, chunk or text)
        elif not cross and self.facts is not None:
            fact = self.facts.stands_out(cid)
        place = self.bm25_ranks.get(cid)
        rank = fl.bm25_rank(place)
        near, held = best_sentence_terms(self._hits, self.sentences_of(text), words)
        value = fl.evidence(
            cover,
            cosine,
            self.thresholds,
            self.missing,
            cross,
            self.signals,
            rank,
            near,
            gate=not dated,
        )
        named = self._named(held, text)
        unnamed = not cross and self._unnamed(words)
        if fact and not unnamed:
            value = max(value, self.thresholds.floor)
        return Judged(
            cover,
            cosine,
            value,
            cross,
            rank,
            place,
            near,
            named=named,
            fact=fact and not unnamed,
            unnamed=unnamed,
            unasked=unasked(self.asked, self._hits, text, self.nearest_fact.get(cid)),
            unknown=bool(self.signals.unknown) and not cross and not speaker_words(text),
        )

    def _named(self, held: frozenset[int], text: str) -> bool:
        """Its best sentence holds (`held`) only names the query says (names_alone)."""
        called = self.signals.names
        named = bool(held) and held <= called and len(called) < len(self.terms)
        # A transcript names its speakers on every line and in their greetings: a turn
        # found for its meaning holds the asked-about name beside what it says, so a name
        # alone is no sign of a note that only knows the name (LoCoMo 3-4 lost 0.033
        # recall@5 to the rule, 0.027 when only the labels were set aside).
        return named and not speaker_words(text)

    def _unnamed(self, words: Iterable[str]) -> bool:
        """The query names someone the vault knows (QuerySignals.known) and none of the
        snippet's `words` is one of those names."""
        known = self.signals.known
        if not known:
            return False
        of = self._hits.of  # coverage() has tested every word of the snippet
        return not any(known.intersection(of.get(word, ())) for word in words)

    def _cosine(self, cid: int, path: str, lo: int, hi: int) -> float | None:
        """The best cosine of a vector candidate whose chunk the snippet shows."""
        best = self.cosines.get(cid)
        for start, end, value in self._by_path.get(path, ()):
            if start <= hi and lo <= end:
                best = value if best is None else max(best, value)
        return best


@dataclass
class Verdict:
    """What the floor (and a --budget) left of the top k, and why."""

    judged: dict[int, Judged]
    thresholds: FloorThresholds
    floor: float | None  # the value applied; None: no floor
    kept: list[int]
    below_floor: int
    matched: int  # passed the floor, before the budget cut
    notices: list[str]
    missing: float = 0.0  # share of the query's IDF mass absent from the vault
    signals: fl.QuerySignals | None = None  # what the classifier read of the query


def judge_results(
    words: WordCounts,
    query: Query,
    plan: LexicalPlan,
    lists: Mapping[str, Mapping[int, float]],
    records: Mapping[int, Any],
    chosen: Sequence[int],
    snippet: Callable[[int], Snippet],
    *,
    model_id: str,
    trusted: bool,
    floor: float | bool | None = True,
    budget: int | None = None,
    weighted: tuple[list[WeightedTerm], list[bool]] | None = None,
    words_of: Callable[[str], Iterable[str]] | None = None,
    sentences_of: Callable[[str], Sentences] | None = None,
    whole: bool = True,
    credit: Mapping[int, float] | None = None,
    cosines: Mapping[int, float] | None = None,
    facts: Mapping[int, Sequence[tuple[float, str]]] | None = None,
    newer: Mapping[int, int] | None = None,
) -> Verdict:
    """Judge the chosen results, drop those under the floor, then keep what fits `budget`.

    `floor`: None turns the floor off (--all), a number replaces the calibrated one
    (--min-score); `trusted`: the query's vectors mean something (see floor.thresholds_for);
    `weighted`: weighted_terms(words, query, plan), when the caller has them;
    `words_of`, `sentences_of`: see Judge; `whole`: no filter narrowed the candidate
    lists (see against_the_vault); `credit`: the share of the query a result
    answers outside its words (rank/dated.py: it is dated inside the range the query says,
    whose words left the query), closing that share of its evidence's gap to 1; such a
    result is held to the floor alone, as the best one is (it answers a part of the
    question no other result does); `cosines`: the vector candidates' own cosines when
    the vector list holds others (rank/meaning.py's best facts); `facts`: the vector
    candidates' facts as (cosine, lines), rank/meaning.lift's (floor/facts.py); `newer`:
    each superseded candidate's newer one, kept wherever the older is (rule.with_the_newer).
    """
    thresholds = fl.thresholds_for(model_id, table(), vectors_trusted=trusted)
    terms, present = weighted or weighted_terms(words, query, plan)
    missing = fl.missing_share(terms, present)
    if cosines is None:
        cosines = lists.get("vector", {})
    cosines = cosines if trusted else {}
    # The chosen and the vector candidates' chunks: where the vault shows its names.
    seen = [r.text for cid in (*chosen, *cosines) if (r := records.get(cid)) is not None]
    signals = _query_signals(query, missing, cosines, present, seen)
    judge = Judge(
        terms,
        cosines,
        # Only the vector candidates' places are looked at (not every candidate's).
        {cid: (r.path, r.line_start, r.line_end) for cid in cosines if (r := records.get(cid))},
        thresholds,
        signals,
        lists.get("fts"),
        words_of,
        sentences_of,
        FactScripts(facts, signals.script, whole) if facts and trusted else None,
        (asked_for(query.raw), _nearest_facts(facts or {})),
    )
    judged = _each_judged(judge, chosen, snippet, records, credit)
    judged = _against_the_others(judged, cosines, records, thresholds, missing, terms, whole)
    judged = held_to_the_floor(judged, thresholds)
    judged = outside_the_date(judged, credit or {}, thresholds, missing)
    value = _floor_value(floor, thresholds, trusted, model_id)
    later = _later_bars(chosen, judged, thresholds, signals.script, floor, value, credit)
    evidences = [judged[cid].evidence for cid in chosen]
    kept = [chosen[i] for i in fl.keep(evidences, later, value)]
    if newer and floor is True and value is not None:
        kept = fl.with_the_newer(chosen, kept, newer)
    verdict = Verdict(
        judged, thresholds, value, kept, len(chosen) - len(kept), len(kept), [], missing, signals
    )
    if budget is not None and kept:
        _fit_budget(verdict, snippet, budget)
    return verdict


def _against_the_others(
    judged: dict[int, Judged],
    cosines: Mapping[int, float],
    records: Mapping[int, Any],
    thresholds: FloorThresholds,
    missing: float,
    terms: Sequence[WeightedTerm],
    whole: bool,
) -> dict[int, Judged]:
    """The rules that judge a result by this query's other candidates (floor/against.py)."""
    judged = against_the_vault(judged, cosines, records, thresholds, missing, len(terms), whole)
    judged = names_alone(judged, thresholds)
    return nearest_in_meaning(judged, records, thresholds, missing, whole)


def _nearest_facts(facts: Mapping[int, Sequence[tuple[float, str]]]) -> dict[int, str]:
    """Each vector candidate's fact nearest the query in meaning (its lines)."""
    return {cid: max(units)[1] for cid, units in facts.items() if units}


def _later_bars(
    chosen: Sequence[int],
    judged: Mapping[int, Judged],
    thresholds: FloorThresholds,
    script: str | None,
    floor: float | bool | None,
    value: float | None,
    credit: Mapping[int, float] | None,
) -> list[float]:
    """Each chosen result's bar. The calibrated floor holds a result that is neither the
    query's best nor the one nearest in meaning (nor dated in the query's range, nor
    carried by its fact) to its later bar; --min-score X is one bar for all."""
    return [
        thresholds.later_floor(script, judged[cid].cross)
        if floor is True
        and not (credit and cid in credit)
        and not judged[cid].nearest
        and not judged[cid].fact
        else float(value or 0.0)
        for cid in chosen
    ]


def _query_signals(
    query: Query,
    missing: float,
    cosines: Mapping[int, float],
    present: Sequence[bool],
    texts: Sequence[str] = (),
) -> fl.QuerySignals:
    """What the floor reads of the query as a whole: its words the vault lacks, its
    candidates' best and worst cosines, a name it says that the vault does not know, its
    script, the names it says (capitalised, or a speaker label in one of `texts`, its
    candidates' chunks)."""
    terms = floor_terms(query)
    # People: the vault labels their bullets with these words (a capitalised product or
    # place is left out: a question restating a fact in other words names it where the
    # answer's line need not).
    people = named_by_labels(terms, texts)
    called = names(query.raw, [t.text for t in terms], capitals=False) | people
    return fl.QuerySignals(
        missing,
        max(cosines.values(), default=None),
        min(cosines.values(), default=None),
        fl.unknown_name(query.raw, [t.text for t in terms], present),
        fl.query_script(query.raw),
        called,
        frozenset(i for i in people if present[i]),
        called if not any(present[i] for i in called) else frozenset(),
    )


def _each_judged(
    judge: Judge,
    chosen: Sequence[int],
    snippet: Callable[[int], Snippet],
    records: Mapping[int, Any],
    credit: Mapping[int, float] | None,
) -> dict[int, Judged]:
    """Each chosen result judged on its snippet, its credit (judge_results) closing that
    share of its evidence's gap to 1."""
    judged = {}
    for cid in chosen:
        snip = snippet(cid)
        record = records[cid]
        judged[cid] = judge.judge(
            cid,
            record.path,
            snip.line_start,
            snip.line_end,
            snip.text,
            record.text,
            dated=bool(credit and cid in credit),
        )
        if credit and cid in credit:
            seen = judged[cid]
            judged[cid] = replace(seen, evidence=seen.evidence + (1 - seen.evidence) * credit[cid])
    return judged


def _floor_value(
    floor: float | bool | None, thresholds: FloorThresholds, trusted: bool, model_id: str
) -> float | None:
    """The floor's bar: the calibrated one, the caller's, or none."""
    if floor is True and trusted and model_id not in table():
        # A model with vectors but no calibration: its cosines' scale is unknown and the
        # words-only floor would drop what only meaning found (a Russian question about
        # an English note), so no floor until `scripts/eval_shared --floor --calibrate`.
        return None
    return thresholds.floor if floor is True else floor


def _fit_budget(verdict: Verdict, snippet: Callable[[int], Snippet], budget: int) -> None:
    """Keep the results whose snippets fit `budget` tokens, best first."""
    kept = verdict.kept
    costs = {cid: estimate_tokens(snippet(cid).text) for cid in kept}
    verdict.kept = fl.within_budget(kept, costs, budget)
    if not verdict.kept:
        verdict.notices.append(
            f"no result fits --budget {budget} tokens (the best costs {costs[kept[0]]})"
        )
