"""A vault of the memctl shape in which 24 subjects got a newer value in other words: the
dev cases of "the newer value first" (issue 31 item 2), written apart from the vaultset's.

"Harbor Loft", an invented co-working space with a café and a booking app: core.md, a
decisions.md of dated `## YYYY-MM-DD title` entries, daily notes of `- HH:MM` bullets on
unrelated topics, and archive notes of several facts dated only in a heading. Each case is
a question, the line giving the newer value and the line giving the older one (English,
Hebrew and Russian, eight each); the older sits in an archive note or an early decision,
the newer in a busy day's bullets or a later decision under another title.

Run as a lab script it prints, per case, where the newer and the older rank in a hybrid
search of five (the relevance floor on) and whether the older names its newer:
    .venv/bin/python -m tests.search.newer_vault [/tmp/dir]
tests/search/test_newer_vault.py holds the figures.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memctl.memory import init_vault
from memctl.vault import Vault

NOW = datetime(2026, 11, 29, 9, 0)

CORE = """# Core memory

## Identity
- I am Loft Helper, the office agent of Harbor Loft, a co-working space of 140 members on two floors by the Haifa port.
- Manager: Shira Golan. Community: Dana Levi. Tech and the booking app: Lev Adler. Café: Yossi Peretz.

## Iron rules
- Never give a member's phone number to another member.
- Door codes go out by the app only, never by email.
"""

DECISIONS = """# Decisions

## 2026-01-11 מים למטבחון
- בקבוקי המים למטבחון מגיעים מ-Eden Springs, שני בקבוקים בשבוע לכל קומה.

## 2026-02-03 Бухгалтерия
- бухгалтерию коворкинга ведёт Марина Ким, отчёты сдаём до 15 числа.

## 2026-02-14 Invoicing members
- Member invoices are issued in Green Invoice at the start of each month.
- Shira checks the unpaid list every Sunday.

## 2026-02-20 מערכת הזמנות
- ההזמנות לחדרי הישיבות מנוהלות ב-Skedda, כל חבר מקבל 4 שעות בחודש.

## 2026-03-01 Печать
- резидентам бесплатно 200 страниц печати в месяц, сверх лимита 30 агорот за страницу.

## 2026-03-10 Coffee supplier for the café
- The café's beans come from Kalama Roastery in Jaffa, about 14 kg a month.

## 2026-03-20 תורנות מטבח
- רונית אחראית על המטבחון והזמנת החלב.

## 2026-04-02 Meeting rooms
- Dana handles all meeting room bookings and the shared calendar.

## 2026-03-28 ניקיון המשרדים
- את המשרדים הפרטיים מנקה חברת Brightclean פעמיים בשבוע.

## 2026-04-09 Охрана здания
- охрану здания по ночам обеспечивает агентство Барьер.

## 2026-04-11 Podcast room
- Tamar keeps the podcast room calendar and hands out its key.

## 2026-04-15 Phone booths
- Phone booths are first come, first served; Ayala owns the booth cleaning rota.

## 2026-05-12 Квота гостей
- каждый резидент может провести трёх гостей в день бесплатно.

## 2026-06-08 אירועי ערב
- אירועי ערב במתחם מסתיימים עד 23:00 לכל המאוחר.

## 2026-11-02 שעות פתיחה לחורף
- מעכשיו פותחים את הלובי ב-07:00 בבוקר, גם בימי שישי.

## 2026-11-05 Prices for 2027
- Hot desks go up to 950 ILS monthly from January; members who prepay a year keep the old price.

## 2026-11-10 Рассылка
- с ноября новости для участников отправляем через Unisender, Sendpulse закрыли.

## 2026-11-14 Event space after the renovation
- With the wall gone the event space now takes up to 110 guests standing.

## 2026-11-09 Studio
- Gil keeps the podcast room calendar; the key hangs at the front desk.

## 2026-11-12 שירותי ניקיון
- המשרדים הפרטיים מנוקים מעתה על ידי Shinui Clean.

## 2026-11-16 Ночная охрана
- ночную охрану здания взяло агентство Цербер.

## 2026-11-18 Booths and quiet rooms
- Noam is responsible for the phone booths' cleaning rota; Ayala focuses on the front desk.

## 2026-11-19 Гости резидентов
- резидент проводит не больше двух гостей в день без оплаты.

## 2026-11-21 שקט בערבים
- כל אירוע ערב במתחם נגמר ב-22:00 בגלל השכנים.
"""

ARCHIVE = {
    "booking-app-setup": """# Booking app setup

