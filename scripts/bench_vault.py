"""A large synthetic vault loaded fast into both index backends (for scripts/bench_postgres).

The markdown is bench_search's (same generator and seed: 100 chunks per file, Zipf words),
read and chunked by memctl's own sync code; only the writing is bulk: the SQLite index in
a few large transactions (its own triggers fill both FTS5 tables), the PostgreSQL index
by binary COPY into a staging table and one INSERT ... SELECT, the same rows
`PgStore.replace_file` writes, then memctl's own search-index builds.

The vectors are NOT embeddings of the chunks' texts. BASE_TEXTS distinct synthetic texts
(same generator) are embedded once with the real model and cached; each chunk's vector is
one of them, picked at random, plus Gaussian noise of norm ~NOISE, normalised. So the
vectors have a real model's geometry (its anisotropy, its spread) at 1M rows without an
hour of embedding, and every chunk is a near-duplicate of ~n/BASE_TEXTS others, which is
harder for HNSW than real text, not easier. They also go into the vault's embedding cache,
so memctl's own incremental sync finds them there.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memctl import clock  # noqa: E402
from memctl.index import window_words  # noqa: E402
from memctl.index.backend import insert_rows  # noqa: E402
from memctl.index.dates import FallbackDates  # noqa: E402
from memctl.index.embed import get_embedder, model_identity  # noqa: E402
from memctl.index.postgres import words  # noqa: E402
from memctl.index.store import Store  # noqa: E402
from memctl.index.sync import SyncReport, read_tier_file  # noqa: E402
from memctl.vault import Vault  # noqa: E402

DIM = 384
PER_FILE = 100
BASE_TEXTS = 400  # the model embeds ~1 text/s on 2 busy cores (niced)
NOISE = 0.3  # norm of the perturbation of a unit vector: cos to its base text ~0.96
VERSION = 1
BATCH = 20000


@dataclass
class Built:
    vault: Vault
    model: str
    seconds: dict[str, float]


def _texts(rng: random.Random, n_files: int, vocabulary: list[str]) -> Any:
    cum = list(itertools.accumulate(1.0 / (i + 1) ** 1.07 for i in range(len(vocabulary))))
    for f in range(n_files):
        parts = [f"# File {f}\n"]
        for c in range(PER_FILE):
            body = " ".join(rng.choices(vocabulary, cum_weights=cum, k=rng.randint(30, 70)))
            parts.append(f"## Section {f}-{c}\n\n{body}\n")
        yield f, "\n".join(parts)


def base_vectors(out: Path, vault: Vault, vocabulary: list[str]) -> np.ndarray:
    """BASE_TEXTS synthetic texts embedded with the real model, once (cached in `out`)."""
    model = model_identity(vault.settings)[0]
    path = out / f"base-vectors-{model.replace('/', '_')}-{BASE_TEXTS}.npy"
    if path.exists():
        loaded: np.ndarray = np.load(path)
        return loaded
    rng = random.Random(3)
    cum = list(itertools.accumulate(1.0 / (i + 1) ** 1.07 for i in range(len(vocabulary))))
    texts = [
        " ".join(rng.choices(vocabulary, cum_weights=cum, k=rng.randint(8, 20)))
        for _ in range(BASE_TEXTS)
    ]
    embedder = get_embedder(vault.settings)
    parts = []
    for start in range(0, len(texts), 100):
        parts.append(np.asarray(embedder.embed_passages(texts[start : start + 100]), np.float32))
        print(f"  embedded {start + 100}/{len(texts)} base texts", file=sys.stderr, flush=True)
    matrix = np.vstack(parts)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    out.mkdir(parents=True, exist_ok=True)
    np.save(path, matrix)
    return matrix


def _perturbed(base: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    picked = base[rng.integers(0, len(base), n)]
    noise = rng.standard_normal((n, base.shape[1])).astype(np.float32)
    vecs = picked + NOISE / np.sqrt(base.shape[1]) * noise
    unit: np.ndarray = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    return unit


def build(
    root: Path,
    n: int,
    out: Path,
    vocabulary_of: Callable[[random.Random], list[str]],
    seed: int = 7,
) -> Built:
    """The vault's files and its SQLite index (cached under `root` between runs)."""
    vault = Vault(root)
    model = model_identity(vault.settings)[0]
    marker = root / "built.json"
    if marker.exists() and json.loads(marker.read_text()).get("version") == VERSION:
        return Built(vault, model, json.loads(marker.read_text())["seconds"])
    if root.exists():
        import shutil

        shutil.rmtree(root)
    # The same random stream as bench_search's build: its vocabulary, then the texts.
    rng = random.Random(seed)
    vocabulary = vocabulary_of(rng)
    base = base_vectors(out, vault, vocabulary)
    seconds: dict[str, float] = {}
    t = time.perf_counter()
    archive = root / "memory" / "archive"
    archive.mkdir(parents=True, exist_ok=True)
    (root / "memory" / "core.md").write_text("# Core memory\n", encoding="utf-8")
    for f, text in _texts(rng, n // PER_FILE, vocabulary):
        (archive / f"n{f:05d}.md").write_text(text, encoding="utf-8")
    seconds["write markdown"] = time.perf_counter() - t

    t = time.perf_counter()
    nprng = np.random.default_rng(seed + 1)
    report = SyncReport()
    dates = FallbackDates(root)
    max_bytes = vault.settings.embed.max_file_bytes
    stamp = clock.iso(clock.now())
    next_id = 1
    with Store.open(vault) as store:
        conn = store.conn
        paths = sorted((p.relative_to(root).as_posix(), p) for p in (root / "memory").rglob("*.md"))
        pending: list[Any] = []

        def flush() -> None:
            nonlocal next_id, pending
            if not pending:
                return
            count = sum(len(r.chunks) for r in pending)
            vecs = _perturbed(base, nprng, count)
            rows, vec_rows, usage, cache = [], [], [], []
            i = 0
            for read in pending:
                for chunk in read.chunks:
                    rows.append((next_id, read.rel, *chunk.columns()))
                    blob = vecs[i].tobytes()
                    vec_rows.append((next_id, blob))
                    usage.append((chunk.hash, stamp))
                    cache.append((model, chunk.hash, blob))
                    next_id += 1
                    i += 1
            with store.transaction():
                # Many rows per statement, as Store.replace_file writes them (insert_rows).
                insert_rows(
                    conn,
                    "INSERT INTO chunks(id, path, line_start, line_end, heading, text, hash, "
                    "tier, source, date, tags, importance, embedded)",
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
                    rows,
                )
                conn.executemany("INSERT INTO chunks_vec(rowid, embedding) VALUES (?, ?)", vec_rows)
                for read in pending:  # the window words list, as Store.replace_file writes it
                    window_words.write_file(conn, read.rel)
                conn.executemany(
                    "INSERT OR IGNORE INTO state.usage(hash, created_at, last_referenced_at, "
                    "access_count) VALUES (?, ?, NULL, 0)",
                    usage,
                )
                conn.executemany(
                    "INSERT OR REPLACE INTO state.embed_cache(model, hash, vector) "
                    "VALUES (?, ?, ?)",
                    cache,
                )
                conn.executemany(
                    "INSERT INTO files(path, size, mtime_ns, hash, indexed_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(r.rel, r.size, r.mtime_ns, r.digest, stamp) for r in pending],
                )
            pending = []
            print(f"  sqlite: {next_id - 1} chunks", file=sys.stderr, flush=True)

        in_batch = 0
        for rel, path in paths:
            read = read_tier_file(rel, str(path), os.stat(path), max_bytes, report, dates)
            if read is None:
                continue
            pending.append(read)
            in_batch += len(read.chunks)
            if in_batch >= BATCH:
                flush()
                in_batch = 0
        flush()
        store.mark_synced(clock.now())
    seconds["sqlite bulk load (chunk + FTS5 + vec0)"] = time.perf_counter() - t
    marker.write_text(json.dumps({"version": VERSION, "n": n, "seconds": seconds}))
    return Built(vault, model, seconds)


_STAGING = (
    "CREATE UNLOGGED TABLE IF NOT EXISTS bulk_chunks(path text, line_start integer, "
    "line_end integer, heading text, text text, hash text, tier text, source text, "
    "date text, tags text, importance real, ntokens integer, words text, "
    f"window_ntokens integer, window_words text, embedding vector({DIM}))"
)
_TYPES = ["text", "int4", "int4", *["text"] * 7, "float4", "int4", "text", "int4", "text", "vector"]
STREAMS = 2  # COPY streams (processes), and index builds at once


def _copy_range(url: str, root: str, lo: int, hi: int) -> tuple[int, int, set[str], int, int]:
    """Rows lo <= id < hi of the SQLite index into the staging table: (rows, tokens, words,
    windows, window tokens)."""
    import psycopg
    from pgvector.psycopg import register_vector

    vocabulary: set[str] = set()
    tokens_total = rows = windows = windows_total = 0
    with Store.open(Vault(Path(root))) as store, psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        assert window_words.WINDOW_CHUNKS == 1  # the neighbours read below
        cur = store.conn.execute(
            # Vectors from vec0 by id, not by position: a sync replaces a file's rows. Each
            # chunk's neighbours in its file for its window words (as the writer builds them).
            "SELECT c.path, c.line_start, c.line_end, c.heading, c.text, c.hash, c.tier, "
            "c.source, c.date, c.tags, c.importance, c.before, c.after, v.embedding FROM ("
            "SELECT *, lag(coalesce(heading, '') || char(0) || text) OVER w AS before, "
            "lead(coalesce(heading, '') || char(0) || text) OVER w AS after FROM chunks "
            "WINDOW w AS (PARTITION BY path ORDER BY line_start, id)) AS c "
            "JOIN chunks_vec AS v ON v.rowid = c.id WHERE c.id >= ? AND c.id < ? ORDER BY c.id",
            (lo, hi),
        )
        with (
            conn.cursor() as pg,
            pg.copy("COPY bulk_chunks FROM STDIN WITH (FORMAT BINARY)") as copy,
        ):
            copy.set_types(_TYPES)
            while batch := cur.fetchmany(10000):
                for path, *columns, before, after, blob in batch:
                    heading, text = columns[2], columns[3]
                    toks = words.tokens(f"{heading} {text}")
                    vocabulary.update(w for w in toks if len(w.encode("utf-8")) < 512)
                    literal, count = words.tsvector(toks)
                    tokens_total += count
                    # (id, heading, text) of the neighbours and the chunk, as window_text wants.
                    near = [
                        (None, *(n.split("\0", 1) if n != "self" else (heading or "", text)))
                        for n in (before, "self", after)
                        if n is not None
                    ]
                    window = window_words.window_text(near, 0 if before is None else 1)
                    wliteral: str | None = None
                    wcount = 0
                    if before is not None or after is not None:  # window_words.has_window
                        wliteral, wcount = words.tsvector(words.tokens(window))
                        windows_total += wcount
                        windows += 1
                    vector = np.frombuffer(blob, dtype=np.float32)
                    copy.write_row((path, *columns, count, literal, wcount, wliteral, vector))
                    rows += 1
                if lo == 1:
                    print(
                        f"  postgres copy (1 of {STREAMS} streams): {rows} chunks",
                        file=sys.stderr,
                        flush=True,
                    )
    return rows, tokens_total, vocabulary, windows, windows_total


def _build_index(url: str, statement: str, memory: str) -> float:
    import psycopg

    t = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"SET maintenance_work_mem = '{memory}'")
        conn.execute(statement)
    return time.perf_counter() - t


