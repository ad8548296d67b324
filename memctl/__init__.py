"""memctl: a tiered markdown memory for AI agents.

HOT (memory/core.md), WARM (daily notes, decisions.md) and COLD (memory/archive/)
live as plain markdown in a git-friendly vault; a derived SQLite index under
`.memctl/` makes them searchable.
"""

__version__ = "0.1.0"
