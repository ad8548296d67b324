"""The vault's text: core.md, decisions, daily notes and archive notes of "Gefen Cellars".

Everything here is invented for memctl's own evaluation (a boutique winery in the Galilee
with a visitor center, a wine club and an online shop). Placeholders such as {iso:-3} or
{en_date:+9} are dates relative to the build's "today" (see build.expand); daily notes are
keyed by how many days ago they were written.
"""

from __future__ import annotations

CORE = """# Core memory
<!-- HOT tier: loaded into every agent call. Hard cap: 100 lines (`memctl lint` enforces it).
     Identity, iron rules and the current state only; anything dated goes to a daily note. -->

## Identity
- I am Gefen Helper, the back-office agent of Gefen Cellars (יקב גפן), a family winery of 11 people at Moshav Dalton in the Upper Galilee. About 60,000 bottles a year, a visitor center, and the web shop gefen-cellars.co.il.
- Owner, final word on money: Michal Harel. Winemaker: Amir Tzur. Vineyard: Tomer Segal with Sergey Pavlov.
- Visitor center, tastings and events: Liat Cohen. Web shop: Noam Bar. Warehouse and shipping: Kostya Volkov.
- Russian-speaking tours and club members: Irina Shapiro. Bookkeeping (external): Gil Ashkenazi. Labels and design: Yael Nir, freelance.
- The shop (`cellar-shop`, Rails + MySQL on a DigitalOcean droplet) is built and run by Boris Lerner, freelance.
- The team writes to me in Hebrew; Kostya, Irina, Sergey and Boris often in Russian; our German importer Katrin Vogel gets English only.

## Iron rules
- Never sell or ship alcohol to anyone under 18: the age checkbox at checkout stays mandatory.
- Any discount above 25% on one order needs Michal's OK in writing.
- No changes to the live shop on Thursday evening or Friday (the weekend orders peak).
- Lab analysis PDFs and the excise licence number go out by email only, never by WhatsApp.
- Every bottling run gets its `LOT-` code in the cellar book on the day it is bottled.
- Card tokens stay at the payment provider; we keep the last 4 digits only.

## Active projects
- Hamburg shipment `EXP-311` for Weinhaus Vogel, 540 bottles; back labels need the German allergen text.
- Cabernet 2023 bottling run `LOT-23-CS`; Amir sets the date.
- Storefront redesign on `cellar-shop`: Boris builds, Yael draws.
- Harvest festival weekend at the winery, Liat organises.

## Open blockers
- The excise (בלו) refund for the Germany shipment waits for the customs stamp.
- `GESHER_WEBHOOK_SECRET` rotated on staging only; prod still runs the old secret.
"""

DECISIONS_HEADER = """# Decisions
<!-- WARM tier: the 20 latest dated decisions are loaded. One `## YYYY-MM-DD — title` each,
     the why in the body. A revised decision gets a new entry; the old one stays. -->
"""

