"""Subject words of a statement, compared across wording (pure, no I/O).

Shared by search (the newer of two values ranks first) and `memctl lint` (likely
contradictions) through memctl.statement_values: a subject is the stems of a clause's
content words, in English, Hebrew and Russian, with the words that say nothing about
*what* the statement is about (function words, common verbs of change and of being)
left out, so "invoices are rendered with Prawn" and "invoices now render through Grover"
share the subject {invoice, render}.
"""

from __future__ import annotations

import functools

from memctl.statements import _stem

# Function words and verbs that carry no subject, in the three languages. A verb of change
# ("moved", "switched") is how people say a value changed, never what changed.
STOP = frozenset(
    """
    the a an to of on in at is are was were be been being and or for with from by it its
    this that these those as we our us you your i my me he she they them their his her
    now then than into onto out up down over under about after before since until till
    will would shall should can could may might must has have had do does did done not no
    all every each any some more most less least only just also still again from here there
    today tomorrow yesterday week month year next last this new old instead anymore
    moved move moves moving changed change changes switched switch switches swapped swap
    went goes go going gone came come comes coming got get gets became become becomes
    runs run running ran uses use used using take takes took taken keep keeps kept
    said says say told tell wants want wanted needs need needed makes make made
    set sets put puts leave leaves left stay stays stayed starts start started
    migrated migrate upgraded upgrade replaced replace replaces through via per
    cost costs costed built build builds rebuilt rebuild based says
    own owns owned handle handles handled manage manages managed lead leads led
    what which who whom whose when where why how
    и в во на с со к ко по о об от до из за у а но что это как теперь уже был была было
    были будет будут мы наш наша наше наши вы он она они его её их ещё еще только все всё
    весь вся каждый каждая с со сейчас сегодня вчера завтра вместо больше
    переехал переехала переехали переезжает переехало перенесли перенесён перенесена
    перешли перешёл перешла сменили сменил сменила поменяли поменял заменили заменил
    работает работают работал работала использует используем используют
    для каждый каждые каждая каждое раз стоит стоят стоил стоила перевели перевёл перевела
    слушает слушают делается делают
    подняли снизили повысили понизили увеличили уменьшили сократили изменили обновили
    среди ведёт ведет ведут отвечает отвечают
    стал стала стали станет идёт идут ходит
    את של על עם זה זו זאת הוא היא הם הן אנחנו אני אתם עכשיו כבר היה הייתה היו יהיה
    עבר עברה עברו עוברים הועבר הועברה הועברו החלפנו החליף החליפה מחליפים
    עולה עולים עולות עלה עלתה עלו
    העלינו העלו הועלה הועלתה הורדנו הורידו הורד הורדה שינינו שונה שונתה עדכנו עודכן עודכנה
    רץ רצה רצים משתמש משתמשת משתמשים גם רק כל מ אל או אבל כי אם מה מי איפה מתי איך
    היום אתמול מחר במקום יותר
    """.split()
)


# Russian case endings memctl.statements' stem keeps (it drops final vowels only).
_RU_ENDINGS = tuple(
    "ами ями ого его ому ему ыми ими ов ев ам ям ах ях ом ем ой ей ых их ую юю ая яя ое ее ые ие".split()
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The comparison form of a word: memctl.statements' stem (5 letters, a Hebrew one-letter
    prefix and Russian vowel endings dropped), Russian case endings dropped first."""
    folded = word.casefold()
    if folded.endswith(("'s", "’s")):
        folded = folded[:-2]  # a possessive: "the front desk's shift"
    elif folded.endswith(("'", "’")):
        folded = folded[:-1]
    if len(folded) > 5 and "\u0400" <= folded[-1] <= "\u04ff":
        for ending in _RU_ENDINGS:
            if folded.endswith(ending):
                folded = folded[: -len(ending)]
                break
    return _stem(folded)


# Russian verb endings that nouns rarely have (3rd person -ает/-ует, reflexive -ется/-ится,
# 1st plural -аем, and on longer words past -али/-или and participles -ены; not -ала,
# -ела: "сигнала", "отдела" are nouns): a verb says what was done to the subject, never
# which subject ("кондиционеры держим" / "кондиционеры выставлены" are one subject).
_RU_VERB = tuple(
    "ает яет ует еет ают яют уют еют ется ится ются ятся утся ался алась ались аем яем уем дят".split()
)
_RU_VERB_LONG = ("ены", "али", "яли", "или")


def _russian_verb(folded: str) -> bool:
    if len(folded) < 6 or not "\u0400" <= folded[0] <= "\u04ff":
        return False
    return folded.endswith(_RU_VERB) or (len(folded) > 6 and folded.endswith(_RU_VERB_LONG))


@functools.lru_cache(maxsize=65536)
def is_stop(word: str) -> bool:
    folded = word.casefold()
    if folded in STOP or _russian_verb(folded):
        return True
    # Hebrew: a stop word behind a one-letter prefix ("וגם", "שכבר").
    return len(folded) > 2 and "\u0590" <= folded[0] <= "\u05ff" and folded[1:] in STOP


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared share of the smaller set (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def _neighbours(order: tuple[str, ...], word: str) -> tuple[str | None, str | None]:
    i = order.index(word)
    left = order[i - 1] if i > 0 else None
    right = order[i + 1] if i + 1 < len(order) else None
    return left, right


def _word_after(order: tuple[str, ...], word: str) -> str | None:
    """The next subject word after `word`, past the values between ("החבילה המורחבת
    עולה 199 שקלים": the word after "מורחב" is "קלים")."""
    i = order.index(word)
    return next((w for w in order[i + 1 :] if w), None)


def modifiers_clash(
    a: tuple[str, ...], b: tuple[str, ...], shared: frozenset[str], right_too: bool
) -> bool:
    """Whether a shared word is qualified by different words ("billing service" / "auth
    service", "сервис оплаты" / "сервис поиска"): two entities, not one subject.

    `a`, `b`: the clauses' subject stems in order ("" where a value stood); `right_too`:
    also the word after (Hebrew and Russian put the qualifier there)."""
    for word in shared:
        left_a, right_a = _neighbours(a, word)
        left_b, right_b = _neighbours(b, word)
        if left_a and left_b and left_a != left_b and left_a not in b and left_b not in a:
            return True
        if right_too and right_a and right_b and right_a != right_b:
            # A qualifier after the word sits inside the phrase: the next word is shared
            # ("сервис оплаты ... порт"); a verb there ("отчёт сдаём") is no qualifier.
            after_a, after_b = _word_after(a, right_a), _word_after(b, right_b)
            if right_a not in b and right_b not in a and after_a and after_a == after_b:
                return True
    return False
