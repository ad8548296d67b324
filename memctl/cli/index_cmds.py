"""CLI commands for the index concern (registered on import)."""

from memctl.cli import app  # noqa: F401
