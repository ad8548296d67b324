"""The installed `memctl` binary: agent commands as a user's scripts would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

MEMCTL = str(Path(sys.executable).with_name("memctl"))


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(MEMCTL_NOW="2026-11-22T09:30:00", HF_HUB_OFFLINE="1")
    return subprocess.run(
        [MEMCTL, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


def test_binary_context_tools_and_capture_without_key(vault_dir: Path) -> None:
    vault = ["--vault", str(vault_dir)]
    done = _run(
        *vault,
        "tools",
        "--call",
        "remember",
        "--args",
        "-",
        stdin=json.dumps({"text": "Резервные копии — в Backblaze"}, ensure_ascii=False),
    )
    assert done.returncode == 0, done.stderr
    done = _run(*vault, "context", "--format", "anthropic")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert "Backblaze" in data["system"][1]["text"]
    assert data["system"][-1]["text"].strip().endswith("Today is 2026-11-22.")
    done = _run(*vault, "capture", "-", "--extract", "llm", stdin="user: we use Backblaze")
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr and "Traceback" not in done.stderr
