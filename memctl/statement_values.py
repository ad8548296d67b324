"""What a memory states about what: (subject, values) claims per clause, and whether two
memories give different values for one subject however they are worded (pure, no I/O).

Search ranks the newer of two such memories first (memctl.search.rank.supersession) and
`memctl lint` reports them as likely contradictions: one detection, `worded_apart`.

A value is what a statement sets: a number, a time or a date, a name (a capitalised word
inside an English or Russian clause, any Latin word inside a Hebrew or Russian one), a
weekday or a month (in the three languages), or the word after a verb of change ("moved
to Brevo", "перешли на Brevo", "עברנו ל-Brevo"). The subject is what is left
(memctl.statement_words), plus any value both sides share ("Cabernet 2023").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from memctl.statement_lexicon import CHANGE, HE_DAY_WORDS, HE_DAYS, UPDATE, calendar_value
from memctl.statement_words import is_stop, modifiers_clash, overlap, stem

_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?(?:\d{1,2}:\d{2}\s+)?")
# Clauses: sentences, and parts after a colon, semicolon, comma, dash or bracket.
_CLAUSE = re.compile(r"[.!?;:](?:\s|$)|,\s|\s[—–-]\s|[()«»\"“”]")
_TOKEN = re.compile(
    r"[A-Za-z]{1,10}-\d[\w-]*|\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|\d[\d,.]*\d|\d|[^\W\d_](?:[\w'’]|-(?=[^\W\d_]))*",
    re.UNICODE,
)
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")
_YEAR = re.compile(r"^(?:19|20)\d{2}$")
_LATIN = re.compile(r"^[A-Za-z]")
_CYRILLIC = re.compile(r"^[\u0400-\u04ff]")
_HEBREW = re.compile(r"[\u0590-\u05ff]")

# How much of the smaller subject the other must hold, without and with the query's help.
SAME_SUBJECT = 0.75
SAME_SUBJECT_ASKED = 0.5


@dataclass(frozen=True)
class Claim:
    """One clause: its subject stems (in order, "" where a value stood) and its values by kind."""

    order: tuple[str, ...]
    values: frozenset[tuple[str, str]]  # (kind, value): number, time, date, name, day, month
    hebrew: bool
    cyrillic: bool
    update: bool = False  # its line says the value changed ("now", "moved to", "теперь")

    @property
    def subject(self) -> frozenset[str]:
        return frozenset(w for w in self.order if w)


def _value_of(token: str, first: bool, foreign: bool) -> tuple[str, str] | None:
    if token[0].isdigit():
        if _ISO.match(token):
            return ("date", token)
        if _TIME.match(token):
            return ("time", token.zfill(5))
        return ("number", token.replace(",", "").rstrip("."))
    key = calendar_value(token)
    if key is not None:
        return (key.split(":")[0], key)
    latin = bool(_LATIN.match(token))
    if latin and foreign:
        return ("name", token.casefold())
    if first and not latin:
        return None  # a Russian clause's first word is capitalised as a sentence starts
    if token[0].isupper() and (latin or _CYRILLIC.match(token)) and not is_stop(token):
        # A sentence's first word is capitalised anyway: a name only when it is not
        # a verb form ("Moved", "Upgraded", "Switching").
        if first and token.casefold().endswith(("ed", "ing")):
            return None
        return ("name", token.casefold())
    return None


def _changed_to(clause: str, names_only: bool = False) -> set[str]:
    """The words a verb of change names as the new value, casefolded; `names_only`: only
    those written as a name (capitalised, or Latin in a Hebrew or Russian clause), so
    "the lights changed to warm LED" names no new value of the hall's."""
    out: set[str] = set()
    foreign = bool(_HEBREW.search(clause)) or any("\u0400" <= ch <= "\u04ff" for ch in clause)
    for match in CHANGE.finditer(clause):
        word = next((g for g in match.groups() if g), None)
        if not word or is_stop(word) or word[0].isdigit():
            continue
        if names_only and not (word[0].isupper() or (foreign and _LATIN.match(word))):
            continue
        out.add(word.casefold())
    return out


_HEBREW_HYPHEN = re.compile(r"(?<=[\u0590-\u05ff])-(?=[A-Za-z0-9])")


def _parse(clause: str) -> Claim:
    clause = _HEBREW_HYPHEN.sub(" ", clause)  # "ב-Priority", "ל-60": prefix, then the value
    hebrew = bool(_HEBREW.search(clause))
    cyrillic = any("\u0400" <= ch <= "\u04ff" for ch in clause)
    changed = _changed_to(clause)
    order: list[str] = []
    values: set[tuple[str, str]] = set()
    previous: tuple[str, str] | None = None
    tokens = _TOKEN.findall(clause)
    for i, token in enumerate(tokens):
        value = _value_of(token, i == 0, hebrew or cyrillic)
        if value is None and i and token in HE_DAYS and tokens[i - 1] in HE_DAY_WORDS:
            value = ("day", HE_DAYS[token])  # "ביום רביעי", "לימי שלישי"
        if value is None and token.casefold() in changed:
            value = ("name", stem(token))
        if value and previous and previous[0] == "name" and _YEAR.match(token):
            continue  # "Cabernet 2023", "Merlot 2022": a vintage names the thing
        previous = value
        if value is not None:
            values.add(value)
            order.append("")
        elif len(token) > 1 and not is_stop(token):
            order.append(stem(token))
    return Claim(tuple(order), frozenset(values), hebrew, cyrillic)