## 2026-01-15
- the booking API is served by gunicorn on port 8000 behind nginx
- the app's database is Postgres 14 on the same droplet
- сайт бронирования крутится на Hetzner CX21
""",
    "pricing-2026": """# Price list 2026

## 2026-02-01
- a hot desk is 850 ILS a month, a fixed desk 1,200 ILS
- כרטיס יומי עולה 90 ש״ח
- переговорка на 8 человек стоит 120 шекелей в час
""",
    "house-rules": """# House rules

## 2026-05-03
- the doors lock at 22:00 on weekdays
- cleaners come every Tuesday evening
- הלובי נפתח ב-07:30
- кондиционеры выставлены на 24 градуса
""",
    "parking": """# חניה

## 2026-04-01
- חניה חודשית לחברים עולה 300 ש״ח בחניון של הנמל
- שומר החניון מגיע בשבע
""",
    "infrastructure": """# תשתיות

## 2026-01-20
- קו האינטרנט של המתחם הוא 500 מגה של בזק
- הנתב הראשי בארון התקשורת בקומה 2
""",
    "community": """# Community

## 2026-06-01
- מפגש הקהילה מתקיים בכל יום רביעי בערב
- the members' Slack has 90 people
""",
    "event-space": """# Event space

## 2026-06-10
- the event space holds 60 guests standing, 40 seated
- the projector remote lives in the café drawer
""",
    "front-desk-handbook": """# Front desk handbook

## 2026-03-08
- greet every visitor and ask whom they came to see
- visitors sign the tablet at the desk and get a paper badge
- a courier with a parcel for a member leaves it on the shelf behind the desk
- members' guests wait in the lobby until their host comes down
- lost items go to the box under the desk and are kept for a month
- the desk phone forwards to Shira's mobile after hours
- the first-aid kit is in the cabinet left of the coffee machine
- fire exits are at the end of both corridors, never block them
- the spare key cards are in the locked drawer, the code is with Shira
- the desk closes its till every evening and Shira checks it on Sundays
- tours for prospective members are booked through the website form
- the storage room on floor 1 holds the folding chairs and the banner
- the lobby music plays from the small speaker, volume no higher than 3
- the photocopier on floor 1 takes member cards, guests pay cash at the desk
- the front desk's shift starts at 07:45 and ends at 16:15
""",
    "server-notes": """# Server notes (2026-02-10)

- nightly backups of the booking database run at 02:00 to S3
- the staging server is switched off on weekends
""",
    "mail": """# Почта

## 2026-04-12
- курьер забирает почту в 16:00 от стойки
- посылки для резидентов храним неделю
""",
    "newsletter": """# Рассылка

## 2026-03-15
- новости участникам уходят через Sendpulse раз в две недели
""",
    "roof": """# Крыша

