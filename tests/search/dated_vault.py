"""A small vault whose answers depend on the date a question says (English, Hebrew,
Russian), shared by the SQLite and PostgreSQL tests of the dates stage (rank/dated.py).

Each dated question has a decoy: a newer note (recency favours it) that matches the
question's words as well, or a note that merely contains the date's word.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

NOW = datetime(2026, 11, 28, 9, 0)  # a Saturday

FILES = {
    "memory/core.md": """# Core

## Identity
- Back-office agent of a small travel agency.

## Rules
- Production deploys only Sunday to Thursday before 11:00.
""",
    "memory/daily/2026-11-27.md": """# 2026-11-27

- 08:55 MT-531 deployed to production: rooming-list export to Excel
- 10:20 Dana booked the Vienna hotel for the Budapest group
- 12:00 Говорили с Иваном про отпуск в декабре
""",
    "memory/daily/2026-11-26.md": """# 2026-11-26

- 09:00 MT-530 deployed to production: waiting-list emails in three languages
- 11:00 Yesterday's outage report is in the wiki now
""",
    "memory/daily/2026-11-25.md": """# 2026-11-25

- 09:00 הזמנו אוטובוס לקבוצה של חיפה
""",
    "memory/daily/2026-11-24.md": """# 2026-11-24

- 10:00 Обсудили с Иваном тариф на перевод денег
""",
    "memory/daily/2026-11-19.md": """# 2026-11-19

- 09:30 הזמנו אוטובוס לקבוצה של ירושלים מחברת אגד
""",
    "memory/archive/georgia-recce.md": """---
date: 2026-03-08
---
# Georgia recce notes
- Kartli Coaches have the newest buses we saw in Tbilisi
- lunch in Kakheti at a family winery
""",
    "memory/archive/georgia-batumi.md": """---
date: 2026-10-20
---
# Georgia: Batumi
- Batumi hotels by the sea are full in the summer; book the Georgia tour early
""",
}


def write_vault(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
