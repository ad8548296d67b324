"""What the relevance floor read of one result (its raw evidence and the rules that moved
it), shared by floor/evidence.py, which judges, and floor/against.py, which judges a result
against the vault's other candidates for its query."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judged:
    """One result as the floor judged it (its evidence, and what that was read from)."""

    coverage: float
    cosine: float | None
    evidence: float
    cross: bool = False  # the chunk is in another script than the query
    bm25_rank: float = 0.0  # floor.bm25_rank of its rank in the words list
    words_rank: int | None = None  # that rank (0: BM25's best; None: not in the list)
    sentence: float = 0.0  # floor.sentence_coverage of the snippet
    # Its cosine above the query's typical similarity in this vault (floor/standout.py).
    standout: float = 0.0
    # The chosen result nearest in meaning: held to the floor alone (nearest_in_meaning).
    nearest: bool = False
    # Its best sentence holds only names the query says, none of its other words
    # (names_alone).
    named: bool = False
    # A note of facts judged in the query's own script whose fact in that script stands
    # out among the query's (facts.FactScripts.stands_out): it passes on that meaning,
    # held to the floor alone, as the result nearest in meaning is.
    fact: bool = False
    # The query names someone the vault knows and this result shows none of those names:
    # it is about someone or something else, and does not pass on its meaning alone.
    unnamed: bool = False
    # The query asks for a kind of value (a count, an amount, a version, a phone number:
    # floor/asked.py) that neither the lines its words matched nor its fact nearest in
    # meaning holds: it is about the subject, not the answer (asked.held_to_the_floor).
    unasked: bool = False
    # The query names something the vault never mentions ("a group tour to Japan" asked of
    # a vault without Japan) and this result is in the query's script: whatever it says
    # is about something else (asked.held_to_the_floor). A result in another script may
    # spell the name in its own alphabet, a transcript's turn says "you", not the name.
    unknown: bool = False
