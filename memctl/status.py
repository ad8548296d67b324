"""Per-tier metrics for `memctl status`: what each tier holds and how fresh the index is."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memctl import clock
from memctl.memory import load_decisions
from memctl.vault import Vault

if TYPE_CHECKING:
    from memctl.index.status import IndexStatus


@dataclass(frozen=True)
class HotMetrics:
    path: str
    lines: int
    cap: int

    @property
    def over_cap(self) -> bool:
        return self.lines > self.cap


@dataclass(frozen=True)
class WarmMetrics:
    daily_files: int
    latest_daily: str | None
    today_exists: bool
    decisions: int
    dated_decisions: int
    decisions_file: bool

    @property
    def files(self) -> int:
        return self.daily_files + (1 if self.decisions_file else 0)


@dataclass(frozen=True)
class ColdMetrics:
    files: int
    chunks: int | None  # None without an index


@dataclass(frozen=True)
class TierMetrics:
    """What each tier holds: the one shape `status --json` and `maintain --json` print."""

    hot: HotMetrics
    warm: WarmMetrics
    cold: ColdMetrics

    def to_dict(self) -> dict[str, Any]:
        return {
            "hot": {**asdict(self.hot), "over_cap": self.hot.over_cap},
            "warm": {**asdict(self.warm), "files": self.warm.files},
            "cold": asdict(self.cold),
        }

    def flat(self) -> dict[str, Any]:
        """maintain's `tiers` keys as docs/lifecycle.md first documented them."""
        return {
            "hot_lines": self.hot.lines,
            "hot_cap": self.hot.cap,
            "warm_files": self.warm.files,
            "cold_files": self.cold.files,
            "cold_chunks": self.cold.chunks,
        }


def tier_metrics(
    vault: Vault, *, core_text: str | None = None, cold_chunks: int | None = None
) -> TierMetrics:
    """Per-tier metrics from the markdown; `core_text` when the caller already read core.md,
    `cold_chunks` from the index when the caller has it open."""
    if core_text is None:
        core_text = vault.read_memory(vault.core_path) or ""
    daily = vault.daily_notes()
    decisions = load_decisions(vault)
    archive = vault.archive_dir
    today = clock.today()
    return TierMetrics(
        hot=HotMetrics(
            vault.rel(vault.core_path), len(core_text.splitlines()), vault.settings.hot.cap_lines
        ),
        warm=WarmMetrics(
            daily_files=len(daily),
            latest_daily=daily[-1][0].isoformat() if daily else None,
            today_exists=any(day == today for day, _ in daily),
            decisions=len(decisions),
            dated_decisions=sum(1 for d in decisions if d.date is not None),
            decisions_file=vault.decisions_path.exists(),
        ),
        cold=ColdMetrics(
            files=sum(1 for _ in archive.rglob("*.md")) if archive.is_dir() else 0,
            chunks=cold_chunks,
        ),
    )


@dataclass(frozen=True)
class StatusReport:
    """`memctl status`: the tiers, the index and the resident process."""

    vault: str
    tiers: TierMetrics
    index: IndexStatus
    resident: dict[str, Any]  # resident.presence.resident_status's shape

    def to_dict(self) -> dict[str, Any]:
        return {
            "vault": self.vault,
            **self.tiers.to_dict(),
            "index": {**self.index.to_dict(), "action": self.index.action},
            "resident": self.resident,
        }


def full_status(vault: Vault) -> StatusReport:
    """Vault metrics plus the index's own (chunks per tier, freshness, pending embeddings)
    and whether a resident process (`memctl serve`) serves the vault."""
    from memctl.index.status import index_status
    from memctl.resident.presence import resident_status

    index = index_status(vault)
    cold_chunks = index.chunks_by_tier["cold"] if index.exists else None
    return StatusReport(
        str(vault.root),
        tier_metrics(vault, cold_chunks=cold_chunks),
        index,
        resident_status(vault),
    )


def keep_current_hint(directory: Path) -> str:
    """`memctl init`'s last line: how the index stays current without anyone thinking of it."""
    where = str(directory.resolve())
    return (
        f"keep the index current: `memctl --vault {where} watch &`, or cron "
        f"`*/15 * * * * memctl --vault {where} index`; until then each search embeds "
        "a few new notes itself"
    )