# (days from today, title, body lines)
# A table: one row a line reads better than one field a line (ruff format).
# fmt: off
DECISIONS: list[tuple[int, str, list[str]]] = [
    (-250, "Card payments through ShekelGate", [
        "ShekelGate charges 1.2% per transaction plus 39 ILS a month, and its hosted payment page keeps card data off our droplet.",
        "Boris needs four days to wire it into the Rails checkout.",
    ]),
    (-232, "Tasting price at the visitor center", [
        "A tasting of four wines at the bar costs 95 ILS per person; club members taste free.",
        "Liat prints the price on the board by the door.",
    ]),
    (-215, "Club newsletter in Mailchimp", [
        "Noam's list of 2,300 subscribers moves from an Excel sheet to Mailchimp; the free plan is enough for now.",
        "One mailing a month, Hebrew first, a Russian version for Irina's members.",
    ]),
    (-200, "Shop look: the dark Cellar theme", [
        "The shop keeps the dark 'Cellar' theme from the Shopify days, bottle photos on black.",
        "Yael wanted something lighter; Michal said no redesign before the harvest.",
    ]),
    (-172, "Wine club run by the visitor center", [
        "Liat owns the wine club: renewals, the quarterly boxes and members' phone calls.",
        "Noam only handles the club's online orders.",
    ]),
    (-150, "No deliveries to Eilat in summer", [
        "מיוני עד ספטמבר לא שולחים לאילת ולערבה: שני ארגזים של מרלו 2022 התבשלו ברכב של השליח ב-44 מעלות.",
        "לקוחות משם יכולים לאסוף מהיקב או לחכות לאוקטובר.",
    ]),
    (-121, "Germany only through Weinhaus Vogel", [
        "Katrin Vogel's company in Hamburg gets exclusivity for Germany and Austria for two years, at least 1,500 bottles a year.",
        "German restaurants that write to us directly are sent to her.",
    ]),
    (-95, "Cabernet 2023 into bottles early next month", [
        "Amir wants the Cabernet 2023 bottled in the first week of {mon:-65} with the mobile line from Bottle-On-Wheels.",
        "Yael has the labels ready by then.",
    ]),
    (-80, "Staging gets its own droplet", [
        "После того как тестовый импорт стёр таблицу товаров на проде, staging переезжает на отдельный дроплет на 2 GB со своей базой.",
        "Борис: 12 долларов в месяц, с продом общий только репозиторий.",
    ]),
    (-62, "New cooperage: Hungarian oak from Kádár", [
        "From this vintage every new barrel comes from Kádár Hordó in Tokaj, Hungarian oak at 640 EUR a barrel instead of 980 for French.",
        "Amir will compare the two side by side after a year.",
    ]),
    (-46, "Checkout moves to Gesher Payments", [
        "ShekelGate raised its fee to 1.6% and went down twice in a month; Gesher Payments offers 0.8%, Bit and Apple Pay, and a sandbox that works.",
        "Boris switches on `PAYMENTS_PROVIDER=gesher` after a week on staging.",
    ]),
    (-31, "Club operations go to the shop team", [
        "From next month Noam runs the wine club end to end: renewals, quarterly boxes, members' calls. Liat keeps only the club events.",
        "The visitor center is too busy on weekends to answer members.",
    ]),
    (-24, "Prices for the new season at the visitor center", [
        "A guided flight of five wines is now 120 ₪ a head; members still pour for free.",
        "Liat adds a cheese plate for 65 ₪.",
    ]),
    (-17, "Storefront redesign: the light Vineyard template", [
        "The storefront gets Yael's light 'Vineyard' look: white background, vineyard photos, bigger Hebrew type.",
        "Boris builds it on a branch; launch before the festival weekend.",
    ]),
    (-9, "Bilingual labels for every wine", [
        "From the next bottling every label carries Hebrew and English; the Hebrew-only stock is used up and not reprinted.",
        "Yael redraws the back labels, the allergen line in both languages.",
    ]),
    (-4, "Free delivery from 400 ₪", [
        "Orders from 400 ₪ ship free anywhere we deliver; below that delivery costs 35 ₪.",
        "Noam changes the banner and sets `FREE_SHIPPING_MIN=400`.",
    ]),
]
# fmt: on

