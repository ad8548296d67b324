"""Newer values in other words: an old memory (archived, dated only in a `## YYYY-MM-DD`
heading) and a newer one that gives the same subject another value, worded differently
and under another title, with a question; and pairs that must not be judged so.

Used by tests/search/test_fresh_pairs.py: the detection (memctl.statement_values) and the
ranking (the newer ranks first in a vault). MORE_PAIRS and HARD_NEGATIVES were written
later in other words again: synonyms for the subject ("served on" / "listens on"), a
change said as "from X to Y", pairs across languages (the old fact in one, the revision
in another), and negatives that share the subject with compatible values or share words
with another subject; they are judged in a vault (by words and by meaning) and their
floor is held by the tests.
"""

from __future__ import annotations

# (language, old statement, new statement, question)
PAIRS: list[tuple[str, str, str, str]] = [
    (
        "en",
        "puma listens on port 3000 behind nginx",
        "Dor moved puma to port 3100 today",
        "which port does puma listen on",
    ),
    (
        "en",
        "invoices are rendered with Prawn",
        "invoices now render through Grover",
        "what renders our invoices",
    ),
    (
        "en",
        "Tamar owns the newsletter: drafts, sending and the list",
        "From this month Avi runs the newsletter end to end",
        "who runs the newsletter",
    ),
    (
        "en",
        "the orchard hall seats 120 for a seated dinner",
        "the fire officer says the orchard hall takes at most 80 people",
        "how many people fit in the orchard hall",
    ),
    (
        "en",
        "the ceramics workshop is on Tuesdays and Thursdays at 10:00",
        "the ceramics workshop moves to Mondays and Wednesdays",
        "which days is the ceramics workshop",
    ),
    (
        "en",
        "the grant report is due in the first week of March",
        "the grant report deadline slipped to 20 June",
        "when is the grant report due",
    ),
    (
        "en",
        "the team lunch costs 45 EUR a head",
        "the team lunch is now 60 EUR per person",
        "how much is the team lunch",
    ),
    (
        "en",
        "parcels to customers go with Swift Couriers",
        "all parcels to customers leave with Northline from Monday",
        "which courier takes parcels to customers",
    ),
    (
        "en",
        "the front desk is open 08:00 to 16:00",
        "the front desk now stays open until 18:00",
        "front desk hours",
    ),
    (
        "en",
        "the mobile app is built with Flutter",
        "we rebuilt the mobile app in Kotlin",
        "what is the mobile app built with",
    ),
    (
        "en",
        "the monthly storage bill is 120 USD",
        "the storage bill dropped to 85 USD a month",
        "storage bill per month",
    ),
    (
        "en",
        "search in the docs site runs on Algolia",
        "Lena swapped the docs site search to Typesense",
        "what powers search on the docs site",
    ),
    (
        "he",
        "שרת הבדיקות רץ על פורט 8080",
        "העברנו את שרת הבדיקות לפורט 9090",
        "באיזה פורט שרת הבדיקות",
    ),
    (
        "he",
        "הסדנה מתקיימת בימי שלישי ובחמישי",
        "מהשבוע הסדנה מתקיימת בשני וברביעי",
        "באיזה ימים הסדנה",
    ),
    (
        "he",
        "המנוי החודשי עולה 45 שקלים",
        "מחיר המנוי החודשי עלה ל-60 שקלים",
        "כמה עולה המנוי החודשי",
    ),
    (
        "he",
        "אולם האירועים מכיל 150 אורחים",
        "לפי הכבאות אולם האירועים מכיל עד 100 אורחים",
        "כמה אורחים נכנסים לאולם האירועים",
    ),
    (
        "he",
        "הדוח השנתי צריך להיות מוכן במרץ",
        "הגשת הדוח השנתי נדחתה ליוני",
        "מתי מגישים את הדוח השנתי",
    ),
    (
        "he",
        "המשלוחים ללקוחות יוצאים עם Tapuz",
        "מעכשיו כל המשלוחים ללקוחות יוצאים עם Mahir",
        "מי מוביל את המשלוחים ללקוחות",
    ),
    (
        "he",
        "הגיבוי של מסד הנתונים רץ כל 24 שעות",
        "הגיבוי של מסד הנתונים רץ עכשיו כל 6 שעות",
        "כל כמה זמן הגיבוי של מסד הנתונים",
    ),
    ("he", "האתר בנוי על WordPress", "האתר עבר לבנייה על Astro", "על מה בנוי האתר"),
    (
        "he",
        "שעות הקבלה בקופה 09:00 עד 13:00",
        "שעות הקבלה בקופה מעכשיו עד 15:00",
        "עד מתי שעות הקבלה בקופה",
    ),
    (
        "he",
        "החשבוניות מופקות ב-Priority",
        "החשבוניות מופקות עכשיו ב-Greeninvoice",
        "באיזו מערכת מופקות החשבוניות",
    ),
    (
        "ru",
        "экскурсии на русском по вторникам и четвергам в 11:00",
        "русские экскурсии теперь по средам и пятницам",
        "по каким дням экскурсии на русском",
    ),
    (
        "ru",
        "тестовый сервер слушает порт 8080",
        "тестовый сервер перевели на порт 9090",
        "какой порт у тестового сервера",
    ),
    (
        "ru",
        "скидка для членов клуба 15% на каждый заказ",
        "скидка членам клуба теперь 20%",
        "какая скидка у членов клуба",
    ),
    (
        "ru",
        "поиск по каталогу работает на Elasticsearch",
        "Борис перевёл поиск по каталогу на Meilisearch",
        "на чём работает поиск по каталогу",
    ),
    (
        "ru",
        "годовой отчёт сдаём в марте",
        "сдачу годового отчёта перенесли на июнь",
        "когда сдаём годовой отчёт",
    ),
    (
        "ru",
        "аренда склада стоит 900 долларов в месяц",
        "аренда склада подорожала до 1200 долларов",
        "сколько стоит аренда склада",
    ),
    (
        "ru",
        "новые бочки покупаем у Sabot",
        "новые бочки теперь покупаем у Kadar",
        "у кого покупаем новые бочки",
    ),
    (
        "ru",
        "бэкап базы делается раз в 24 часа",
        "бэкап базы теперь каждые 6 часов",
        "как часто бэкап базы",
    ),
    (
        "ru",
        "зал для ужина вмещает 120 гостей",
        "после проверки зал для ужина вмещает не больше 90 гостей",
        "сколько гостей вмещает зал для ужина",
    ),
    (
        "ru",
        "склад открыт с 06:30 до 14:30",
        "склад теперь открыт до 16:00",
        "до скольки открыт склад",
    ),
]

