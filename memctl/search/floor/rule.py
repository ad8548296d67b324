"""The relevance floor (pure, no I/O): is a result evidence of anything the query asks?

Fused scores are min-max scaled per candidate list, so the best candidate of any query
scores high even when nothing matches ("root:x:0" against two unrelated notes scored
0.39). The floor therefore rests on raw evidence that means the same across queries:

- coverage: the IDF-weighted share of the query's words that the result's snippet shows
  (exact forms, Hebrew prefixes, stems, typo corrections: what the keyword lists match).
  A rare word counts for more than a common one, so a foreign question that shares only
  "support" and "group" with a vault, and not the name it asks about, covers little.
- cosine: the raw cosine between the query and the best chunk inside the snippet,
  trusted only where the model understands the query's script (an English-only model's
  cosines for Hebrew or Russian are noise: see scoring.weights_for). A multilingual
  model scores a question against text in another script (a Russian question, an
  English note) systematically lower than within one language (multilingual-e5-small:
  the gold paragraph's cosine 0.74-0.85 across, 0.80-0.92 within), so such a result is
  held to its own threshold, `min_cosine_cross`.
- missing: the IDF-weighted share of the query's words found nowhere in the vault (not
  even as a stem or a typo correction). Past `max_missing` the query is about something
  the vault never mentions (another person's name, another topic): its words are no
  evidence and only the cosine can carry a result (a paraphrase still passes).

For a model calibrated with a classifier (the default, e5), evidence is a logistic
model over those signals and a few of the query's (the best cosine of its vector list,
a capitalised name in it the vault never mentions), one per query script, with its own
offset for results in another script: a result needs its cosine and its words
together, where the older rule below let either alone through. It is fitted on the
calibration parts of the dev sets (tools/floor_learn.py); its offsets are the loosest that keep
each set's own answers. A result that is not its query's best also needs the
classifier's `later` logits (keep()): a question is answered by one result, and a
foreign question is rejected when at most one stays.

Otherwise (MiniLM, the lexical fallback): evidence = max(words, (cosine +
coverage_weight × words) × min_coverage / min_cosine [or min_cosine_cross]), capped at 1,
where words = coverage (0 past max_missing): one number that clears `min_coverage`
exactly when coverage clears it, or when the cosine clears its own threshold, lowered by
coverage_weight per unit of coverage.
The thresholds are calibrated per embedding model on the dev sets
(`scripts/eval_shared --floor --calibrate`; floor_calibration.json) with part of each
set held out; an unknown model gets the lexical-only fallback (cosine ignored).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# The floor's names for what the query and a result are written in.
from memctl.search.floor.script import QUERY_SCRIPT_SHARE as QUERY_SCRIPT_SHARE
from memctl.search.floor.script import cross_script as cross_script
from memctl.search.floor.script import query_script as query_script
from memctl.search.floor.script import script_of as script_of

# What the query's words show (coverage, missing words, their weights).
from memctl.search.floor.words import QUESTION_WORDS as QUESTION_WORDS
from memctl.search.floor.words import WeightedTerm as WeightedTerm
from memctl.search.floor.words import asks as asks
from memctl.search.floor.words import coverage as coverage
from memctl.search.floor.words import idf as idf
from memctl.search.floor.words import missing_share as missing_share
from memctl.search.floor.words import sentence_coverage as sentence_coverage
from memctl.search.floor.words import unknown_name as unknown_name

LEXICAL_ONLY = "lexical"  # the table's key for "no trusted vectors"
CLASSIFIER_FLOOR = 0.5  # a classifier's evidence is a probability: the floor is even odds

# The classifier's inputs, in the order of its weights (see QuerySignals and evidence()).
FEATURES = (
    "cosine",
    "coverage",
    "missing",
    "best_cosine",
    "unknown_name",
    "bm25_rank",
    "sentence_coverage",
)
CROSS = "cross"  # the offset of a result in another script than its query


@dataclass(frozen=True)
class Classifier:
    """evidence = logistic(bias + offset of the query's script + Σ weight × feature).

    `offsets` shift the bar per query script (e5 scores Hebrew higher than English) and
    for a result in another script than its query (CROSS: a Russian question about an
    English note, which only the cosine finds and which e5 scores lower): each is the
    loosest that kept the calibration sets' own answers; a script without one gets the
    most lenient."""

    weights: tuple[float, ...]  # one per FEATURES (fewer: the rest weigh 0)
    bias: float
    offsets: tuple[tuple[str, float], ...] = ()
    # The logits a result in the query's script needs beyond the bar when it is not the
    # query's best result (see keep()): a question is answered by one result, so the
    # others must show more than a near-answer does.
    later: float = 0.0
    # The logits a result in another script than its query needs when it is not the
    # query's best (see keep()), in the CROSS offset's model: e5 scores every text across
    # languages alike, so the lenient offset that keeps a cross-lingual answer passes its
    # near-answers too (a Russian question the English paragraphs cannot answer kept two
    # or more of them three times in four). None: such a result needs the floor alone.
    cross_later: float | None = None

    def __post_init__(self) -> None:
        # A model fitted before a feature existed does not read it.
        padded = (*self.weights, *(0.0,) * (len(FEATURES) - len(self.weights)))
        object.__setattr__(self, "weights", padded)

    def offset(self, script: str | None) -> float:
        table = dict(self.offsets)
        if script in table:
            return table[script]
        return max(table.values(), default=0.0)

    def probability(self, values: Sequence[float], script: str | None) -> float:
        z = self.bias + self.offset(script)
        z += sum(w * v for w, v in zip(self.weights, values, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "weights": dict(zip(FEATURES, (round(w, 6) for w in self.weights), strict=True)),
            "bias": round(self.bias, 6),
            "offsets": {name: round(value, 6) for name, value in self.offsets},
            "later": round(self.later, 6),
        }
        if self.cross_later is not None:
            out["cross_later"] = round(self.cross_later, 6)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Classifier:
        weights = data["weights"]
        return cls(
            tuple(float(weights.get(name, 0.0)) for name in FEATURES),
            float(data["bias"]),
            tuple((str(k), float(v)) for k, v in data.get("offsets", {}).items()),
            float(data.get("later", 0.0)),
            None if data.get("cross_later") is None else float(data["cross_later"]),
        )


@dataclass(frozen=True)
class ByScript:
    """One classifier per query script: e5's cosines and the weight of a shared word
    differ by language (Hebrew paragraphs on one field score high against any Hebrew
    question), so each script's model is fitted on its own sets. A query in a script
    with no model of its own (or in none) gets the first."""

    models: tuple[tuple[str, Classifier], ...]

    def for_result(self, script: str | None, cross: bool) -> Classifier:
        """The query script's model; for a result in another script, the first model
        calibrated on such results (cross-lingual answers: a Russian question about an
        English note) when the script's own was not."""
        model = dict(self.models).get(script or "", self.models[0][1])
        if cross and CROSS not in dict(model.offsets):
            return next((m for _, m in self.models if CROSS in dict(m.offsets)), model)
        return model

    def to_dict(self) -> dict[str, Any]:
        return {name: model.to_dict() for name, model in self.models}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ByScript:
        return cls(tuple((name, Classifier.from_dict(v)) for name, v in data.items()))


@dataclass(frozen=True)
class QuerySignals:
    """What the classifier knows of the query, the same for each of its results."""

    missing: float = 0.0  # missing_share
    best_cosine: float | None = None  # the best of its vector list
    lowest_cosine: float | None = None  # the last of its vector list (a result outside it)
    unknown_name: bool = False  # a capitalised word of it the vault never mentions
    script: str | None = None
    names: frozenset[int] = frozenset()  # the names among its floor terms (words.names)
    known: frozenset[int] = frozenset()  # the people it names whom the vault labels
    # Its names, when the vault mentions none of them (a known name beside an unknown
    # word, "travellers to Tbilisi ... in American dollars", is a paraphrase's modifier).
    unknown: frozenset[int] = frozenset()


@dataclass(frozen=True)
class FloorThresholds:
    min_coverage: float
    min_cosine: float | None = None  # None: cosine never counts (lexical-only fallback)
    # A query whose words are this much (IDF mass) absent from the whole vault asks about
    # something the vault never mentions: nothing passes. None: no such gate.
    max_missing: float | None = None
    # The cosine a result in another script than the query's must reach (None: min_cosine).
    min_cosine_cross: float | None = None
    # How far each unit of coverage lowers the cosine a result needs: a result that shows
    # some of the question's words passes on a somewhat weaker cosine than one that
    # shows none (HeQ's foreign questions reach e5 cosines of 0.82-0.85 on Wikipedia
    # paragraphs of the same field that share no name with them).
    coverage_weight: float = 0.0
    # When set, evidence is this classifier's probability and the floor is even odds;
    # min_coverage then applies only without cosines (coverage alone); max_missing
    # gates only results in the query's own script (a cross-lingual answer shares no
    # word with its question); the cosine bars and coverage_weight are unused.
    classifier: ByScript | None = None

    @property
    def floor(self) -> float:
        """The evidence a result needs."""
        return CLASSIFIER_FLOOR if self.classifier is not None else self.min_coverage

    def later_floor(self, script: str | None, cross: bool) -> float:
        """The evidence a result needs when another result of its query has more (see
        keep()): the classifier's `later` logits above the floor for a result in the
        query's script, its `cross_later` ones for a result in another script; the floor
        itself otherwise (no classifier, or no cross_later calibrated)."""
        if self.classifier is None:
            return self.floor
        model = self.classifier.for_result(script, cross)
        later = model.cross_later if cross else model.later
        if later is None:
            return self.floor
        return 1.0 / (1.0 + math.exp(-max(min(later, 60.0), -60.0)))

    def cosine_bar(self, cross: bool) -> float | None:
        if cross and self.min_cosine is not None and self.min_cosine_cross is not None:
            return self.min_cosine_cross
        return self.min_cosine

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "min_coverage": self.min_coverage,
            "min_cosine": self.min_cosine,
            "max_missing": self.max_missing,
            "min_cosine_cross": self.min_cosine_cross,
            "coverage_weight": self.coverage_weight,
        }
        if self.classifier is not None:
            out["classifier"] = self.classifier.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FloorThresholds:
        """An entry of floor_calibration.json (absent keys: their defaults)."""
        classifier = data.get("classifier")
        return cls(
            float(data["min_coverage"]),
            data.get("min_cosine"),
            data.get("max_missing"),
            data.get("min_cosine_cross"),
            float(data.get("coverage_weight") or 0.0),
            ByScript.from_dict(classifier) if classifier else None,
        )


