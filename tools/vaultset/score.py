"""Score memctl on a vaultset build: per kind, per language and per split, in any search mode.

    python -m tools.vaultset.score OUT [--memctl PATH] [--modes hybrid,vector] [-k 5] [-v]

Runs `memctl --vault OUT/vault index`, then for each mode `search --batch - --json -k K
--no-log --mode MODE`, once as a user would (the relevance floor on) and once with `--all`
(no floor). The rules are agentvault's: a gold [path, phrase] is found at rank r when result
r has that path and its snippet holds the phrase (whitespace collapsed); hit@k and MRR (first
gold hit within k) over every question with gold; fresh: a line stating the newer value
ranks strictly above every stale line, or no stale line comes back (one snippet holding both
is a tie, not a pass); abstain: at most one result. Added here: floor_kept = of the questions
whose gold is in the top k without the floor, how many keep it with the floor, and
no_floor_hit@k (per kind: [--all N]) = hit@k of the ranking alone, the floor off.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.vaultset.build import KINDS

SPLITS = ("tune", "report")
# The kinds the "overall" row counts (identifiers ... dates): all but fresh and abstain.
CORE_KINDS = ("identifier", "keyword", "typo", "paraphrase", "crosslingual", "temporal")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def rank_of(results: list[dict[str, Any]], pairs: list[list[str]], k: int) -> int | None:
    """1-based rank of the first result within k holding one of the [path, phrase] pairs."""
    for i, r in enumerate(results[:k], 1):
        snippet = _norm(r.get("snippet", ""))
        if any(r.get("path") == path and _norm(phrase) in snippet for path, phrase in pairs):
            return i
    return None


def run_searches(
    memctl: str, vault: Path, questions: list[str], *, k: int, mode: str, floor: bool
) -> list[dict[str, Any]]:
    """One JSON response per question, in order."""
    cmd = [
        memctl,
        "--vault",
        str(vault),
        "search",
        "--batch",
        "-",
        "--json",
        "-k",
        str(k),
        "--no-log",
        "--mode",
        mode,
        *([] if floor else ["--all"]),
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        cmd,
        input="".join(q + "\n" for q in questions),
        text=True,
        capture_output=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    out = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(out) != len(questions):
        raise RuntimeError(f"expected {len(questions)} JSON lines, got {len(out)}")
    for q, response in zip(questions, out, strict=True):
        if response.get("query") not in (None, q):
            raise RuntimeError(f"search output out of order at {q!r}")
    return out


def index(memctl: str, vault: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [memctl, "--vault", str(vault), "index"],
        text=True,
        capture_output=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"index failed ({done.returncode}): {done.stderr[-2000:]}")


@dataclass
class Row:
    """One question's outcome in one mode."""

    q: dict[str, Any]
    n: int  # results returned
    rank: int | None = None  # the first gold hit within k
    rank_all: int | None = None  # the same without the floor
    ok: bool | None = None  # fresh: newer first; abstain: at most one result


def score(
    queries: list[dict[str, Any]],
    responses: list[dict[str, Any]],
    unfloored: list[dict[str, Any]] | None,
    k: int,
) -> list[Row]:
    rows = []
    for i, (q, response) in enumerate(zip(queries, responses, strict=True)):
        results = response.get("results") or []
        row = Row(q, len(results))
        if q["kind"] == "abstain":
            row.ok = len(results) <= 1
        else:
            row.rank = rank_of(results, q["gold"], k)
            if unfloored is not None:
                row.rank_all = rank_of(unfloored[i].get("results") or [], q["gold"], k)
            if q["kind"] == "fresh":
                stale = rank_of(results, [q["stale"], *q.get("stale_also", [])], k)
                row.ok = row.rank is not None and (stale is None or row.rank < stale)
        rows.append(row)
    return rows


def _hits(rows: list[Row]) -> int:
    return sum(r.rank is not None for r in rows)


def _mrr(rows: list[Row]) -> float:
    return sum(1.0 / r.rank for r in rows if r.rank) / max(1, len(rows))


def tally(rows: list[Row], k: int) -> dict[str, Any]:
    """The figures of one split: per kind (hits, MRR, per language), and overall."""
    kinds: dict[str, Any] = {}
    for kind in KINDS:
        ks = [r for r in rows if r.q["kind"] == kind]
        if not ks:
            continue
        langs: dict[str, list[int]] = {}
        for r in ks:
            lang = langs.setdefault(r.q["lang"], [0, 0])
            lang[0] += bool(r.ok) if kind == "abstain" else r.rank is not None
            lang[1] += 1
        entry: dict[str, Any] = {"n": len(ks), "langs": langs}
        if kind == "abstain":
            entry["abstained"] = sum(bool(r.ok) for r in ks)
        else:
            entry.update(
                hits=_hits(ks),
                mrr=round(_mrr(ks), 4),
                hits_no_floor=sum(r.rank_all is not None for r in ks),
            )
        if kind == "fresh":
            entry["newer_first"] = sum(bool(r.ok) for r in ks)
        kinds[kind] = entry
    gold = [r for r in rows if r.q["kind"] != "abstain"]
    core = [r for r in rows if r.q["kind"] in CORE_KINDS]
    reachable = [r for r in gold if r.rank_all is not None]
    return {
        "n": len(rows),
        "k": k,
        f"hit@{k}": round(_hits(gold) / max(1, len(gold)), 4),
        "mrr": round(_mrr(gold), 4),
        f"no_floor_hit@{k}": round(len(reachable) / max(1, len(gold)), 4),
        f"core_hit@{k}": round(_hits(core) / max(1, len(core)), 4),
        "core_mrr": round(_mrr(core), 4),
        "floor_kept": [sum(r.rank is not None for r in reachable), len(reachable)],
        "kinds": kinds,
    }


