"""Control characters made inert for a terminal (standard library only: the client uses it).

Memory text is written by people and agents; on a terminal, an escape sequence in it could
clear the screen, hide lines or set the window title. Every C0 control except newline and
tab, DEL and every C1 control is shown as a visible stand-in of the same length (U+2400
control pictures: ESC -> ␛; C1 -> U+FFFD), so styles' spans stay valid.
"""

from __future__ import annotations

SAFE = {c: 0x2400 + c for c in range(32) if chr(c) not in "\n\t"}
SAFE.update({0x7F: 0x2421, **{c: 0xFFFD for c in range(0x80, 0xA0)}})


def terminal_safe(text: str) -> str:
    """`text` with control characters made visible and inert (see `SAFE`)."""
    return text.translate(SAFE)


def styled_safe(text: str) -> str:
    """`text` made safe as `terminal_safe` does, keeping only well-formed colour sequences
    (ESC [ digits and semicolons m): what a local command's terminal could receive."""
    if "\x1b" not in text:
        return terminal_safe(text)
    import re  # only for output holding an escape (already loaded by pip's launcher)

    parts = re.split(r"(\x1b\[[0-9;]*m)", text)
    return "".join(part if n % 2 else terminal_safe(part) for n, part in enumerate(parts))