# (old, new): must NOT be judged as the newer value of the old one's subject.
NEGATIVES: list[tuple[str, str]] = [
    # different subjects
    ("the billing service runs on port 8080", "the auth service runs on port 9090"),
    ("the orchard hall seats 120 for a seated dinner", "the parking lot holds 40 cars"),
    (
        "Tamar tested the sound system in the orchard hall",
        "the orchard hall lights changed to warm LED",
    ),
    ("Сервис оплаты работает на порту 8080", "Сервис поиска работает на порту 9200"),
    ("שירות החיובים רץ על פורט 8080", "שירות ההתחברות רץ על פורט 9090"),
    ("аренда склада стоит 900 долларов", "доставка до склада стоит 50 долларов"),
    # the same value reworded
    ("puma listens on port 3000", "puma is served on port 3000"),
    ("invoices are rendered with Prawn", "Prawn renders the invoices"),
    ("המנוי החודשי עולה 45 שקלים", "מחיר המנוי החודשי הוא 45 שקלים"),
    ("экскурсии по вторникам", "экскурсии проходят по вторникам"),
    # a value for a different entity
    ("the Merlot 2022 costs 90 ILS", "the Syrah 2022 costs 120 ILS"),
    ("Amir tasted the Kadar barrels", "every new barrel comes from Kadar Hordo in Tokaj"),
    ("Dana joined the team on 2026-11-02", "Dana reviewed the deploy on 2026-11-20"),
    ("скидка для членов клуба 15%", "скидка для оптовых клиентов 10%"),
    ("תוויות למרלו מודפסות בכרמיאל", "תוויות לשרדונה מודפסות בחיפה"),
]

