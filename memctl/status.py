"""Per-tier metrics for `memctl status`: what each tier holds and how fresh the index is."""

from __future__ import annotations

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
    report["resident"] = resident_status(vault)
    return report