def claim(clause: str) -> Claim | None:
    """The clause's claim, or None when it sets no value or names no subject."""
    found = _parse(clause)
    return found if found.values and found.subject else None


def claims(text: str, max_lines: int = 16, focus: frozenset[str] = frozenset()) -> list[Claim]:
    """The claims of a memory's statement lines (headings and empty lines left out).

    A clause with values and no subject word of its own ("by Tuesdays and Thursdays at
    11:00") takes the subject of the clause before it on its line. `focus`: the query's
    stems; only lines holding one are read (a stem is a prefix of its word, so a line
    without the text of any cannot share a subject with the query)."""
    out: list[Claim] = []
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if focus:
        lines = [line for line in lines if any(s in line.casefold() for s in focus)]
    for line in lines[:max_lines]:
        out.extend(_line_claims(line))
    return out


@functools.lru_cache(maxsize=16384)
def _line_claims(line: str) -> tuple[Claim, ...]:
    # By line: search reads one candidate's lines for the query's words, for its facts'
    # meaning and for a stated change, and the next search the same lines again.
    out: list[Claim] = []
    before: tuple[str, ...] = ()
    update = bool(UPDATE.search(line))
    for clause in _CLAUSE.split(_BULLET.sub("", line)):
        found = _parse(clause)
        if found.subject:
            before = found.order
            if found.values:
                out.append(replace(found, update=update))
        elif found.values and before:
            out.append(
                Claim(before + found.order, found.values, found.hebrew, found.cyrillic, update)
            )
    return tuple(out)


def _apart(a: frozenset[tuple[str, str]], b: frozenset[tuple[str, str]]) -> str | None:
    """A kind of value both sides set, to values they do not share."""
    for kind in ("number", "time", "date", "day", "month", "name"):
        va = {v for k, v in a if k == kind}
        vb = {v for k, v in b if k == kind}
        if va and vb and not (va & vb):
            return kind
    return None


def _moved(newer: Claim, older: Claim) -> str | None:
    """A kind of value `older` sets of which `newer`, saying the value changed, gives one
    more ("moved puma from 3000 to 3100"); a name only when handed over (_handed_over)."""
    for kind in ("number", "time", "date", "day", "month"):
        if any(k == kind for k, _ in older.values) and any(
            k == kind and (k, v) not in older.values for k, v in newer.values
        ):
            return kind
    return "name" if _handed_over(newer, older) else None


def _handed_over(newer: Claim, older: Claim) -> bool:
    """`newer` names every name `older` gives and one more ("Eli took over the bookings
    from Dana" / "Dana handles the bookings"): anyone a line mentions is a name, the old
    one named beside a new one is a hand-over. By stem: a Russian name declines
    ("вместо Марины" / "Марина")."""
    old = {stem(v) for k, v in older.values if k == "name"}
    new = {stem(v) for k, v in newer.values if k == "name"}
    return bool(old) and bool(new - old) and old <= new


def worded_apart(a: Claim, b: Claim, query: frozenset[str] = frozenset()) -> str | None:
    """Why `a` and `b` give different values for one subject, or None.

    One subject: at least two shared subject words (a value both name counts as one), most
    of the smaller subject shared (half when the query names a shared word), and no shared
    word qualified differently ("billing service" / "auth service"). Different values: a
    kind of value both set, none in common. `query`: the query's stems (statement_words.stem).
    """
    both = a.values & b.values
    shared_names = frozenset(v for _, v in both)
    sa, sb = a.subject | shared_names, b.subject | shared_names
    shared = sa & sb
    if len(shared) < 2:
        return None  # one word ("bottles", "newsletter") is a topic, not yet a subject
    if query and not query & shared:
        return None  # the question is about something else: leave its ranking alone
    share = overlap(sa, sb)
    if share < SAME_SUBJECT_ASKED:
        return None
    right_too = a.hebrew or b.hebrew or a.cyrillic or b.cyrillic
    if modifiers_clash(a.order, b.order, a.subject & b.subject, right_too):
        return None
    kind = _apart(a.values - both, b.values - both) or (_moved(a, b) if a.update else None)
    handed_over = kind == "name" and a.update and _handed_over(a, b)
    # Names are the noisier value (anyone a note mentions is one): they need most of the
    # subject shared even when the query names it.
    if kind is None or (share < SAME_SUBJECT and (kind == "name" or not query & shared)):
        return None
    if kind == "name" and not (a.update or b.update):
        return None  # anyone a note mentions is a name: a new one needs "now", "moved to"...
    if (
        kind == "name"
        and not handed_over
        and (both or len(a.subject & b.subject) < min(2, len(sa), len(sb)))
    ):
        # Other names beside one both mention are other things said of it ("Amir tasted
        # the Kadar barrels" / "new barrels come from Kadar in Tokaj").
        return None
    return f"same subject, different {kind}"


