"""The `memctl` command line: parse, call the library, print.

The app and the global `--vault` option live in `memctl.cli.app`; each concern registers
its commands from its own module, imported only when one of its commands runs (see
`HELP_PANELS`); MemctlError becomes a one-line message and exit code in `MemctlGroup`.
"""

from __future__ import annotations

import os
import sys

from memctl.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(app(prog_name="memctl"))
