"""CLI commands for the search concern (registered on import)."""

from memctl.cli import app  # noqa: F401