def names_older(query: frozenset[str], newer: list[Claim], older: list[Claim]) -> bool:
    """Whether the query names a name only the older statements give ("Tonnellerie Sabot
    barrels" when Sabot was replaced): it asks about that one, not about the subject's
    current value. `query`: its stems (query_stems). Stems are loose ("couriers" of "Swift
    Couriers" is also the question's "courier"): search asks this of pairs found by
    meaning only, the looser finding."""
    if not query:
        return False
    new_values = {v for c in newer for _, v in c.values}
    # A query word the newer says too names the subject ("bottled" / "Bottle-On-Wheels").
    asked = query - {w for c in newer for w in c.subject}
    return any(
        stem(v) in asked for c in older for k, v in c.values if k == "name" and v not in new_values
    )


def query_stems(query: str) -> frozenset[str]:
    """A query's subject stems, as `worded_apart` compares them."""
    return frozenset(stem(t) for t in _TOKEN.findall(query) if len(t) > 1 and not is_stop(t))


def first_apart(
    newer: Iterable[Claim], older: Iterable[Claim], query: frozenset[str] = frozenset()
) -> str | None:
    """The first reason a claim of `newer` and one of `older` are worded apart, or None."""
    older_claims = list(older)
    for a in newer:
        for b in older_claims:
            reason = worded_apart(a, b, query)
            if reason:
                return reason
    return None


def _by_kind(found: Iterable[Claim]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for one in found:
        for kind, value in one.values:
            out.setdefault(kind, set()).add(value)
    return out


def _clash(newer: Sequence[Claim], older: Sequence[Claim]) -> bool:
    """A shared word qualified differently in two clauses ("billing service" / "auth service")."""
    for a in newer:
        for b in older:
            shared = a.subject & b.subject
            right_too = a.hebrew or b.hebrew or a.cyrillic or b.cyrillic
            if shared and modifiers_clash(a.order, b.order, shared, right_too):
                return True
    return False


def qualified_apart(a: str, b: str) -> bool:
    """Whether two statements share a word each qualifies differently ("сервер логов" /
    "сервер бэкапов", "rent of the warehouse" / "delivery to the warehouse"): two things."""
    return _clash(claims(a), claims(b))


def _share_subject(
    newer: Sequence[Claim], older: Sequence[Claim], query: frozenset[str] = frozenset()
) -> bool:
    """At least two subject words shared: one ("product") is a topic, not yet a subject
    ("product photos" / "product search"), unless the query asks about that one and it
    heads a clause on both sides ("which day do the cleaners come": "the cleaning crew
    switched to..." / "cleaners come every...", not a unit both end with: "שקלים")."""
    shared = {w for c in newer for w in c.subject} & {w for c in older for w in c.subject}
    if len(shared) >= 2:
        return True
    asked = shared & query
    return bool(asked) and bool(asked & _heads(newer) & _heads(older))


def _heads(found: Sequence[Claim]) -> set[str]:
    return {next(w for w in c.order if w) for c in found if c.subject}


def changed_value(newer: str, older: str, query: frozenset[str] = frozenset()) -> str | None:
    """Why the statement `newer`, which says its value changed ("moved to", "now",
    "теперь", "עכשיו"), gives a value `older` does not, when the two are about one subject
    by meaning (the caller decides that: their vectors, whatever the wording or the
    language); None when `newer` says no change or no value of it is new.

    A kind of value both set with none in common (a number, a time, a day...); a value of
    a kind `older` sets that `older` lacks ("moved from 3000 to 3100"); the word it
    changed to ("moved the printing to Print-Tec") missing from `older`; a name `older`
    lacks where `older` names one ("from Sunday deliveries leave with Mahir"). Not when a
    shared word is qualified differently ("billing service" / "auth service"). `query`:
    the query's stems (query_stems); one shared subject word it names is enough."""
    if not UPDATE.search(newer):
        return None
    new_claims, old_claims = claims(newer), claims(older)
    if _clash(new_claims, old_claims) or not _share_subject(new_claims, old_claims, query):
        return None
    new_values, old_values = _by_kind(new_claims), _by_kind(old_claims)
    for kind in ("number", "time", "date", "day", "month"):
        if new_values.get(kind) and old_values.get(kind) and new_values[kind] - old_values[kind]:
            return f"same meaning, changed {kind}"
    folded = older.casefold()
    if any(word not in folded for word in _changed_to(newer, names_only=True)):
        return "same meaning, changed to another"
    # A name is the noisiest value (anyone a line mentions is one): a new one needs most
    # of a clause's subject shared ("Ruth handles the support tickets" / "support tickets
    # are answered by Gal"), not two words of a wider one ("the orchard hall lights").
    new_name = bool(old_values.get("name")) and bool(
        new_values.get("name", set()) - old_values["name"]
    )
    one_subject = any(
        overlap(a.subject, b.subject) >= SAME_SUBJECT for a in new_claims for b in old_claims
    )
    if new_name and one_subject:
        return "same meaning, another name"
    return None
