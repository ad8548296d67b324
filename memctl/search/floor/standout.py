"""How far a result's meaning stands out from this vault's own candidates for its query
(pure), for the relevance floor: judged against the vault, not against a fixed cosine.

e5's cosines crowd into a narrow band (0.75-0.86 for anything against anything), and
where that band sits moves with the query and the vault: "root:x:0" scores 0.82-0.83
against every chunk of a new vault, a paraphrase 0.81-0.85 against its note. A fixed bar
cannot tell them apart; the distance above what this query scores against this vault can.
The vault's typical similarity for a query is the mean cosine of its vector list (the
30 nearest chunks; in a vault smaller than that, every chunk): in a new vault with two
notes a paraphrase stands 0.03-0.06 above it, "root:x:0" or "what is the capital of
Australia" at most 0.02. In a large vault the 30 nearest crowd together and a result
must stand further out from them than it would from the whole vault: the rule is
stricter there, never looser.

A chunk that holds only the vault template's lines (core.md's empty sections, the
comment at the head of decisions.md) shows nothing and is no evidence of anything, yet
such near-empty chunks are the ones every query scores high against.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from importlib import resources

# How far above the vault's typical similarity for its query (the mean cosine of its
# vector list) a result whose words the vault does not hold must stand to pass on its
# meaning alone. Two-note vaults (docs/lab/search.md, "A floor that knows the vault"):
# paraphrases 0.032-0.058 above, foreign questions at most 0.021.
STANDOUT_MARGIN = 0.03
# A result passing on its meaning alone gets the floor plus this much evidence per unit
# of cosine above the margin (capped at 1): it passes, and it is not mistaken for one
# that its words and meaning carry together.
STANDOUT_SLOPE = 5.0

# The content words (the floor's terms) a query needs for its meaning alone to carry a
# result past the gate. One or two words found nowhere in the vault name something it
# does not hold ("zzzqqq nonexistent", a one-word Hebrew query: e5 scored a 16-chunk
# fixture's nearest note 0.04-0.08 above the mean for such queries); restating a fact in
# other words takes a sentence.
MEANING_MIN_WORDS = 3

# How far above the query's typical similarity the result nearest in meaning of its
# chosen few must stand to pass on that alone (the query's words in the vault, no filter):
# a paraphrase that shares no word with its answer gets little evidence from the
# classifier, yet it is the one candidate whose meaning stands out. On the vault-shaped
# sets' tune splits (tools/vaultset, agentvault; docs/lab/search.md, "The result nearest
# in meaning") such gold stood 0.02-0.04 above, the nearest result of a question the vault
# cannot answer as often below 0.02 as above: this keeps what stands out without letting
# a second result through for most of those.
NEAREST_MARGIN = 0.02

_TEMPLATE_FILES = ("core.md", "decisions.md")


@functools.cache
def template_lines() -> frozenset[str]:
    """The lines of the vault template's files (stripped, blank ones left out)."""
    base = resources.files("memctl") / "vault_template" / "memory"
    lines: set[str] = set()
    for name in _TEMPLATE_FILES:
        entry = base / name
        if entry.is_file():
            text = entry.read_text(encoding="utf-8")
            lines.update(line.strip() for line in text.splitlines() if line.strip())
    return frozenset(lines)


@functools.lru_cache(maxsize=4096)
def template_only(text: str) -> bool:
    """Whether every non-blank line of a chunk is a line of the vault template (a new
    vault's core.md sections with nothing under them)."""
    known = template_lines()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return bool(lines) and all(line in known for line in lines)


def restates(words: int) -> bool:
    """Whether a query of this many content words can be a fact restated in other words."""
    return words >= MEANING_MIN_WORDS


def typical(cosines: Iterable[float]) -> float | None:
    """The vault's typical similarity for the query: the mean cosine of its vector list."""
    values = list(cosines)
    return sum(values) / len(values) if values else None


def standout(cosine: float | None, usual: float | None) -> float:
    """How far a cosine stands above the query's typical similarity (0 without either)."""
    if cosine is None or usual is None:
        return 0.0
    return cosine - usual


def meaning_evidence(above: float, floor: float) -> float:
    """The evidence of a result carried by its meaning alone, `above` the typical
    similarity: at least `floor` from STANDOUT_MARGIN on, 0 below it."""
    if above < STANDOUT_MARGIN - 1e-9:
        return 0.0
    return min(floor + STANDOUT_SLOPE * (above - STANDOUT_MARGIN), 1.0)


def nearest(cosines: Mapping[int, float | None], excluded: Iterable[int] = ()) -> int | None:
    """The result nearest in meaning among `cosines` (a result's cosine, None without
    one), `excluded` left out (template-only chunks): ties go to the first."""
    left = set(excluded)
    best, value = None, -math.inf
    for cid, cosine in cosines.items():
        if cosine is not None and cid not in left and cosine > value:
            best, value = cid, cosine
    return best


def stands_out(above: float) -> bool:
    """Whether the nearest result's meaning alone carries it (NEAREST_MARGIN)."""
    return above >= NEAREST_MARGIN - 1e-9