## 2026-06-20
- йога на крыше по понедельникам и четвергам в 08:00
- на крыше нельзя курить
""",
}

# Unrelated bullets a busy day is filled with (build() spreads them over the days).
FILLER = [
    "Dana answered the tour requests from the website",
    "a member asked where to leave a bicycle",
    "the café's dishwasher needed a new filter",
    "Lev reset two members' app passwords",
    "Shira paid the electricity bill for October",
    "the plants on floor 2 were watered",
    "a delivery of printer paper arrived, 20 boxes",
    "Yossi baked croissants for the morning crowd",
    "two members complained about the noise in the open space",
    "the window cleaner finished the south side",
    "Lev looked at the slow Wi-Fi near the kitchen",
    "a startup asked about renting a private office",
    "Dana posted the photos from the meetup",
    "the lift got stuck for ten minutes, the technician came",
    "Shira renewed the domain of the website",
    "the recycling bins were emptied",
    "Yossi changed the sandwich menu for the week",
    "a journalist asked to interview Shira",
    "the shared fridge was cleaned out",
    "Dana ordered stickers with the new logo",
    "Лев обновил календарь событий на сайте",
    "בדקנו את מזגן חדר הישיבות הגדול",
    "Марина прислала счёт за уборку",
    "הגיע משלוח של כוסות חד פעמיות",
]

# Daily notes: day -> bullets ("HH:MM text"), the newer values among unrelated ones.
DAILY: dict[str, list[str]] = {
    "2026-11-08": [
        "09:10 Lev fixed the double-booking bug in the app",
        "10:20 בזק שדרגו לנו את הקו ל-1000 מגה",
        "12:05 Yossi ordered new cups for the café",
    ],
    "2026-11-09": [
        "09:30 Лев перенёс сайт бронирования на DigitalOcean",
        "11:00 Dana printed name tags for the meetup",
        "15:40 a member lost a key card at the lobby",
    ],
    "2026-11-10": [
        "08:50 invoices for members now go out from Morning",
        "10:15 Shira met the landlord about the lease",
        "13:30 the plant guy watered the ficus",
    ],
    "2026-11-11": [
        "09:00 лимит бесплатной печати урезали до 100 страниц",
        "10:40 Dana answered three tour requests",
        "16:10 the café ran out of oat milk",
    ],
    "2026-11-12": [
        "09:20 Lev put the booking API behind uvicorn on port 8800",
        "11:30 two new members signed for fixed desks",
    ],
    "2026-11-13": [
        "08:40 курьер теперь приезжает за почтой в 14:30",
        "12:00 Yossi tried a new quiche recipe",
        "17:20 the alarm company tested the sensors",
    ],
    "2026-11-14": [
        "10:00 кондиционеры теперь держим на 22 градусах",
        "11:15 Dana booked the big meeting room for the investors on Thursday",
    ],
    "2026-11-15": [
        "09:00 מהשבוע יוסי אחראי על המטבחון במקום רונית",
        "10:30 the printer on floor 2 jammed again",
        "14:00 Shira signed the insurance renewal",
    ],
    "2026-11-16": [
        "09:40 с декабря бухгалтерией занимается Олег Ли, Марина уходит",
        "12:20 a film crew asked to shoot in the lobby",
    ],
    "2026-11-17": [
        "09:10 החלפנו את ספק המים למטבחון ל-Tami4",
        "11:00 the elevator inspection is on the 30th",
        "15:30 Lev upgraded the door readers' firmware",
    ],
    "2026-11-18": [
        "08:30 Shira: we now order the café's beans from Nahat Roasters, Kalama kept missing deliveries",
        "10:00 the lost key card turned up in the café",
    ],
    "2026-11-19": [
        "09:50 החניון העלה את המנוי החודשי לחברים ל-380 ש״ח",
        "11:40 Dana started the December events calendar",
    ],
    "2026-11-20": [
        "09:15 Eli took over meeting room bookings from Dana this week",
        "12:45 a member asked for a standing desk",
    ],
    "2026-11-21": [
        "10:05 העברנו את ניהול חדרי הישיבות ל-Nexudus",
        "13:00 the café's fridge was serviced",
    ],
    "2026-11-22": [
        "08:55 management says the building now closes at 20:00 Sunday to Thursday",
        "11:20 Yossi hired a weekend barista",
    ],
    "2026-11-23": [
        "09:35 аренда переговорки теперь 150 шекелей в час",
        "12:10 Lev added dark mode to the booking app",
    ],
    "2026-11-24": [
        "09:05 the cleaning crew switched to Friday mornings",
        "10:50 Dana sent the members' survey",
    ],
    "2026-11-25": [
        "09:30 מחיר הכרטיס היומי עלה ל-110 ש״ח",
        "11:00 the roof furniture was covered for the winter",
    ],
    "2026-11-26": [
        "10:10 מפגש הקהילה עובר לימי שלישי",
        "16:20 Lev moved the nightly database backups to 04:00",
        "14:40 a member's dog bit the café chair",
    ],
    "2026-11-28": [
        "10:40 the front desk shift now runs 07:30 to 17:00",
    ],
    "2026-11-27": [
        "09:00 йогу на крыше перенесли на вторник и пятницу",
        "12:30 the new members' welcome packs arrived",
    ],
}


@dataclass(frozen=True)
class Case:
    """A question, the line giving the newer value and the line giving the older one
    (each a file under memory/, relative, and a phrase of its line)."""

    lang: str
    question: str
    fresh: tuple[str, str]
    stale: tuple[str, str]


_D = "decisions.md"


def _daily(day: str) -> str:
    return f"daily/{day}.md"


# fmt: off
CASES: list[Case] = [
    Case("en", "Which roaster supplies the café's coffee beans?", (_daily("2026-11-18"), "beans from Nahat Roasters"), (_D, "beans come from Kalama Roastery")),
    Case("en", "How much does a hot desk cost per month?", (_D, "Hot desks go up to 950 ILS"), ("archive/pricing-2026.md", "a hot desk is 850 ILS")),
    Case("en", "Who is in charge of meeting room bookings?", (_daily("2026-11-20"), "Eli took over meeting room bookings"), (_D, "Dana handles all meeting room bookings")),
    Case("en", "Which port does the booking API listen on?", (_daily("2026-11-12"), "uvicorn on port 8800"), ("archive/booking-app-setup.md", "gunicorn on port 8000")),
    Case("en", "What time does the building close on weekdays?", (_daily("2026-11-22"), "building now closes at 20:00"), ("archive/house-rules.md", "the doors lock at 22:00")),
    Case("en", "Which tool do we issue member invoices with?", (_daily("2026-11-10"), "now go out from Morning"), (_D, "issued in Green Invoice")),
    Case("en", "How many guests fit in the event space?", (_D, "takes up to 110 guests"), ("archive/event-space.md", "holds 60 guests standing")),
    Case("en", "Which day do the cleaners come?", (_daily("2026-11-24"), "cleaning crew switched to Friday"), ("archive/house-rules.md", "cleaners come every Tuesday")),
    Case("he", "מי אחראי על המטבחון?", (_daily("2026-11-15"), "יוסי אחראי על המטבחון"), (_D, "רונית אחראית על המטבחון")),
    Case("he", "כמה עולה חניה חודשית לחברים?", (_daily("2026-11-19"), "המנוי החודשי לחברים ל-380"), ("archive/parking.md", "חניה חודשית לחברים עולה 300")),
    Case("he", "באיזו שעה נפתח הלובי בבוקר?", (_D, "פותחים את הלובי ב-07:00"), ("archive/house-rules.md", "הלובי נפתח ב-07:30")),
    Case("he", "באיזו מערכת מזמינים את חדרי הישיבות?", (_daily("2026-11-21"), "חדרי הישיבות ל-Nexudus"), (_D, "מנוהלות ב-Skedda")),
    Case("he", "מה מהירות קו האינטרנט במתחם?", (_daily("2026-11-08"), "הקו ל-1000 מגה"), ("archive/infrastructure.md", "הוא 500 מגה")),
    Case("he", "באיזה יום מפגש הקהילה?", (_daily("2026-11-26"), "מפגש הקהילה עובר לימי שלישי"), ("archive/community.md", "בכל יום רביעי בערב")),
    Case("he", "מי ספק המים של המטבחון?", (_daily("2026-11-17"), "ספק המים למטבחון ל-Tami4"), (_D, "מגיעים מ-Eden Springs")),
    Case("he", "כמה עולה כרטיס יומי?", (_daily("2026-11-25"), "הכרטיס היומי עלה ל-110"), ("archive/pricing-2026.md", "כרטיס יומי עולה 90")),
    Case("ru", "Кто ведёт бухгалтерию коворкинга?", (_daily("2026-11-16"), "бухгалтерией занимается Олег Ли"), (_D, "ведёт Марина Ким")),
    Case("ru", "Где размещён сайт бронирования?", (_daily("2026-11-09"), "сайт бронирования на DigitalOcean"), ("archive/booking-app-setup.md", "крутится на Hetzner")),
    Case("ru", "Сколько стоит час в переговорке?", (_daily("2026-11-23"), "аренда переговорки теперь 150"), ("archive/pricing-2026.md", "стоит 120 шекелей в час")),
    Case("ru", "Во сколько курьер забирает почту?", (_daily("2026-11-13"), "за почтой в 14:30"), ("archive/mail.md", "забирает почту в 16:00")),
    Case("ru", "Сколько страниц можно печатать бесплатно?", (_daily("2026-11-11"), "урезали до 100 страниц"), (_D, "бесплатно 200 страниц")),
    Case("ru", "Через какой сервис идёт рассылка участникам?", (_D, "отправляем через Unisender"), ("archive/newsletter.md", "уходят через Sendpulse")),
    Case("ru", "В какие дни йога на крыше?", (_daily("2026-11-27"), "перенесли на вторник и пятницу"), ("archive/roof.md", "по понедельникам и четвергам")),
    Case("ru", "На сколько градусов настроены кондиционеры?", (_daily("2026-11-14"), "держим на 22 градусах"), ("archive/house-rules.md", "выставлены на 24 градуса")),
    # Decisions revised under another title, no word of change; an archive fact past its
    # note's first chunk (dated only in the heading above it).
    Case("en", "Who is responsible for cleaning the phone booths?", (_D, "Noam is responsible for the phone booths"), (_D, "Ayala owns the booth cleaning rota")),
    Case("ru", "Сколько гостей резидент может привести бесплатно?", (_D, "не больше двух гостей"), (_D, "трёх гостей в день бесплатно")),
    Case("he", "עד איזו שעה מותר לקיים אירוע ערב?", (_D, "נגמר ב-22:00"), (_D, "מסתיימים עד 23:00")),
    Case("en", "Who keeps the podcast room calendar?", (_D, "Gil keeps the podcast room calendar"), (_D, "Tamar keeps the podcast room calendar")),
    Case("he", "איזו חברה מנקה את המשרדים הפרטיים?", (_D, "מנוקים מעתה על ידי Shinui Clean"), (_D, "מנקה חברת Brightclean")),
    Case("ru", "Какое агентство охраняет здание ночью?", (_D, "взяло агентство Цербер"), (_D, "обеспечивает агентство Барьер")),
    Case("en", "When do the nightly backups run?", (_daily("2026-11-26"), "nightly database backups to 04:00"), ("archive/server-notes.md", "run at 02:00 to S3")),
    Case("en", "What are the front desk's shift hours?", (_daily("2026-11-28"), "shift now runs 07:30 to 17:00"), ("archive/front-desk-handbook.md", "starts at 07:45 and ends at 16:15")),
]
# fmt: on


def build(root: Path) -> Vault:
    """The vault at ROOT (new, not indexed)."""
    init_vault(root)
    vault = Vault(root)
    memory = vault.core_path.parent
    vault.core_path.write_text(CORE, encoding="utf-8")
    (memory / "decisions.md").write_text(DECISIONS, encoding="utf-8")
    for name, text in ARCHIVE.items():
        (vault.archive_dir / f"{name}.md").write_text(text, encoding="utf-8")
    for n, (day, bullets) in enumerate(sorted(DAILY.items())):
        # Eight unrelated bullets a day around the case's (after it on odd days): a day's
        # note is one chunk of many facts.
        filler = [FILLER[(n * 8 + i) % len(FILLER)] for i in range(8)]
        stamped = [f"{8 + i:02d}:{15 + n % 40:02d} {text}" for i, text in enumerate(filler)]
        lines = sorted(bullets + stamped, key=lambda b: b.split()[0].zfill(5))
        if n % 2:
            lines = stamped[:5] + bullets + stamped[5:]
        text = "".join(f"- {line}\n" for line in lines)
        (vault.daily_dir / f"{day}.md").write_text(f"# {day}\n\n{text}", encoding="utf-8")
    return vault


def line_of(vault: Vault, where: tuple[str, str]) -> tuple[str, int]:
    """The vault-relative path and 1-based line holding a case's phrase."""
    path = vault.core_path.parent / where[0]
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if where[1] in line:
            return str(path.relative_to(vault.root)), i
    raise ValueError(f"{where[1]!r} is not in {where[0]}")


