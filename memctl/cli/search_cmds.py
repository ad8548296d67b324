"""`memctl search` and `memctl eval`: parse, call memctl.search, print."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.text import Text

from memctl.cli._common import (
    JSON_HELP,
    console,
    err,
    get_vault,
    print_json,
    print_json_line,
    read_source,
)
from memctl.cli.app import app
from memctl.errors import UsageError
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.search.hybrid import Filters, SearchResponse

# The search library pulls numpy, rapidfuzz and sqlite-vec: imported inside the commands
# so `memctl --version` and every other command do not pay for them.
MODES = ("hybrid", "lexical", "vector", "bm25")

_MODE_HELP = "hybrid (default), lexical (words + trigram), vector, or bm25 (words only)."


def _filters(
    tier: str | None,
    source: str | None,
    since: str | None,
    until: str | None,
    path: str | None = None,
) -> Filters:
    from memctl.search.options import checked_filters

    return checked_filters(tier, source, since, until, path)


def _shows_heading(snippet: str, heading: str) -> bool:
    """The snippet holds the heading's own line: printing the path again is noise."""
    own = heading.rsplit(" > ", 1)[-1].strip()
    return any(
        line.startswith("#") and line.lstrip("#").strip() == own for line in snippet.split("\n")
    )


def _dates_line(dates: dict[str, Any]) -> str:
    """--explain's line on the dates a query was read as (rank/dated.py)."""
    said = "; ".join(
        f"{r['said']!r} = {r['since']}" + (f"..{r['until']}" if r["until"] != r["since"] else "")
        for r in dates["ranges"]
    )
    how = (
        "searched inside it only"
        if dates["confined"]
        else f"dated inside ×{dates['boost']:g}"
        if dates["found"]
        else "no note dated then: searched as words"
    )
    return f"dates: {said} ({how})"


def _print_listing(response: SearchResponse, explain: bool) -> None:
    if explain and response.dates:
        console.print(Text(_dates_line(response.dates), style="dim"))
    if not response.results:
        if response.below_floor:
            console.print(f"no memory matches {response.query!r}")
        else:
            console.print(f"no results for {response.query!r}")
        return
    # The lines go out in one console.print (a table flushes them first): rich's per-call
    # work, ~30 calls for five results, cost more than the search on a small vault. A
    # line's own style becomes a span of the joined Text: the same segments, same bytes.
    lines: list[Text] = []

    def flush() -> None:
        if lines:
            console.print(Text("\n").join(lines))
            lines.clear()

    for n, result in enumerate(response.results, start=1):
        head = Text(f"{n}. ", style="bold")
        head.append(f"{result.path}:{result.line_start}-{result.line_end}", style="bold cyan")
        head.append(f"  {result.date or 'undated'}  {result.tier}/{result.source}  ")
        head.append(f"score {result.score:.3f}", style="dim")
        lines.append(head)
        if result.heading and not _shows_heading(result.snippet, result.heading):
            lines.append(Text(f"   {result.heading}", style="dim"))
        body = Text(result.snippet)
        for start, end in result.highlights:
            body.stylize("bold yellow", start, end)
        lines.extend(Text("   ").append(line) for line in body.split("\n"))
        if explain and result.superseded_by:
            lines.append(Text(f"   superseded by {result.superseded_by}", style="yellow"))
        if explain and result.explain:
            flush()
            table = Table(show_header=True, box=None, padding=(0, 2))
            table.add_column("signal")
            table.add_column("raw", justify="right")
            table.add_column("contribution", justify="right")
            for name, value in result.explain["contribution"].items():
                raw = result.explain["raw"].get(name, "")
                table.add_row(name, f"{raw}", f"{value:.4f}")
            for name, value in result.explain["factors"].items():
                table.add_row(name, "", f"× {value:.4f}")
            table.add_row("final", "", f"{result.explain['final']:.4f}")
            console.print(table)
        lines.append(Text())
    flush()


def _notify(response: SearchResponse) -> None:
    for notice in response.notices:
        err(f"memctl: {notice}")
    if response.below_floor:
        err(
            f"memctl: {response.below_floor} results below the relevance floor "
            f"({response.floor:g}) left out; --all shows them"
        )


