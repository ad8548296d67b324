"""The units' vectors (memctl.index.units) into the embedding cache, beside the chunks'.

Units have no rows of their own: a unit is found again from its chunk's text, its vector
by its text's hash in the cache the chunks' vectors come from (`state.embed_cache`, or a
shared server's vault-local cache). So both backends hold them the same way, a re-index
of unchanged text embeds nothing, and the rows, FTS tables and vector index stay as they
were. Search reads them for its candidates only (memctl.search.rank.meaning), and only in
an index of at most UNITS_MAX_CHUNKS chunks: past it none is embedded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from memctl.index.embed.base import Embedder
from memctl.index.protocol import IndexBackend
from memctl.index.units import UNITS_MAX_CHUNKS, units_of

UNITS_VERSION = "1"  # a change to how units are cut or worded re-embeds them once
UNITS_PAST = "past"  # the index is past UNITS_MAX_CHUNKS: backfilled once back under it
_SCAN = 2000  # chunks read per step of the first backfill


def embeds_units(store: IndexBackend, setting: bool) -> bool:
    """Whether an embedding pass embeds the facts: `[search] units` on and the index within
    UNITS_MAX_CHUNKS. Otherwise the index is marked so the chunks embedded now wait for a
    backfill: UNITS_PAST until it is back under the limit (a quiet sync then counts the
    chunks no more), "" until the setting is turned on again."""
    if setting and store.chunk_count() <= UNITS_MAX_CHUNKS:
        return True
    past = UNITS_PAST if setting else ""
    if (store.units_embedded() or "") != past:
        store.set_units_embedded(past)
    return False


def embed_units(
    store: IndexBackend,
    embedder: Embedder,
    texts: Iterable[str],
    batch_size: int,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Embed the units of these chunk texts that the cache lacks; returns how many."""
    wanted: dict[str, str] = {}
    for text in texts:
        for unit in units_of(text):
            wanted.setdefault(unit.hash, unit.text)
    if not wanted:
        return 0
    have = store.cached_vectors(list(wanted))
    missing = [(h, t) for h, t in wanted.items() if h not in have]
    done = 0
    for i in range(0, len(missing), batch_size):
        if stop and stop():
            break
        part = missing[i : i + batch_size]
        vectors = embedder.embed_passages([t for _, t in part])
        with store.transaction():
            store.cache_vectors(embedder.model_id, zip((h for h, _ in part), vectors, strict=True))
        done += len(part)
    return done


def backfill_units(
    store: IndexBackend,
    embedder: Embedder,
    batch_size: int,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Once per index (and per UNITS_VERSION): the units of every chunk, so an index
    built before units existed gains them at its next embedding pass."""
    if store.units_embedded() == UNITS_VERSION:
        return 0
    last_id, done = 0, 0
    while rows := store.chunk_texts_after(last_id, _SCAN):
        if stop and stop():
            return done
        last_id = rows[-1][0]
        done += embed_units(store, embedder, (text for _, text in rows), batch_size, stop)
    store.set_units_embedded(UNITS_VERSION)
    return done
