"""The dates a query says, applied to its search: the date words out of its keywords, the
candidates dated inside the range added to its lists, and those candidates boosted (pure:
the Searcher reads the lists and records and hands them in; query/dates.py reads the dates).

A boost rather than a filter: the note that answers may be undated (core.md) or dated
otherwise (a fact noted a day later), and it must still be found. Only a query that says
nothing but a date ("what did we do yesterday?") is confined to the range: there the
date is the whole question. `--since`/`--until` still filter, and then no date is read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from memctl.index.usage import ChunkRecord
from memctl.lexical.parse import Query
from memctl.lexical.plan import Filters
from memctl.search.floor.words import asks
from memctl.search.query.dates import HAPPENED, DatesSaid
from memctl.search.rank.ranking import Scored, day_of

# A candidate dated inside the range has its composite score (and the factors the reranked
# score is built from) multiplied by this. 3 ranked every temporal question of agentvault's
# tune split first (of 2, 3, 4, 6); on the vault-shaped set's tune split, a day's note whose
# bullet shares no word with "what did Boris put live yesterday" stayed 9th at 3 (the
# reranker gave it a tiny probability), and 10 ranked all ten first (3: 8/10; 30 as 10).
# A note of the day a question names comes before other days' unless those are ten times
# as relevant.
DATE_BOOST = 10.0


@dataclasses.dataclass(frozen=True)
class DatedQuery:
    """How a search reads the dates its query says."""

    said: DatesSaid
    parsed: Query  # the query's words without the ones that said a date
    carried: bool  # nothing but a date is asked: the lists are confined to its range
    share: float = 0.0  # the date words' share of the query's content words
    found: bool = True  # False: no note of that time matched, the words searched as words

    def unfound(self, plain: Query) -> DatedQuery:
        """No note dated inside the range matched: the query's own words, no boost."""
        return dataclasses.replace(self, parsed=plain, found=False)

    def filters(self, filters: Filters) -> Filters:
        """`filters` confined to the range the query says."""
        return dataclasses.replace(filters, since=self.said.start, until=self.said.end)

    def describe(self) -> dict[str, object]:
        """The range as --explain and the JSON show it."""
        return {
            "ranges": [
                {"said": r.said, "since": r.start.isoformat(), "until": r.end.isoformat()}
                for r in self.said.ranges
            ],
            "confined": self.carried,
            "found": self.found,
            "boost": DATE_BOOST if self.found else 1.0,
        }


def dated_query(parsed: Query, said: DatesSaid | None, filters: Filters) -> DatedQuery | None:
    """How the search reads `said` (None: no date said, or --since/--until given)."""
    if said is None or filters.since is not None or filters.until is not None:
        return None
    kept = tuple(t for t in parsed.terms if t.text not in said.words)
    asked = [t for t in kept if not t.stopword and not asks(t.text) and t.text not in HAPPENED]
    if asked:
        # Date words that are not stopwords ("yesterday", not "in"), among the query's.
        spoken = sum(1 for t in parsed.terms if t.text in said.words and not t.stopword)
        content = sum(1 for t in kept if not t.stopword)
        share = spoken / (spoken + content)
        return DatedQuery(said, dataclasses.replace(parsed, terms=kept), False, share)
    # Only a date (and words asking what happened): confined to its range, the query keeps its words
    # (an empty query searches nothing) and they only order the range's notes.
    return DatedQuery(said, parsed, carried=True)


def merged(
    lists: Mapping[str, Mapping[int, float]], ranged: Mapping[str, Mapping[int, float]]
) -> dict[str, dict[int, float]]:
    """Each list with the candidates its ranged search added (a chunk's raw score is the
    same in both: only the rows looked at differ)."""
    out = {name: dict(found) for name, found in lists.items()}
    for name, found in ranged.items():
        into = out.setdefault(name, {})
        for cid, value in found.items():
            into.setdefault(cid, value)
    return out


def boost(scored: Scored, records: Mapping[int, ChunkRecord], dated: DatedQuery) -> set[int]:
    """Boost the candidates dated inside the range (in place); which they are."""
    if not dated.found:
        return set()
    inside = {
        cid
        for cid in scored.scores
        if cid in records and dated.said.holds(day_of(records[cid].date))
    }
    for cid in inside:
        scored.scores[cid] *= DATE_BOOST
        if cid in scored.composite:
            scored.composite[cid] *= DATE_BOOST
        if cid in scored.factors:
            scored.factors[cid] *= DATE_BOOST
        detail = scored.detail.get(cid)
        if detail is not None:
            detail["factors"]["date"] = DATE_BOOST
            detail["final"] = round(scored.scores[cid], 6)
    return inside


def credit(
    dated: DatedQuery, records: Mapping[int, ChunkRecord], chosen: list[int]
) -> dict[int, float]:
    """The relevance floor's credit for the chosen dated inside the range: the date words'
    share of the query, which they answer though their words left it (floor/evidence.py)."""
    if not dated.found:
        return {}
    return {cid: dated.share for cid in chosen if dated.said.holds(day_of(records[cid].date))}
