"""Per-tier metrics for `memctl status`: what each tier holds and how fresh the index is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memctl import clock
from memctl.memory import load_decisions
from memctl.vault import Vault


def vault_status(vault: Vault) -> dict[str, Any]:
    """Tier metrics read from the markdown alone (no index needed)."""
    settings = vault.settings
    core_lines = len((vault.read_memory(vault.core_path) or "").splitlines())
    daily = vault.daily_notes()
    decisions = load_decisions(vault)
    archive_files = sorted(vault.archive_dir.rglob("*.md")) if vault.archive_dir.is_dir() else []
    today = clock.today()
    return {
        "vault": str(vault.root),
        "hot": {
            "path": vault.rel(vault.core_path),
            "lines": core_lines,
            "cap": settings.hot.cap_lines,
            "over_cap": core_lines > settings.hot.cap_lines,
        },
        "warm": {
            "daily_files": len(daily),
            "latest_daily": daily[-1][0].isoformat() if daily else None,
            "today_exists": any(day == today for day, _ in daily),
            "decisions": len(decisions),
            "dated_decisions": sum(1 for d in decisions if d.date is not None),
        },
        "cold": {"files": len(archive_files)},
    }


def full_status(vault: Vault) -> dict[str, Any]:
    """Vault metrics plus the index's own (chunks per tier, freshness, pending embeddings)
    and whether a resident process (`memctl serve`) serves the vault."""
    from memctl.index.status import index_status
    from memctl.resident.presence import resident_status

    report = vault_status(vault)
    report["index"] = index_status(vault)
    report["index"]["action"] = index_action(report["index"])
    report["resident"] = resident_status(vault)
    return report


def index_action(index: dict[str, Any]) -> str | None:
    """What the owner should run so search has words and vectors for everything, or None."""
    if not index.get("exists"):
        return "the index is not built yet: run `memctl index`"
    pending = int(index.get("pending_embeddings") or 0)
    if pending:
        return (
            f"{pending} chunks wait for embeddings (searched by words only until then): "
            "run `memctl index`, or keep `memctl watch &` running"
        )
    return None


def keep_current_hint(directory: Path) -> str:
    """`memctl init`'s last line: how the index stays current without anyone thinking of it."""
    where = str(directory.resolve())
    return (
        f"keep the index current: `memctl --vault {where} watch &`, or cron "
        f"`*/15 * * * * memctl --vault {where} index`; until then each search embeds "
        "a few new notes itself"
    )