@app.command()
def search(
    ctx: typer.Context,
    query: str | None = typer.Argument(
        None, help="What to look for (plain text; no query syntax)."
    ),
    k: int = typer.Option(5, "-k", help="How many results."),
    tier: str | None = typer.Option(None, "--tier", help="Only this tier: hot, warm or cold."),
    source: str | None = typer.Option(
        None, "--source", help="Only this source: core, daily, decision or archive."
    ),
    since: str | None = typer.Option(
        None, "--since", help="Only memories dated on or after (YYYY-MM-DD)."
    ),
    until: str | None = typer.Option(
        None, "--until", help="Only memories dated on or before (YYYY-MM-DD)."
    ),
    explain: bool = typer.Option(
        False, "--explain", help="Show each signal's raw value and contribution."
    ),
    no_log: bool = typer.Option(False, "--no-log", help="Leave no trace in the usage log."),
    batch: str | None = typer.Option(
        None,
        "--batch",
        metavar="FILE|-",
        help="One query per line; prints one JSON object per line.",
    ),
    mode: str = typer.Option("hybrid", "--mode", help=_MODE_HELP),
    path: str | None = typer.Option(
        None, "--path", help="Only files under this vault-relative prefix (memory/archive/2025-)."
    ),
    min_score: float | None = typer.Option(
        None,
        "--min-score",
        help="Keep results whose evidence (0..1) is at least this, instead of the calibrated floor.",
    ),
    show_all: bool = typer.Option(
        False, "--all", help="No relevance floor: show the top k whatever they are."
    ),
    budget: int | None = typer.Option(
        None, "--budget", help="As many results as fit this many snippet tokens, best first."
    ),
    as_of: str | None = typer.Option(
        None,
        "--as-of",
        help="Search the vault as committed at this date (YYYY-MM-DD) or git revision.",
    ),
    scope: str = typer.Option(
        "own",
        "--scope",
        help="Shared (postgres) index only: own (default), team (every vault), "
        "or vault names separated by commas.",
    ),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Hybrid search of the vault (words, typos, meaning), freshest and most useful first.

    Results below a calibrated relevance floor are left out (--all shows them); when
    none pass it says "no memory matches".

    Examples: memctl search "why did we pick sqlite"
              memctl search get_vault --tier warm --json
              memctl search "rollout plan" --as-of 2026-10-01
              printf 'deploy\\nдеплой\\n' | memctl search --batch - --json
    """
    from dataclasses import replace

    from memctl.index.backend import parse_scope
    from memctl.search.warm import searcher_for

    vault = get_vault(ctx)
    filters = replace(_filters(tier, source, since, until, path), scope=parse_scope(vault, scope))
    if show_all and min_score is not None:
        raise UsageError("give either --all or --min-score, not both")
    floor: dict[str, Any] = {"min_score": min_score, "use_floor": not show_all, "budget": budget}
    if batch is not None:
        if query is not None:
            raise UsageError("give either QUERY or --batch, not both")
        if as_of is not None:
            raise UsageError("--as-of works with one QUERY, not --batch")
        _run_batch(
            vault, batch, k=k, filters=filters, explain=explain, log=not no_log, mode=mode, **floor
        )
        return
    if query is None or not query.strip():
        raise UsageError("nothing to search for: give a QUERY (or --batch FILE)")
    if as_of is not None:
        from memctl.search.as_of import search_as_of

        response = search_as_of(
            vault, as_of, query, k=k, filters=filters, explain=explain, mode=mode, **floor
        )
    else:
        with searcher_for(vault) as searcher:
            response = searcher.search(
                query, k=k, filters=filters, explain=explain, log=not no_log, mode=mode, **floor
            )
    _notify(response)
    if json_out:
        print_json(response.to_dict())
    else:
        _print_listing(response, explain)


def _run_batch(
    vault: Vault,
    source: str,
    *,
    k: int,
    filters: Filters,
    explain: bool,
    log: bool,
    mode: str,
    **floor: Any,
) -> None:
    from memctl.search.hybrid import Searcher

    lines = [line for line in read_source(source).splitlines() if line.strip()]
    with Searcher(vault) as searcher:
        for n, line in enumerate(lines):
            # One freshness check per batch: the vault does not change under a batch's feet.
            searcher.fresh = n == 0
            response = searcher.search(
                line, k=k, filters=filters, explain=explain, log=log, mode=mode, **floor
            )
            if n == 0:
                _notify(response)
            out = response.to_dict()
            print_json_line(
                {
                    "query": out["query"],
                    "results": out["results"],
                    "below_floor": out["below_floor"],
                }
            )


@app.command("eval")
def eval_cmd(
    ctx: typer.Context,
    queries: Path = typer.Argument(..., help="Labelled queries, one JSON object per line."),
    k: int = typer.Option(5, "-k", help="Cut-off for recall@k and NDCG@k."),
    modes: str = typer.Option(
        "hybrid,lexical,vector", "--modes", help="Comma-separated: hybrid, lexical, vector, bm25."
    ),
    per_query: bool = typer.Option(False, "--per-query", help="Include each query's metrics."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Measure recall@k, MRR and NDCG@k of each search mode on labelled queries.

    Searches run with --no-log, so evaluating never changes usage counts.
    Example: memctl eval tests/search/fixture_vault/queries.jsonl -k 5
    """
    from memctl.search.evaluate import evaluate_vault, parse_queries

    vault = get_vault(ctx)
    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    bad = [m for m in wanted if m not in MODES]
    if bad or not wanted:
        raise UsageError(f"--modes takes {', '.join(MODES)} (got {modes!r})")
    labelled = parse_queries(read_source(str(queries)).splitlines(), str(queries))
    if not labelled:
        raise UsageError(f"{queries} holds no query with gold evidence")
    reports = evaluate_vault(vault, labelled, k=k, modes=wanted)
    data = {
        "k": k,
        "queries": len(labelled),
        "modes": {m: r.to_dict(per_query) for m, r in reports.items()},
    }
    if json_out:
        print_json(data)
        return
    table = Table(title=f"{len(labelled)} queries, k={k}")
    for col in ("mode", "category", "n", f"recall@{k}", "MRR", f"NDCG@{k}"):
        table.add_column(col, justify="left" if col in ("mode", "category") else "right")
    for mode, report in reports.items():
        rows = [("all", report.overall), *sorted(report.categories.items())]
        for name, tally in rows:
            d = tally.to_dict()
            table.add_row(
                mode, name, str(d["n"]), f"{d['recall']:.3f}", f"{d['mrr']:.3f}", f"{d['ndcg']:.3f}"
            )
    console.print(table)
