"""Hand-labelled conversations for capture by rule, in English, Hebrew and Russian.

Each user turn carries the facts a person would keep from it (words each kept memory must
contain); an empty list means filler to drop. `known` is what the vault already says (for
the new-value rule). Part "holdout" is not used to tune the rules; its last three
conversations were written after the rules and run once. The test reports both parts.
"""

from __future__ import annotations

from typing import Any

U, A = "user", "assistant"

CONVERSATIONS: list[dict[str, Any]] = [
    # ------------------------------------------------------------------ dev
    {
        "part": "dev",
        "known": ["Staging Postgres listens on port 5432", "The API is deployed with Helm"],
        "turns": [
            (U, "hey, can you check why the staging migrations fail?", []),
            (A, "The migration connects to port 5432 but gets connection refused.", None),
            (U, "No, the staging Postgres port is 5433 since the upgrade.", ["5433"]),
            (A, "Thanks, retrying with 5433. The migrations pass now.", None),
            (U, "great, thanks!", []),
            (
                U,
                "Remember that staging migrations must run with --lock-timeout=5s.",
                ["lock-timeout"],
            ),
            (A, "I'll remember that. Anything else?", None),
            (
                U,
                "remember when we ran them without a timeout and the table locked for an hour? lol",
                [],
            ),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "What do you think: Redis or Memcached for the session cache?", []),
            (
                A,
                "I suggest we use Redis with a 30 minute TTL for the session cache, since we already run Redis for queues.",
                None,
            ),
            (U, "yes, let's do that", ["redis"]),
            (
                A,
                "Done. I also noticed the queue workers restart often. We could add a health check.",
                None,
            ),
            (U, "hmm, not now", []),
            (
                U,
                "We decided to keep the queue workers on Python 3.11 until the grpc wheels catch up.",
                ["3.11"],
            ),
            (A, "Understood.", None),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "Запомни, что релизы мы выкатываем только по вторникам и четвергам.", ["вторник"]),
            (A, "Запомнил.", None),
            (U, "Помнишь, как в прошлый раз выкатили в пятницу и всё упало?", []),
            (A, "Да, это было неприятно.", None),
            (U, "Мы решили, что ответственный за релизы в этом квартале — Ольга.", ["ольга"]),
            (U, "Спасибо!", []),
            (U, "Сейчас я смотрю логи, подожди минуту.", []),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "תזכור שהשרת של הבדיקות נמצא ב-10.0.4.12", ["10.0.4.12"]),
            (A, "רשמתי.", None),
            (U, "אתה זוכר כשהשרת נפל בשבוע שעבר?", []),
            (A, "כן, זה היה בגלל הדיסק.", None),
            (U, "וסיכמנו שגיבויים רצים כל לילה בשתיים", ["גיבוי"]),
            (U, "תודה רבה", []),
            (U, "מעכשיו תמיד תכתוב את ההודעות של הקומיטים באנגלית", ["קומיט"]),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "Can you write a function that parses the config?", []),
            (
                A,
                "Here it is:\n```python\n# remember that this is a draft\ndef parse(path):\n    return toml.load(path)\n```",
                None,
            ),
            (U, "```\n# we decided to use toml\n```\nwhy does this comment say that?", []),
            (A, "I propose we switch the config format to YAML for comments support.", None),
            (U, "no, we stay with TOML", ["toml"]),
            (A, "OK, TOML stays.", None),
            (U, "Never push directly to main; always open a pull request.", ["pull request"]),
            (
                U,
                "Also, the CI cache lives in /var/cache/ci-runner on the build box.",
                ["ci-runner"],
            ),
        ],
    },
    {
        "part": "dev",
        "known": ["Billing service owner: Avi"],
        "turns": [
            (U, "who owns billing these days?", []),
            (A, "According to the notes, Avi owns the billing service.", None),
            (
                U,
                "Actually, the billing service owner is now Dana, Avi moved to the payments team.",
                ["dana"],
            ),
            (A, "Noted, Dana owns billing.", None),
            (U, "ok", []),
            (
                U,
                "For future reference: the billing webhooks are signed with HMAC-SHA256.",
                ["hmac"],
            ),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "Не забывай, что в проде у нас часовой пояс UTC, а не Москва.", ["utc"]),
            (A, "Хорошо.", None),
            (
                A,
                "Предлагаю перенести cron очистки логов на 04:00 UTC, чтобы не пересекаться с бэкапом.",
                None,
            ),
            (U, "Да, давай", ["04:00"]),
            (A, "Готово. Может, стоит ещё включить сжатие логов?", None),
            (U, "не знаю, подумаю", []),
            (U, "Если решим переезжать на ClickHouse, напомни про квоты.", []),
        ],
    },
    {
        "part": "dev",
        "known": [],
        "turns": [
            (U, "אני מציע שנעבור לפוסטגרס 16", []),
            (A, "אני ממליץ לחכות עם המעבר לפוסטגרס 16 עד אחרי השחרור.", None),
            (U, "לא, אני לא בטוח", []),
            (U, "עוד לא החלטנו מה עושים עם הקאש", []),
            (U, "החלטנו שהדמו ללקוח יהיה ביום שלישי בעשר", ["שלישי"]),
            (A, "מעולה, אכין את הסביבה.", None),
            (U, "תודה, זה הכל להיום", []),
        ],
    },
    {
        "part": "dev",
        "known": ["Docs site is built from docs/ with mkdocs"],
        "turns": [
            (U, "the docs build is broken again", []),
            (A, "The build fails because mkdocs cannot find the theme.", None),
            (U, "The docs site moved to site/docs and is built with Astro now.", ["astro"]),
            (A, "Updated the build script.", None),
            (U, "cool", []),
            (
                U,
                "Keep in mind that the docs deploy needs the DOCS_DEPLOY_TOKEN secret in CI.",
                ["docs_deploy_token"],
            ),
        ],
    },
    # -------------------------------------------------------------- holdout
    {
        "part": "holdout",
        "known": ["Grafana runs at grafana.internal:3000"],
        "turns": [
            (U, "morning! quick one", []),
            (A, "Good morning! What do you need?", None),
            (
                U,
                "Please remember: our on-call rotation switches every Monday at 09:00.",
                ["monday"],
            ),
            (A, "Got it.", None),
            (U, "Grafana moved to grafana.internal:3300 after the port clash.", ["3300"]),
            (U, "and do you remember what we did about the alert noise?", []),
            (A, "I'd suggest lowering the disk alert threshold to 85%.", None),
            (U, "Agreed.", ["85%"]),
        ],
    },
    {
        "part": "holdout",
        "known": [],
        "turns": [
            (
                U,
                "Имей в виду, что ключи от S3 лежат в Vault по пути secret/data/s3.",
                ["secret/data/s3"],
            ),
            (A, "Понял.", None),
            (U, "Мы договорились с Игорем, что фронт переходит на pnpm.", ["pnpm"]),
            (A, "Давайте тогда обновим CI под pnpm?", None),
            (U, "Потом.", []),
            (U, "Никогда не удаляй миграции, которые уже применены в проде.", ["миграци"]),
            (U, "ладно, на сегодня всё, пока", []),
            (U, "Ты помнишь, когда мы в последний раз обновляли сертификаты?", []),
        ],
    },
    {
        "part": "holdout",
        "known": ["The mobile app minimum iOS version is 15"],
        "turns": [
            (U, "תרשום לעצמך שהמפתח של ה-API נמצא בקובץ config/keys.yaml", ["config/keys.yaml"]),
            (A, "נרשם.", None),
            (U, "מינימום גרסת iOS עכשיו 16, הפסקנו לתמוך ב-15", ["16"]),
            (A, "אולי כדאי שנוסיף בדיקה לגרסה באפליקציה?", None),
            (U, "לא עכשיו, תודה", []),
            (U, "הוחלט שהעיצוב החדש עולה לאוויר בתחילת החודש", ["העיצוב"]),
            (U, "חחח זוכר את הבאג עם הכפתור הכחול?", []),
        ],
    },
    {
        "part": "holdout",
        "known": [],
        "turns": [
            (U, "Why is the nightly job so slow?", []),
            (
                A,
                "It re-indexes all 2M rows. We should index only the rows changed since the last run.",
                None,
            ),
            (U, "sounds good", ["changed since"]),
            (A, "Implemented. The job now takes 4 minutes.", None),
            (U, "From now on, run the nightly job with --incremental by default.", ["incremental"]),
            (U, "I'm checking the dashboard right now, one sec", []),
            (A, "Sure. Also, maybe we should rename the job to nightly-index?", None),
            (U, "meh", []),
        ],
    },
    {
        "part": "holdout",
        "known": [],
        "turns": [
            (U, "You said the staging bucket is public.", []),
            (A, "Yes, the staging bucket allows public reads.", None),
            (
                U,
                "That's wrong, the staging bucket is private and served through CloudFront only.",
                ["cloudfront"],
            ),
            (A, "Thanks for the correction.", None),
            (U, "Don't forget that invoices must be kept for 7 years.", ["7 years"]),
            (U, "remember, when we tried to delete old invoices the auditors complained", []),
        ],
    },
    # -------------------------------------------- holdout, second round (harder wording)
    {
        "part": "holdout",
        "known": [
            "Sentry DSN is kept in .env.production",
            "The nightly backup goes to s3://acme-backups",
        ],
        "turns": [
            (U, "btw I remember you said the tests take 20 minutes, is that still true?", []),
            (A, "Yes, around 20 minutes on CI.", None),
            (U, "Nope — with the new runners they take about 7 minutes.", ["7 minutes"]),
            (U, "Backups now go to s3://acme-backups-eu because of GDPR.", ["acme-backups-eu"]),
            (A, "Should I update the restore script as well?", None),
            (U, "yes please, and also the docs", []),
            (U, "note to self: buy coffee", []),
            (
                U,
                "Please keep in mind: the EU customers' data must never leave eu-west-1.",
                ["eu-west-1"],
            ),
        ],
    },
    {
        "part": "holdout",
        "known": [],
        "turns": [
            (A, "Я бы предложил хранить фичефлаги в Unleash, а не в конфиге.", None),
            (U, "Согласен, так и сделаем.", ["unleash"]),
            (A, "Ещё можно перейти на gRPC, но это большая работа.", None),
            (U, "хм", []),
            (
                U,
                "Кстати, на будущее: демо-стенд поднимается командой make demo-up.",
                ["make demo-up"],
            ),
            (U, "Вчера мы обсуждали, не перейти ли на Kafka, но так ничего и не решили.", []),
            (U, "Решено: логи храним 30 дней.", ["30 дней"]),
            (U, "Запомнил, что я тебе говорил про тесты?", []),
        ],
    },
    {
        "part": "holdout",
        "known": ["מסד הנתונים הראשי רץ על פורט 5432"],
        "turns": [
            (U, "שלום! יש לי שאלה על הפריסה", []),
            (A, "בטח, מה השאלה?", None),
            (U, "זכור: הפריסה לפרודקשן רק אחרי אישור של שני מפתחים", ["אישור"]),
            (U, "ואגב, מסד הנתונים הראשי עבר לפורט 6543", ["6543"]),
            (A, "כדאי שנעדכן גם את קובץ ה-docker-compose?", None),
            (U, "כן, בטח", ["docker-compose"]),
            (U, "אני עכשיו באמצע ישיבה, אחזור אליך", []),
            (U, "זוכר שדיברנו על זה אתמול?", []),
        ],
    },
]


def turn_count() -> int:
    return sum(len(c["turns"]) for c in CONVERSATIONS)
