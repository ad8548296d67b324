"""`memctl db migrate`, `db status`, `db release`: the shared PostgreSQL index's schema and
namespaces."""

from __future__ import annotations

import typer

from memctl.cli._common import JSON_HELP, console, get_vault, print_json
from memctl.cli.app import app
from memctl.errors import UsageError

db_app = typer.Typer(
    help='The shared PostgreSQL index ([index] backend = "postgres"): schema and vaults.',
    no_args_is_help=True,
)
app.add_typer(db_app, name="db")


def _url(ctx: typer.Context) -> tuple[str, int | None]:
    from memctl.index.backend import backend_of, database_url
    from memctl.index.embed import model_identity

    vault = get_vault(ctx)
    if backend_of(vault) != "postgres":
        raise UsageError(
            'this vault uses the SQLite index; set [index] backend = "postgres" in .memctl.toml '
            "to use a shared server"
        )
    return database_url(vault), model_identity(vault.settings)[1]


@db_app.command("migrate")
def migrate_cmd(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=JSON_HELP)
) -> None:
    """Bring the shared index's schema up to this memctl's version (`memctl index` does too).

    Example: MEMCTL_DATABASE_URL=postgresql://me@db/memory memctl db migrate
    """
    from memctl.index.postgres import schema

    url, dim = _url(ctx)
    with schema.connect(url) as conn:
        applied = schema.migrate(conn, dim or schema.DEFAULT_DIM)
        version = schema.schema_version(conn)
    if json_out:
        print_json({"applied": applied, "schema_version": version})
    elif applied:
        console.print(
            f"schema migrated to version {version} (applied {', '.join(map(str, applied))})"
        )
    else:
        console.print(f"schema up to date (version {version})")


@db_app.command("status")
def status_cmd(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help=JSON_HELP)
) -> None:
    """Schema version and every vault in the shared index with its chunk count.

    Example: memctl db status --json
    """
    from memctl.index.postgres import schema
    from memctl.secrets import redact_url

    url, _ = _url(ctx)
    with schema.connect(url) as conn:
        version = schema.schema_version(conn)
        vaults = []
        if version:
            vaults = [
                {"vault": v, "chunks": int(n), "last_sync": last}
                for v, n, last in conn.execute(
                    "SELECT vault, chunks, last_sync FROM vault_stats ORDER BY vault"
                )
            ]
    data = {
        "database": redact_url(url),
        "schema_version": version,
        "latest": schema.LATEST,
        "vaults": vaults,
    }
    if json_out:
        print_json(data)
        return
    console.print(f"{data['database']}: schema {version} (this memctl: {schema.LATEST})")
    for v in vaults:
        console.print(
            f"  {v['vault']}: {v['chunks']} chunks, last sync {v['last_sync'] or 'never'}"
        )


@db_app.command("release")
def release_cmd(
    ctx: typer.Context,
    namespace: str = typer.Argument(..., help="The namespace ([index] vault) to free."),
) -> None:
    """Free a namespace claimed by a vault that moved or is gone; its rows stay.

    The next vault to index into it claims it (docs/scale.md, "Namespaces").

    Example: memctl db release agent
    """
    from memctl.index.postgres import claims, schema

    url, _ = _url(ctx)
    with schema.connect(url) as conn:
        if schema.schema_version(conn) < 10:
            console.print(f"{namespace}: not claimed (the schema has no claims yet)")
            return
        freed = claims.release(conn, namespace)
    console.print(f"{namespace}: {'released' if freed else 'not claimed'}")
