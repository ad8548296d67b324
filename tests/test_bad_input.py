"""Issue 15 item 14: input that used to end in an internal error (exit 70) is one line
and exit 2: out-of-range settings, argv that is not UTF-8, a read-only index or .memctl/."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.config import RANGES, Settings
from memctl.vault import Vault

BAD_SETTINGS = [
    ("embed", "batch_size", "0"),
    ("embed", "max_file_bytes", "-1"),
    ("search", "half_life_days", "0"),
    ("search", "half_life_days", "inf"),
    ("search", "weight_fts", "nan"),
    ("search", "weight_vector", "-0.5"),
    ("search", "candidates", "0"),
    ("search", "candidates", "-1"),
    ("search", "rrf_k", "0"),
    ("search", "snippet_tokens", "0"),
    ("search", "result_tokens", "-1"),
    ("search", "common_term_fraction", "0"),
    ("warm", "daily_days", "-1"),
    ("warm", "decisions", "-3"),
    ("lifecycle", "demote_after_days", "-100"),
    ("lifecycle", "prune_after_days", "0"),
    ("lifecycle", "duplicate_ratio", "101"),
    ("lifecycle", "duplicate_cosine", "1.5"),
    ("hot", "sections", "[]"),
    ("hot", "sections", '["Identity", " "]'),
    ("hot", "cap_lines", "0"),
    ("llm", "timeout_seconds", "0"),
    ("llm", "max_retries", "-1"),
    ("agent", "context_budget_tokens", "0"),
    ("agent", "history_keep_messages", "-1"),
]


@pytest.mark.parametrize(("section", "name", "value"), BAD_SETTINGS)
def test_out_of_range_setting_is_one_line_and_exit_2(
    vault: Vault, runner: CliRunner, section: str, name: str, value: str
) -> None:
    (vault.root / ".memctl.toml").write_text(f"[{section}]\n{name} = {value}\n", encoding="utf-8")
    for args in (["search", "deploy"], ["context"], ["maintain", "--no-embed"], ["status"]):
        result = runner.invoke(app, ["--vault", str(vault.root), *args])
        assert result.exit_code == 2, (args, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"[{section}] {name}" in lines[0], (args, result.stderr)


def test_every_numeric_setting_has_a_documented_range() -> None:
    settings = Settings()
    numeric = {
        (group.name, f.name)
        for group in fields(settings)
        for f in fields(getattr(settings, group.name))
        # A bool is an int to isinstance; an on/off setting has no range to document.
        if isinstance(getattr(getattr(settings, group.name), f.name), int | float)
        and not isinstance(getattr(getattr(settings, group.name), f.name), bool)
    }
    assert numeric <= set(RANGES), numeric - set(RANGES)
    for (section, name), (low, high) in RANGES.items():
        default = getattr(getattr(settings, section), name)
        assert low <= default <= high, (section, name)


def test_defaults_and_edges_of_each_range_are_accepted(vault: Vault, runner: CliRunner) -> None:
    lines = []
    for (section, name), (low, _high) in RANGES.items():
        value = 1.0 if name == "weight_fts" else low  # all-zero weights are refused on purpose
        lines.append((section, f"{name} = {value!r}"))
    text = "".join(
        f"[{s}]\n" + "\n".join(v for sec, v in lines if sec == s) + "\n"
        for s in dict.fromkeys(s for s, _ in lines)
    )
    (vault.root / ".memctl.toml").write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["--vault", str(vault.root), "status"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("bad", ["bad \udcff byte", "lone \ud800 surrogate"])
@pytest.mark.parametrize(
    "args",
    [["add"], ["search"], ["add", "--decision"], ["show"], ["context", "--query"]],
)
def test_argument_that_is_not_utf8_is_one_line_and_exit_2(
    vault: Vault, runner: CliRunner, bad: str, args: list[str]
) -> None:
    before = {p: p.read_bytes() for p in vault.memory_dir.rglob("*") if p.is_file()}
    result = runner.invoke(
        app, ["--vault", str(vault.root), *args, bad, *(["x"] if "--decision" in args else [])]
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "not valid UTF-8" in lines[0]
    after = {p: p.read_bytes() for p in vault.memory_dir.rglob("*") if p.is_file()}
    assert after == before


def _can_mount_read_only(tmp: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = tmp / "probe"
    probe.mkdir()
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount --bind -o ro {probe} {probe}"],
        capture_output=True,
    )
    return done.returncode == 0


@pytest.mark.parametrize("target", [".memctl", ".memctl/index.db"])
def test_read_only_index_or_state_folder_is_one_line_and_exit_2(
    vault: Vault, runner: CliRunner, tmp_path: Path, target: str
) -> None:
    """A real read-only mount (root ignores file modes), in a private mount namespace."""
    if not _can_mount_read_only(tmp_path):
        pytest.skip("needs `unshare -m` and a bind mount (root in a container)")
    memctl = str(Path(sys.executable).with_name("memctl"))
    assert runner.invoke(app, ["--vault", str(vault.root), "index", "--no-embed"]).exit_code == 0
    where = vault.root / target
    for args in (["status"], ["lint"], ["index", "--no-embed"], ["add", "x"], ["maintain"]):
        line = " ".join(shlex.quote(a) for a in [memctl, "--vault", str(vault.root), *args])
        done = subprocess.run(
            ["unshare", "-m", "sh", "-c", f"mount --bind -o ro {where} {where} && {line}"],
            capture_output=True,
            text=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        assert done.returncode in (0, 2), (args, done.stderr)
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr
        if done.returncode == 2:
            assert len(done.stderr.strip().splitlines()) == 1, done.stderr
            assert "writable" in done.stderr or "Read-only" in done.stderr, done.stderr
