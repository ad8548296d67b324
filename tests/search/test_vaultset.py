"""memctl's own vault-shaped evaluation set (tools/vaultset): it builds for any "today" with
its invariants held, its checks catch a broken set, and it scores through the real CLI."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path

import pytest

from tools.vaultset import build as vs
from tools.vaultset import questions as vq
from tools.vaultset.score import evaluate
from tools.vaultset.words import script_of, shared_words

MEMCTL = str(Path(sys.executable).with_name("memctl"))
# A Monday, a Sunday, a leap day and New Year's Day: week and month edges of relative dates.
TODAYS = [dt.date(2026, 11, 30), dt.date(2026, 11, 29), dt.date(2028, 2, 29), dt.date(2027, 1, 1)]


def _line(text: str, phrase: str) -> str:
    return next(line for line in text.splitlines() if phrase in line)


@pytest.mark.parametrize("today", TODAYS, ids=str)
def test_the_set_builds_with_its_invariants(tmp_path: Path, today: dt.date) -> None:
    built = vs.build(tmp_path, today)
    vault = built.vault
    files = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    assert 50 <= len(files) <= 70
    assert "memory/core.md" in files and "memory/decisions.md" in files
    core = (vault / "memory/core.md").read_text(encoding="utf-8")
    assert core.count("\n") <= 100
    dailies = [f for f in files if f.startswith("memory/daily/")]
    assert len(dailies) >= 30
    for rel in dailies:
        bullets = (vault / rel).read_text(encoding="utf-8").splitlines()[2:]
        assert 5 <= len(bullets) <= 12
        assert all(re.match(r"- \d\d:\d\d \S", b) for b in bullets), rel
    decisions = (vault / "memory/decisions.md").read_text(encoding="utf-8")
    assert len(re.findall(r"^## \d{4}-\d\d-\d\d — ", decisions, re.M)) >= 12
    # Some archive notes are dated only in a heading (no front matter, no date in the title).
    heading_only = [
        f
        for f in files
        if f.startswith("memory/archive/")
        and re.search(r"^## \d{4}-\d\d-\d\d$", (vault / f).read_text(encoding="utf-8"), re.M)
    ]
    assert len(heading_only) >= 5

    records = [json.loads(line) for line in (tmp_path / "queries.jsonl").read_text().splitlines()]
    assert len(records) >= 150
    assert json.loads((tmp_path / "meta.json").read_text())["built_for"] == today.isoformat()
    for kind in vs.KINDS:
        of_kind = [r for r in records if r["kind"] == kind]
        assert {r["split"] for r in of_kind} == {"tune", "report"}, kind
        assert {r["lang"] for r in of_kind} == {"en", "he", "ru"}, kind
    texts = {f: (vault / f).read_text(encoding="utf-8") for f in files}
    for r in records:
        assert "{" not in r["question"], r["qid"]  # every date placeholder expanded
        pairs = r.get("gold", []) + ([r["stale"], *r.get("stale_also", [])] if "stale" in r else [])
        for path, phrase in pairs:
            assert any(phrase in line for line in texts[path].splitlines()), (r["qid"], phrase)
        if r["kind"] == "paraphrase":
            for path, phrase in r["gold"]:
                line = _line(texts[path], phrase)
                assert not shared_words(r["question"], line), r["qid"]
                assert script_of(line) == r["lang"]
        if r["kind"] == "crosslingual":
            assert {script_of(_line(texts[p], ph)) for p, ph in r["gold"]} == {r["note_lang"]}
            assert r["note_lang"] != r["lang"]
        if r["kind"] == "abstain":
            assert "gold" not in r


def test_relative_dates_follow_today(tmp_path: Path) -> None:
    today = dt.date(2026, 11, 30)
    records = vs.build(tmp_path, today).queries
    yesterday = f"memory/daily/{today - dt.timedelta(days=1)}.md"
    asked = [
        r
        for r in records
        if r["kind"] == "temporal"
        and re.search(r"(?<!before )yesterday|אתמול|\bвчера", r["question"])
    ]
    assert len(asked) == 3  # one per language
    assert all(r["gold"][0][0] == yesterday for r in asked)
    a_date = next(r for r in records if "on 9 November?" in r["question"])
    assert a_date["gold"][0][0] == "memory/daily/2026-11-09.md"


def test_the_words_check_sees_inflections_and_prefixes() -> None:
    assert shared_words("who counted them", "we count bottles")  # -ed
    assert shared_words("מה עם החתונה", "חתונה באולם")  # the Hebrew article
    assert shared_words("экскурсовода", "экскурсия")  # a Russian stem
    assert not shared_words("What bottle do we suggest?", "plum and soft tannins")


def test_a_broken_set_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = [
        vq.ask(
            "paraphrase",
            "en",
            "Which wild animal broke in?",
            ("d17", "a wild boar broke the fence"),
        ),
        vq.ask("keyword", "en", "no such line", ("d17", "a line nobody wrote")),
        vq.ask("crosslingual", "en", "the same language", ("d5", "birds are eating the Muscat")),
    ]
    monkeypatch.setattr(vs, "QUESTIONS", vq.QUESTIONS + bad)
    with pytest.raises(vs.SetError) as e:
        vs.build(tmp_path, dt.date(2026, 11, 30))
    assert "paraphrase shares" in str(e.value)
    assert "a line nobody wrote" in str(e.value)
    assert "gold lines in ['en'] for a en question" in str(e.value)
    assert not (tmp_path / "vault").exists()


def test_a_slice_scores_through_memctl(tmp_path: Path) -> None:
    """Index the vault with the real CLI and score one slice: exact identifiers come back
    first, an unanswerable question is counted, both splits and every figure are there."""
    built = vs.build(tmp_path)
    picked = [
        r
        for r in built.queries
        if r["qid"]
        in {"ident-03", "ident-06", "ident-09", "ident-16", "ident-18", "absta-01", "fresh-01"}
    ]
    (tmp_path / "queries.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in picked), encoding="utf-8"
    )
    # A small vault (the slice's gold files and a few days of others) keeps the index quick.
    keep = {path for r in picked for path, _ in r.get("gold", [])}
    dailies = sorted((built.vault / "memory" / "daily").glob("*.md"))
    keep |= {p.relative_to(built.vault).as_posix() for p in dailies[-6:]}
    for note in built.vault.rglob("*.md"):
        rel = note.relative_to(built.vault).as_posix()
        if rel not in keep and rel not in ("memory/core.md", "memory/decisions.md"):
            note.unlink()
    figures, text = evaluate(tmp_path, MEMCTL, ["hybrid"], k=5)
    tallies = figures["hybrid"]
    identifiers = [t["kinds"]["identifier"] for t in tallies.values() if "identifier" in t["kinds"]]
    assert sum(e["hits"] for e in identifiers) == sum(e["n"] for e in identifiers) == 5
    assert sum(t["kinds"].get("abstain", {}).get("n", 0) for t in tallies.values()) == 1
    assert all(t["floor_kept"][1] >= t["floor_kept"][0] for t in tallies.values())
    assert "vaultset[hybrid] hit@5=" in text and "split=report" in text