# Written later, in other words again (synonyms, "from X to Y", across languages).
MORE_PAIRS: list[tuple[str, str, str, str]] = [
    (
        "en",
        "the nightly export job kicks off at 01:30",
        "moved the nightly export to 04:00 so it stops clashing with the backups",
        "when does the nightly export start",
    ),
    (
        "en",
        "support tickets are answered by Gal on weekdays",
        "from now on Ruth handles the support tickets, Gal went to sales",
        "who answers support tickets",
    ),
    (
        "en",
        "the metrics dashboard is served on port 3001",
        "the metrics dashboard now listens on 3300 behind the proxy",
        "which port is the metrics dashboard on",
    ),
    (
        "en",
        "the public API allows 100 requests per minute per key",
        "we raised the public API limit from 100 to 250 requests per minute",
        "what is the rate limit of the public API",
    ),
    (
        "en",
        "office coffee beans come from Bean Brothers",
        "office coffee beans now come from Nordroast, Bean Brothers closed",
        "where do we buy coffee beans for the office",
    ),
    (
        "he",
        "ישיבת הצוות השבועית ביום ראשון ב-09:00",
        "מעכשיו ישיבת הצוות השבועית ביום שני ב-10:30",
        "מתי ישיבת הצוות השבועית",
    ),
    (
        "he",
        "הדומיין של החנות מחודש דרך Namecheap",
        "הדומיין של החנות מחודש עכשיו דרך Cloudflare",
        "איפה מחדשים את הדומיין של החנות",
    ),
    (
        "he",
        "החבילה הבסיסית עולה 99 שקלים לחודש",
        "העלינו את החבילה הבסיסית מ-99 ל-129 שקלים לחודש",
        "כמה עולה החבילה הבסיסית",
    ),
    (
        "ru",
        "домен магазина продлеваем через Namecheap",
        "домен магазина теперь продлеваем через Cloudflare",
        "где продлеваем домен магазина",
    ),
    (
        "ru",
        "лимит публичного API — 100 запросов в минуту",
        "лимит публичного API подняли со 100 до 250 запросов в минуту",
        "какой лимит у публичного API",
    ),
    (
        "ru",
        "ночная выгрузка стартует в 01:30",
        "ночную выгрузку перенесли на 04:00",
        "когда стартует ночная выгрузка",
    ),
    # Across languages: the old fact in one, its revision in another.
    (
        "en>ru",
        "the shuttle to the station leaves at 17:10",
        "шаттл до станции теперь уходит в 17:40",
        "when does the shuttle to the station leave",
    ),
    (
        "he>en",
        "המחסן נסגר ב-18:00",
        "the warehouse now closes at 20:00",
        "מתי נסגר המחסן",
    ),
    (
        "ru>en",
        "курьер забирает посылки в 13:00",
        "the courier now picks up parcels at 15:00",
        "во сколько курьер забирает посылки",
    ),
]

# (old, new, question): must NOT be judged the newer value of the old one's subject, even
# in a vault with a question about the old one: the same subject with compatible values,
# or another subject sharing words.
HARD_NEGATIVES: list[tuple[str, str, str]] = [
    (
        "the public API allows 100 requests per minute per key",
        "the limit of 100 requests a minute now also covers the admin API",
        "what is the rate limit of the public API",
    ),
    (
        "the nightly export job kicks off at 01:30",
        "the nightly export now also writes a CSV copy to the archive bucket",
        "when does the nightly export start",
    ),
    (
        "the staging database runs Postgres 15",
        "the analytics database moved to Postgres 16",
        "which Postgres does the staging database run",
    ),
    (
        "the office wifi password changes every 90 days",
        "the office rent went up to 9,000 a month",
        "how often does the office wifi password change",
    ),
    (
        "Gal answers support tickets on weekdays",
        "Gal now also answers the sales inbox on Saturdays",
        "who answers support tickets",
    ),
    (
        "ישיבת הצוות ביום ראשון ב-09:00",
        "ישיבת ההנהלה עברה ליום שני ב-10:30",
        "מתי ישיבת הצוות",
    ),
    (
        "החבילה הבסיסית עולה 99 שקלים לחודש",
        "החבילה המורחבת עולה עכשיו 199 שקלים לחודש",
        "כמה עולה החבילה הבסיסית",
    ),
    (
        "сервер логов хранит данные 30 дней",
        "сервер бэкапов теперь хранит данные 90 дней",
        "сколько дней сервер логов хранит данные",
    ),
    (
        "шаттл до станции уходит в 17:10",
        "автобус до аэропорта теперь уходит в 18:00",
        "когда уходит шаттл до станции",
    ),
    (
        "лимит публичного API — 100 запросов в минуту",
        "лимит в 100 запросов в минуту теперь действует и для админки",
        "какой лимит у публичного API",
    ),
]
