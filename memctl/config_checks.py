"""A config file's values checked: each setting's type, its range or choices, and the
LLM's and index's settings; every error one line naming the file and the setting (pure)."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from memctl.errors import UsageError

if TYPE_CHECKING:
    from memctl.config import IndexSettings, LLMSettings, Settings

# The valid range of every numeric setting, inclusive, checked in one place
# (`check_ranges`). A value outside it is a one-line error naming the setting, never a
# crash later (a zero batch size, a NaN weight, a negative day count...). Floats must
# also be finite. Where zero is excluded it is because the setting divides or would make
# the feature silently do nothing.
BIG = 10**9
RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("hot", "cap_lines"): (1, 100_000),
    ("warm", "daily_days"): (0, 3650),  # 0: no daily note auto-loaded
    ("warm", "decisions"): (0, 100_000),
    ("embed", "batch_size"): (1, 4096),
    ("embed", "search_embed_seconds"): (0, 60),
    ("embed", "max_file_bytes"): (1_000, BIG),
    ("search", "candidates"): (1, 10_000),
    ("search", "weight_fts"): (0.0, 1_000.0),
    ("search", "weight_trigram"): (0.0, 1_000.0),
    ("search", "weight_vector"): (0.0, 1_000.0),
    ("search", "weight_window"): (0.0, 1_000.0),
    ("search", "rrf_k"): (1, 100_000),
    ("search", "snippet_tokens"): (10, 100_000),
    ("search", "result_tokens"): (0, 100_000),
    ("search", "half_life_days"): (0.01, 36_500.0),
    ("search", "recent_penalty_minutes"): (0, 525_600),
    ("search", "common_term_fraction"): (0.0001, 1.0),
    ("lifecycle", "promote_references"): (0, 1_000_000),
    ("lifecycle", "promote_window_days"): (1, 3650),
    ("lifecycle", "demote_after_days"): (1, 36_500),
    ("lifecycle", "hot_unreferenced_days"): (1, 36_500),
    ("lifecycle", "prune_after_days"): (1, 36_500),
    ("lifecycle", "duplicate_ratio"): (0.0, 100.0),
    ("lifecycle", "duplicate_cosine"): (0.0, 1.0),
    ("llm", "timeout_seconds"): (0.1, 3600.0),
    ("llm", "max_retries"): (0, 20),
    ("agent", "context_budget_tokens"): (100, BIG),
    ("agent", "tool_result_tokens"): (100, BIG),
    ("agent", "history_keep_messages"): (0, 100_000),
    ("agent", "history_soft_budget_tokens"): (100, BIG),
    ("capture", "max_per_session"): (1, 10_000),
    ("capture", "max_transcript_bytes"): (1_000, 2_000_000_000),
}
# List settings that must hold at least one name (every name non-blank).
NON_EMPTY_LISTS = {("hot", "sections")}


def check_ranges(settings: Settings, source: str) -> None:
    for (section, name), (low, high) in RANGES.items():
        value = getattr(getattr(settings, section), name)
        where = f"{source}: [{section}] {name}"
        if isinstance(value, float) and not math.isfinite(value):
            raise UsageError(f"{where} must be a finite number (got {value})")
        if not low <= value <= high:
            raise UsageError(f"{where} must be between {low:g} and {high:g} (got {value:g})")
    for section, name in NON_EMPTY_LISTS:
        value = getattr(getattr(settings, section), name)
        if not value or any(not item.strip() for item in value):
            raise UsageError(
                f"{source}: [{section}] {name} must list at least one name, none blank"
            )
    for section, name in (("lifecycle", "hot_pinned_sections"), ("capture", "deny_paths")):
        if any(not item.strip() for item in getattr(getattr(settings, section), name)):
            raise UsageError(f"{source}: [{section}] {name} must not hold a blank name")
    search = settings.search
    if search.weight_fts + search.weight_trigram + search.weight_vector <= 0:
        raise UsageError(f"{source}: [search] weights must not all be 0")


def coerce(source: str, section: str, name: str, default: Any, value: Any) -> Any:
    where = f"{source}: [{section}] {name}"
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise UsageError(f"{where} must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{where} must be a whole number")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise UsageError(f"{where} must be a number")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise UsageError(f"{where} must be a string")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{where} must be a list of strings")
        return tuple(value)
    raise UsageError(f"{where} has an unsupported type")


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_llm(llm: LLMSettings, source: str) -> None:
    where = f"{source}: [llm]"
    if llm.provider not in ("anthropic", "openai", "command"):
        raise UsageError(f'{where} provider must be "anthropic", "openai" or "command"')
    if llm.api_key_env and not _ENV_NAME.fullmatch(llm.api_key_env):
        # Never echo it: it may be the key itself, pasted where its variable's name goes.
        raise UsageError(
            f"{where} api_key_env must name an environment variable (letters, digits, _); "
            "the key itself never goes in a config file"
        )
    if llm.base_url:
        from urllib.parse import urlsplit

        parts = urlsplit(llm.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"{where} base_url must be an http:// or https:// address")
        if parts.username or parts.password:
            raise UsageError(
                f"{where} base_url holds a user or password; put the key in the variable "
                "api_key_env names"
            )
    if any(not part.strip() for part in llm.command):
        raise UsageError(f"{where} command must not hold a blank argument")
    if llm.provider == "command" and not llm.command:
        raise UsageError(
            f'{where} provider "command" needs command, the program and its arguments '
            '(for example ["claude", "-p"])'
        )


def check_index(index: IndexSettings, source: str) -> None:
    if index.backend not in ("sqlite", "postgres"):
        raise UsageError(f'{source}: [index] backend must be "sqlite" or "postgres"')


def check_settings(settings: Settings, source: str) -> None:
    """Every check of a whole Settings, in the order a user meets them."""
    if settings.search.fusion not in ("weighted", "rrf"):
        raise UsageError(f'{source}: [search] fusion must be "weighted" or "rrf"')
    check_index(settings.index, source)
    check_llm(settings.llm, source)
    if settings.capture.extract not in ("auto", "rules", "llm"):
        raise UsageError(f'{source}: [capture] extract must be "auto", "rules" or "llm"')
    if settings.security.secrets not in ("warn", "refuse"):
        raise UsageError(f'{source}: [security] secrets must be "warn" or "refuse"')
    check_ranges(settings, source)
