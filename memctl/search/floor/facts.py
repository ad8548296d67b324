"""Which language a note of many facts answers a query in (pure), for the relevance floor:
judged by the fact the query matched, against this query's own facts, not by the note's
letters.

A daily note mixes English, Hebrew and Russian bullets, so the script most of its letters
are written in says nothing of the fact a question meets: a Hebrew question about a
Hebrew bullet of a mostly-English day counted as a cross-lingual match, held to the
lenient cross-lingual bar that e5's lower cosines across languages need, and every such
day passed for any Hebrew or Russian question (a question the vault cannot answer kept
four or five of them). A note with facts of its own (memctl.index.units) is therefore a
cross-lingual answer only when one of its facts in another script than the query's stands
out among this query's facts in other scripts (FOREIGN_MARGIN above their typical
similarity: e5 scores every text across languages lower, so they are compared with each
other, not with a fixed bar); otherwise it is judged as a note in the query's own
language, by its words and its cosine. A chunk without facts keeps the script of its
letters.

Such a note passes on its meaning alone when its fact in the query's own script stands
out among the query's facts in that script (OWN_MARGIN above their typical similarity):
a paraphrase of one bullet of a day shares no word with it, and the day's cosine averages
the other bullets, so neither its words nor its chunk's cosine carry it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memctl.search.floor.script import script_of

# The chunks whose best fact in another script than the query's, averaged over the
# nearest this many, is the query's typical similarity to such facts: one per chunk, so a
# vault of five mixed daily notes is judged as one of thousands (every fact of a small
# vault would pull the typical down to its farthest).
FACT_POOL = 20
# How far above the typical similarity of the query's facts in other scripts a fact must
# stand for its note to be judged as a cross-lingual answer. On the vault-shaped set's
# tune split (tools/vaultset; docs/lab/vaultset.md, round "A floor that judges the matched
# fact"; the typical then taken over facts, not chunks) cross-lingual answers stood
# 0.02-0.10 above, the best foreign fact of a note no answer is in at most 0.011 in all
# but one question (0.024).
FOREIGN_MARGIN = 0.015
# How far above the typical similarity of the query's facts in its own script a note's
# fact must stand for the note to pass on that fact's meaning alone (held to the floor,
# no later bar, as the result nearest in meaning is): a paraphrase of one bullet of a day
# shares no word with it, and the day's own cosine averages unrelated bullets. On the
# vault-shaped set's tune split a Russian paraphrase's bullet stood 0.016 above; a question
# the vault cannot answer reaches that mostly through a name it says (names_alone holds
# those back where the name is capitalised).
OWN_MARGIN = 0.015
# Fewer chunks with a foreign fact than this among the query's: no typical to stand out from.
MIN_FACTS = 5
# Fewer chunks with a fact in the query's own script than this: no fact passes on its
# meaning alone (one of five notes stands out from the other four by chance: in a vault of
# five mixed daily notes a Hebrew question about a person it names, which none answers,
# passed one).
MIN_OWN = 10


class FactScripts:
    """The query's facts by script, and whether a note answers it across languages."""

    def __init__(
        self,
        facts: Mapping[int, Sequence[tuple[float, str]]],
        query_script: str | None,
        whole: bool = True,
    ) -> None:
        """`facts`: each candidate chunk's facts as (cosine, its lines), from
        rank/meaning.lift; `query_script`: floor.script.query_script of the query;
        `whole`: no filter narrowed the candidates (else no fact passes on its meaning
        alone: a filtered list's typical is not the vault's)."""
        self.query_script = query_script
        self.whole = whole
        self.by_chunk: dict[int, list[tuple[float, bool]]] = {}
        foreign: list[float] = []  # each chunk's best fact in another script
        own: list[float] = []  # ... and in the query's
        for cid, units in facts.items():
            marked = []
            for cosine, text in units:
                other = script_of(text)
                away = query_script is not None and other is not None and other != query_script
                marked.append((cosine, away))
            self.by_chunk[cid] = marked
            best = max((cosine for cosine, away in marked if away), default=None)
            if best is not None:
                foreign.append(best)
            here = max((cosine for cosine, away in marked if not away), default=None)
            if here is not None:
                own.append(here)
        self.typical_own = _typical(own, MIN_OWN)
        self.typical_foreign = _typical(foreign)

    def cross(self, cid: int) -> bool | None:
        """Whether the chunk answers across languages (one of its facts in another script
        stands out among the query's); None: it has no facts, or the query no typical
        (its letters decide, floor.script.cross_script)."""
        units = self.by_chunk.get(cid)
        if not units or self.query_script is None or self.typical_foreign is None:
            return None
        best = max((cosine for cosine, away in units if away), default=None)
        return best is not None and best - self.typical_foreign >= FOREIGN_MARGIN - 1e-9

    def stands_out(self, cid: int) -> bool:
        """Whether its best fact in the query's own script stands OWN_MARGIN above the
        query's typical such fact: a note judged in the query's language that a question
        restating that fact in other words is about."""
        units = self.by_chunk.get(cid) or []
        best = max((cosine for cosine, away in units if not away), default=None)
        if best is None or self.typical_own is None or not self.whole:
            return False
        return best - self.typical_own >= OWN_MARGIN - 1e-9

    def standout(self, cid: int) -> float | None:
        """How far its best fact in another script stands above the query's typical one
        (None: no such fact or no typical), for --explain."""
        units = self.by_chunk.get(cid) or []
        best = max((cosine for cosine, away in units if away), default=None)
        if best is None or self.typical_foreign is None:
            return None
        return best - self.typical_foreign


def _typical(bests: list[float], least: int = MIN_FACTS) -> float | None:
    """The mean of the FACT_POOL nearest chunks' best facts (None: fewer than `least`)."""
    nearest = sorted(bests, reverse=True)[:FACT_POOL]
    return sum(nearest) / len(nearest) if len(nearest) >= least else None
