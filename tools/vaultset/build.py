"""Write the vault-shaped evaluation set: OUT/vault, OUT/queries.jsonl, OUT/meta.json.

    python -m tools.vaultset.build OUT [--today YYYY-MM-DD]

Dates are relative to "today" (the real date unless --today), so "yesterday", "last week"
and recency mean what they say: build and score on the same day. Each file's mtime is its
last edit. The build refuses to write a set whose invariants fail (see `problems`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.vaultset import notes
from tools.vaultset.questions import QUESTIONS, Ask, Gold
from tools.vaultset.words import script_of, shared_words

KINDS = [
    "identifier",
    "keyword",
    "typo",
    "paraphrase",
    "crosslingual",
    "temporal",
    "fresh",
    "abstain",
]

EN_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
HE_MONTHS = [
    "ינואר",
    "פברואר",
    "מרץ",
    "אפריל",
    "מאי",
    "יוני",
    "יולי",
    "אוגוסט",
    "ספטמבר",
    "אוקטובר",
    "נובמבר",
    "דצמבר",
]
RU_MONTHS_PREP = [
    "январе",
    "феврале",
    "марте",
    "апреле",
    "мае",
    "июне",
    "июле",
    "августе",
    "сентябре",
    "октябре",
    "ноябре",
    "декабре",
]
RU_MONTHS_GEN = [
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
]

_FORMATS: dict[str, Callable[[dt.date], str]] = {
    "iso": lambda d: d.isoformat(),
    "mon": lambda d: EN_MONTHS[d.month - 1],
    "mon_he": lambda d: HE_MONTHS[d.month - 1],
    "mon_ru_prep": lambda d: RU_MONTHS_PREP[d.month - 1],
    "en_date": lambda d: f"{d.day} {EN_MONTHS[d.month - 1]}",
    "he_date": lambda d: f"{d.day} ב{HE_MONTHS[d.month - 1]}",
    "ru_date": lambda d: f"{d.day} {RU_MONTHS_GEN[d.month - 1]}",
}
_PLACEHOLDER = re.compile(r"\{(" + "|".join(_FORMATS) + r"):([+-]?\d+)\}")
_BULLET = re.compile(r"- \d\d:\d\d ")


def expand(text: str, today: dt.date) -> str:
    """Replace each {format:days} with that day's date, as a person would write it."""

    def one(m: re.Match[str]) -> str:
        return _FORMATS[m.group(1)](today + dt.timedelta(days=int(m.group(2))))

    out = _PLACEHOLDER.sub(one, text)
    if "{" in out and re.search(r"\{\w+:[+-]?\d+\}", out):
        raise ValueError(f"unknown placeholder in {out!r}")
    return out


def path_of(key: str, today: dt.date) -> str:
    """A file key of the questions ("core", "decisions", "d3", "a:name") as a vault path."""
    if key == "core":
        return "memory/core.md"
    if key == "decisions":
        return "memory/decisions.md"
    if key.startswith("d") and key[1:].isdigit():
        return f"memory/daily/{(today - dt.timedelta(days=int(key[1:]))).isoformat()}.md"
    if key.startswith("a:") and key[2:] in notes.ARCHIVE:
        return f"memory/archive/{key[2:]}.md"
    raise ValueError(f"unknown file key {key!r}")


def _stamp(day: dt.date, hhmm: str = "16:00") -> float:
    hour, minute = map(int, hhmm.split(":"))
    return dt.datetime(day.year, day.month, day.day, hour, minute).timestamp()


