"""Vault-shaped synthetic notes for the benches: facts, not paragraphs (issue 31 item 1's cost).

bench_search's default vault is paragraphs of Zipf words: no chunk holds two facts, so
meaning per fact (memctl.index.units, search/rank/meaning.py) never runs there. These
files are shaped like a kept vault instead: daily notes of many `- HH:MM` bullets (the
format `memctl add` writes; the chunker merges a day's bullets up to 200 tokens, so a
chunk holds ~7 of them) and archive notes of several sections, each a short list of facts
or a few sentence lines. Most chunks hold >= 2 units.

The vectors are synthetic, as in bench_search: each unit's is a topic centroid plus
noise, a chunk's is the normalised mean of its units' (a chunk of several facts is their
average, which is what units exist for), and the units' go into the embedding cache under
the index's model id exactly where index/unit_embed.py puts real ones, so search reads
them as it would real ones. A query is drawn from one unit: a few of its words, its vector
plus noise; the chunk holding it is the query's gold (a synthetic hit@5, not a quality
figure of the product: it shows what the fact's vector finds that the chunk's misses).
"""

from __future__ import annotations

import json
import random
import shutil
import time
from datetime import date, timedelta
from pathlib import Path

import numpy as np

from memctl.index.chunker import chunk_markdown
from memctl.index.store import Store
from memctl.index.sync import sync
from memctl.index.units import units_of
from memctl.vault import Vault

DIM = 384
VERSION = 1  # of this generator: a cached vault built by another version is rebuilt
NOISE = 0.6  # a unit's spread around its topic (bench_search's chunks use the same)
QUERY_NOISE = 0.02


def write_notes(root: Path, n: int, words: list[str], cum: list[float], seed: int) -> int:
    """Daily and archive notes (half the chunks each, roughly) until they hold >= n chunks;
    returns the chunks written (counted by memctl's own chunker)."""
    rng = random.Random(seed)
    daily, archive = root / "memory" / "daily", root / "memory" / "archive"
    daily.mkdir(parents=True, exist_ok=True)
    archive.mkdir(parents=True, exist_ok=True)
    (root / "memory" / "core.md").write_text("# Core memory\n", encoding="utf-8")

    def phrase(lo: int, hi: int) -> str:
        return " ".join(rng.choices(words, cum_weights=cum, k=rng.randint(lo, hi)))

    chunks, day, note = {"daily": 0, "archive": 0}, date(1970, 1, 1), 0
    while sum(chunks.values()) < n:
        if chunks["daily"] <= chunks["archive"]:
            lines = [f"# {day.isoformat()}", ""]
            for minute in sorted(rng.sample(range(24 * 60), rng.randint(6, 40))):
                lines.append(f"- {minute // 60:02d}:{minute % 60:02d} {phrase(6, 16)}")
            kind, rel = "daily", f"memory/daily/{day.isoformat()}.md"
            path = daily / f"{day.isoformat()}.md"
            day += timedelta(days=1)
        else:
            lines = [f"# {phrase(2, 4)}", ""]
            for _ in range(rng.randint(4, 12)):
                lines += [f"## {phrase(1, 3)}", ""]
                if rng.random() < 0.7:
                    lines += [f"- {phrase(5, 14)}" for _ in range(rng.randint(2, 6))]
                else:
                    lines += [f"{phrase(5, 14).capitalize()}." for _ in range(rng.randint(2, 4))]
                lines.append("")
            kind, rel = "archive", f"memory/archive/a{note:06d}.md"
            path = archive / f"a{note:06d}.md"
            note += 1
        text = "\n".join(lines) + "\n"
        path.write_text(text, encoding="utf-8")
        chunks[kind] += len(chunk_markdown(text, rel))
    return sum(chunks.values())


