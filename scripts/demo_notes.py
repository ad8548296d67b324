"""Realistic sample memories for `scripts/demo`: an agent helping a small team ship a service.

Dates are relative to today so the WARM window (last 2 daily notes) and the
30-day demotion rule behave as they would on a real vault.
"""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

CORE = """# Core memory
<!-- HOT tier: loaded into every agent call. Hard cap: 100 lines (`memctl lint` enforces it).
     Keep only identity, iron rules and the current state here; anything dated or
     transient belongs in a daily note or decisions.md. -->

## Identity
- I am the ops assistant of the Orbit team (Dana, Yossi, Irina). Dana owns releases.
- Answer in the language of the question: English, Hebrew or Russian.

## Iron rules
- Never run database migrations on production without Dana's explicit OK.
- Secrets live in the vault manager, never in notes or chat.
- Every deploy goes through `scripts/release.sh`; no manual `kubectl apply`.

## Active project
- Orbit billing service v2: moving invoices from MySQL to PostgreSQL 16.

## Open blockers
- Payment-provider sandbox keys expire often; Irina is asking for longer-lived ones.
"""


def daily_notes(today: date) -> dict[date, str]:
    def d(n: int) -> date:
        return today - timedelta(days=n)

    return {
        d(
            0
        ): """- 09:12 Standup: Yossi finished the `invoice_exporter` retry logic; PR #412 waits for review.
- 10:40 The nightly `pg_dump` of billing_v2 took 41 minutes; the backup window is 60.
- 14:05 Irina: новые ключи песочницы платёжного провайдера действуют 90 дней вместо 7.
- 16:30 Dana approved the migration dry run for Thursday 18:00.
""",
        d(1): """- 09:05 יוסי: בדיקות האינטגרציה של שירות החיוב עוברות עכשיו גם על PostgreSQL.
- 11:20 Found the cause of the flaky test `test_refund_rounding`: float cents. Switched to Decimal.
- 15:45 Ирина настроила алерт: если очередь счетов больше 500, пишем в канал #billing-alerts.
""",
        d(3): """- 10:00 Load test of billing v2: p95 latency 180 ms at 300 rps, target is 250 ms.
- 13:30 הוחלט לדחות את העברת הדוחות החודשיים לשבוע הבא.
""",
        d(
            9
        ): """- 09:30 Migration rehearsal on staging failed: `ALTER TABLE invoices` locked the table for 4 minutes.
- 12:10 Plan: use `pg_repack` or add the column nullable first, backfill, then set NOT NULL.
""",
        d(40): """- 11:00 Old note: the MySQL replica `billing-ro-2` was decommissioned.
- 15:00 Старый сервер отчётов выключен, отчёты теперь строит cron в 02:00.
""",
    }


DECISIONS = """# Decisions

## {d30} — Move billing to PostgreSQL 16

MySQL 5.7 is end of life; we need partial indexes and proper JSONB for invoice metadata.

## {d12} — Backfill columns instead of blocking ALTERs

Add columns nullable, backfill in batches of 10k rows, then add the constraint. No table locks in business hours.

## {d5} — שפת ממשק הבוט

הבוט עונה בשפה שבה נשאלה השאלה: עברית, אנגלית או רוסית.

## {d2} — Алерты очереди счетов

Порог 500 сообщений; ниже этого шума слишком много.
"""

ARCHIVE = {
    "archive/2026-q1-retro.md": """---
date: 2026-03-30
tags: [retro, billing]
---
# Q1 retrospective

- The invoice PDF renderer (`render_invoice_pdf`) leaked memory under load; fixed by reusing the font cache.
- Customers in Israel asked for invoices in Hebrew; shipped in March. #i18n
- Нужно было раньше договориться о формате дат в отчётах (ISO 8601).
""",
}


def write_demo_notes(vault: Path, today: date) -> None:
    memory = vault / "memory"
    (memory / "core.md").write_text(CORE, encoding="utf-8")
    for day, bullets in daily_notes(today).items():
        path = memory / "daily" / f"{day.isoformat()}.md"
        path.write_text(f"# {day.isoformat()}\n\n{bullets}", encoding="utf-8")
    stamps = {f"d{n}": (today - timedelta(days=n)).isoformat() for n in (2, 5, 12, 30)}
    (memory / "decisions.md").write_text(DECISIONS.format(**stamps), encoding="utf-8")
    for rel, text in ARCHIVE.items():
        path = memory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_demo_notes(
        Path(sys.argv[1]), date.fromisoformat(sys.argv[2]) if len(sys.argv) > 2 else date.today()
    )
