"""Fixtures shared by every test area: a fresh vault from the template and a CLI runner."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.memory import init_vault
from memctl.vault import Vault

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# No test may reach the real API, even on a developer machine that has a key.
os.environ.pop("ANTHROPIC_API_KEY", None)
for _name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
    os.environ.pop(_name, None)
# A suite started in the background (`pytest &` in a script, nohup, CI wrappers) inherits
# SIGINT ignored, and so would every `memctl watch` / `serve` it starts: the Ctrl-C tests then
# waited out STOP_TIMEOUT (240 s each, three tests) for a process that never saw the signal,
# and failed. A Python handler here is reset to the default in each child at exec.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# pytest-xdist's workers (scripts/test runs two) start with LINES=24 and COLUMNS=80 in their
# environment, set as readline initialises there; a run in one process has neither, and the
# resident client's tests count the terminal variables it sends exactly.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("LINES", "COLUMNS"):
        os.environ.pop(_name, None)
# Nor the user's own config (~/.config/memctl/config.toml): a test that wants one sets it.
os.environ["MEMCTL_CONFIG"] = os.devnull + ".memctl-tests-have-no-user-config"


@pytest.fixture
def vault_dir(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    init_vault(root)
    return root


@pytest.fixture
def vault(vault_dir: Path) -> Vault:
    return Vault(vault_dir)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def pinned_now(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Pin the clock to a known moment (subprocesses inherit it through the environment)."""
    moment = "2026-11-22T09:30:00"
    monkeypatch.setenv("MEMCTL_NOW", moment)
    yield moment
