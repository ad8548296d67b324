from __future__ import annotations

from typer.testing import CliRunner

from memctl.cli import app
from memctl.cli.app import HELP_PANELS


def test_help_groups_commands_everyday_first() -> None:
    out = CliRunner().invoke(app, ["--help"])
    assert out.exit_code == 0
    text = out.output
    positions = [text.index(f"\n{title}:\n") for title in HELP_PANELS]
    assert positions == sorted(positions)
    assert text.index("\n  init ") < text.index("\n  search ") < text.index("\n  maintain ")


def test_every_command_belongs_to_a_help_panel() -> None:
    import typer.main

    group = typer.main.get_command(app)
    listed = {name for names in HELP_PANELS.values() for name in names}
    assert set(group.commands) == listed  # type: ignore[attr-defined]