def gated(missing: float, thresholds: FloorThresholds) -> bool:
    """True when the query asks about what the vault never mentions."""
    return thresholds.max_missing is not None and missing >= thresholds.max_missing - 1e-9


def thresholds_for(
    model_id: str, table: Mapping[str, FloorThresholds], vectors_trusted: bool = True
) -> FloorThresholds:
    """The model's calibrated thresholds (the lexical entry for an unknown model); for a
    query whose vectors are not trusted (English-only model, non-Latin query) the same
    coverage threshold with the cosine left out, which is what calibration measured."""
    chosen = table.get(model_id, table[LEXICAL_ONLY])
    if not vectors_trusted:
        return FloorThresholds(chosen.min_coverage, None, chosen.max_missing)
    return chosen


def evidence(
    cover: float,
    cosine: float | None,
    thresholds: FloorThresholds,
    missing: float = 0.0,
    cross: bool = False,
    query: QuerySignals | None = None,
    bm25_rank: float = 0.0,
    sentence: float | None = None,
    gate: bool = True,
) -> float:
    """One number in [0, 1] that passes when it reaches `thresholds.floor`: the
    classifier's probability when there is one and a cosine (the result's, or for a
    result outside the vector list that list's lowest), else coverage (none when the
    query's words are mostly missing from the vault) or the cosine on coverage's scale
    (see the module docstring); `cross`: the result is in another script than the query;
    `bm25_rank`: see bm25_rank(); `sentence`: sentence_coverage() (None: `cover`);
    `gate` False: a result the query's date picked out (dated inside the range it says),
    which no missing word makes generic."""
    if thresholds.classifier is not None:
        if gate and not cross and gated(missing, thresholds):
            # No word of the query anywhere in the vault, and the result in the query's
            # own script: nothing lexical to stand on, and a cosine alone passes any
            # generic note ("root:x:0": e5 scores 0.82-0.83 to a core.md).
            return 0.0
        values = features(cover, cosine, query, bm25_rank, sentence)
        if values is not None and query is not None:
            model = thresholds.classifier.for_result(query.script, cross)
            return model.probability(values, CROSS if cross else query.script)
        # No cosine at all (an empty vector list): coverage against min_coverage, on
        # the classifier's scale.
        scaled = cover * CLASSIFIER_FLOOR / max(thresholds.min_coverage, 1e-9)
        return min(max(scaled, 0.0), 1.0)
    words = 0.0 if gated(missing, thresholds) else cover
    value = words
    bar = thresholds.cosine_bar(cross)
    if cosine is not None and bar:
        lifted = cosine + thresholds.coverage_weight * words
        value = max(value, lifted * thresholds.min_coverage / bar)
    return min(max(value, 0.0), 1.0)