def build(root: Path, n: int, words: list[str], cum: list[float], seed: int = 7) -> Vault:
    """The notes -> memctl sync (lexical) -> synthetic chunk vectors into vec0 and unit
    vectors into the embedding cache; cached by `built.json` (VERSION, n)."""
    marker = root / "built.json"
    vault = Vault(root)
    if marker.exists() and json.loads(marker.read_text()).get("version") == VERSION:
        return vault
    if root.exists():
        shutil.rmtree(root)
    started = time.perf_counter()
    written = write_notes(root, n, words, cum, seed)
    sync(vault, embed=False)
    centroids = np.random.default_rng(seed).standard_normal((max(n // 200, 10), DIM))
    nprng = np.random.default_rng(seed + 1)

    def spread(count: int) -> np.ndarray:
        vecs = centroids[nprng.integers(0, len(centroids), count)]
        vecs = vecs + NOISE * nprng.standard_normal(vecs.shape)
        out: np.ndarray = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
        return out

    units_total = 0
    with Store.open(vault) as store:
        model = store.model_id
        last = 0
        while rows := store.conn.execute(
            "SELECT id, text FROM chunks WHERE id > ? ORDER BY id LIMIT 5000", (last,)
        ).fetchall():
            last = rows[-1][0]
            chunk_rows: list[tuple[int, np.ndarray]] = []
            cache_rows: dict[str, np.ndarray] = {}
            for cid, text in rows:
                units = units_of(text)
                if units:
                    vecs = spread(len(units))
                    cache_rows.update((u.hash, v) for u, v in zip(units, vecs, strict=True))
                    mean = vecs.mean(axis=0)
                    chunk_rows.append((cid, (mean / np.linalg.norm(mean)).astype(np.float32)))
                else:
                    chunk_rows.append((cid, spread(1)[0]))
            units_total += len(cache_rows)
            with store.transaction():
                store.conn.executemany(
                    "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)",
                    [(i, v.tobytes()) for i, v in chunk_rows],
                )
                store.conn.executemany(
                    "UPDATE chunks SET embedded = 1 WHERE id = ?", [(i,) for i, _ in chunk_rows]
                )
                store.cache_vectors(model, cache_rows.items())  # as index/unit_embed.py does
        store.set_units_embedded(_units_version())
        chunks = store.chunk_count()
    marker.write_text(
        json.dumps(
            {
                "version": VERSION,
                "n": n,
                "chunks": chunks,
                "chunks_written": written,
                "unit_vectors": units_total,
                "build_seconds": round(time.perf_counter() - started, 1),
            }
        )
    )
    return vault


def _units_version() -> str:
    from memctl.index.unit_embed import UNITS_VERSION

    return UNITS_VERSION


def queries(vault: Vault, count: int, seed: int = 11) -> list[tuple[str, np.ndarray, str]]:
    """(words, vector, the gold chunk's hash): a few words of one unit (every 5th with a typo) and
    that unit's cached vector plus noise."""
    rng = random.Random(seed)
    out: list[tuple[str, np.ndarray, str]] = []
    with Store.open(vault) as store:
        top = store.conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
        while len(out) < count:
            cid = rng.randint(1, top)
            row = store.conn.execute(
                "SELECT text, hash FROM chunks WHERE id = ?", (cid,)
            ).fetchone()
            units = units_of(row[0]) if row else []
            if not units:
                continue
            unit = rng.choice(units)
            found = store.cached_vectors([unit.hash])
            if unit.hash not in found:
                continue
            body = [w for w in unit.text.split(":", 1)[-1].split() if w.isalpha()]
            picked = rng.sample(body, min(len(body), rng.randint(1, 4)))
            if len(out) % 5 == 0 and len(picked[0]) > 4:
                w = picked[0]
                picked[0] = w[:2] + w[3] + w[2] + w[4:]  # a swapped-letter typo
            vec = found[unit.hash] + np.random.default_rng(len(out)).normal(0, QUERY_NOISE, DIM)
            out.append((" ".join(picked), (vec / np.linalg.norm(vec)).astype(np.float32), row[1]))
    return out


def sizes(vault: Vault) -> dict[str, int]:
    """Bytes of the index and state databases (with their WAL files, if any)."""
    out = {}
    for name in ("index.db", "state.db"):
        out[name] = sum(p.stat().st_size for p in vault.state_dir.glob(name + "*") if p.is_file())
    return out
