"""The tier rules, as pure functions of facts and an explicit `now` (no I/O, no clock).

- Promote WARM -> HOT: a WARM chunk referenced more than `promote_references` times in
  the last `promote_window_days` is a candidate (proposed, never applied blindly).
- Demote WARM -> COLD: a daily note, or a superseded decision, untouched (no edit, no
  reference) for `demote_after_days`.
- Archive HOT: a core.md line not referenced for `hot_unreferenced_days` (and present
  at least that long) is proposed for archiving.
- Prune COLD: an archive chunk unread for `prune_after_days` is proposed for deletion.
- HOT cap: core.md never exceeds `cap_lines` lines.

Superseded decision (the definition `demote` uses), any of:
1. its heading or body carries a marker line: `Superseded`, `Superseded by: ...`
   (also `Заменено`, `הוחלף`), or its title ends with `(superseded)` / `[superseded]`;
2. a later decision names it in a `Supersedes: <date or title>` line (a date names the
   decisions of that day; a title must be the same words);
3. a later-dated decision has the same title (the same words, ignoring case, punctuation
   and a title marker), i.e. the same decision was taken again.
Titles are compared word for word, never by similarity: "Retry policy for service A" and
"... service B", "Q3"/"Q4", "API"/"UI" differ by one token and are different decisions;
a fuzzy ratio cannot tell those from a typo, and a wrong guess archives a live decision.
It counts as touched on the day it was superseded (the successor's date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memctl.config import LifecycleSettings
from memctl.notes import Decision

# -- facts the rules read ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChunkUse:
    """A chunk as the index knows it, with its reference history."""

    hash: str
    path: str
    line_start: int
    line_end: int
    text: str
    tier: str
    source: str
    date: date | None  # the date the chunk is about (daily note, decision), if known
    last_referenced: datetime | None
    window_references: int = 0  # references within the promotion window
    first_in_window: datetime | None = None
    last_in_window: datetime | None = None
    queries: tuple[str, ...] = ()  # what searches that returned it asked, within the window


@dataclass(frozen=True)
class DailyFacts:
    path: str
    day: date
    modified: datetime  # file mtime
    last_referenced: datetime | None


@dataclass(frozen=True)
class CoreLine:
    number: int  # 1-based line in core.md
    text: str
    section: str | None
    first_seen: datetime | None
    last_referenced: datetime | None


@dataclass(frozen=True)
class Superseded:
    index: int  # position in the parsed decision list
    by: str  # why: the successor's heading or the marker line
    since: date | None  # when it was superseded (successor's date, else its own)


# -- promotion -------------------------------------------------------------------------------


def promotion_candidates(chunks: list[ChunkUse], settings: LifecycleSettings) -> list[ChunkUse]:
    """WARM chunks referenced more than the threshold within the window, most used first."""
    found = [
        c for c in chunks if c.tier == "warm" and c.window_references > settings.promote_references
    ]
    return sorted(found, key=lambda c: (-c.window_references, c.path, c.line_start))


_IRON = re.compile(
    r"\b(never|always|must|do not|don't|forbidden)\b|никогда|всегда|нельзя|запрещ|обязательно|"
    r"לעולם|תמיד|אסור|חובה",
    re.IGNORECASE,
)
_BLOCKER = re.compile(
    r"\b(block(ed|er|s)?|waiting (on|for)|stuck)\b|блок|жд[её]м|застрял|חסום|ממתינ|תקוע",
    re.IGNORECASE,
)
_IDENTITY = re.compile(
    r"\b(i am|my name|i'm|prefers?|timezone|speaks?)\b|меня зовут|я —|предпочита|שמי|אני |מעדיפ",
    re.IGNORECASE,
)


def guess_section(text: str, sections: tuple[str, ...]) -> str:
    """The core.md section a line most likely belongs to; a person or the reviewer may override."""
    wanted = "Active project"
    if _IRON.search(text):
        wanted = "Iron rules"
    elif _BLOCKER.search(text):
        wanted = "Open blockers"
    elif _IDENTITY.search(text):
        wanted = "Identity"
    if wanted in sections:
        return wanted
    return sections[-1] if sections else wanted


_TIMESTAMP_BULLET = re.compile(r"^(\s*)[-*+]\s+\d{1,2}:\d{2}\s+")


def core_line_from_chunk(text: str) -> str:
    """A chunk's content as core.md bullet lines: headings dropped, `- HH:MM` stamps removed."""
    lines = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line = _TIMESTAMP_BULLET.sub(r"\1- ", line)
        lines.append(line.rstrip())
    return "\n".join(lines)


