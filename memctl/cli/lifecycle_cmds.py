"""CLI commands for the lifecycle concern (registered on import)."""

from memctl.cli import app  # noqa: F401
