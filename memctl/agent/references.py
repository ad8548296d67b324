"""Record that an agent loaded memory, so promotion rules see what is actually used.

Only when the index exists: loading context must work on a vault never indexed, and
building an index as a side effect of reading would surprise (and be slow).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from memctl import clock
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.index.backend import ReferenceKind

Range = tuple[str | None, int | None, int | None]


def record_loaded(
    vault: Vault,
    ranges: Sequence[Range],
    *,
    kind: ReferenceKind,
    query: str | None = None,
    now: datetime | None = None,
) -> str | None:
    """Log a reference for every indexed chunk overlapping `ranges`; a notice if it failed."""
    wanted = [(p, s or 1, e or s or 1) for p, s, e in ranges if p]
    from memctl.index.backend import has_index, open_store

    if not wanted or not has_index(vault):
        return None
    try:
        with open_store(vault) as store:
            rows = store.chunks_in_paths(sorted({p for p, _, _ in wanted}))
            hits = [
                (h, p)
                for h, p, s, e in rows
                if any(p == wp and s <= we and e >= ws for wp, ws, we in wanted)
            ]
            if hits:
                store.record_references(hits, kind, query, now or clock.now())
    except Exception as exc:  # the agent's read must not fail because usage logging did
        return f"usage not recorded ({type(exc).__name__}: {exc})"
    return None
