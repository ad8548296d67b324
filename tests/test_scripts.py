"""A smoke test per script of scripts/: each Python script starts, imports what it imports
at the top and prints its usage; each shell script parses; the benches that take seconds
on a tiny vault run on one; scripts/test types every Python script. (What they measure is
the benches' and tools' own business; this catches a script left behind by a library move.)"""

from __future__ import annotations

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
    listed = re.search(r"for script in (.*?); do", loop, re.S)
    assert listed is not None
    typed = set(listed.group(1).replace("\\", " ").split())
    python = set(_scripts("python")) | {
        name for name in HELPERS if (SCRIPTS / name).suffix == ".py"
    }
    assert typed == python
