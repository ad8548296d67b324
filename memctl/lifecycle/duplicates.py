"""Near-duplicates across tiers for lint: lines by rapidfuzz, chunks by their vectors.

HOT against WARM is compared line by line, all pairs (a few hundred lines each side).
Against COLD (up to millions of lines) each HOT and WARM chunk is compared only with its
nearest chunks of another tier by vector (`IndexBackend.near_pairs`: blocks of vec0 on
SQLite, the HNSW index on PostgreSQL): their lines by rapidfuzz, the chunks themselves
by cosine. Without vectors (no index, or not embedded yet) every COLD line is compared,
all pairs, which is what a small vault can afford.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process

from memctl.lifecycle.units import Unit, units_of

if TYPE_CHECKING:
    from memctl.index.backend import IndexBackend
    from memctl.index.neighbours import NeighbourPair
    from memctl.index.usage import ChunkRecord

NEIGHBOURS = 10  # nearest chunks of another tier each HOT and WARM chunk is compared with
RANK = {"hot": 0, "warm": 1, "cold": 2}
Pair = tuple[Unit, Unit, float]


def near_duplicates(units: list[Unit], ratio: float) -> list[Pair]:
    """Pairs of lines in different tiers whose normalised text is at least `ratio` similar."""
    import numpy as np  # lazily: keeps CLI start-up fast

    pairs = []
    by_tier = {t: [u for u in units if u.tier == t] for t in ("hot", "warm", "cold")}
    for a_tier, b_tier in (("hot", "warm"), ("hot", "cold"), ("warm", "cold")):
        a, b = by_tier[a_tier], by_tier[b_tier]
        if not a or not b:
            continue
        scores = process.cdist(
            [u.norm for u in a],
            [u.norm for u in b],
            scorer=fuzz.ratio,
            score_cutoff=ratio,
            dtype=np.uint8,
            workers=1,
        )
        for i, j in zip(*np.nonzero(scores), strict=True):
            pairs.append((a[i], b[j], float(scores[i, j])))
    return pairs


@dataclass
class Neighbourhood:
    """Each HOT and WARM chunk's nearest chunks of another tier, with the chunks' rows."""

    pairs: list[NeighbourPair]
    chunks: dict[int, ChunkRecord]
    model_id: str

    @classmethod
    def of(cls, store: IndexBackend, state_dir: Path | None = None) -> Neighbourhood | None:
        """None when the index holds no vectors (of the model it says it holds).

        The store reads the vectors its fastest way (IndexBackend.vector_blocks)."""
        if not store.has_vectors():
            return None
        blocks = store.vector_blocks(state_dir) if state_dir is not None else None
        pairs = store.near_pairs(-1.0, NEIGHBOURS, blocks)
        ids = [p.source for p in pairs] + [p.neighbour for p in pairs]
        return cls(pairs, {c.id: c for c in store.chunks_by_ids(ids)}, store.model_id)

    def ordered(self) -> list[tuple[ChunkRecord, ChunkRecord, float]]:
        """(higher tier, lower tier, cosine) once per pair of chunks."""
        out = []
        for pair in self.pairs:
            a, b = self.chunks.get(pair.source), self.chunks.get(pair.neighbour)
            if a is not None and b is not None and RANK.get(a.tier, 9) < RANK.get(b.tier, -1):
                out.append((a, b, pair.cosine))
        return out


def line_duplicates(
    units: list[Unit], texts: dict[str, str], hood: Neighbourhood | None, ratio: float
) -> list[Pair]:
    """Near-duplicate lines across tiers. `units`: HOT and WARM lines; `texts`: every file
    (COLD lines are read from it only without a neighbourhood)."""
    if hood is None:
        lines = [
            u for path, text in texts.items() for u in units_of(path, text) if u.tier == "cold"
        ]
        return near_duplicates(units + lines, ratio)
    pairs = near_duplicates(units, ratio)  # HOT against WARM: no COLD among them
    by_path: dict[str, list[Unit]] = {}
    for u in units:
        by_path.setdefault(u.path, []).append(u)
    seen: set[tuple[str, int, str, int]] = set()
    cold: dict[int, list[Unit]] = {}
    for a, b, _cosine in hood.ordered():
        if b.tier != "cold":
            continue
        mine = [u for u in by_path.get(a.path, ()) if a.line_start <= u.line <= a.line_end]
        if not mine:
            continue
        if b.id not in cold:
            shift = b.line_start - 1  # the chunk's own lines, numbered as in its file
            cold[b.id] = [replace(u, line=u.line + shift) for u in units_of(b.path, b.text)]
        theirs = cold[b.id]
        for x in mine:
            for y in theirs:
                score = fuzz.ratio(x.norm, y.norm, score_cutoff=ratio)
                key = (x.path, x.line, y.path, y.line)
                if score and key not in seen:
                    seen.add(key)
                    pairs.append((x, y, float(score)))
    return pairs


def vector_duplicates(
    hood: Neighbourhood, threshold: float
) -> list[tuple[ChunkRecord, ChunkRecord, float]]:
    """Chunks in different tiers whose calibrated cosine is at least `threshold`."""
    from memctl.index.embed.registry import calibrated_cosine

    found = []
    for a, b, cosine in hood.ordered():
        calibrated = calibrated_cosine(cosine, hood.model_id)
        if calibrated >= threshold:
            found.append((a, b, calibrated))
    return found
