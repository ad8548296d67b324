"""Which index a vault opens: `open_store(vault)` (SQLite's `Store`, or `PgStore` on a
team's PostgreSQL server; psycopg is imported only when a vault asks for postgres, so the
single-user path pays nothing for the second backend), whether there is one to read, and
a store's in-process SQLite connection. The protocol the stores implement is
memctl.index.protocol's; its names are importable from here too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memctl.index.protocol import REFERENCE_KINDS as REFERENCE_KINDS
from memctl.index.protocol import ContextWindow as ContextWindow
from memctl.index.protocol import IndexBackend as IndexBackend
from memctl.index.protocol import ReferenceKind as ReferenceKind
from memctl.index.protocol import Window as Window
from memctl.index.protocol import backend_of as backend_of
from memctl.index.protocol import database_url as database_url
from memctl.index.protocol import parse_scope as parse_scope
from memctl.index.protocol import vault_name as vault_name
from memctl.sqlite import insert_rows as insert_rows
from memctl.sqlite import iter_batches as iter_batches
from memctl.sqlite import select_in as select_in

if TYPE_CHECKING:
    from memctl.vault import Vault


def open_store(vault: Vault, **options: Any) -> IndexBackend:
    """The vault's index, of the backend its settings choose."""
    if backend_of(vault) == "postgres":
        from memctl.index.postgres import PgStore

        return PgStore.open(vault)
    from memctl.index.store import Store

    return Store.open(vault, **options)


def has_index(vault: Vault) -> bool:
    """Whether an index exists to read (a shared server always counts as one)."""
    if backend_of(vault) == "postgres":
        return True
    from memctl.index.store import index_path

    return index_path(vault).exists()
