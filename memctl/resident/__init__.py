"""The resident process: one warm memctl per vault that answers commands over a socket.

`address` (where a resident process is found) and `client` (handing a command to it)
import only the standard library, so a served command starts as fast as Python does;
`server` and `capture` run inside the resident process. See docs/resident.md.
"""