# Daily notes: days ago -> bullets in the `- HH:MM text` form `memctl add` writes.
# A table: one row a line reads better than one field a line (ruff format).
# fmt: off
DAILY: dict[int, str] = {
0: """
- 08:20 Kostya: 31 orders packed for today, 4 of them to the club's Haifa pickup point
- 09:10 Katrin asked for the lab analysis of the Chardonnay 2024 — sent by email as the rules say
- 10:05 ליאת: קבוצה של 22 מרעננה מגיעה ביום שלישי לטעימה, ביקשו מדריך דובר אנגלית
- 11:30 Boris: GC-217 on staging, the festival ticket page with a seat counter
- 12:45 Ирина: членам клуба из Ашдода не пришли письма о продлении, проверить адреса
- 14:00 Michal wants the festival budget in one sheet before Sunday
""",
1: """
- 08:05 GC-216 out at 07:58: the free-delivery bar in the cart counts down to 400 ₪
- 09:15 Tomer: the Syrah block at Har Dalton has mildew spots on the lower leaves, spraying sulphur tomorrow at dawn
- 10:40 Костя: пришли 3 паллеты пустых бутылок от Vetropack, одна разбита, составил акт
- 11:20 Noam: 14 new club members from the Tel Aviv wine fair stand
- 13:00 נועם: לקוח מקריית שמונה קיבל שני בקבוקי רוזה במקום קברנה, שלחנו החלפה עם שליח
- 15:30 Gil: the VAT report for the last two months is filed, 18,420 ₪ to pay
- 17:10 Yael sent the German back label draft, Katrin must approve the allergen line
""",
2: """
- 08:30 Sergey: the drip line in block 4 leaks at three joints, fixed with spare connectors
- 09:45 Boris restarted the Meilisearch service after a disk alert at 92% on the droplet; old logs deleted
- 11:00 ליאת: אושרה חתונה ל-{he_date:+40} באולם החביות, 85 אורחים, קייטרינג של "שולחן הגליל"
- 12:15 Irina: a Russian-speaking group from Nahariya booked the Wednesday tour, 18 people
- 13:40 Michal signed the new insurance addendum for the festival weekend
- 16:00 Kostya sent the empty-bottle damage report to Vetropack, they credit one pallet
""",
3: """
- 08:10 GC-215 on staging: the light Vineyard storefront, Hebrew type at 18px
- 09:30 Amir tasted the Kádár barrels: less vanilla than the French ones, keeps the fruit
- 10:50 Ирина: в субботу два гостя упали на мокрой лестнице в погреб, никто не пострадал, нужна табличка
- 12:30 Noam: the quarterly club box for members ships in ten days, 212 boxes
- 14:15 דנה מהמועצה: שלט הכוונה ליקב בכביש 89 יוחלף בשבוע הבא
- 16:40 Katrin: Weinhaus Vogel wants 60 more bottles of the rosé for a Hamburg restaurant chain
""",
4: """
- 08:00 Kostya: the forklift battery died again, borrowed one from the moshav's packing house
- 09:20 יעל: קובצי התווית הדו-לשונית לשרדונה מוכנים, שלחתי לדפוס לאישור צבע
- 10:30 Boris: 3 failed Bit payments this morning, Gesher says a timeout on their side, solved by noon
- 12:00 Liat: the food truck for the festival confirmed, 4,500 ₪ flat
- 13:45 Амир попросил купить 40 кг сульфита калия до сбора урожая
- 15:10 Noam set `FREE_SHIPPING_MIN=400` on prod and changed the banner
""",
5: """
- 08:40 Tomer: birds are eating the Muscat grapes, nets go up on Sunday
- 10:00 Gil wants every Gesher payout report of the quarter in one folder
- 11:15 ליאת: הזמנו 300 כוסות טעימה עם לוגו לפסטיבל, 4.20 ₪ לכוס
- 12:40 Борис: сертификат TLS на staging истёк, продлил вручную, таймер certbot был выключен
- 14:30 Irina answered 9 members who asked about the new tasting prices
- 16:20 Michal met the Galil bank about a loan for a second press
""",
6: """
- 08:15 Katrin moved the cut-off: pallets must be at Haifa port by {en_date:+9}, the ship leaves two days later
- 09:40 Kostya booked the Haifa customs broker (Shaked Logistics) for EXP-311
- 11:05 נועם: שלושה לקוחות שאלו אם אפשר לשלם בביט באתר, כן, דרך גשר
- 12:20 Boris: Sentry shows `NoMethodError` in the club renewal mailer for members without a phone
- 14:10 Амир: ферментация шардоне 2024 закончилась, 13.1% алкоголя
- 15:50 Liat: the cheese plate sold 40 times this week
""",
7: """
- 08:30 GC-214 deployed: members see their next box date on the account page
- 09:50 Tomer's team pruned the green shoots in blocks 1–3, two days ahead of plan
- 11:10 ליאת: ביקור של 40 תיירים מאוניית קרוז בחיפה, הזמינו אוטובוס דרך "גליל טורס"
- 12:35 Ирина: провела экскурсию для группы из Хайфы, 26 человек, продали 58 бутылок
- 14:00 Kostya took the van to the garage in Karmiel: new brake pads, 1,350 ₪
- 15:20 Yael won second prize for the rosé label at the Tel Aviv design fair
""",
8: """
- 08:10 Amir: the Cabernet bottling moved to {en_date:+16}, the mobile line had a broken filler
- 09:25 GC-213 out and rolled back at 10:05: the Hebrew invoice PDF printed left-to-right
- 11:00 Noam: 5 club members paused their membership for the summer
- 12:30 נועם: הלקוחה מנצרת עילית מבקשת חשבונית על שם החברה, נשלחה
- 14:45 Костя: отправил 12 ящиков в рестораны Тель-Авива, курьер Mahir Express
- 16:00 Liat tested the new sound system in the barrel hall, the left speaker hums
""",
9: """
- 08:45 Liat: the visitor center stays open until 15:00 on Fridays from now, Michal approved
- 10:10 Boris: GC-213 fixed with `direction: rtl` in the PDF template, redeployed at 09:58
- 11:40 יעל: המדפסת מבקשת 10 ימים לתוויות עם הטבעה בזהב
- 13:00 Gil found a double charge on a club renewal, refunded 290 ₪ through Gesher
- 15:15 Sergey: the tractor's hydraulic hose is cracked, ordered from the Kiryat Shmona dealer
""",
10: """
- 08:20 Kostya counted the warehouse: 4,812 bottles on the shelves, 36 short of the books
- 09:40 Ирина: у клиентки из Бат-Яма разбились 2 бутылки при доставке, отправили новые
- 11:00 Katrin confirmed the rosé price: 7.90 EUR ex-cellar per bottle
- 12:30 מיכל: ראיון לעיתון "הארץ" על יקבי הגליל ביום חמישי
- 14:00 Boris: the droplet's MySQL slow log shows the admin order search at 4 s, index added
- 16:10 Amir racked the Merlot 2024 off its lees into the clean tank 7
""",
12: """
- 08:30 Noam: club discount is 20% from this week, banner and checkout updated
- 09:45 Gil: the accountant's fee goes up to 1,900 ₪ a month from next quarter
- 11:20 ליאת: משפחת אבוטבול מבקשת סיור פרטי עם ארוחת ערב לחמישים איש
- 13:05 Костя: коробки на 6 бутылок закончились, заказал 500 штук у «Карто-Пак»
- 14:40 Tomer: first sugar readings, Chardonnay at 19.5 Brix
- 16:15 Michal approved 3,000 ₪ for Google Ads around the festival
""",
13: """
- 08:40 Ирина: русские экскурсии теперь по средам и пятницам в 12:00, на сайте обновила
- 10:00 GC-212 out: club renewal emails go out through Brevo
- 11:30 Kostya: a courier left a box of 6 at the wrong house in Safed, found it the next day
- 12:50 יעל: סקיצות לעיצוב החדש של האתר, רקע לבן ותמונות מהכרם
- 14:20 Amir: a sample of the rosé 2024 went to the Migdal lab for the German analysis
- 15:40 Liat ordered folding chairs for the festival from "Kiseh Plus", 200 pieces
""",
14: """
- 08:15 Boris: the staging droplet ran out of memory during the product import, added 1 GB swap
- 09:30 Noam: a corporate order from Elbit's Haifa office, 180 gift boxes for the holidays
- 11:00 Ирина: клиент из Ашкелона хочет вернуть вино, которое ему не понравилось — объяснила, что открытые бутылки не возвращаем
- 12:40 ליאת: הכבאות ביקשו מטף נוסף ליד המקרר בחדר הטעימות
- 14:10 Kostya: Mahir Express picks up at 15:00 now instead of 13:00
- 16:30 Tomer: the weather station on the ridge stopped sending data, battery
""",
15: """
- 08:30 Boris: invoices now render through Grover (headless Chrome); Prawn could not lay out Hebrew right-to-left
- 09:50 Michal: the winery will be closed on the national election day
- 11:10 Костя: на складе протекает крыша над третьим рядом, поставил ведро и накрыл ящики плёнкой
- 12:40 נועם: שאלות על משלוח לאילת, הסברתי שבקיץ לא שולחים
- 14:20 Katrin sent the signed price list for the next twelve months
- 16:00 Liat: 3 school principals asked about educational visits, no alcohol, grape juice only
""",
17: """
- 08:45 Noam moved the club mailing list to Brevo; Mailchimp cancelled at the end of the month
- 10:15 Sergey: a wild boar broke the fence of block 6 again, fixed with wire mesh
- 11:40 ליאת: הזמנה לערב טעימות של ועד עובדי בנק לאומי, 60 איש, יום רביעי
- 13:10 Boris: the search box now corrects typos in wine names (Meilisearch does it out of the box)
- 14:50 Ирина: в русской рассылке ошибка в цене розе, отправили исправление
- 16:30 Gil: the payroll for the harvest workers goes through the moshav's payroll office
""",
19: """
- 08:20 Kostya: from Sunday all home deliveries leave with Mahir Express; Tapuz is out after the broken-bottle claims
- 09:40 Amir: the rosé will be filtered on Tuesday, the cross-flow filter is rented from Tabor winery
- 11:00 מיכל: אישרה שתי עובדות עונתיות לחנות בפסטיבל
- 12:30 Boris: `GESHER_WEBHOOK_SECRET` rotated on staging; prod waits for the quiet Sunday window
- 14:05 Ирина: три члена клуба из Хайфы хотят забирать заказы в пункте самовывоза на Герцля
- 15:45 Liat: the festival poster is printed, 150 copies, Yael's design
""",
21: """
- 08:10 Tomer: the Chardonnay block will be picked first, Sunday at 05:00, 14 pickers
- 09:30 Katrin: a German wine magazine wants to review the Cabernet 2021, two bottles by courier
- 11:15 נועם: העמוד של יין הקינוח עולה באתר בעברית ובאנגלית
- 12:40 Boris: GC-211 out, the shop's sitemap includes the Russian pages
- 14:00 Костя: сдали 320 пустых ящиков на переработку, получили 640 ₪
- 15:30 Liat: the Haifa wine bar wants 12 cases of the rosé each month
""",
22: """
- 08:40 Yael moved the label printing to Print-Tec in Haifa: better gold foil and five days faster
- 10:00 Gil: the excise refund for last quarter arrived, 12,300 ₪
- 11:20 ליאת: חסרות שתי מלצריות לאירוע בשבת, הזמנתי מחברת כוח אדם
- 12:50 Ирина: гостья из Кармиэля потеряла кошелёк в дегустационном зале, нашли под барной стойкой
- 14:30 Boris: the cart forgot items after login on Safari, fixed in GC-210b
""",
24: """
- 08:30 GC-210 out: Boris moved puma to port 3100 so the preview instance can keep 3000
- 09:45 Amir: pressed the Muscat, 1,400 litres into tank 3
- 11:10 נועם: לקוחה מתל אביב כתבה ביקורת של כוכב אחד על משלוח מאוחר, התקשרתי והתנצלתי
- 12:35 Костя: машина для доставки в Иерусалим будет только по вторникам
- 14:00 Liat: the Swiss tour operator Alpinum sends two groups in the autumn
- 15:30 Michal: the family's shares in the winery will be signed at the lawyer next month
""",
26: """
- 08:15 Fire inspector: the barrel hall takes at most 90 people from now on, signs go on the door
- 09:40 Boris: Sentry quota at 85%, lowered the sample rate of the product pages
- 11:00 ליאת: הזוג מצפת ביטל את החתונה, המקדמה של 5,000 ₪ לא מוחזרת לפי החוזה
- 12:20 Ирина: клуб на русском — 186 членов, в прошлом месяце ушли 4
- 14:10 Kostya bought a second pallet jack, 2,100 ₪
- 15:50 Tomer: a sprinkler broke in the Merlot block, flooded the path
""",
28: """
- 08:45 Katrin: the Haifa container to Hamburg closes {en_date:+14}, she needs the pallets a day before
- 10:00 Noam: 27 orders stuck in "pending payment" after the Gesher webhook timed out, released by hand
- 11:30 ליאת: מדריך חדש לסיורים באנגלית, רון, מתחיל בשבוע הבא
- 13:00 Сергей: на участке 2 поставили новые столбы для шпалеры, 60 штук
- 14:40 Boris: the product photos now load as WebP, the home page is 40% lighter
- 16:10 Michal gave Amir a bonus for the gold medal of the Cabernet 2021
""",
31: """
- 08:20 Yael: the Merlot label gets a new illustration of the Dalton ridge
- 09:50 Kostya: the cold room is at 16 °C, the compressor was replaced, 3,800 ₪
- 11:15 מיכל: סגרנו עם מסעדת "הדייג" בעכו, 6 ארגזים בחודש
- 12:40 Boris: the Russian pages of the shop show prices without VAT by mistake, fixed
- 14:05 Ирина: экскурсия для пенсионеров из Кирьят-Ата, 30 человек, автобус опоздал на час
- 15:30 Gil: the loan papers for the press need last year's balance sheet
""",
33: """
- 08:30 GC-207 deployed: the checkout runs on Gesher Payments, `PAYMENTS_PROVIDER=gesher` on prod
- 09:45 Liat: 2 wedding enquiries for the autumn, both want the barrel hall
- 11:00 נועם: הגדרתי קופון FESTIVAL10 ל-10% הנחה עד סוף החודש
- 12:20 Костя: новый поставщик пробок — Amorim, образцы пришли
- 14:00 Amir: the Cabernet 2021 won gold at the Eshkol competition
""",
35: """
- 08:40 Boris: database dumps every 6 hours now (00, 06, 12, 18), each kept for 14 days
- 10:10 Tomer: the new Marselan block gave its first crop, 800 kg
- 11:30 ליאת: הספק של הגבינות מרמות נפתלי העלה מחירים ב-8%
- 12:50 Ирина: члены клуба просят видео о том, как хранить вино дома, записали с Амиром
- 14:15 Noam: the shop sold 96 bottles on Friday, a record
""",
38: """
- 08:10 Kostya: 3 cases of Merlot came back from Tapuz with broken bottles, claim filed
- 09:30 Yael: the Shiraz label's colour was off at the printer, reprint at their cost
- 11:00 ליאת: טעימה פרטית לשגרירות קנדה, 12 איש, יין לבן בלבד
- 12:40 Борис: на staging поставил Ruby 3.3, тесты зелёные
- 14:20 Michal: the new glass doors for the tasting room cost 11,500 ₪
""",
41: """
- 08:20 GC-204: the Gesher sandbox answers, first test payment at 08:12
- 09:40 Amir: tank 5 needs a new cooling jacket before the harvest
- 11:00 נועם: ירידה של 15% במכירות האתר לעומת החודש שעבר
- 12:30 Ирина: для русских экскурсий заказали новые бокалы Riedel, 60 штук
- 14:10 Liat: the Galilee tourism board put us on their wine route map
""",
44: """
- 08:30 Boris swapped the product search to Meilisearch: 80 MB of memory instead of 1.5 GB
- 09:50 Kostya: the Jerusalem orders will go with a shared van from Tabor winery
- 11:15 ליאת: חג שבועות — 140 מבקרים בשבת, גמרנו את הגבינות
- 12:40 Сергей: в блоке Мерло поставили сетки от птиц
- 14:00 Gil: the bank approved the loan for the press, 180,000 ₪ over five years
""",
47: """
- 08:40 GC-201: Bit payments work on staging through the Gesher sandbox
- 10:00 Yael: the new club card design, printed on recycled paper
- 11:30 מיכל: היקב יסגר לשבוע אחרי הבציר לחופשה של כל הצוות
- 13:00 Ирина: член клуба из Хайфы жалуется, что ящик пришёл открытым
- 14:20 Amir: the Syrah 2023 goes into the Kádár barrels next week
""",
51: """
- 08:15 Liat: the barrel hall lights changed to warm LED, the electrician charged 2,700 ₪
- 09:30 Boris: MySQL upgraded to 8.0 on prod in the Sunday window, 12 minutes of downtime
- 11:00 נועם: ההזמנות של המועדון לרבעון יצאו, 198 ארגזים
- 12:30 Костя: сломался погрузчик, аренда на неделю 900 ₪
- 14:00 Tomer: the soil tests of block 7 show low potassium
""",
55: """
- 08:30 Katrin visited the winery with two buyers from Munich, they liked the Marselan
- 09:50 Noam: 3 chargebacks from one stolen card, ShekelGate blocked it
- 11:15 ליאת: מסיבת סוף קיץ בכרם, 70 כרטיסים נמכרו
- 12:40 Ирина: новая брошюра о винодельне на русском напечатана, 500 экземпляров
- 14:10 Amir: tartaric stabilisation of the whites done in the cold room
""",
60: """
- 08:20 Boris: ShekelGate was down from 20:10 to 21:40 yesterday, 14 orders lost
- 09:40 Tomer: hail on the northern blocks, the Sauvignon lost about a tenth of its crop
- 11:00 ליאת: ביקור של כתבת מ"ידיעות" לכתבה על יקבי בוטיק
- 12:30 Костя: новая смена на складе — с 07:00 до 15:00
- 14:00 Gil: the winery's insurance renewed, 23,000 ₪ a year
""",
66: """
- 08:30 Yael: the rosé label uses a pink pantone that the old printer cannot match
- 09:50 Noam: the shop's Russian pages are live, Irina translated 42 products
- 11:10 ליאת: ארוחת ערב בכרם לשישים איש, שף מבחוץ, 320 ₪ לאדם
- 12:40 Ирина: сделала таблицу всех членов клуба, говорящих по-русски
- 14:00 Michal: a consultant from Bordeaux visits next month to look at the Cabernet
""",
73: """
- 08:10 GC-188 out: product pages show the vintage and the alcohol level
- 09:30 Amir: the Merlot 2023 was blended with 12% Cabernet Franc
- 11:00 ליאת: מערכת הזמנות חדשה לסיורים, הלקוחות בוחרים שעה באתר
- 12:20 Костя: пришли новые стеллажи, собрали за два дня
- 14:00 Boris: backups to the Spaces bucket tested, a restore took 9 minutes
""",
}
# fmt: on

