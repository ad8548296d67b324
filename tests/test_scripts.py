"""A smoke test per script of scripts/: each Python script starts, imports what it imports
at the top and prints its usage; each shell script parses. (What they measure is the
benches' and tools' own business; this catches a script left behind by a library move.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
# Modules the scripts import, not scripts themselves.
HELPERS = {"bench_vault.py", "chaos_clone.py", "demo_notes.py"}


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
