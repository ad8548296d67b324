"""The search page: the CLI's search with --explain, its filters and --as-of, for a person.

A person's searches here leave no trace in the usage log (as `--no-log`): what someone
looks at while reviewing is not what the agent needed, and counting it would feed the
promotions that person is deciding on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from memctl.ui import charts
from memctl.vault import Vault

FIELDS = ("q", "tier", "source", "since", "until", "path", "as_of", "k")
MAX_K = 50


@dataclass
class Shown:
    """One result as the page draws it."""

    path: str
    line_start: int
    line_end: int
    heading: str
    date: str | None
    tier: str
    source: str
    score: float
    evidence: float
    passed: bool  # the relevance floor's verdict
    pieces: list[tuple[str, bool]]  # the snippet as (text, highlighted) runs
    bars: Markup | None


@dataclass
class SearchPage:
    asked: dict[str, str]
    results: list[Shown] = field(default_factory=list)
    floor: float | None = None
    below_floor: int = 0
    notices: list[str] = field(default_factory=list)
    as_of: dict[str, str] | None = None
    error: str | None = None
    ran: bool = False


def search_page(vault: Vault, params: Mapping[str, str]) -> SearchPage:
    """Run the search the form asks for (nothing when the box is empty)."""
    from memctl.errors import MemctlError

    asked = {name: (params.get(name) or "").strip() for name in FIELDS}
    page = SearchPage(asked)
    if not asked["q"]:
        return page
    try:
        _run(vault, page)
    except MemctlError as exc:
        page.error = str(exc)
    return page


def _run(vault: Vault, page: SearchPage) -> None:
    from memctl.errors import UsageError
    from memctl.search.options import checked_filters

    asked = page.asked
    k = int(asked["k"]) if asked["k"].isdigit() else 10
    if not 1 <= k <= MAX_K:
        raise UsageError(f"k must be between 1 and {MAX_K}")
    filters = checked_filters(
        asked["tier"] or None,
        asked["source"] or None,
        asked["since"] or None,
        asked["until"] or None,
        asked["path"] or None,
    )
    # With --all the floor's verdict is shown per result instead of hiding the failures.
    options: dict[str, Any] = {"k": k, "filters": filters, "explain": True, "use_floor": True}
    if asked["as_of"]:
        from memctl.search.as_of import search_as_of

        response = search_as_of(vault, asked["as_of"], asked["q"], **options)
    else:
        from memctl.search.warm import searcher_for

        with searcher_for(vault) as searcher:
            response = searcher.search(asked["q"], log=False, **options)
    page.ran = True
    page.floor, page.below_floor = response.floor, response.below_floor
    page.notices, page.as_of = list(response.notices), response.as_of
    for r in response.results:
        explain = r.explain or {}
        page.results.append(
            Shown(
                path=r.path,
                line_start=r.line_start,
                line_end=r.line_end,
                heading=r.heading,
                date=r.date,
                tier=r.tier,
                source=r.source,
                score=r.score,
                evidence=r.evidence,
                passed=response.floor is None or r.evidence >= response.floor,
                pieces=pieces(r.snippet, r.highlights),
                bars=(
                    charts.signal_bars(explain["contribution"], float(explain["final"]))
                    if "contribution" in explain
                    else None
                ),
            )
        )


def pieces(text: str, highlights: tuple[tuple[int, int], ...]) -> list[tuple[str, bool]]:
    """`text` cut at the highlights' offsets: the template marks the highlighted runs,
    each escaped as text."""
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(highlights):
        if start < at:
            continue
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out
