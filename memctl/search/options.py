"""What a search is asked: its mode and the lists each mode reads, the checks of the
arguments people type, and the scoring policy the vault's settings give."""

from __future__ import annotations

from datetime import date

from memctl.errors import UsageError
from memctl.lexical.plan import Filters
from memctl.search.rank.scoring import Policy, Weights
from memctl.vault import SOURCES, TIERS, Vault

MODES = ("hybrid", "lexical", "vector", "bm25")
MODE_LISTS = {
    "hybrid": ("fts", "trigram", "vector"),
    "lexical": ("fts", "trigram"),
    "vector": ("vector",),
    "bm25": ("fts",),
}
MAX_BUDGET_RESULTS = 50  # --budget: k is the budget's business, up to this many


def policy_from(vault: Vault) -> Policy:
    s = vault.settings.search
    return Policy(
        fusion=s.fusion,
        weights=Weights(
            fts=s.weight_fts,
            trigram=s.weight_trigram,
            vector=s.weight_vector,
            window=s.weight_window,
        ),
        rrf_k=s.rrf_k,
        half_life_days=s.half_life_days,
    )


def checked_k(mode: str, k: int, budget: int | None, min_score: float | None) -> int:
    """The k to search for, after checking the arguments people type."""
    if mode not in MODES:
        raise UsageError(f"search mode must be one of {', '.join(MODES)}, not {mode!r}")
    if k < 1:
        raise UsageError("-k must be at least 1")
    if budget is not None:
        if budget < 1:
            raise UsageError("--budget must be at least 1 token")
        k = MAX_BUDGET_RESULTS
    if min_score is not None and not 0.0 <= min_score <= 1.0:
        raise UsageError("--min-score must be between 0 and 1")
    return k


def _date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date (YYYY-MM-DD)") from None


def checked_filters(
    tier: str | None,
    source: str | None,
    since: str | None,
    until: str | None,
    path: str | None = None,
) -> Filters:
    """The filters people type (the CLI's options, the UI's fields), checked: a clear
    usage error names the option, never a filter silently ignored."""
    if tier is not None and tier not in TIERS:
        raise UsageError(f"--tier must be one of {', '.join(TIERS)}")
    if source is not None and source not in SOURCES:
        raise UsageError(f"--source must be one of {', '.join(SOURCES)}")
    if path is not None and (not path.strip() or path.startswith("/") or ".." in path.split("/")):
        raise UsageError(
            f"--path takes a vault-relative path prefix such as memory/archive/ (got {path!r})"
        )
    return Filters(
        tier=tier,
        source=source,
        since=_date(since, "--since"),
        until=_date(until, "--until"),
        path=path.removeprefix("./") if path else None,
    )


def lists_wanted(
    mode: str, index_model: str, configured: str, notices: list[str]
) -> tuple[str, ...]:
    """The lists a mode reads, without the vector list when the index holds another
    model's vectors than the configured one (a notice says so)."""
    wanted = MODE_LISTS[mode]
    # An index without a model yet ("") holds no vectors of another one.
    if "vector" in wanted and index_model and index_model != configured:
        notices.append(
            f"the index holds vectors of {index_model}, not of the configured model: "
            "answered from keyword search only until `memctl index` re-embeds"
        )
        wanted = tuple(name for name in wanted if name != "vector")
    return wanted


def with_window(wanted: tuple[str, ...], policy: Policy) -> tuple[str, ...]:
    """The window list goes beside the words list in hybrid and lexical modes (bm25
    stays the plain baseline), on either backend."""
    if policy.weights.window > 0 and "fts" in wanted and "trigram" in wanted:
        return (*wanted, "window")
    return wanted