_FOCUS_MIN_LINES = 3  # shorter chunks are promoted whole
_FOCUS_MIN_SCORE = 60.0
_FOCUS_MAX_LINES = 3


def focus_lines(text: str, queries: tuple[str, ...]) -> str:
    """The lines of a promoted chunk that its searches were about.

    A daily chunk often holds several unrelated bullets; the one that kept being found
    is the fact worth HOT, not its neighbours. Lines scoring within 10 points of the best
    match (rapidfuzz token-set ratio against any query) are kept, at most three; with no
    query that matches well, the whole chunk is proposed and the reviewer narrows it.
    """
    from rapidfuzz import fuzz

    lines = core_line_from_chunk(text).split("\n")
    asked = [q for q in queries if q.strip()]
    if len(lines) < _FOCUS_MIN_LINES or not asked:
        return "\n".join(lines)
    scores = [
        max(fuzz.token_set_ratio(q.casefold(), line.casefold()) for q in asked) for line in lines
    ]
    best = max(scores)
    if best < _FOCUS_MIN_SCORE:
        return "\n".join(lines)
    ranked = sorted(range(len(lines)), key=lambda i: -scores[i])[:_FOCUS_MAX_LINES]
    keep = sorted(i for i in ranked if scores[i] >= best - 10)
    return "\n".join(lines[i] for i in keep)


# -- demotion ----------------------------------------------------------------------------------


def _older(moment: datetime | None, cutoff: datetime) -> bool:
    return moment is None or moment < cutoff


def daily_demotions(
    notes: list[DailyFacts], now: datetime, settings: LifecycleSettings
) -> list[DailyFacts]:
    """Daily notes whose day, last edit and last reference are all past the demotion age."""
    cutoff = now - timedelta(days=settings.demote_after_days)
    return [
        n
        for n in notes
        if n.day < cutoff.date() and n.modified < cutoff and _older(n.last_referenced, cutoff)
    ]


_MARKER = re.compile(r"^\s*[-*]?\s*\**\s*(superseded|заменено|הוחלף)\b", re.IGNORECASE)
_TITLE_MARKER = re.compile(r"[(\[]\s*(superseded|заменено|הוחלף)\s*[)\]]\s*$", re.IGNORECASE)
_SUPERSEDES = re.compile(
    r"^\s*[-*]?\s*\**\s*(supersedes|заменяет|מחליף)\**\s*:?\**\s*(.+?)\s*$", re.IGNORECASE
)
_DATED_REF = re.compile(r"^(\d{4}-\d{2}-\d{2})\s*(?:[—–-]+\s*)?(.*)$")


_WORD = re.compile(r"\w+")


def title_words(title: str) -> tuple[str, ...]:
    """A title as the words that make it: casefolded, punctuation and title marker dropped."""
    return tuple(_WORD.findall(_TITLE_MARKER.sub("", title).casefold()))


def _names(reference: str, decision: Decision) -> bool:
    reference = reference.strip().strip("\"'`*")
    dated = _DATED_REF.match(reference)
    if dated:
        if decision.raw_date != dated.group(1):
            return False
        title = dated.group(2).strip()
        return not title or title_words(title) == title_words(decision.title)
    words = title_words(reference)
    return bool(words) and words == title_words(decision.title)


def unmatched_supersedes(decisions: list[Decision]) -> list[tuple[int, str]]:
    """(line, reference) of `Supersedes:` lines that name no other decision (for lint)."""
    found = []
    for j, later in enumerate(decisions):
        for offset, line in enumerate(later.text.splitlines()[1:], start=1):
            named = _SUPERSEDES.match(line)
            if named and not any(
                i != j and _names(named.group(2), d) for i, d in enumerate(decisions)
            ):
                found.append((later.line_start + offset, named.group(2)))
    return found


