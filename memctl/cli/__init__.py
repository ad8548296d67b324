"""The `memctl` command line: parse, call the library, print.

The app and the global `--vault` option live in `memctl.cli.app`; each concern registers
its commands from its own module, imported here; MemctlError becomes a one-line message
and exit code in `MemctlGroup`.
"""

from __future__ import annotations

import os
import sys

from memctl.cli import (
    agent_cmds,  # noqa: F401
    db_cmds,  # noqa: F401
    index_cmds,  # noqa: F401
    lifecycle_cmds,  # noqa: F401
    maintain_cmds,  # noqa: F401
    resident_cmds,  # noqa: F401
    search_cmds,  # noqa: F401
    vault_cmds,  # noqa: F401
)
from memctl.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(app(prog_name="memctl"))
