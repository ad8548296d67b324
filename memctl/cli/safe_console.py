"""The Console the CLI prints through for people (rich is imported only when something prints)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from memctl.terminal import terminal_safe


def _safe(item: Any) -> Any:
    if isinstance(item, str):
        return terminal_safe(item)
    if isinstance(item, Text):
        safe = item.copy()
        safe.plain = terminal_safe(item.plain)  # same length: spans keep their places
        return safe
    if isinstance(item, Table):
        for column in item.columns:
            column._cells = [_safe(cell) for cell in column._cells]
    return item


class SafeConsole(Console):
    """The one way the CLI prints for people: control characters made inert, no markup
    (memory text like `[/x]` is text, not a style). JSON output does not go through it:
    json.dumps escapes control characters, so it stays exact."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(_safe(o) for o in objects), **kwargs)

    def rule(self, title: Any = "", **kwargs: Any) -> None:
        super().rule(_safe(title), **kwargs)
