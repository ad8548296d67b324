"""A smoke test per script of scripts/: each Python script starts, imports what it imports
at the top and prints its usage; each shell script parses; the benches that take seconds
on a tiny vault run on one; scripts/test types every Python script. (What they measure is
the benches' and tools' own business; this catches a script left behind by a library move.)"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
# Modules the scripts import, not scripts themselves.
HELPERS = {"bench_facts.py", "bench_vault.py", "chaos_clone.py", "demo_notes.py"}


def _scripts(kind: str) -> list[str]:
    names = []
    for path in sorted(SCRIPTS.iterdir()):
        if not path.is_file() or path.name in HELPERS:
            continue
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        if kind in first:
            names.append(path.name)
    return names


def test_every_script_is_smoke_tested() -> None:
    every = {p.name for p in SCRIPTS.iterdir() if p.is_file()} - HELPERS
    assert set(_scripts("python")) | set(_scripts("bash")) == every


@pytest.mark.parametrize("name", _scripts("python"))
def test_a_python_script_prints_its_usage(name: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / name), "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize("name", _scripts("bash"))
def test_a_shell_script_parses(name: str) -> None:
    done = subprocess.run(["bash", "-n", str(SCRIPTS / name)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# The benches cheap enough to run whole on a tiny vault (seconds each): a library change
# that breaks what they call fails here, not on the next measurement round.
TINY_RUNS = {
    "bench_index": ["--files", "5", "--big-files", "2"],
    "bench_lifecycle": ["--days", "3", "--decisions", "3"],
    "bench_maintain": ["--mb", "0.01"],
    "bench_first_search": ["--sizes", "1", "--repeat", "1"],
}


@pytest.mark.parametrize("name", sorted(TINY_RUNS))
def test_a_cheap_bench_runs_on_a_tiny_vault(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / name), *TINY_RUNS[name]],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip()


def test_scripts_test_types_every_python_script() -> None:
    loop = (SCRIPTS / "test").read_text(encoding="utf-8")
    listed = re.search(r"^scripts=\((.*?)\)$", loop, re.S | re.M)
    assert listed is not None
    assert re.search(r"^MYPYPATH=scripts \S+/mypy --strict .*\$\{scripts\[@\]", loop, re.M)
    typed = set(listed.group(1).split())
    python = set(_scripts("python")) | {
        name for name in HELPERS if (SCRIPTS / name).suffix == ".py"
    }
    assert typed == python


def _private_reaches(source: str) -> list[str]:
    """Where a script's code names a private (_underscored) name of memctl: imported from
    it, or read off a module or object imported from it."""
    tree = ast.parse(source)
    from_memctl: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("memctl"):
            for alias in node.names:
                from_memctl.add(alias.asname or alias.name)
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
            if any(_private(part) for part in (node.module or "").split(".")):
                found.append(f"line {node.lineno}: from {node.module}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("memctl"):
                    from_memctl.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"line {node.lineno}: import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in from_memctl:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _reaching_code() -> list[Path]:
    tools = SCRIPTS.parent / "tools"
    python = [SCRIPTS / n for n in _scripts("python")] + [
        SCRIPTS / n for n in HELPERS if n.endswith(".py")
    ]
    return sorted(python + list(tools.rglob("*.py")))


@pytest.mark.parametrize("path", _reaching_code(), ids=lambda p: p.name)
def test_scripts_and_tools_reach_memctl_only_through_public_names(path: Path) -> None:
    assert _private_reaches(path.read_text(encoding="utf-8")) == []


def test_a_private_reach_is_found() -> None:
    source = (
        "from memctl.index import status as st\n"
        "from memctl.index.sync import _walk\n"
        "import memctl.index.status\n"
        "st._kept.clear()\n"
        "memctl.index.status._kept.clear()\n"
        "from memctl.cli._common import read_source\n"
    )
    assert _private_reaches(source) == [
        "line 2: from memctl.index.sync import _walk",
        "line 6: from memctl.cli._common",
        "line 4: st._kept",
        "line 5: memctl.index.status._kept",
    ]