def vault_files(today: dt.date) -> dict[str, tuple[str, float]]:
    """Every file of the vault: vault-relative path -> (text, mtime)."""
    now = dt.datetime.now().timestamp()
    files = {"memory/core.md": (expand(notes.CORE, today), _stamp(today - dt.timedelta(days=2)))}
    parts = [notes.DECISIONS_HEADER]
    for days, title, lines in notes.DECISIONS:
        when = (today + dt.timedelta(days=days)).isoformat()
        parts.append(f"\n## {when} — {title}\n" + "\n".join(lines) + "\n")
    last = today + dt.timedelta(days=max(days for days, _, _ in notes.DECISIONS))
    files["memory/decisions.md"] = (expand("".join(parts), today), _stamp(last, "17:30"))
    for ago, body in notes.DAILY.items():
        day = today - dt.timedelta(days=ago)
        bullets = [line for line in body.strip().splitlines() if line.strip()]
        last_time = bullets[-1][2:7] if bullets else "12:00"
        mtime = min(_stamp(day, last_time), now)
        text = f"# {day.isoformat()}\n\n" + "\n".join(bullets) + "\n"
        files[f"memory/daily/{day.isoformat()}.md"] = (expand(text, today), mtime)
    for name, (days, text) in notes.ARCHIVE.items():
        day = today + dt.timedelta(days=days)
        files[f"memory/archive/{name}.md"] = (expand(text, today), _stamp(day))
    return files


def shape_problems(texts: dict[str, str]) -> list[str]:
    """What breaks the vault's shape: core ≤ 100 lines, 5-12 time-ordered `- HH:MM` bullets
    a day, 50-70 files, notes in the three languages."""
    out = []
    core = texts["memory/core.md"]
    if core.count("\n") > 100:
        out.append(f"core.md has {core.count(chr(10))} lines (cap 100)")
    for rel, text in texts.items():
        if not rel.startswith("memory/daily/"):
            continue
        bullets = [line for line in text.splitlines()[2:] if line.strip()]
        if not 5 <= len(bullets) <= 12:
            out.append(f"{rel}: {len(bullets)} bullets (5-12)")
        if not all(_BULLET.match(b) for b in bullets):
            out.append(f"{rel}: a line is not a `- HH:MM` bullet")
        times = [b[2:7] for b in bullets]
        if times != sorted(times):
            out.append(f"{rel}: bullets out of time order")
    if not 50 <= len(texts) <= 70:
        out.append(f"{len(texts)} files (50-70)")
    scripts = {script_of(line) for text in texts.values() for line in text.splitlines()}
    if scripts != {"en", "he", "ru"}:
        out.append(f"notes only in {sorted(scripts)}")
    return out


def _line_with(text: str, phrase: str) -> str | None:
    return next((line for line in text.splitlines() if phrase in line), None)


class _Resolver:
    """Turns (file key, phrase) into [path, phrase], noting every phrase that is not an
    exact substring of one line of its file."""

    def __init__(self, texts: dict[str, str], today: dt.date) -> None:
        self.texts, self.today, self.problems = texts, today, list[str]()

    def __call__(self, qid: str, pair: Gold) -> tuple[list[str], str | None]:
        key, phrase = pair
        rel = path_of(key, self.today)
        phrase = expand(phrase, self.today)
        line = _line_with(self.texts.get(rel, ""), phrase) if "\n" not in phrase else None
        if line is None:
            self.problems.append(f"{qid}: phrase not in one line of {rel}: {phrase!r}")
        return [rel, phrase], line


def _record(ask: Ask, qid: str, resolve: _Resolver) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "qid": qid,
        "kind": ask.kind,
        "lang": ask.lang,
        "question": expand(ask.question, resolve.today),
    }
    problems = resolve.problems
    if ask.kind == "abstain":
        if ask.gold or ask.fresh or ask.stale:
            problems.append(f"{qid}: an abstain question has gold")
        return rec
    if ask.kind == "fresh":
        if ask.fresh is None or ask.stale is None:
            problems.append(f"{qid}: a fresh question needs fresh and stale")
            return rec
        new = [resolve(qid, pair) for pair in (ask.fresh, *ask.also)]
        old = [resolve(qid, pair) for pair in (ask.stale, *ask.stale_also)]
        rec["gold"] = [g for g, _ in new]
        rec["fresh"], rec["stale"] = new[0][0], old[0][0]
        if ask.stale_also:
            rec["stale_also"] = [g for g, _ in old[1:]]
        if {line for _, line in new} & {line for _, line in old} - {None}:
            problems.append(f"{qid}: a line is both fresh and stale")
        return rec
    pairs = [resolve(qid, pair) for pair in ask.gold]
    rec["gold"] = [g for g, _ in pairs]
    if not pairs:
        problems.append(f"{qid}: no gold")
    lines = [line for _, line in pairs if line is not None]
    if ask.kind == "paraphrase":
        for line in lines:
            if script_of(line) != ask.lang:
                problems.append(f"{qid}: a paraphrase's gold line is not in {ask.lang}")
            if hits := shared_words(rec["question"], line):
                problems.append(f"{qid}: paraphrase shares {hits} with {line!r}")
    if ask.kind == "crosslingual":
        langs = {script_of(line) for line in lines}
        if len(langs) != 1 or ask.lang in langs:
            problems.append(f"{qid}: gold lines in {sorted(langs)} for a {ask.lang} question")
        else:
            rec["note_lang"] = langs.pop()
    return rec


