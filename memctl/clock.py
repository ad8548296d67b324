"""The one place memctl reads the time, so rules and tests can inject a clock.

`MEMCTL_NOW` (ISO 8601) pins the clock for a whole process; this is how
subprocess tests and reproducible demos exercise the time rules without sleeping.
Library functions take an explicit `now` wherever a rule depends on time.
"""

from __future__ import annotations

import os
from datetime import date, datetime


def now() -> datetime:
    """The current local time (naive), or the pinned `MEMCTL_NOW`."""
    pinned = os.environ.get("MEMCTL_NOW")
    if pinned:
        moment = datetime.fromisoformat(pinned)
        return moment.replace(tzinfo=None) if moment.tzinfo else moment
    return datetime.now()


def today() -> date:
    return now().date()


def iso(moment: datetime) -> str:
    """Seconds precision: usage logs and file stamps need no more."""
    return moment.replace(microsecond=0).isoformat()
