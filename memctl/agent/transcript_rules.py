"""Capture by rule, without an LLM (pure: turns in, memories out), in English, Hebrew and
Russian.

Five rules, each a statement the user makes or accepts; the assistant's own words are
never kept unless the user agrees to a proposal in them:
- remember: what the user asks to be remembered ("remember that…", "запомни…", "תזכור ש…");
- decision: a decision stated ("we decided / agreed…", "мы решили…", "החלטנו ש…");
- standing rule: an instruction for every future session ("always…", "from now on…");
- correction: the user corrects the agent's last turn ("no, the port is 5433");
- agreed: the user agrees ("yes, let's do that") to the one proposal in the agent's turn;
- value: a new value (number, path, address, owner) of a thing the vault already names
  (transcript_values.py).
Questions, quoted text (fenced code, `>` quotes) and narrative ("remember when we…") are
left out; what survives still passes capture's validation gate (filler, transient, short).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memctl.agent.capture_rules import validation_reason
from memctl.agent.transcript_formats import Turn
from memctl.agent.transcript_values import CYRILLIC, HEBREW, VALUE, Named
from memctl.secrets import PRIVATE_MARK

MAX_MEMORY_CHARS = 500


@dataclass(frozen=True)
class RuleHit:
    text: str  # the memory as it would be written
    kind: str  # fact | decision | rule
    rule: str  # remember | decision | standing rule | correction | agreed | value
    turn: int  # index of the turn it came from (for an agreement: the agreeing turn)


# Words that open a sentence without changing what it says.
_LEAD = (
    r"(?:(?:ok(?:ay)?|so|and|also|oh|btw|by the way|please|hey|one more thing|alright|right|"
    r"ок|окей|так|и|а|кстати|пожалуйста|слушай|ещё|еще|итак|"
    r"אוקיי|אז|וגם|גם|אגב|בבקשה|טוב|דרך אגב)[,:!]?\s+)*"
)
_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_QUOTED_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
_SPLIT = re.compile(r"(?<=[.!?…])\s+|\s*\n+\s*")

_REMEMBER = re.compile(
    _LEAD + r"(?:"
    r"(?:please\s+)?(?:remember|don'?t forget|do not forget|keep in mind|make a note|"
    r"for future reference|for the record|note for the future)(?:\s+this)?"
    r"(?:\s*[:,—–-]\s*(?:that\s+)?|\s+that\s+)"
    r"|(?:запомни(?:те)?|имей(?:те)? в виду|не забывай(?:те)?|не забудь(?:те)?|учти(?:те)?|"
    r"на будущее|на заметку|для справки|запиши(?:те)? себе)(?:,?\s*пожалуйста)?"
    r"(?:\s*[:,—–-]\s*(?:что\s+)?|\s+что\s+)"
    r"|ו?(?:תזכור|תזכרי|תזכרו|זכור|זכרי|זכרו|אל תשכח|אל תשכחי|אל תשכחו|תרשום לעצמך|"
    r"תרשמי לעצמך|רשום לעצמך|קח בחשבון|קחי בחשבון|לידיעתך|לעתיד|לפרוטוקול)"
    r"(?:\s+בבקשה)?(?:\s+את זה)?(?:\s*[:,—–-]\s*(?:ש(?=\S))?|\s+ש(?=\S))"
    r")",
    re.IGNORECASE,
)
_REMEMBER_TO = re.compile(
    _LEAD + r"(?:please\s+)?(?:remember|don'?t forget|do not forget)\s+to\s+(always|never)\s+",
    re.IGNORECASE,
)
# What follows "remember," in chit-chat: a story, not a fact.
_NARRATIVE = re.compile(
    r"^(?:when|how|what|where|why|who|if|whether|the time|last|yesterday|back when|"
    r"как|когда|где|зачем|почему|вчера|в прошлый раз|"
    r"כש|איך|מה|איפה|למה|אתמול|בפעם)\b",
    re.IGNORECASE,
)

_DECISION = re.compile(
    r"\b(?:(?:we|i|the team|team)(?:'ve|'d| have| had)?\s+(?:finally\s+|just\s+|all\s+|both\s+)?"
    r"(?:decided|agreed|settled|concluded)\b"
    r"|(?:it was|it's been|it has been|it is)\s+(?:decided|agreed)\b"
    r"|we(?:'re| are)\s+(?:going|standardi[sz]ing)\s+(?:with|on)\b"
    r"|(?:мы\s+|я\s+|команда\s+)?(?:решили|решил[аи]?|договорились|условились|"
    r"сошлись на том|остановились на|приняли решение|пришли к выводу)\b|решено\b)"
    r"|(?:^|(?<=\s))ו?(?:החלטנו|החלטתי|הוחלט|סיכמנו|הסכמנו|קיבלנו החלטה|קבענו)(?=[\s,:]|$)"
    r"|^(?:(?:the\s+)?final\s+|итоговое\s+|окончательное\s+)?(?:decision|решение|ההחלטה)"
    r"(?:\s+היא)?\s*[:—–-]",
    re.IGNORECASE,
)
# A decision not taken: "we haven't decided", "если решим", "עוד לא החלטנו".
_NOT_TAKEN = re.compile(
    r"(?:\b(?:not|n't|never|if|whether|until|unless|yet to|before)\s+(?:\w+\s+)?"
    r"|(?:^|\s)(?:не|ни|если|пока|ещё не|еще не|разве)\s+(?:\w+\s+)?"
    r"|(?:^|\s)(?:לא|אם|עוד לא|טרם|כש)\s*)$",
    re.IGNORECASE,
)

_STANDING = re.compile(
    _LEAD + r"(?:always|never|from now on|going forward|in the future|don'?t ever|do not ever|"
    r"всегда|никогда не|с этого момента|с сегодняшнего дня|впредь|отныне|в дальнейшем|"
    r"ו?(?:תמיד|אף פעם אל|אף פעם לא|לעולם אל|לעולם לא|מעכשיו|מהיום|מעתה|בעתיד))(?=[\s,:])",
    re.IGNORECASE,
)
_NOT_A_RULE = re.compile(r"^(?:never mind|nevermind|always the same|неважно)", re.I)

_CORRECTION = re.compile(
    r"^(?:no|nope|wrong|incorrect|not quite|not exactly|actually|correction|"
    r"that'?s (?:not (?:right|correct|true)|wrong|incorrect)|that is (?:wrong|incorrect)|"
    r"you'?re wrong|"
    r"нет|неправильно|неверно|не так|не совсем|на самом деле|поправка|ты ошибаешься|"
    r"вы ошибаетесь|это не так|"
    r"לא|טעות|לא נכון|זה לא נכון|לא בדיוק|בעצם|תיקון|אתה טועה|את טועה|ממש לא)"
    r"(?:\s*[,:.!—–-]+\s*|\s+(?=it'?s\b|the\b|это\b))",
    re.IGNORECASE,
)
# A correction that asks for work, thanks, or waits is not a fact.
_NOT_A_FACT = re.compile(
    r"^(?:that'?s not what|i meant|i mean|not what|i didn'?t|i don'?t|i'?m not|let me|let'?s|"
    r"wait|thanks|thank you|never ?mind|not now|not yet|go ahead|do it|just|stop|please|can|"
    r"could|would|try|use|add|remove|make|do|run|leave|keep|put|change|fix|revert|undo|show|"
    r"give|write|tell|skip|maybe|perhaps|i think|"
    r"спасибо|подожди|погоди|не сейчас|неважно|давай|сделай|добавь|убери|попробуй|используй|"
    r"оставь|верни|запусти|покажи|напиши|исправь|можешь|пожалуйста|я имел|я имела|не то|"
    r"не надо|не нужно|не это|пока нет|ещё нет|еще нет|может|наверное|"
    r"תודה|רגע|חכה|עזוב|לא משנה|לא עכשיו|עוד לא|תעשה|תוסיף|תוריד|תנסה|תשתמש|תשאיר|תחזיר|"
    r"תריץ|תראה|תכתוב|תתקן|בוא|תן|אפשר|התכוונתי|לא לזה|לא צריך|אולי)\b",
    re.IGNORECASE,
)

_AGREE = re.compile(
    r"^(?:yes|yeah|yep|yup|sure|agreed|ok(?:ay)?|sounds good|perfect|great|deal|"
    r"let'?s do (?:it|that|this)|go (?:with|for) it|do it|good idea|great idea|approved|"
    r"да|ага|давай(?:те)?|согласен|согласна|согласны|договорились|хорошо|отлично|ок|"
    r"принято|годится|так и сделаем|"
    r"כן|בסדר|סגור|מסכים|מסכימה|יאללה|בוא נעשה את זה|לך על זה|סבבה|מאושר|אחלה|מעולה)"
    r"(?:[\s,.!]|$)",
    re.IGNORECASE,
)
_BUT = re.compile(r"\b(?:but|except|although|не|но|кроме|хотя)\b|(?:^|\s)(?:אבל|חוץ|רק ש)", re.I)
_PROPOSAL = re.compile(
    r"(?:\b(?:i (?:suggest|propose|recommend)|i'?d (?:suggest|recommend|propose|go with)|"
    r"i would (?:suggest|recommend|go with)|my (?:suggestion|recommendation|proposal) "
    r"(?:is|would be)|let'?s|we could|we should|how about|shall we|should we|what if we)"
    r"(?:\s+that)?(?:\s+we)?\b"
    r"|\b(?:предлагаю|я бы предложил[аи]?|я бы рекомендовал[аи]?|рекомендую|советую|"
    r"давай(?:те)?|может,? стоит)(?:,?\s+чтобы)?(?:\s+мы)?\b"
    r"|(?:^|(?<=\s))(?:אני מציע(?:ה)?|אני ממליץ(?:ה)?|ההצעה שלי(?: היא)?|ההמלצה שלי(?: היא)?|"
    r"מה דעתך ש|בוא(?:ו)?(?= נ)|כדאי ש))\s*[,:]?\s*",
    re.IGNORECASE,
)
_DECIDED = {"en": "Decided", "ru": "Решено", "he": "הוחלט"}


def language(text: str) -> str:
    """ "he", "ru" or "en", by the script most of the letters are in."""
    hebrew, cyrillic = len(HEBREW.findall(text)), len(CYRILLIC.findall(text))
    if hebrew and hebrew >= cyrillic:
        return "he"
    return "ru" if cyrillic else "en"


def sentences(text: str) -> list[str]:
    """What was said in a turn, sentence by sentence; fenced code and `>` quotes dropped."""
    text = _QUOTED_LINE.sub("", _FENCE.sub("\n", text))
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def tidy(text: str) -> str:
    """One line, no trailing punctuation, a capital first letter (where the script has one)."""
    flat = " ".join(text.split()).strip(" ,;:—–-")
    flat = re.sub(r"[.!;:,…]+$", "", flat).strip()
    return flat[:1].upper() + flat[1:] if flat else flat


def _question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or sentence.rstrip().endswith("？")


def _strip_lead(sentence: str) -> str:
    match = re.match(_LEAD, sentence, re.IGNORECASE)
    return sentence[match.end() :] if match else sentence


def _remember(sentence: str) -> tuple[str, str] | None:
    always = _REMEMBER_TO.match(sentence)
    if always:
        return f"{always.group(1)} {sentence[always.end() :]}", "rule"
    match = _REMEMBER.match(sentence)
    if not match:
        return None
    content = sentence[match.end() :]
    if _NARRATIVE.match(content):
        return None
    return content, "rule" if _STANDING.match(content) else "fact"


def _decision(sentence: str) -> str | None:
    match = _DECISION.search(sentence)
    if not match or _NOT_TAKEN.search(sentence[: match.start()]):
        return None
    after = sentence[match.end() :]
    if len(re.findall(r"\w+", after)) < 2:
        return None
    return _strip_lead(sentence)


def _standing(sentence: str) -> str | None:
    body = _strip_lead(sentence)
    if _NOT_A_RULE.match(body) or not _STANDING.match(sentence):
        return None
    return body


def _correction(turn_text: str) -> str | None:
    said = sentences(turn_text)
    if not said:
        return None
    match = _CORRECTION.match(said[0])
    if not match:
        return None
    rest = said[0][match.end() :].strip()
    if not re.search(r"\w", rest) and len(said) > 1:
        rest = said[1]
    if not rest or _question(rest) or _NOT_A_FACT.match(rest):
        return None
    if not VALUE.search(rest) and len(re.findall(r"\w+", rest)) < 5:
        return None
    return rest


def _agreed(user_text: str, assistant_text: str) -> str | None:
    flat = " ".join(user_text.split())
    if len(flat.split()) > 10 or "?" in flat or not _AGREE.match(flat) or _BUT.search(flat):
        return None
    proposals = [
        (s, m) for s in sentences(assistant_text) if (m := _PROPOSAL.search(s)) is not None
    ]
    if len(proposals) != 1:
        return None  # nothing proposed, or several: which one was agreed is unclear
    sentence, match = proposals[0]
    content = sentence[match.end() :].rstrip("?？ ")
    if len(re.findall(r"\w+", content)) < 3:
        return None
    return f"{_DECIDED[language(content)]}: {tidy(content)}"


def _hits_in_user_turn(
    turns: Sequence[Turn], index: int, named: Named | None
) -> list[tuple[str, str, str]]:
    turn = turns[index]
    found: list[tuple[str, str, str]] = []
    previous = turns[index - 1] if index > 0 else None
    if previous is not None and previous.role == "assistant":
        corrected = _correction(turn.text)
        if corrected:
            found.append((corrected, "fact", "correction"))
        agreed = _agreed(turn.text, previous.text)
        if agreed:
            found.append((agreed, "decision", "agreed"))
    for sentence in sentences(turn.text):
        if _question(sentence):
            continue
        remembered = _remember(sentence)
        if remembered:
            found.append((remembered[0], remembered[1], "remember"))
            continue
        decided = _decision(sentence)
        if decided:
            found.append((decided, "decision", "decision"))
            continue
        standing = _standing(sentence)
        if standing:
            found.append((standing, "rule", "standing rule"))
            continue
        if named is not None and named.new_value(sentence):
            found.append((sentence, "fact", "value"))
    return found


def find_memories(turns: Sequence[Turn], known: Sequence[str] = ()) -> list[RuleHit]:
    """What the rules keep from a conversation, in order, each text once.

    `known` are the vault's memories (for the value rule); texts holding the private
    mark, or failing capture's validation gate, are dropped here.
    """
    named = Named(known) if known else None
    out: list[RuleHit] = []
    seen: set[str] = set()
    for index, turn in enumerate(turns):
        if turn.role != "user":
            continue
        found = [
            (tidy(raw)[:MAX_MEMORY_CHARS], kind, rule)
            for raw, kind, rule in _hits_in_user_turn(turns, index, named)
        ]
        for text, kind, rule in found:
            key = text.casefold()
            # One statement caught by two rules ("No, the port is now 5433" is a correction
            # and a new value): the shorter text, which the other one holds, is kept.
            if any(
                key != other.casefold() and key.endswith(other.casefold()) for other, _, _ in found
            ):
                continue
            if key in seen or PRIVATE_MARK.casefold() in key:
                continue
            # A new value is durable even when it says "now" ("the port is now 5433").
            if validation_reason(text, durable=True) and rule != "value":
                continue
            if rule == "value" and validation_reason(text, durable=True) not in (
                None,
                "transient state",
            ):
                continue
            seen.add(key)
            out.append(RuleHit(text, kind, rule, index))
    return out
