"""The questions asked of the Gefen Cellars vault, each with its gold [file key, exact phrase].

File keys: "core", "decisions", "d<N>" (the daily note of N days ago), "a:<name>" (an
archive note). A phrase is an exact substring of one line of that file (build checks it).
Question text may hold date placeholders, as the notes do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Gold = tuple[str, str]


@dataclass(frozen=True)
class Ask:
    """One question. fresh: the newer memory, stale: the older one it contradicts; also /
    stale_also: other lines stating the newer / the older value."""

    kind: str
    lang: str
    question: str
    gold: tuple[Gold, ...] = ()
    fresh: Gold | None = None
    stale: Gold | None = None
    also: tuple[Gold, ...] = field(default=())
    stale_also: tuple[Gold, ...] = field(default=())


def ask(kind: str, lang: str, question: str, *gold: Gold) -> Ask:
    return Ask(kind, lang, question, tuple(gold))


def newer(
    lang: str,
    question: str,
    fresh: Gold,
    stale: Gold,
    also: tuple[Gold, ...] = (),
    stale_also: tuple[Gold, ...] = (),
) -> Ask:
    return Ask("fresh", lang, question, (), fresh, stale, also, stale_also)


def never(lang: str, question: str) -> Ask:
    return Ask("abstain", lang, question)


# A table: one row a line reads better than one field a line (ruff format).
# fmt: off
QUESTIONS: list[Ask] = [
    # ---- identifiers: ticket ids, env vars, codes -----------------------------------------
    ask("identifier", "en", "GC-213", ("d8", "GC-213 out and rolled back at 10:05"), ("d9", "GC-213 fixed with `direction: rtl`")),
    ask("identifier", "en", "what did GC-214 change?", ("d7", "GC-214 deployed: members see their next box date")),
    ask("identifier", "en", "GC-188", ("d73", "GC-188 out: product pages show the vintage")),
    ask("identifier", "en", "PAYMENTS_PROVIDER", ("d33", "`PAYMENTS_PROVIDER=gesher` on prod"), ("decisions", "switches on `PAYMENTS_PROVIDER=gesher`")),
    ask("identifier", "en", "FREE_SHIPPING_MIN", ("d4", "Noam set `FREE_SHIPPING_MIN=400` on prod"), ("decisions", "sets `FREE_SHIPPING_MIN=400`")),
    ask("identifier", "en", "SHEKELGATE_TERMINAL", ("a:shekelgate", "`SHEKELGATE_TERMINAL=0551903`")),
    ask("identifier", "en", "X-SG-Signature header", ("a:shekelgate", "with the `X-SG-Signature` header")),
    ask("identifier", "en", "EXP-311 customs broker", ("d6", "Shaked Logistics) for EXP-311"), ("core", "Hamburg shipment `EXP-311`")),
    ask("identifier", "en", "LOT-23-CS", ("core", "Cabernet 2023 bottling run `LOT-23-CS`")),
    ask("identifier", "en", "GESHER_WEBHOOK_SECRET", ("core", "`GESHER_WEBHOOK_SECRET` rotated on staging only"), ("d19", "`GESHER_WEBHOOK_SECRET` rotated on staging")),
    ask("identifier", "en", "RAILS_MASTER_KEY", ("a:shop-server-setup", "`RAILS_MASTER_KEY` lives only in the password manager")),
    ask("identifier", "en", "gefen-backups bucket", ("a:shop-server-setup", "the `gefen-backups` Spaces bucket")),
    ask("identifier", "en", "coupon FESTIVAL10", ("d33", "קופון FESTIVAL10")),
    ask("identifier", "en", "GC-INV invoice numbers", ("a:invoice-pdf", "the shop numbers invoices `GC-INV-`")),
    ask("identifier", "he", "מה זה GC-212?", ("d13", "GC-212 out: club renewal emails go out through Brevo")),
    ask("identifier", "he", "פוליסה 44-918273", ("a:bituach", "מספר פוליסה 44-918273")),
    ask("identifier", "he", "מתי עבד GC-204?", ("d41", "GC-204: the Gesher sandbox answers")),
    ask("identifier", "ru", "Что вошло в GC-211?", ("d21", "GC-211 out, the shop's sitemap includes the Russian pages")),
    ask("identifier", "ru", "GC-217", ("d0", "GC-217 on staging, the festival ticket page")),
    ask("identifier", "ru", "Что исправили в GC-210b?", ("d22", "fixed in GC-210b")),
    # ---- keywords ----------------------------------------------------------------------------
    ask("keyword", "en", "forklift battery", ("d4", "the forklift battery died again")),
    ask("keyword", "en", "Vetropack damage report", ("d2", "Kostya sent the empty-bottle damage report to Vetropack")),
    ask("keyword", "en", "wild boar fence block 6", ("d17", "a wild boar broke the fence of block 6 again")),
    ask("keyword", "en", "cold room compressor", ("d31", "the compressor was replaced, 3,800 ₪")),
    ask("keyword", "en", "Elbit gift boxes", ("d14", "180 gift boxes for the holidays")),
    ask("keyword", "en", "WSET course Tuesdays", ("a:sommelier-course", "take the WSET level 2 course in Tel Aviv, eight Tuesdays")),
    ask("keyword", "en", "Munich buyers Marselan", ("d55", "two buyers from Munich, they liked the Marselan")),
    ask("keyword", "en", "MySQL 8.0 upgrade downtime", ("d51", "MySQL upgraded to 8.0 on prod in the Sunday window")),
    ask("keyword", "he", "מטף חדר הטעימות", ("d14", "הכבאות ביקשו מטף נוסף ליד המקרר בחדר הטעימות")),
    ask("keyword", "he", "לינה צימרים דלתון", ("a:wedding-faq", "אין לינה ביקב, ממליצים על הצימרים של דלתון")),
    ask("keyword", "he", "קופון הנחה לפסטיבל", ("d33", "הגדרתי קופון FESTIVAL10 ל-10% הנחה")),
    ask("keyword", "ru", "пробки Amorim образцы", ("d33", "новый поставщик пробок — Amorim, образцы пришли")),
    ask("keyword", "ru", "квота воды от мошава", ("a:poliv-ru", "квота воды от мошава — 38 000 кубов в год")),
    ask("keyword", "ru", "брошюра на русском", ("d55", "новая брошюра о винодельне на русском напечатана")),
    # ---- typos -------------------------------------------------------------------------------
    ask("typo", "en", "Vetropak empty botles", ("d2", "damage report to Vetropack")),
    ask("typo", "en", "Meilisearh disk alrt", ("d2", "Boris restarted the Meilisearch service after a disk alert at 92%")),
    ask("typo", "en", "Tonnelerie Sabbot barrels", ("a:barrels", "all new barrels come from Tonnellerie Sabot in Burgundy")),
    ask("typo", "en", "Katrn Vogle rose price", ("d10", "Katrin confirmed the rosé price: 7.90 EUR")),
    ask("typo", "en", "shiraz labl colour reprnt", ("d38", "the Shiraz label's colour was off at the printer")),
    ask("typo", "en", "pallet jak bougth", ("d26", "Kostya bought a second pallet jack")),
    ask("typo", "en", "weather staton stoped sending", ("d14", "the weather station on the ridge stopped sending data")),
    ask("typo", "en", "Marslan first crop", ("d35", "the new Marselan block gave its first crop, 800 kg")),
    ask("typo", "en", "Alpinnum swiss tour operater", ("d24", "the Swiss tour operator Alpinum sends two groups")),
    ask("typo", "en", "Eshkol competiton gold medel", ("d33", "the Cabernet 2021 won gold at the Eshkol competition")),
    ask("typo", "he", "אבוטבל סיור פרטי", ("d12", "משפחת אבוטבול מבקשת סיור פרטי")),
    ask("typo", "he", "משגיח מבואות חרמן", ("a:kashrut", "המשגיח מטעם הרבנות של מבואות חרמון")),
    ask("typo", "ru", "Карто-Пак каробки", ("d12", "заказал 500 штук у «Карто-Пак»")),
    ask("typo", "ru", "шпалера столбы учаток 2", ("d28", "на участке 2 поставили новые столбы для шпалеры")),
    # ---- paraphrases, English: no content word shared with the gold line ------------------
    ask("paraphrase", "en", "Which update made the bill documents come out in the wrong reading direction?", ("d8", "the Hebrew invoice PDF printed left-to-right")),
    ask("paraphrase", "en", "What's our policy on minors buying from us?", ("core", "Never sell or ship alcohol to anyone under 18")),
    ask("paraphrase", "en", "When may nobody touch the production storefront?", ("core", "No changes to the live shop on Thursday evening or Friday")),
    ask("paraphrase", "en", "How many purchases vanished during the old card processor's outage?", ("d60", "ShekelGate was down from 20:10 to 21:40 yesterday, 14 orders lost")),
    ask("paraphrase", "en", "Which animal damaged the enclosure around one of the plots?", ("d17", "a wild boar broke the fence of block 6 again")),
    ask("paraphrase", "en", "How much money will the lender give us for the new grape-crushing machine?", ("d44", "the bank approved the loan for the press, 180,000 ₪ over five years")),
    ask("paraphrase", "en", "What did fixing the delivery vehicle's stopping system cost?", ("d7", "new brake pads, 1,350 ₪")),
    ask("paraphrase", "en", "How many presents did the defence electronics firm buy for its staff?", ("d14", "a corporate order from Elbit's Haifa office, 180 gift boxes")),
    ask("paraphrase", "en", "How big was the gap between inventory on hand and what the ledger says?", ("d10", "4,812 bottles on the shelves, 36 short of the books")),
    ask("paraphrase", "en", "Which change made the item finder need far less RAM?", ("d44", "80 MB of memory instead of 1.5 GB")),
    ask("paraphrase", "en", "What maximum crowd did the safety check impose on the cask room?", ("d26", "the barrel hall takes at most 90 people from now on")),
    ask("paraphrase", "en", "How popular was the new dairy platter with guests?", ("d6", "the cheese plate sold 40 times this week")),
    ask("paraphrase", "en", "Which publication from Europe asked for samples of an older vintage?", ("d21", "a German wine magazine wants to review the Cabernet 2021")),
    ask("paraphrase", "en", "What repair brought the chilled storage back down to temperature?", ("d31", "the cold room is at 16 °C, the compressor was replaced")),
    ask("paraphrase", "en", "How much may we spend on search advertising for the celebration weekend?", ("d12", "Michal approved 3,000 ₪ for Google Ads around the festival")),
    ask("paraphrase", "en", "Which variety comes off the vines before the others, and at what hour?", ("d21", "the Chardonnay block will be picked first, Sunday at 05:00")),
    ask("paraphrase", "en", "Which part of the farm vehicle broke, and where is the replacement coming from?", ("d9", "the tractor's hydraulic hose is cracked, ordered from the Kiryat Shmona dealer")),
    ask("paraphrase", "en", "What did the German importer agree to pay per unit for the pink wine?", ("d10", "Katrin confirmed the rosé price: 7.90 EUR ex-cellar per bottle")),
    ask("paraphrase", "en", "Who is in charge of staff payments for the people who pick grapes?", ("d17", "the payroll for the harvest workers goes through the moshav's payroll office")),
    ask("paraphrase", "en", "Until what hour can a band play at a party here, and why?", ("a:events-hall", "music stops at 23:30 because of the moshav's neighbours")),
    ask("paraphrase", "en", "What bottle do we suggest to a novice drinker?", ("a:tasting-notes", "plum and soft tannins, the easiest red for beginners")),
    ask("paraphrase", "en", "What happens to old casks once we're done with them?", ("a:barrels", "a barrel is used for four vintages, then sold to a whisky distillery")),
    ask("paraphrase", "en", "How does new code reach the store's machine, and from where?", ("a:shop-server-setup", "deploys with Kamal from Boris's laptop")),
    ask("paraphrase", "en", "What commitment do employees make in exchange for the funded training?", ("a:sommelier-course", "they stay at least a year after the course")),
    ask("paraphrase", "en", "How much smaller did the landing screen get after the image format switch?", ("d28", "the product photos now load as WebP, the home page is 40% lighter")),
    ask("paraphrase", "en", "Where are our most ancient plants, and when did they go into the ground?", ("a:vineyard-blocks", "Cabernet Sauvignon and Merlot, the oldest vines, 1998")),
    # ---- paraphrases, Hebrew -----------------------------------------------------------------
    ask("paraphrase", "he", "מה קורה לתשלום הראשון כשחתן וכלה מוותרים על האירוע?", ("d26", "המקדמה של 5,000 ₪ לא מוחזרת לפי החוזה")),
    ask("paraphrase", "he", "מה דרשו מכבי האש להוסיף במקום שבו האורחים שותים?", ("d14", "הכבאות ביקשו מטף נוסף ליד המקרר בחדר הטעימות")),
    ask("paraphrase", "he", "האם אנשים עם מוגבלות יכולים להיכנס למבנה?", ("a:mercaz-hamevakrim", "יש רמפה לכיסאות גלגלים בכניסה הצדדית")),
    ask("paraphrase", "he", "מי מורשה לטפל במשקה בזמן הייצור?", ("a:kashrut", "רק עובדים שומרי שבת נוגעים ביין מהריסוק ועד הבקבוק")),
    ask("paraphrase", "he", "אם בקבוקים נשברים בדרך ללקוח, הפוליסה תשלם?", ("a:bituach", "הביטוח מכסה אש, רעידת אדמה ונזקי מים, לא את היין בזמן משלוח")),
    ask("paraphrase", "he", "איזה קונה מהצפון הרחוק מצא בארגז סוג אחר ממה שהזמין?", ("d1", "לקוח מקריית שמונה קיבל שני בקבוקי רוזה במקום קברנה")),
    ask("paraphrase", "he", "מתי הבעלים מתראיינת לתקשורת?", ("d10", "ראיון לעיתון \"הארץ\" על יקבי הגליל ביום חמישי")),
    ask("paraphrase", "he", "עד מתי הצלם יכול לעבוד בין הגפנים?", ("a:wedding-faq", "צילומים בכרם רק עד השקיעה")),
    ask("paraphrase", "he", "מי דירגה אותנו בציון הנמוך ביותר ולמה?", ("d24", "כתבה ביקורת של כוכב אחד על משלוח מאוחר")),
    ask("paraphrase", "he", "מה החוק דורש שיופיע על הבקבוק?", ("a:label-printing", "חובה על כל תווית: אחוז אלכוהול, נפח")),
    ask("paraphrase", "he", "מה אזל מהמדפים כשהמון אנשים הגיעו ביום העמוס של מתן תורה?", ("d44", "140 מבקרים בשבת, גמרנו את הגבינות")),
    ask("paraphrase", "he", "איך מילאנו את המחסור במגישות לערב של יום המנוחה?", ("d22", "חסרות שתי מלצריות לאירוע בשבת, הזמנתי מחברת כוח אדם")),
    # ---- paraphrases, Russian ----------------------------------------------------------------
    ask("paraphrase", "ru", "Какое происшествие случилось с посетителями на ступеньках?", ("d3", "два гостя упали на мокрой лестнице в погреб")),
    ask("paraphrase", "ru", "Принимаем ли мы назад распечатанный товар?", ("d14", "открытые бутылки не возвращаем")),
    ask("paraphrase", "ru", "Какой ролик сняли для подписчиков по их просьбе?", ("d35", "члены клуба просят видео о том, как хранить вино дома")),
    ask("paraphrase", "ru", "Можно ли гостю заглянуть туда, где лежат запасы?", ("a:warehouse-ru", "посторонним вход на склад запрещён")),
    ask("paraphrase", "ru", "Что меняется в программе тура при плохой погоде?", ("a:ekskursii-ru", "в дождь экскурсия идёт только по погребу")),
    ask("paraphrase", "ru", "Как часто нужно обслуживать систему орошения и зачем?", ("a:poliv-ru", "фильтры чистить каждые две недели")),
    ask("paraphrase", "ru", "Сколько подписчиков у экскурсовода и сколько отказалось недавно?", ("d26", "клуб на русском — 186 членов, в прошлом месяце ушли 4")),
    ask("paraphrase", "ru", "Какая группа пожилых гостей ждала транспорт слишком долго?", ("d31", "экскурсия для пенсионеров из Кирьят-Ата, 30 человек, автобус опоздал на час")),
    ask("paraphrase", "ru", "В какие часы теперь работают кладовщики?", ("d60", "новая смена на складе — с 07:00 до 15:00")),
    ask("paraphrase", "ru", "Какой химии винодел хочет запасти перед уборкой винограда?", ("d4", "Амир попросил купить 40 кг сульфита калия до сбора урожая")),
    ask("paraphrase", "ru", "Какую посуду приобрели для туристических групп?", ("d41", "для русских экскурсий заказали новые бокалы Riedel")),
    ask("paraphrase", "ru", "Какую пропажу посетительницы отыскали у бара?", ("d22", "гостья из Кармиэля потеряла кошелёк в дегустационном зале")),
    # ---- cross-lingual: a Hebrew or Russian question, an English line ----------------------
    ask("crosslingual", "he", "איזה עדכון הדפיס את החשבונית בעברית הפוך, ובוטל?", ("d8", "GC-213 out and rolled back at 10:05: the Hebrew invoice PDF printed left-to-right")),
    ask("crosslingual", "he", "כמה עולה לנו חבית מהונגריה?", ("decisions", "Hungarian oak at 640 EUR a barrel")),
    ask("crosslingual", "he", "למה הזמנות נתקעו בהמתנה לתשלום?", ("d28", "27 orders stuck in \"pending payment\" after the Gesher webhook timed out")),
    ask("crosslingual", "he", "מה הציפורים אוכלות בכרם ומה עושים נגד זה?", ("d5", "birds are eating the Muscat grapes, nets go up on Sunday")),
    ask("crosslingual", "he", "כמה עלה תיקון הבלמים של הטנדר?", ("d7", "new brake pads, 1,350 ₪")),
    ask("crosslingual", "he", "באיזה יום ובאיזו שעה בוצרים את השרדונה?", ("d21", "the Chardonnay block will be picked first, Sunday at 05:00")),
    ask("crosslingual", "ru", "Почему мы сменили платёжную систему в магазине?", ("decisions", "ShekelGate raised its fee to 1.6% and went down twice in a month")),
    ask("crosslingual", "ru", "Скольких бутылок не хватило при пересчёте склада?", ("d10", "4,812 bottles on the shelves, 36 short of the books")),
    ask("crosslingual", "ru", "Сколько памяти экономит новый поиск товаров?", ("d44", "80 MB of memory instead of 1.5 GB")),
    ask("crosslingual", "ru", "Какие пятна нашли на листьях Сиры?", ("d1", "the Syrah block at Har Dalton has mildew spots on the lower leaves")),
    ask("crosslingual", "ru", "Сколько стоит свадебный пакет у нас?", ("a:events-hall", "a wedding package starts at 38,000 ₪")),
    ask("crosslingual", "ru", "Какое вино хочет попробовать немецкий журнал?", ("d21", "a German wine magazine wants to review the Cabernet 2021")),
    # ---- cross-lingual: an English question, a Hebrew or Russian line ----------------------
    ask("crosslingual", "en", "Who is our insurance agent and how does he like to be reached?", ("a:bituach", "הסוכן הוא אורי פרלמן, עונה רק בוואטסאפ")),
    ask("crosslingual", "en", "How many people fit in the tasting room at once?", ("a:mercaz-hamevakrim", "חדר הטעימות מכיל עד 35 איש בבת אחת")),
    ask("crosslingual", "en", "Which caterer serves the wedding for 85 guests in the barrel hall?", ("d2", "קייטרינג של \"שולחן הגליל\"")),
    ask("crosslingual", "en", "What spoiled in the courier's van that made us stop summer shipping to the south?", ("decisions", "שני ארגזים של מרלו 2022 התבשלו ברכב של השליח")),
    ask("crosslingual", "en", "Why did staging move to a server of its own?", ("decisions", "После того как тестовый импорт стёр таблицу товаров на проде")),
    ask("crosslingual", "en", "How many pallets of empty glass arrived, and in what state?", ("d1", "пришли 3 паллеты пустых бутылок от Vetropack, одна разбита")),
    ask("crosslingual", "en", "At what hour does the drip irrigation start, and why so early?", ("a:poliv-ru", "капельный полив включаем в 04:00, чтобы меньше испарялось")),
    ask("crosslingual", "en", "What alcohol level did the 2024 Chardonnay finish fermenting at?", ("d6", "ферментация шардоне 2024 закончилась, 13.1% алкоголя")),
    # ---- dates as people say them ------------------------------------------------------------
    ask("temporal", "en", "What did Boris put live yesterday?", ("d1", "GC-216 out at 07:58")),
    ask("temporal", "en", "What went wrong on the droplet the day before yesterday?", ("d2", "Boris restarted the Meilisearch service after a disk alert at 92%")),
    ask("temporal", "en", "What did Tomer's team do in the vineyard last week?", ("d7", "Tomer's team pruned the green shoots in blocks 1–3")),
    ask("temporal", "en", "What did we write down about the harvest in {mon:-300}?", ("a:harvest-log", "the Sauvignon Blanc was picked in two nights"), ("a:harvest-log", "the Cabernet came in at 25 Brix"), ("a:harvest-log", "Sergey and Tomer led 16 pickers"), ("a:harvest-log", "the yield per dunam was 20% lower"), ("a:harvest-log", "the first Marselan cuttings were planted in block 7")),
    ask("temporal", "en", "What did Katrin ask us for on {en_date:-21}?", ("d21", "a German wine magazine wants to review the Cabernet 2021")),
    ask("temporal", "en", "What changed with the courier on {en_date:-14}?", ("d14", "Mahir Express picks up at 15:00 now instead of 13:00")),
    ask("temporal", "en", "Which lab analysis did Katrin want today?", ("d0", "Katrin asked for the lab analysis of the Chardonnay 2024")),
    ask("temporal", "he", "מה בוריס העלה לאתר אתמול?", ("d1", "GC-216 out at 07:58")),
    ask("temporal", "he", "איזו חתונה אישרה ליאת שלשום?", ("d2", "אושרה חתונה ל-")),
    ask("temporal", "he", "איזו קבוצה מאוניה ביקרה אצלנו בשבוע שעבר?", ("d7", "ביקור של 40 תיירים מאוניית קרוז בחיפה")),
    ask("temporal", "he", "אילו נהלים של מרכז המבקרים רשמנו ב{mon_he:-190}?", ("a:mercaz-hamevakrim", "פתוחים ראשון עד חמישי 10:00–18:00"), ("a:mercaz-hamevakrim", "חדר הטעימות מכיל עד 35 איש"), ("a:mercaz-hamevakrim", "יש רמפה לכיסאות גלגלים"), ("a:mercaz-hamevakrim", "קבוצה מעל 15 איש חייבת להזמין מראש"), ("a:mercaz-hamevakrim", "חניה לאוטובוסים ליד המחסן")),
    ask("temporal", "he", "על מה התלוננה לקוחה ב-{he_date:-24}?", ("d24", "לקוחה מתל אביב כתבה ביקורת של כוכב אחד")),
    ask("temporal", "ru", "Что вчера пришло на склад?", ("d1", "пришли 3 паллеты пустых бутылок от Vetropack")),
    ask("temporal", "ru", "Какую группу Ирина записала позавчера?", ("d2", "a Russian-speaking group from Nahariya booked the Wednesday tour")),
    ask("temporal", "ru", "Сколько человек было на экскурсии Ирины на прошлой неделе?", ("d7", "провела экскурсию для группы из Хайфы, 26 человек")),
    ask("temporal", "ru", "Что мы записали про полив в {mon_ru_prep:-100}?", ("a:poliv-ru", "капельный полив включаем в 04:00"), ("a:poliv-ru", "Каберне поливаем раз в неделю"), ("a:poliv-ru", "счётчик воды у ворот"), ("a:poliv-ru", "квота воды от мошава"), ("a:poliv-ru", "фильтры чистить каждые две недели")),
    ask("temporal", "ru", "Что Сергей сделал на участке {ru_date:-28}?", ("d28", "на участке 2 поставили новые столбы для шпалеры")),
    # ---- the newer of two values first (different wording) ---------------------------------
    newer("en", "Which port does the shop's Rails server listen on?", ("d24", "Boris moved puma to port 3100"), ("a:shop-server-setup", "puma listens on port 3000 behind Caddy")),
    newer("en", "Which visual design does the online store use?", ("decisions", "Yael's light 'Vineyard' look"), ("decisions", "the dark 'Cellar' theme")),
    newer("en", "Which library renders our invoice PDFs?", ("d15", "invoices now render through Grover"), ("a:invoice-pdf", "invoices are rendered with Prawn")),
    newer("ru", "Кто сейчас ведёт винный клуб?", ("decisions", "Noam runs the wine club end to end"), ("decisions", "Liat owns the wine club")),
    newer("en", "When do the pallets for Hamburg have to be at the port?", ("d6", "pallets must be at Haifa port by"), ("d28", "the Haifa container to Hamburg closes")),
    newer("he", "איזו חברת שליחויות מביאה את ההזמנות ללקוחות הביתה?", ("d19", "all home deliveries leave with Mahir Express"), ("a:shipping-couriers", "home deliveries go with Tapuz Delivery"), also=(("d8", "курьер Mahir Express"), ("d14", "Mahir Express picks up at 15:00"))),
    newer("he", "כמה עולה טעימה במרכז המבקרים?", ("decisions", "A guided flight of five wines is now 120 ₪ a head"), ("decisions", "A tasting of four wines at the bar costs 95 ILS")),
    newer("ru", "Какая скидка у членов винного клуба в магазине?", ("d12", "club discount is 20% from this week"), ("a:wine-club-rules", "members get 15% off every order")),
    newer("en", "Until what time is the visitor center open on Fridays?", ("d9", "stays open until 15:00 on Fridays"), ("a:mercaz-hamevakrim", "בשישי פתוחים 09:00–13:00")),
    newer("ru", "На чём работает поиск товаров в магазине?", ("d44", "Boris swapped the product search to Meilisearch"), ("a:shop-server-setup", "product search runs on Elasticsearch 7"), also=(("d17", "Meilisearch does it out of the box"),)),
    newer("en", "When will the Cabernet 2023 be bottled?", ("d8", "the Cabernet bottling moved to"), ("decisions", "bottled in the first week of")),
    newer("ru", "У кого мы покупаем новые бочки?", ("decisions", "every new barrel comes from Kádár Hordó"), ("a:barrels", "all new barrels come from Tonnellerie Sabot")),
    newer("ru", "По каким дням проходят экскурсии на русском?", ("d13", "русские экскурсии теперь по средам и пятницам"), ("a:ekskursii-ru", "по вторникам и четвергам в 11:00")),
    newer("en", "Which company processes card payments in the shop, and at what fee?", ("decisions", "Gesher Payments offers 0.8%"), ("decisions", "ShekelGate charges 1.2% per transaction"), also=(("d33", "the checkout runs on Gesher Payments"),)),
    newer("he", "איפה מדפיסים את התוויות שלנו?", ("d22", "Yael moved the label printing to Print-Tec in Haifa"), ("a:label-printing", "התוויות מודפסות בדפוס הגליל בכרמיאל")),
    newer("he", "באיזה שירות שולחים את הניוזלטר של המועדון?", ("d17", "Noam moved the club mailing list to Brevo"), ("decisions", "moves from an Excel sheet to Mailchimp"), also=(("d13", "club renewal emails go out through Brevo"),)),
    newer("en", "How many guests can sit down to dinner in the barrel hall?", ("d26", "the barrel hall takes at most 90 people"), ("a:events-hall", "the barrel hall seats 120 for a seated dinner")),
    newer("en", "How often is the shop database backed up?", ("d35", "database dumps every 6 hours now"), ("a:shop-server-setup", "a mysqldump runs every night at 02:00")),
    # ---- questions the vault cannot answer, naming what it knows --------------------------
    never("en", "What is Boris's hourly rate?"),
    never("en", "Which grape variety grows in block 8?"),
    never("en", "What is Katrin Vogel's phone number?"),
    never("en", "How much did the Tabor winery charge for the cross-flow filter?"),
    never("en", "When is Noam's birthday?"),
    never("en", "Which Rails version does cellar-shop run?"),
    never("en", "Did we ever export wine to Japan?"),
    never("en", "What is the Wi-Fi password at the visitor center?"),
    never("en", "Who designed the winery's logo?"),
    never("en", "How many bottles of Muscat did we sell at last year's festival?"),
    never("he", "מה מספר הטלפון של טומר?"),
    never("he", "כמה עולה משלוח לחו\"ל ללקוח פרטי?"),
    never("he", "מתי ליאת יוצאת לחופשה?"),
    never("he", "כמה דונם נטועים בפינו נואר?"),
    never("he", "מה הסיסמה לחשבון של גשר?"),
    never("ru", "Какая зарплата у Кости?"),
    never("ru", "Когда у Ирины отпуск?"),
    never("ru", "Сколько стоит бутылка Мерло 2024 в магазине?"),
    never("ru", "Какой пароль от сервера Бориса?"),
    never("ru", "В какой гостинице жили покупатели из Мюнхена?"),
]
# fmt: on