def format_split(name: str, mode: str, t: dict[str, Any]) -> str:
    k = t["k"]
    lines = [f"== vaultset [{mode}] split {name} ({t['n']} questions)"]
    for kind, e in t["kinds"].items():
        langs = " ".join(f"{lang} {h}/{n}" for lang, (h, n) in sorted(e["langs"].items()))
        if kind == "abstain":
            lines.append(
                f"  {kind:<12} n={e['n']:<3d} ≤1 result {e['abstained']}/{e['n']}  ({langs})"
            )
            continue
        extra = f"  newer-first {e['newer_first']}/{e['n']}" if kind == "fresh" else ""
        lines.append(
            f"  {kind:<12} n={e['n']:<3d} hit@{k} {e['hits']}/{e['n']}  "
            f"mrr {e['mrr']:.3f}  ({langs}){extra}  [--all {e['hits_no_floor']}]"
        )
    kinds = t["kinds"]
    xl, fr, ab = (kinds.get(x, {}) for x in ("crosslingual", "fresh", "abstain"))
    kept, reachable = t["floor_kept"]
    lines.append(
        f"vaultset[{mode}] hit@{k}={t[f'hit@{k}']:.3f} mrr={t['mrr']:.3f} "
        f"core_hit@{k}={t[f'core_hit@{k}']:.3f} core_mrr={t['core_mrr']:.3f} "
        f"crosslingual={xl.get('hits', 0)}/{xl.get('n', 0)} "
        f"fresh={fr.get('newer_first', 0)}/{fr.get('n', 0)} "
        f"abstain={ab.get('abstained', 0)}/{ab.get('n', 0)} "
        f"floor_kept={kept}/{reachable} no_floor_hit@{k}={t[f'no_floor_hit@{k}']:.3f} "
        f"n={t['n']} split={name}"
    )
    return "\n".join(lines)


def misses(rows: list[Row]) -> list[str]:
    out = []
    for r in rows:
        missed = (r.q["kind"] == "abstain" and not r.ok) or (
            r.q["kind"] != "abstain" and (r.rank is None or r.ok is False)
        )
        if missed:
            hidden = " (hidden by the floor)" if r.rank is None and r.rank_all else ""
            out.append(
                f"    miss {r.q['qid']} [{r.q['lang']}] {r.q['question']}  ({r.n} results){hidden}"
            )
    return out


def evaluate(
    out: Path,
    memctl: str,
    modes: list[str],
    *,
    k: int = 5,
    splits: tuple[str, ...] = SPLITS,
    reindex: bool = True,
    verbose_split: str | None = None,
) -> tuple[dict[str, dict[str, Any]], str]:
    """{mode: {split: figures}} and the text report, for a build in OUT."""
    queries = [
        json.loads(line)
        for line in (out / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    vault = out / "vault"
    if reindex:
        index(memctl, vault)
    questions = [q["question"] for q in queries]
    figures: dict[str, dict[str, Any]] = {}
    text = []
    for mode in modes:
        floored = run_searches(memctl, vault, questions, k=k, mode=mode, floor=True)
        unfloored = run_searches(memctl, vault, questions, k=k, mode=mode, floor=False)
        rows = score(queries, floored, unfloored, k)
        for split in splits:
            sub = [r for r in rows if r.q.get("split") == split]
            t = tally(sub, k)
            figures.setdefault(mode, {})[split] = t
            text.append(format_split(split, mode, t))
            if split == verbose_split:
                text.extend(misses(sub))
    return figures, "\n".join(text)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out", type=Path, help="a folder written by tools.vaultset.build")
    ap.add_argument("--memctl", default="memctl", help="the memctl command (default: on PATH)")
    ap.add_argument("--modes", default="hybrid", help="comma-separated search modes")
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("--split", choices=SPLITS, help="only this split")
    ap.add_argument("--no-index", action="store_true", help="skip `index` (already indexed)")
    ap.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list the tune split's misses (never study the report split's)",
    )
    ap.add_argument("--json", type=Path, help="also write the figures here")
    a = ap.parse_args()
    splits = (a.split,) if a.split else SPLITS
    try:
        figures, text = evaluate(
            a.out,
            a.memctl,
            a.modes.split(","),
            k=a.k,
            splits=splits,
            reindex=not a.no_index,
            verbose_split="tune" if a.verbose else None,
        )
    except RuntimeError as e:
        sys.exit(f"vaultset: {e}")
    print(text)
    if a.json:
        a.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
