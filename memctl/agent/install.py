"""`memctl install`: memctl's MCP server and hooks merged into an agent's own configuration.

Every file is merged, never replaced: other servers, hooks and keys stay as they were.
The first install that changes an existing file keeps its bytes in `<file>.memctl-backup`;
`--uninstall` removes exactly memctl's entries and, when nothing else changed since,
puts the backup's bytes back (the file byte-identical to before), or deletes a file the
install created. `--dry-run` computes the same changes and writes nothing.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memctl.agent.install_targets import (
    SERVER_NAME,
    ConfigFile,
    Scope,
    Target,
    config_files,
    item_is_ours,
)
from memctl.errors import UsageError
from memctl.files import read_bytes, update_file

BACKUP_SUFFIX = ".memctl-backup"
Action = Literal["create", "update", "unchanged", "restore", "delete"]


@dataclass(frozen=True)
class FileChange:
    """What install or uninstall does to one file (`before`/`after`: None when absent)."""

    path: Path
    action: Action
    before: str | None
    after: str | None
    backup: Path | None = None  # written (install) or read back (uninstall)

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                (self.after or "").splitlines(keepends=True),
                fromfile=f"{self.path} (before)" if self.before is not None else "/dev/null",
                tofile=f"{self.path} (after)" if self.after is not None else "/dev/null",
            )
        )

    def summary(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "action": self.action,
            "backup": str(self.backup) if self.backup else None,
        }


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _read(path: Path) -> str | None:
    if not os.path.lexists(path):
        return None
    if not path.is_file():
        raise UsageError(f"{path} is not a regular file: nothing written")
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not valid UTF-8 (byte {exc.start}): nothing written") from None


# -- JSON ----------------------------------------------------------------------------------


def _load_json(path: Path, text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}): fix it first; "
            "nothing written"
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object: nothing written")
    return data


def _indent(text: str) -> int | str:
    """The indentation the file already uses (2 spaces for a new one)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def _dump_json(data: dict[str, Any], like: str) -> str:
    return json.dumps(data, indent=_indent(like), ensure_ascii=False) + "\n"


