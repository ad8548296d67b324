from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from memctl.cli import app
from memctl.cli.app import HELP_PANELS, load_commands


def test_help_groups_commands_everyday_first() -> None:
    out = CliRunner().invoke(app, ["--help"])
    assert out.exit_code == 0
    text = out.output
    positions = [text.index(f"\n{title}:\n") for title in HELP_PANELS]
    assert positions == sorted(positions)
    assert text.index("\n  init ") < text.index("\n  search ") < text.index("\n  maintain ")


def test_every_command_belongs_to_a_help_panel() -> None:
    import typer.main

    load_commands()  # every command module registers its commands on `app`
    group = typer.main.get_command(app)
    listed = {name for names in HELP_PANELS.values() for name in names}
    assert set(group.commands) == listed  # type: ignore[attr-defined]
    # ...and each in the module HELP_PANELS names, which is all a command run imports.
    for panel in HELP_PANELS.values():
        for name, module in panel.items():
            command = group.commands[name]  # type: ignore[attr-defined]
            callback = command.callback
            if name == "db":  # a group: its commands come from the same module
                callback = next(iter(command.commands.values())).callback
            assert callback.__module__ == f"memctl.cli.{module}", name


def test_a_command_runs_with_only_its_own_module_loaded(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from memctl.cli import app\n"
        f"r = CliRunner().invoke(app, ['--vault', {str(tmp_path)!r}, 'init', {str(tmp_path)!r}])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.startswith('memctl.cli.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "vault_cmds" in out.stdout
    assert "lifecycle_cmds" not in out.stdout


def test_a_mistyped_command_is_matched_against_every_command() -> None:
    # Commands are built lazily: the suggestion must still see the ones not loaded yet.
    code = (
        "from typer.testing import CliRunner\n"
        "from memctl.cli import app\n"
        "print(CliRunner().invoke(app, ['serach', 'x']).output)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "No such command 'serach'. Did you mean 'search'?" in out.stdout, out.stderr
