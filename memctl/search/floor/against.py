"""The floor's rules that judge a result against this vault's other candidates for its
query (pure): a template-only chunk, a gated query's result nearest in meaning, a name
alone, the result nearest in meaning, and a result outside the date range a gated query
says. floor/evidence.py judges each result on its own first, then applies these in turn.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memctl.search.floor import rule as fl
from memctl.search.floor import standout as so
from memctl.search.floor.judged import Judged
from memctl.search.floor.rule import FloorThresholds


def against_the_vault(
    judged: dict[int, Judged],
    cosines: Mapping[int, float],
    records: Mapping[int, Any],
    thresholds: FloorThresholds,
    missing: float,
    words: int = 0,
    whole: bool = True,
) -> dict[int, Judged]:
    """Each result judged against this vault's own candidates for the query
    (floor/standout.py): a chunk of the template's lines alone is no evidence; when no
    word of the query is in the vault (the gate), the result nearest in meaning passes if
    it stands out from the query's typical similarity by STANDOUT_MARGIN, for a query of
    `words` (its floor terms) enough to restate a fact (so.restates) whose vector list is
    `whole` (no filter narrowed it: a filtered list is not the vault's typical)."""
    usual = so.typical(cosines.values())
    content = [
        value
        for cid, value in cosines.items()
        if (record := records.get(cid)) is None or not so.template_only(record.text)
    ]
    # The gate leaves a result in the query's script no words to stand on: only the one
    # nearest in meaning may pass, so a query the vault cannot answer keeps ≤ 1 result.
    nearest = max(content, default=2.0)
    meaning_only = (
        thresholds.classifier is not None
        and fl.gated(missing, thresholds)
        and so.restates(words)
        and whole
    )
    out = {}
    for cid, seen in judged.items():
        above = so.standout(seen.cosine, usual)
        value = seen.evidence
        if so.template_only(records[cid].text):
            value = 0.0
        elif meaning_only and not seen.cross and (seen.cosine or 0.0) >= nearest - 1e-9:
            value = max(value, so.meaning_evidence(above, thresholds.floor))
        out[cid] = dataclasses.replace(seen, evidence=value, standout=above)
    return out


def names_alone(judged: dict[int, Judged], thresholds: FloorThresholds) -> dict[int, Judged]:
    """A result whose best sentence holds only names the query says (a person, a product)
    and none of its other words is held to the floor at most: it may be the query's best
    result, never a later one (keep()). The vault knowing the name is no answer to what
    is asked about it ("When is Noam's birthday?" against every note naming Noam: the
    classifier counts a rare name as strong evidence). A cross-lingual result shows no
    word of the query either way, and is left as it is."""
    out = dict(judged)
    for cid, seen in judged.items():
        if seen.named and not seen.cross and (seen.evidence > thresholds.floor or seen.fact):
            out[cid] = replace(seen, evidence=min(seen.evidence, thresholds.floor), fact=False)
    return out


def nearest_in_meaning(
    judged: dict[int, Judged],
    records: Mapping[int, Any],
    thresholds: FloorThresholds,
    missing: float,
    whole: bool = True,
) -> dict[int, Judged]:
    """The chosen result nearest in meaning (the highest cosine, template-only chunks left
    out) is judged as the best one is, at the floor alone and not at the later bar, and
    passes on its meaning when it stands so.NEAREST_MARGIN above the query's typical
    similarity: a question is answered by the result with the most evidence or by the one
    whose meaning stands out, and a paraphrase sharing no word with its answer has
    little evidence from its words. Only for a calibrated classifier, a query whose words
    the vault holds (a gated one has against_the_vault's stricter rule) and lists no
    filter narrowed (`whole`: the typical similarity is the vault's)."""
    if thresholds.classifier is None or fl.gated(missing, thresholds) or not whole:
        return judged
    templates = [cid for cid in judged if so.template_only(records[cid].text)]
    near = so.nearest({cid: seen.cosine for cid, seen in judged.items()}, templates)
    if near is None:
        return judged
    seen = judged[near]
    if seen.named or seen.unnamed:
        # Nearest for the name it shares with the query (names_alone), not for a meaning
        # restated in other words.
        return judged
    value = max(seen.evidence, thresholds.floor) if so.stands_out(seen.standout) else seen.evidence
    return {**judged, near: replace(seen, evidence=value, nearest=True)}


def outside_the_date(
    judged: dict[int, Judged],
    dated: Mapping[int, float],
    thresholds: FloorThresholds,
    missing: float,
) -> dict[int, Judged]:
    """When no word of the query but its date is in the vault (the gate) and a result is
    dated inside the range it says (`dated`: judge_results' credit), the date is all the
    query shares with the vault: a result outside the range keeps only what its meaning
    alone carries (so.meaning_evidence of its standout), whatever its script. A
    cross-lingual note sharing no word and standing nowhere out of the vault's typical
    similarity otherwise kept its classifier's lenient evidence and led the results,
    while the day's own note, which the date picked out, was held to the later bar."""
    if not dated or not fl.gated(missing, thresholds):
        return judged
    return {
        cid: seen
        if cid in dated
        else replace(
            seen, evidence=min(seen.evidence, so.meaning_evidence(seen.standout, thresholds.floor))
        )
        for cid, seen in judged.items()
    }
