"""CLI commands for the agent concern (registered on import)."""

from memctl.cli import app  # noqa: F401