def bm25_rank(rank: int | None) -> float:
    """The words list's (BM25's) rank of a result as evidence: 1 for its first, 1/2 for
    the second, ..., 0 outside the list. Coverage says which of the query's words a
    snippet shows; this says whether, among this vault's chunks, it is one of those that
    show them most: in a vault on the question's subject, where every chunk shares two
    or three of its words (HeQ's foreign questions), the near-answers rank behind the
    paragraph that repeats them, when there is one."""
    return 0.0 if rank is None else 1.0 / (1 + rank)


def features(
    cover: float,
    cosine: float | None,
    query: QuerySignals | None,
    bm25_rank: float = 0.0,
    sentence: float | None = None,
) -> tuple[float, ...] | None:
    """The classifier's inputs (FEATURES) for one result; None without a cosine."""
    if query is None:
        return None
    cos = cosine if cosine is not None else query.lowest_cosine
    if cos is None:
        return None
    best = query.best_cosine if query.best_cosine is not None else cos
    near = cover if sentence is None else sentence
    return (cos, cover, query.missing, best, float(query.unknown_name), bm25_rank, near)


def passes(value: float, floor: float | None) -> bool:
    """`floor` None: everything passes (--all)."""
    return floor is None or value >= floor - 1e-9


def keep(values: Sequence[float], later: Sequence[float], floor: float | None) -> list[int]:
    """The results (indexes, in order) the floor keeps: the one with the most evidence
    at `floor`, each other at its `later` bar too (floor None: all). A question asked of
    a vault that cannot answer it is rejected when at most one result stays, so the
    bar that decides it is the second result's; a stricter one there costs an own
    question only where its gold result is not its best (the fitted `later`)."""
    if floor is None:
        return list(range(len(values)))
    lead = max(range(len(values)), key=lambda i: values[i], default=-1)
    return [
        i
        for i, value in enumerate(values)
        if passes(value, floor) and (i == lead or passes(value, later[i]))
    ]


def with_the_newer(
    chosen: Sequence[int], kept: Sequence[int], newer: Mapping[int, int]
) -> list[int]:
    """The kept results and, for each, the chosen result that states its subject's newer
    value (`newer`: a superseded id -> its newer's id, rank/supersession.py), in
    `chosen`'s order. A stale value the floor keeps must not be shown without the value
    that replaced it, however little of the query's wording the newer one shares (a
    daily bullet saying "swapped the product search to Meilisearch" under an archive
    note that still says Elasticsearch)."""
    wanted = set(kept)
    grew = True
    while grew:
        grew = False
        for cid in list(wanted):
            by = newer.get(cid)
            if by is not None and by not in wanted:
                wanted.add(by)
                grew = True
    return [cid for cid in chosen if cid in wanted]


def within_budget(ranked: Sequence[int], tokens: Mapping[int, int], budget: int) -> list[int]:
    """The best results, in order, while their snippets fit `budget` tokens together."""
    kept, used = [], 0
    for key in ranked:
        if used + tokens[key] > budget:
            break
        kept.append(key)
        used += tokens[key]
    return kept