def load_postgres(url: str, built: Built, vault_name: str, hnsw_memory: str) -> dict[str, float]:
    """The SQLite index's rows into an empty PostgreSQL index, as `PgStore.replace_file`
    writes them (words, token counts, vectors, files, usage, vocabulary, statistics):
    STREAMS binary COPY streams into a staging table, one INSERT ... SELECT; then memctl's
    own index definitions, built STREAMS at a time (without CONCURRENTLY, which would
    queue them; memctl builds them one by one, concurrently with writers).
    Returns seconds per phase."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    import psycopg

    from memctl.index.postgres import schema

    seconds: dict[str, float] = {}
    conn = psycopg.connect(url, autocommit=True)
    t = time.perf_counter()
    conn.execute(_STAGING)
    conn.execute("TRUNCATE bulk_chunks")
    with Store.open(built.vault) as store:
        top = store.conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
        files = store.conn.execute(
            "SELECT path, size, mtime_ns, hash, indexed_at FROM files"
        ).fetchall()
        usage = store.conn.execute("SELECT hash, created_at FROM state.usage").fetchall()
    bounds = [1 + (top * i) // STREAMS for i in range(STREAMS)] + [top + 1]
    with ProcessPoolExecutor(STREAMS, mp_context=mp.get_context("spawn")) as pool:
        parts = list(
            pool.map(
                _copy_range,
                [url] * STREAMS,
                [str(built.vault.root)] * STREAMS,
                bounds[:-1],
                bounds[1:],
            )
        )
    rows = sum(p[0] for p in parts)
    tokens_total = sum(p[1] for p in parts)
    vocabulary = set().union(*(p[2] for p in parts))
    windows = sum(p[3] for p in parts)
    windows_total = sum(p[4] for p in parts)
    seconds[f"copy ({STREAMS} streams)"] = time.perf_counter() - t
    t = time.perf_counter()
    with conn.transaction():
        conn.execute(
            "INSERT INTO chunks(vault, path, line_start, line_end, heading, text, hash, tier, "
            "source, date, tags, importance, ntokens, words, embedding, embedded) "
            "SELECT %s, path, line_start, line_end, heading, text, hash, tier, source, date, "
            "tags, importance, ntokens, words::tsvector, embedding, true FROM bulk_chunks",
            (vault_name,),
        )
        conn.execute(
            "INSERT INTO chunk_windows(id, vault, window_words, window_ntokens) "
            "SELECT c.id, c.vault, b.window_words::tsvector, b.window_ntokens "
            "FROM bulk_chunks AS b JOIN chunks AS c ON c.vault = %s AND c.path = b.path "
            "AND c.line_start = b.line_start AND c.hash = b.hash "
            "WHERE b.window_words IS NOT NULL",
            (vault_name,),
        )
        with conn.cursor() as pg:
            with pg.copy(
                "COPY files(vault, path, size, mtime_ns, hash, indexed_at) FROM STDIN"
            ) as copy:
                for row in files:
                    copy.write_row((vault_name, *row))
            with pg.copy("COPY usage(vault, hash, created_at, access_count) FROM STDIN") as copy:
                for digest, created in usage:
                    copy.write_row((vault_name, digest, created, 0))
            with pg.copy("COPY lexemes(word) FROM STDIN") as copy:
                for word in sorted(vocabulary):
                    copy.write_row((word,))
        conn.execute(
            "INSERT INTO vault_stats(vault, chunks, tokens, windows, window_tokens, last_sync) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (vault_name, rows, tokens_total, windows, windows_total, clock.iso(clock.now())),
        )
    conn.execute("DROP TABLE bulk_chunks")
    conn.execute(
        "VACUUM (ANALYZE) chunks, chunk_windows"
    )  # visibility map and statistics, as autovacuum would
    seconds["insert from staging + vacuum"] = time.perf_counter() - t
    t = time.perf_counter()
    statements = {
        name: sql.replace(" CONCURRENTLY", "") for name, sql in schema.SEARCH_INDEXES.items()
    }
    memory = {name: hnsw_memory if "hnsw" in sql else "1GB" for name, sql in statements.items()}
    # The HNSW build is the longest: it starts first.
    order = sorted(statements, key=lambda name: "hnsw" not in statements[name])
    with ThreadPoolExecutor(STREAMS) as pool:
        futures = {
            name: pool.submit(_build_index, url, statements[name], memory[name]) for name in order
        }
        for name in order:
            seconds[f"build {name}"] = futures[name].result()
            print(
                f"  built {name} in {seconds[f'build {name}']:.0f} s", file=sys.stderr, flush=True
            )
    seconds["index builds, wall"] = time.perf_counter() - t
    conn.execute("ANALYZE chunks, chunk_windows")
    assert schema.build_search_indexes(conn) == []  # memctl finds nothing left to build
    conn.close()
    return seconds


def queries(
    built: Built, vocabulary_seed: int = 11, count: int = 200
) -> list[tuple[str, np.ndarray]]:
    """bench_search's queries: 1-4 words of a random chunk (every 5th with a typo), its
    vector plus noise."""
    rng = random.Random(vocabulary_seed)
    out: list[tuple[str, np.ndarray]] = []
    with Store.open(built.vault) as store:
        top = store.conn.execute("SELECT max(id) FROM chunks").fetchone()[0]
        while len(out) < count:
            cid = rng.randint(1, top)
            row = store.conn.execute(
                "SELECT c.text, v.embedding FROM chunks AS c JOIN chunks_vec AS v "
                "ON v.rowid = c.id WHERE c.id = ?",
                (cid,),
            ).fetchone()
            if not row:
                continue
            found = [w for w in row[0].split() if not w.startswith("#")]
            picked = rng.sample(found, min(len(found), rng.randint(1, 4)))
            if len(out) % 5 == 0 and len(picked[0]) > 4:
                w = picked[0]
                picked[0] = w[:2] + w[3] + w[2] + w[4:]
            vec = np.frombuffer(row[1], dtype=np.float32) + np.random.default_rng(len(out)).normal(
                0, 0.02, DIM
            ).astype(np.float32)
            out.append((" ".join(picked), (vec / np.linalg.norm(vec)).astype(np.float32)))
    return out