def assign_splits(records: list[dict[str, Any]]) -> None:
    """About 60% "tune", the rest "report", stratified by kind and language."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["kind"], rec["lang"]), []).append(rec)
    for group in groups.values():
        for i, rec in enumerate(group):
            rec["split"] = "tune" if int((i + 1) * 0.6 + 0.5) > int(i * 0.6 + 0.5) else "report"


def queries(texts: dict[str, str], today: dt.date) -> tuple[list[dict[str, Any]], list[str]]:
    """Every question as a record (qid, kind, lang, question, gold, split, ...), and the
    problems found: a phrase not in its file, a paraphrase sharing a word with its gold..."""
    resolve = _Resolver(texts, today)
    counts: dict[str, int] = {}
    records = []
    for ask in QUESTIONS:
        counts[ask.kind] = counts.get(ask.kind, 0) + 1
        records.append(_record(ask, f"{ask.kind[:5]}-{counts[ask.kind]:02d}", resolve))
    if unknown := {r["kind"] for r in records} - set(KINDS):
        resolve.problems.append(f"unknown kinds {sorted(unknown)}")
    assign_splits(records)
    return records, resolve.problems


class SetError(Exception):
    """The set breaks its own invariants; nothing was written."""


@dataclass(frozen=True)
class Built:
    out: Path
    today: dt.date
    files: int
    queries: list[dict[str, Any]]

    @property
    def vault(self) -> Path:
        return self.out / "vault"


def build(out: Path, today: dt.date | None = None) -> Built:
    """Write OUT/vault (replaced), OUT/queries.jsonl and OUT/meta.json for `today`."""
    today = today or dt.date.today()
    files = vault_files(today)
    texts = {rel: text for rel, (text, _) in files.items()}
    records, problems = queries(texts, today)
    problems = shape_problems(texts) + problems
    if problems:
        raise SetError(f"{len(problems)} problem(s):\n  " + "\n  ".join(problems))
    vault = out / "vault"
    if vault.is_dir():
        shutil.rmtree(vault)
    for rel, (text, mtime) in files.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (mtime, mtime))
    (out / "queries.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    meta = {
        "set": "vaultset",
        "built_for": today.isoformat(),
        "files": len(files),
        "queries": len(records),
    }
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return Built(out, today, len(files), records)


def summary(built: Built) -> str:
    counts: dict[str, dict[str, list[int]]] = {}
    for r in built.queries:
        tally = counts.setdefault(r["kind"], {}).setdefault(r["lang"], [0, 0])
        tally[0 if r["split"] == "tune" else 1] += 1
    lines = [
        f"vaultset: {built.files} files, {len(built.queries)} questions, "
        f"today={built.today} -> {built.out}"
    ]
    for kind in KINDS:
        langs = counts.get(kind, {})
        lines.append(
            f"  {kind:<12} "
            + "  ".join(f"{lang} {t}+{r}" for lang, (t, r) in sorted(langs.items()))
        )
    return "\n".join(lines) + "\n  (tune+report)"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, help="output folder (OUT/vault is replaced)")
    ap.add_argument("--today", help="pretend today is YYYY-MM-DD (default: the real date)")
    a = ap.parse_args()
    today = dt.date.fromisoformat(a.today) if a.today else None
    try:
        print(summary(build(a.out, today)))
    except SetError as e:
        raise SystemExit(f"vaultset: {e}") from None


if __name__ == "__main__":
    main()