def superseded_decisions(decisions: list[Decision]) -> list[Superseded]:
    """Which decisions are superseded, by what, and since when (see the module docstring)."""
    found: dict[int, Superseded] = {}
    for i, decision in enumerate(decisions):
        lines = decision.text.splitlines()
        marker = next((line for line in lines[1:] if _MARKER.match(line)), None)
        if marker is not None or _TITLE_MARKER.search(decision.title):
            found[i] = Superseded(i, (marker or decision.title).strip(), decision.date)
    for j, later in enumerate(decisions):
        for line in later.text.splitlines()[1:]:
            named = _SUPERSEDES.match(line)
            if not named:
                continue
            for i, earlier in enumerate(decisions):
                if i != j and i not in found and _names(named.group(2), earlier):
                    found[i] = Superseded(i, later.text.splitlines()[0].strip(), later.date)
    words = [title_words(d.title) for d in decisions]
    for i, earlier in enumerate(decisions):
        if i in found or earlier.date is None or not words[i]:
            continue
        for j, later in enumerate(decisions):
            if later.date is None or j == i:
                continue
            is_later = later.date > earlier.date or (later.date == earlier.date and j > i)
            if is_later and words[j] == words[i]:
                found[i] = Superseded(i, later.text.splitlines()[0].strip(), later.date)
                break
    return [found[i] for i in sorted(found)]


def decision_demotions(
    decisions: list[Decision],
    last_referenced: dict[int, datetime | None],
    now: datetime,
    settings: LifecycleSettings,
) -> list[Superseded]:
    """Superseded decisions untouched (superseded and last referenced) for the demotion age."""
    cutoff = now - timedelta(days=settings.demote_after_days)
    result = []
    for item in superseded_decisions(decisions):
        own = decisions[item.index].date
        since = item.since or own
        if since is None or since >= cutoff.date() or (own is not None and own >= cutoff.date()):
            continue
        if _older(last_referenced.get(item.index), cutoff):
            result.append(item)
    return result


# -- HOT ------------------------------------------------------------------------------------------


def hot_archive_candidates(
    lines: list[CoreLine], now: datetime, settings: LifecycleSettings
) -> list[CoreLine]:
    """Core lines seen for the whole window and not referenced within it.

    A line memctl has not yet seen for that long is never proposed: it may be new. Lines
    in a pinned section (identity, iron rules) are never proposed: a rule that is never
    searched for is usually a rule being kept, not a stale one.
    """
    cutoff = now - timedelta(days=settings.hot_unreferenced_days)
    pinned = {s.casefold() for s in settings.hot_pinned_sections}
    return [
        line
        for line in lines
        if (line.section or "").casefold() not in pinned
        and line.first_seen is not None
        and line.first_seen <= cutoff
        and _older(line.last_referenced, cutoff)
    ]


def over_cap(line_count: int, adding: int, cap: int) -> int:
    """How many lines past the cap core.md would be after adding `adding` lines (0 if within)."""
    return max(0, line_count + adding - cap)


# -- prune ------------------------------------------------------------------------------------------


def prune_candidates(
    chunks: list[ChunkUse],
    anchors: dict[str, datetime],
    now: datetime,
    settings: LifecycleSettings,
) -> list[ChunkUse]:
    """COLD chunks neither read nor written for `prune_after_days`.

    `anchors[hash]` is when the chunk last changed (its date, else its file's mtime): a chunk
    archived yesterday is not "unread for six months" even if it was never searched.
    """
    cutoff = now - timedelta(days=settings.prune_after_days)
    result = []
    for chunk in chunks:
        if chunk.tier != "cold":
            continue
        anchor = anchors.get(chunk.hash)
        if anchor is None or anchor >= cutoff:
            continue
        if _older(chunk.last_referenced, cutoff):
            result.append(chunk)
    return sorted(result, key=lambda c: (c.path, c.line_start))
