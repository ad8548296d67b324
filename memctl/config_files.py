"""Where settings come from: the user's own config (~/.config/memctl/config.toml), then
an optional `.memctl.toml` at the vault root over it.

The vault's file is committed with the vault, so a team shares caps, weights and models;
what runs and where memory and secrets go (USER_ONLY) only the user's own config sets.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from memctl.config import CONFIG_FILE, Settings, settings_from_dict
from memctl.errors import UsageError

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