@dataclass(frozen=True)
class Outcome:
    case: Case
    fresh_at: int | None  # 0-based rank among the results
    stale_at: int | None
    named: bool  # the older's superseded_by names the newer's file

    @property
    def newer_first(self) -> bool:
        """The vaultset's measure: the newer shown, and the older absent or below it."""
        return self.fresh_at is not None and (
            self.stale_at is None or self.fresh_at < self.stale_at
        )


def outcomes(vault: Vault, k: int = 5, use_floor: bool = True) -> list[Outcome]:
    """Each case searched in hybrid mode (the vault indexed already)."""
    from memctl.search.hybrid import Searcher

    out = []
    with Searcher(vault) as searcher:
        for case in CASES:
            response = searcher.search(case.question, k=k, log=False, now=NOW, use_floor=use_floor)
            found = [(r.path, r.line_start, r.line_end) for r in response.results]

            def rank(
                where: tuple[str, str], found: list[tuple[str, int, int]] = found
            ) -> int | None:
                path, line = line_of(vault, where)
                return next(
                    (i for i, (p, a, b) in enumerate(found) if p == path and a <= line <= b), None
                )

            fresh_at, stale_at = rank(case.fresh), rank(case.stale)
            named = stale_at is not None and (
                response.results[stale_at].superseded_by or ""
            ).startswith(line_of(vault, case.fresh)[0])
            out.append(Outcome(case, fresh_at, stale_at, named))
    return out


def main(argv: list[str]) -> None:
    from memctl.index.sync import sync

    root = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="newer-vault-")) / "vault"
    vault = build(root)
    sync(vault, now=NOW)
    rows = outcomes(vault)
    for row in rows:
        mark = "ok " if row.newer_first else "MISS"
        print(
            f"{mark} {row.case.lang} new={row.fresh_at} old={row.stale_at} named={row.named}  {row.case.question}"
        )
    both = [r for r in rows if r.fresh_at is not None and r.stale_at is not None]
    print(
        f"newer-first {sum(r.newer_first for r in rows)}/{len(rows)}; "
        f"both shown {len(both)}, newer above {sum(r.newer_first for r in both)}; "
        f"newer shown {sum(r.fresh_at is not None for r in rows)}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
