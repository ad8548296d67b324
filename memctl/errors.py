"""Errors a user can act on. The CLI prints their message on one line and exits with `exit_code`."""


class MemctlError(Exception):
    """A failure with a message meant for the user, not a traceback."""

    exit_code = 1

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class VaultNotFound(MemctlError):
    exit_code = 2


class UsageError(MemctlError):
    """Bad input from the user (empty text, a path outside the vault, a bad date...)."""

    exit_code = 2


class LockBusy(MemctlError):
    """Another memctl process holds the lock and we were told not to wait."""

    exit_code = 3