def _dict_at(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise UsageError(f"{path}: {key} is not a JSON object: nothing written")
    return value


def _without_ours_json(data: dict[str, Any], spec: ConfigFile) -> dict[str, Any]:
    """`data` less memctl's entries, containers they leave empty removed."""
    data = json.loads(json.dumps(data))  # a deep copy
    servers = data.get("mcpServers")
    if spec.server is not None and isinstance(servers, dict) and SERVER_NAME in servers:
        del servers[SERVER_NAME]
        if not servers:
            del data["mcpServers"]
    hooks = data.get("hooks")
    if not spec.hooks or not isinstance(hooks, dict):
        return data
    removed = False
    for event in list(hooks):
        items = hooks[event]
        if isinstance(items, list) and any(item_is_ours(i) for i in items):
            removed = True
            kept = [i for i in items if not item_is_ours(i)]
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if removed and not hooks:
        del data["hooks"]
        if spec.version and set(data) == {"version"}:
            del data["version"]
    return data


def _with_ours_json(data: dict[str, Any], spec: ConfigFile, path: Path) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    if spec.version:
        data.setdefault("version", 1)
    if spec.server is not None:
        _dict_at(data, "mcpServers", path)[SERVER_NAME] = spec.server
    if spec.hooks:
        hooks = _dict_at(data, "hooks", path)
        for event, ours in spec.hooks.items():
            items = hooks.setdefault(event, [])
            if not isinstance(items, list):
                raise UsageError(f"{path}: hooks.{event} is not a JSON list: nothing written")
            hooks[event] = [i for i in items if not item_is_ours(i)] + ours
    return data


# -- TOML (Codex) --------------------------------------------------------------------------


def _load_toml(path: Path, text: str) -> Any:
    import tomllib

    import tomlkit

    try:
        tomllib.loads(text)  # the reader Codex's own format follows; tomlkit keeps the layout
        return tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise UsageError(
            f"{path} is not valid TOML ({exc}): fix it first; nothing written"
        ) from None


def _toml_without_ours(doc: Any) -> Any:
    servers = doc.get("mcp_servers")
    if servers is not None and SERVER_NAME in servers:
        del servers[SERVER_NAME]
        if not servers:
            del doc["mcp_servers"]
    return doc


def _toml_with_ours(doc: Any, spec: ConfigFile, path: Path) -> Any:
    import tomlkit

    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc["mcp_servers"] = servers
    elif not isinstance(servers, dict):
        raise UsageError(f"{path}: mcp_servers is not a table: nothing written")
    table = tomlkit.table()
    assert spec.server is not None
    for key, value in spec.server.items():
        table[key] = value
    if SERVER_NAME in servers:
        del servers[SERVER_NAME]
    servers[SERVER_NAME] = table
    return doc


# -- both ----------------------------------------------------------------------------------


def _installed(spec: ConfigFile, text: str) -> str:
    if spec.format == "toml":
        import tomlkit

        return tomlkit.dumps(_toml_with_ours(_load_toml(spec.path, text), spec, spec.path))
    data = _with_ours_json(_load_json(spec.path, text), spec, spec.path)
    return _dump_json(data, text)


def _stripped(spec: ConfigFile, text: str) -> Any:
    """The file's content less memctl's entries, as data (for comparing two versions)."""
    if spec.format == "toml":
        return _toml_without_ours(_load_toml(spec.path, text)).unwrap()
    return _without_ours_json(_load_json(spec.path, text), spec)


def _uninstalled(spec: ConfigFile, text: str) -> str:
    if spec.format == "toml":
        import tomlkit

        return tomlkit.dumps(_toml_without_ours(_load_toml(spec.path, text)))
    return _dump_json(_without_ours_json(_load_json(spec.path, text), spec), text)


def _has_ours(spec: ConfigFile, text: str) -> bool:
    return bool(_stripped(spec, text) != _plain(spec, text))


def _plain(spec: ConfigFile, text: str) -> Any:
    if spec.format == "toml":
        return _load_toml(spec.path, text).unwrap()
    return _load_json(spec.path, text)


def plan_install(spec: ConfigFile) -> FileChange:
    path = _resolved(spec.path)
    before = _read(path)
    after = _installed(spec, before or "")
    if before is None:
        return FileChange(path, "create", None, after)
    if _plain(spec, after) == _plain(spec, before):
        return FileChange(path, "unchanged", before, before)
    # The backup keeps the file as it was before memctl's first install, never a later one.
    backup = None if _has_ours(spec, before) else backup_path(path)
    return FileChange(path, "update", before, after, backup)


def plan_uninstall(spec: ConfigFile) -> FileChange:
    path = _resolved(spec.path)
    before = _read(path)
    if before is None or not _has_ours(spec, before):
        return FileChange(path, "unchanged", before, before)
    stripped = _stripped(spec, before)
    backup = backup_path(path)
    saved = _read(backup) if backup.is_file() else None
    if saved is not None:
        with contextlib.suppress(UsageError):
            if not _has_ours(spec, saved) and _plain(spec, saved) == stripped:
                return FileChange(path, "restore", before, saved, backup)
    if not stripped and saved is None:
        return FileChange(path, "delete", before, None)
    return FileChange(path, "update", before, _uninstalled(spec, before))


def _resolved(path: Path) -> Path:
    # A configuration kept as a link (a dotfiles repository) is edited where it lives.
    return path.resolve() if path.is_symlink() else path


def apply(change: FileChange) -> None:
    """Write one planned change (the file read again: a save made meanwhile is kept)."""
    if change.action == "unchanged":
        return
    if change.action == "delete":
        with contextlib.suppress(FileNotFoundError):
            change.path.unlink()
        return
    if change.action == "update" and change.backup is not None and change.before is not None:
        update_file(change.backup, lambda _: change.before or "", create="", exact=True)
    after = change.after or ""
    update_file(change.path, lambda _: after, create="", exact=True)
    if change.action == "restore" and change.backup is not None:
        with contextlib.suppress(FileNotFoundError):
            change.backup.unlink()


def install(
    target: Target,
    scope: Scope,
    *,
    vault: Path,
    project: Path,
    home: Path,
    executable: str,
    uninstall: bool = False,
    dry_run: bool = False,
) -> list[FileChange]:
    """Install (or uninstall) memctl into `target`'s configuration; every file is planned
    (and so checked) before the first is written."""
    specs = config_files(
        target, scope, vault=vault, project=project, home=home, executable=executable
    )
    changes = [plan_uninstall(s) if uninstall else plan_install(s) for s in specs]
    if not dry_run:
        for change in changes:
            apply(change)
    return changes
