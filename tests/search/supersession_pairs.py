"""Fresh-over-stale pairs: an old memory and the newer one that replaced it, with a query.

Each pair states different values (or the opposite) for the same subject. Used by the
pure detection test (memctl.statements) and by the search test (the newer ranks first).
"""

from __future__ import annotations

# (language, old statement, new statement, query)
PAIRS: list[tuple[str, str, str, str]] = [
    (
        "en",
        "The billing service runs on port 8080.",
        "Moved the billing service to port 9090.",
        "which port does the billing service use",
    ),
    (
        "en",
        "The staging database is Postgres 14.",
        "Upgraded the staging database to Postgres 16.",
        "staging database postgres version",
    ),
    (
        "en",
        "Nightly backups keep 30 days of history.",
        "Nightly backups now keep 90 days of history.",
        "how many days of history do nightly backups keep",
    ),
    (
        "en",
        "The VPN gateway address is 10.0.0.5.",
        "The VPN gateway address changed to 10.0.8.1.",
        "vpn gateway address",
    ),
    ("en", "We deploy on Fridays.", "We never deploy on Fridays.", "do we deploy on Fridays"),
    (
        "he",
        "שירות החיובים רץ על פורט 8080.",
        "שירות החיובים עבר לפורט 9090.",
        "באיזה פורט רץ שירות החיובים",
    ),
    (
        "he",
        "מסד הנתונים של סביבת הבדיקות הוא Postgres 14.",
        "מסד הנתונים של סביבת הבדיקות שודרג ל-Postgres 16.",
        "איזו גרסת Postgres במסד הנתונים של סביבת הבדיקות",
    ),
    (
        "he",
        "הגיבוי הלילי שומר היסטוריה של 30 ימים.",
        "הגיבוי הלילי שומר עכשיו היסטוריה של 90 ימים.",
        "כמה ימים של היסטוריה שומר הגיבוי הלילי",
    ),
    (
        "ru",
        "Сервис оплаты работает на порту 8080.",
        "Сервис оплаты переехал на порт 9090.",
        "на каком порту сервис оплаты",
    ),
    (
        "ru",
        "Тестовая база данных — Postgres 14.",
        "Тестовую базу данных обновили до Postgres 16.",
        "какая версия Postgres у тестовой базы данных",
    ),
    (
        "ru",
        "Лимит запросов к API — 100 в минуту.",
        "Лимит запросов к API подняли до 500 в минуту.",
        "какой лимит запросов к API",
    ),
    (
        "ru",
        "Ночной бэкап хранит историю за 30 дней.",
        "Ночной бэкап теперь хранит историю за 90 дней.",
        "за сколько дней ночной бэкап хранит историю",
    ),
]

# Pairs that share numbers or words but say nothing against each other.
COMPATIBLE: list[tuple[str, str]] = [
    ("The billing service runs on port 8080.", "The auth service runs on port 9090."),
    ("Dana joined the team on 2026-11-02.", "Dana reviewed the deploy on 2026-11-20."),
    ("Сервис оплаты работает на порту 8080.", "Сервис поиска работает на порту 9200."),
    ("שירות החיובים רץ על פורט 8080.", "שירות ההתחברות רץ על פורט 9090."),
    ("Postgres 16 supports MERGE.", "The staging database is Postgres 16."),
]
