"""terminal_safe: memory text's control characters made visible and inert on a terminal."""

from __future__ import annotations

# Memory text is written by people and agents; on a terminal, an escape sequence in it
# could clear the screen, hide lines or set the window title. Every C0 control except
# newline and tab, DEL and every C1 control is shown as a visible stand-in of the same
# length (U+2400 control pictures: ESC -> ␛; C1 -> U+FFFD), so styles' spans stay valid.
_SAFE = {c: 0x2400 + c for c in range(32) if chr(c) not in "\n\t"}
_SAFE.update({0x7F: 0x2421, **{c: 0xFFFD for c in range(0x80, 0xA0)}})


def terminal_safe(text: str) -> str:
    """`text` with control characters made visible and inert (see `_SAFE`)."""
    return text.translate(_SAFE)
