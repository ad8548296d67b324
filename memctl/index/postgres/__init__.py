"""The PostgreSQL index backend (pgvector + pg_trgm + full-text), shared by a team.

Imported only when a vault's `[index] backend` is "postgres": psycopg stays off the
single-user path. Install with `pip install 'memctl[postgres]'`.
"""

from __future__ import annotations

try:
    import psycopg  # noqa: F401
except ImportError:  # pragma: no cover - depends on the installation
    from memctl.errors import MemctlError

    raise MemctlError(
        '[index] backend = "postgres" needs psycopg: pip install "memctl[postgres]"'
    ) from None

from memctl.index.postgres.store import PgStore

__all__ = ["PgStore"]
