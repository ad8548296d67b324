"""The error a tool handler raises to produce an error result the model can act on."""

from __future__ import annotations


class ToolFailure(Exception):
    """Becomes `{"ok": false, "error": {"type": kind, "message": ...}}`; never escapes a tool call."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
