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
# fact") cross-lingual answers stood 0.02-0.10 above, the best foreign fact of a note a
# question cannot be answered from at most 0.011 in most questions (0.024 once).
FOREIGN_MARGIN = 0.015
# Fewer chunks with a foreign fact than this among the query's: no typical to stand out from.
MIN_FACTS = 5


class FactScripts:
    """The query's facts by script, and whether a note answers it across languages."""

    def __init__(
        self, facts: Mapping[int, Sequence[tuple[float, str]]], query_script: str | None
    ) -> None:
        """`facts`: each candidate chunk's facts as (cosine, its lines), from
        rank/meaning.lift; `query_script`: floor.script.query_script of the query."""
        self.query_script = query_script
        self.by_chunk: dict[int, list[tuple[float, bool]]] = {}
        foreign: list[float] = []  # each chunk's best fact in another script
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
        nearest = sorted(foreign, reverse=True)[:FACT_POOL]
        self.typical_foreign = sum(nearest) / len(nearest) if len(nearest) >= MIN_FACTS else None

    def cross(self, cid: int) -> bool | None:
        """Whether the chunk answers across languages (one of its facts in another script
        stands out among the query's); None: it has no facts, or the query no typical
        (its letters decide, floor.script.cross_script)."""
        units = self.by_chunk.get(cid)
        if not units or self.query_script is None or self.typical_foreign is None:
            return None
        best = max((cosine for cosine, away in units if away), default=None)
        return best is not None and best - self.typical_foreign >= FOREIGN_MARGIN - 1e-9

    def standout(self, cid: int) -> float | None:
        """How far its best fact in another script stands above the query's typical one
        (None: no such fact or no typical), for --explain."""
        units = self.by_chunk.get(cid) or []
        best = max((cosine for cosine, away in units if away), default=None)
        if best is None or self.typical_foreign is None:
            return None
        return best - self.typical_foreign