# Archive notes: name -> (days from today of its last edit, text). Some are dated in front
# matter, some only in a heading, one not at all.
# A table: one row a line reads better than one field a line (ruff format).
# fmt: off
ARCHIVE: dict[str, tuple[int, str]] = {
"shop-server-setup": (-205, """---
date: {iso:-205}
tags: [shop, server]
---
# cellar-shop server setup
- one DigitalOcean droplet (4 GB) in Frankfurt runs the Rails app, MySQL and the product search
- puma listens on port 3000 behind Caddy, which gets the TLS certificate by itself
- product search runs on Elasticsearch 7 on the same droplet and eats most of its memory
- a mysqldump runs every night at 02:00 to the `gefen-backups` Spaces bucket, kept for 30 days
- deploys with Kamal from Boris's laptop; `RAILS_MASTER_KEY` lives only in the password manager
- uptime alerts go to Boris by SMS and to Noam by email
"""),
"invoice-pdf": (-150, """# Invoices from the shop (archived {iso:-150})
- the shop numbers invoices `GC-INV-` plus the year and a running number, never reused
- invoices are rendered with Prawn from a template in `app/pdfs/invoice.rb`
- every invoice shows the excise line separately, Gil asked for it
- a copy goes to Gil's mailbox on the first of each month as a zip
- a company invoice needs the business number (ח.פ.) typed at checkout
"""),
"wine-club-rules": (-170, """# Wine club rules
## {iso:-170}
- four boxes a year, each of 6 bottles chosen by Amir, shipped in the first week of the quarter
- members get 15% off every order in the shop and taste free at the visitor center
- a member may pause up to two boxes a year without losing the membership
- the yearly fee is charged in four payments, one before each box
- club members get the first word on library wines from the old vintages
"""),
"mercaz-hamevakrim": (-190, """# מרכז המבקרים — נהלים
## {iso:-190}
- פתוחים ראשון עד חמישי 10:00–18:00
- בשישי פתוחים 09:00–13:00, בשבת סגור
- חדר הטעימות מכיל עד 35 איש בבת אחת
- יש רמפה לכיסאות גלגלים בכניסה הצדדית
- קבוצה מעל 15 איש חייבת להזמין מראש
- חניה לאוטובוסים ליד המחסן, לא מול הכניסה
"""),
"ekskursii-ru": (-120, """# Экскурсии на русском
## {iso:-120}
- экскурсии на русском ведёт Ирина, по вторникам и четвергам в 11:00
- группа не больше 25 человек, дегустация трёх вин входит в цену
- цена 80 шекелей с человека, дети бесплатно
- после экскурсии гости могут купить вино со скидкой 10%
- в дождь экскурсия идёт только по погребу, без виноградника
"""),
"shipping-couriers": (-130, """# Shipping and couriers
## {iso:-130}
- home deliveries go with Tapuz Delivery, 28 ₪ a box anywhere north of Beersheba
- boxes of 6 in moulded pulp inserts; never ship a bottle in a plain carton
- Kostya hands the parcels over at 13:00 every weekday
- a broken bottle is replaced at our cost, the courier's claim comes later
- Eilat and the Arava cost 60 ₪ a box and take three days
"""),
"label-printing": (-140, """# תוויות — הדפסה ועיצוב
## {iso:-140}
- התוויות מודפסות בדפוס הגליל בכרמיאל, הזמנה מינימלית 2,000 יחידות
- יעל מעצבת, מיכל מאשרת כל תווית לפני דפוס
- נייר טקסטורה לבן, עמיד במקרר ובדלי קרח
- זמן אספקה שבועיים מאישור ההגהה
- חובה על כל תווית: אחוז אלכוהול, נפח, "מכיל סולפיטים"
"""),
"events-hall": (-160, """# Events in the barrel hall
## {iso:-160}
- the barrel hall seats 120 for a seated dinner, 200 standing
- a wedding package starts at 38,000 ₪ for the hall, our wines and the staff; catering is the couple's
- music stops at 23:30 because of the moshav's neighbours
- the couple pays a 5,000 ₪ deposit, not refundable after signing
- Liat asks for the caterer's kosher certificate two weeks before
"""),
"barrels": (-240, """---
date: {iso:-240}
---
# Barrels
- all new barrels come from Tonnellerie Sabot in Burgundy, French oak, 980 EUR each
- medium toast for the reds, light toast for the Chardonnay
- a barrel is used for four vintages, then sold to a whisky distillery in the Golan
- Amir orders in February so the barrels arrive before the harvest
- the cellar holds 140 barrels at most
"""),
"germany-export": (-110, """# Export to Germany (archived {iso:-110})
- the importer is Weinhaus Vogel in Hamburg, Katrin Vogel; she wants prices ex-cellar in EUR
- every shipment needs the lab analysis, the EU-format label and the EORI number on the invoice
- the German back label must list sulphites in German: "enthält Sulfite"
- pallets go by sea from Haifa, about three weeks to Hamburg
- the excise (בלו) paid in Israel is refunded after the customs stamp arrives
"""),
"harvest-log": (-300, """# Harvest log
## {iso:-300}
- the Sauvignon Blanc was picked in two nights, 9 tonnes, 21.5 Brix
- a heat wave at the end of the harvest; the Cabernet came in at 25 Brix
- Sergey and Tomer led 16 pickers, the van broke down on the second day
- the yield per dunam was 20% lower than the year before because of the spring hail
- the first Marselan cuttings were planted in block 7
"""),
"kashrut": (-260, """# כשרות
## {iso:-260}
- המשגיח מטעם הרבנות של מבואות חרמון מגיע כל יום שני
- רק עובדים שומרי שבת נוגעים ביין מהריסוק ועד הבקבוק
- תעודת הכשרות מתחדשת כל שנה בתשרי, עולה 14,000 ₪
- יין שנפתח באירוע לא כשר לא חוזר למחסן
- שמיטה: הענבים של שנת השמיטה נמכרים דרך אוצר בית דין
"""),
"warehouse-ru": (-180, """# Склад — правила
## {iso:-180}
- склад открыт с 06:30 до 14:30, Костя отвечает за ключи
- вино хранится при 14–16 градусах, ящики лёжа, не выше пяти рядов
- каждую пятницу Костя сверяет остатки с программой
- бой записывается в журнал в тот же день, с фото
- посторонним вход на склад запрещён, даже членам клуба
"""),
"shekelgate": (-248, """---
date: {iso:-248}
tags: [payments]
---
# ShekelGate notes
- terminal number in `SHEKELGATE_TERMINAL=0551903`, API user `gefen_api`
- ShekelGate sends payment callbacks to `/payments/sg` with the `X-SG-Signature` header
- refunds only in their back office, Noam or Michal
- the monthly statement arrives on the 3rd, Gil reconciles it
- test cards are in their PDF, never a real card on the sandbox
"""),
"photo-shoot": (-90, """# Photo shoot for the shop
## {iso:-90}
- photographer Dor Ashkenazi (no relation to Gil), 4,200 ₪ for a day and 60 edited photos
- bottles shot on white and in the vineyard at sunset
- the pictures belong to us, Dor may use them in his portfolio
- Yael picks the 20 for the shop, the rest go to Instagram
"""),
"tasting-notes": (-210, """# Tasting notes for the staff
## {iso:-210}
- Chardonnay 2022: lemon, a little butter from the barrel, drink with fish
- Merlot 2022: plum and soft tannins, the easiest red for beginners
- Cabernet 2021: blackcurrant and cedar, 18 months in oak, keeps ten years
- Rosé 2023: strawberry, dry, our best seller in summer
- Muscat dessert wine: apricot and honey, serve cold in small glasses
"""),
"bituach": (-280, """# ביטוח
## {iso:-280}
- פוליסת היקב בחברת הראל, מספר פוליסה 44-918273
- הביטוח מכסה אש, רעידת אדמה ונזקי מים, לא את היין בזמן משלוח
- לאירועים בחוץ צריך תוספת לפוליסה מראש
- הסוכן הוא אורי פרלמן, עונה רק בוואטסאפ
- השתתפות עצמית 5,000 ₪ לכל אירוע
"""),
"vineyard-blocks": (-220, """# Vineyard blocks
- block 1–3: Chardonnay and Sauvignon Blanc on the basalt slope, planted 2009
- block 4: Syrah on the Har Dalton terrace, drip irrigation
- block 5–6: Cabernet Sauvignon and Merlot, the oldest vines, 1998
- block 7: Marselan, young vines, first crop expected this year
- the vineyard is 85 dunams in all, Tomer keeps the spray diary
"""),
"poliv-ru": (-100, """# Полив — заметки Сергея
## {iso:-100}
- капельный полив включаем в 04:00, чтобы меньше испарялось
- Каберне поливаем раз в неделю, Шардоне два раза
- счётчик воды у ворот, показания Гилу каждый месяц
- квота воды от мошава — 38 000 кубов в год
- фильтры чистить каждые две недели, иначе забиваются капельницы
"""),
"wedding-faq": (-75, """# חתונות — שאלות נפוצות
## {iso:-75}
- אפשר להביא די-ג'יי מבחוץ, אבל המוזיקה נגמרת ב-23:30
- אין לינה ביקב, ממליצים על הצימרים של דלתון
- זוג יכול לבחור שלושה יינות מהתפריט בלי תוספת
- צילומים בכרם רק עד השקיעה, אחר כך חושך מוחלט
- בחורף האירועים רק בפנים, אין גשם באולם
"""),
"sommelier-course": (-60, """# Sommelier course for the staff
## {iso:-60}
- Liat and Irina take the WSET level 2 course in Tel Aviv, eight Tuesdays
- the winery pays 3,400 ₪ each; they stay at least a year after the course
- the exam is in English, Irina asked for extra reading in Russian
- Amir gives a blind tasting for the staff after each lesson
"""),
}
# fmt: on
