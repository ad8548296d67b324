"""lint: each check by file:line, the LLM judge, and the 0/1/2 exit codes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from memctl.cli import app
from memctl.lifecycle.duplicates import near_duplicates
from memctl.lifecycle.lint import (
    check_core,
    check_daily_names,
    check_decisions,
    likely_contradictions,
    lint,
    units_of,
)
from memctl.llm import get_llm
from memctl.secrets import find_secrets
from memctl.vault import Vault, read_text
from tests.lifecycle.helpers import write
from tests.llm_mock import ScriptedAPI, fast_settings, tool_message

SECTIONS = ("Identity", "Iron rules", "Active project", "Open blockers")


def test_core_over_cap_names_lines_to_cut() -> None:
    text = "# Core\n## Identity\n" + "".join(f"- fact {i}\n" for i in range(10))
    findings = check_core(text, 8, SECTIONS, [(7, "- fact 4"), (3, "- fact 0"), (4, "- fact 1")])
    over = [f for f in findings if f.code == "hot-over-cap"]
    assert over[0].severity == "error" and over[0].line == 9
    assert "cut 4 line(s)" in over[0].message and "line 7 (- fact 4)" in over[0].message
    assert {f.message for f in findings if f.code == "missing-section"} == {
        "core.md has no '## Iron rules' section",
        "core.md has no '## Active project' section",
        "core.md has no '## Open blockers' section",
    }


def test_decision_dates() -> None:
    text = (
        "# Decisions\n\n## 2026-09-05 — b\n\nx\n\n## 2026-09-01 — a\n\nx\n\n"
        "## Без даты\n\nx\n\n## 2026-02-30 — נובמבר\n\nx\n"
    )
    found = {(f.code, f.line) for f in check_decisions(text)}
    assert found == {("out-of-order", 7), ("undated-decision", 11), ("bad-date", 15)}


def test_daily_names() -> None:
    found = check_daily_names(
        ["memory/daily/2026-11-22.md", "memory/daily/2026-13-01.md", "memory/daily/notes.md"]
    )
    assert [f.path for f in found] == ["memory/daily/2026-13-01.md", "memory/daily/notes.md"]


@pytest.mark.parametrize(
    "line",
    [
        "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
        "aws AKIAIOSFODNN7EXAMPLE",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "password: hunter22",
        "пароль: Kx9!qq2z",
        "סיסמה: abc12345",
        "db postgres://admin:s3cret@db.local/app",
    ],
)
def test_secrets_found(line: str) -> None:
    hits = find_secrets(f"# note\n{line}\n")
    assert hits and hits[0].line == 2
    assert all(len(h.preview) <= 5 for h in hits)  # never echoes the secret


@pytest.mark.parametrize(
    "line",
    [
        "the password is in 1Password",
        "password: <redacted>",
        "api key: ${ANTHROPIC_API_KEY}",
        "пароль хранится в менеджере",
    ],
)
def test_secrets_not_found(line: str) -> None:
    assert find_secrets(line) == []


def test_near_duplicates_across_tiers_only() -> None:
    units = (
        units_of("memory/core.md", "## Iron rules\n- Never push directly to the main branch\n")
        + units_of(
            "memory/daily/2026-11-20.md", "- 10:00 never push directly to the main branch!\n"
        )
        + units_of(
            "memory/daily/2026-11-21.md", "- 10:00 never push directly to the main branch!\n"
        )
        + units_of("memory/archive/2026-09.md", "- Деплой по пятницам запрещён всегда\n")
    )
    pairs = near_duplicates(units, 92.0)
    assert [(a.path, b.path) for a, b, _ in pairs] == [
        ("memory/core.md", "memory/daily/2026-11-20.md"),
        ("memory/core.md", "memory/daily/2026-11-21.md"),
    ]


def test_contradiction_heuristics_in_three_languages() -> None:
    units = (
        units_of(
            "memory/core.md",
            "## Iron rules\n- We deploy on Fridays after the review\n- Бэкап хранится 30 дней на сервере\n",
        )
        + units_of(
            "memory/decisions.md",
            "## 2026-11-01 — x\n\n- We do not deploy on Fridays after the review\n",
        )
        + units_of(
            "memory/daily/2026-11-20.md",
            "- 10:00 Бэкап хранится 90 дней на сервере\n- 11:00 אנחנו משתמשים ב-SQLite לאינדקס\n",
        )
        + units_of("memory/daily/2026-11-21.md", "- 10:00 אנחנו לא משתמשים ב-SQLite לאינדקס\n")
        + units_of(
            "memory/archive/2026-09.md", "- We do not deploy on Fridays after the review, ever\n"
        )
    )
    found = {(a.text[:12], b.text[:12], why) for a, b, why in likely_contradictions(units)}
    assert found == {
        ("- We deploy ", "- We do not ", "one says the opposite of the other"),
        ("- Бэкап хран", "- 10:00 Бэка", "same statement, different numbers"),
        ("- 11:00 אנחנ", "- 10:00 אנחנ", "one says the opposite of the other"),
    }


def _messy_vault(vault: Vault) -> None:
    core = read_text(vault.core_path).replace(
        "## Identity\n", "## Identity\n\n- My name is Dana, I work from Tel Aviv\n"
    )
    write(vault, "memory/core.md", core)
    write(
        vault,
        "memory/daily/2026-11-20.md",
        "# 2026-11-20\n\n- 10:00 my name is Dana, I work from Tel Aviv\n",
    )
    write(
        vault,
        "memory/daily/2026-11-21.md",
        "# 2026-11-21\n\n- 10:00 We deploy on Fridays after the review\n- 11:00 We do not deploy on Fridays after the review\n",
    )


def test_llm_judge_dismisses_or_confirms(vault: Vault) -> None:
    _messy_vault(vault)
    assert any(f.code == "contradiction" for f in lint(vault).findings)
    no = ScriptedAPI([tool_message({"contradiction": False, "reason": "history"})])
    assert not any(
        f.code == "contradiction"
        for f in lint(vault, llm=get_llm(fast_settings(), client=no.client())).findings
    )
    yes = ScriptedAPI([tool_message({"contradiction": True, "reason": "both cannot hold"})])
    judged = [
        f
        for f in lint(vault, llm=get_llm(fast_settings(), client=yes.client())).findings
        if f.code == "contradiction"
    ]
    assert "LLM judge: both cannot hold" in judged[0].message
    bad = ScriptedAPI([tool_message({"verdict": "yes"})])
    kept = [
        f
        for f in lint(vault, llm=get_llm(fast_settings(), client=bad.client())).findings
        if f.code == "contradiction"
    ]
    assert "LLM judge unavailable" in kept[0].message


def test_cli_exit_codes(vault: Vault, runner: CliRunner) -> None:
    args = ["--vault", str(vault.root), "lint", "--json"]
    clean = runner.invoke(app, args)
    assert clean.exit_code == 0, clean.output
    assert json.loads(clean.stdout) == {
        "errors": 0,
        "warnings": 0,
        "findings": [],
        "notes": json.loads(clean.stdout)["notes"],
    }
    _messy_vault(vault)
    messy = runner.invoke(app, args)
    assert messy.exit_code == 1
    codes = {f["code"] for f in json.loads(messy.stdout)["findings"]}
    assert codes == {"near-duplicate", "contradiction"}
    write(
        vault,
        "memory/daily/2026-11-22.md",
        "# x\n\n- 10:00 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    )
    secret = runner.invoke(app, args)
    found = [f for f in json.loads(secret.stdout)["findings"] if f["code"] == "secret"]
    assert found[0]["severity"] == "error" and found[0]["line"] == 3
    assert "abcdefghij" not in secret.stdout
    (vault.root / "memory/daily/2026-11-23.md").write_bytes(b"\xff\xfe broken")
    broken = runner.invoke(app, args)
    # One bad byte no longer stops lint: the file is read with replacement characters.
    assert broken.exit_code == 1
    assert any(
        "2026-11-23.md: not valid UTF-8 at byte 0" in n for n in json.loads(broken.stdout)["notes"]
    )


def test_vector_near_duplicates_when_vectors_exist(vault: Vault) -> None:
    """Paraphrases across tiers that rapidfuzz misses are caught by cosine >= 0.92."""
    import numpy as np

    from memctl.index.store import Store
    from memctl.index.sync import sync

    write(
        vault,
        "memory/daily/2026-11-20.md",
        "# 2026-11-20\n\n- 10:00 Деплой только после ревью кода\n",
    )
    write(
        vault,
        "memory/archive/daily/2026-09-01.md",
        "# 2026-09-01\n\n- 10:00 פריסה רק אחרי סקירת קוד\n",
    )
    sync(vault, embed=False)
    rng = np.random.default_rng(1)
    base = rng.standard_normal(384).astype(np.float32)
    with Store.open(vault) as store, store.transaction():
        for chunk_id, path in store.conn.execute("SELECT id, path FROM chunks").fetchall():
            if "2026-" in path:
                vector = base + 0.1 * rng.standard_normal(384).astype(np.float32)  # cosine ~0.99
            else:
                vector = rng.standard_normal(384).astype(np.float32)  # unrelated
            vector /= np.linalg.norm(vector)
            store.conn.execute(
                "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)",
                (chunk_id, vector.tobytes()),
            )
            store.conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))
    found = [f for f in lint(vault).findings if f.code == "near-duplicate"]
    assert len(found) == 1
    assert found[0].path == "memory/daily/2026-11-20.md"
    assert (
        "cosine 0.9" in found[0].message
        and "memory/archive/daily/2026-09-01.md" in found[0].message
    )


def test_vector_near_duplicates_from_neighbours_match_all_pairs(vault: Vault) -> None:
    """The neighbour lists find exactly the cross-tier pairs an all-pairs product finds
    (fewer than NEIGHBOURS duplicates per chunk), and nothing within one tier."""
    import numpy as np

    from memctl.index.embed.registry import calibrated_cosine
    from memctl.index.store import Store
    from memctl.index.sync import sync

    words = ["деплой", "פריסה", "deploy", "база", "גיבוי", "backup", "ключ", "מפתח"]
    for day in range(1, 9):
        bullets = "".join(f"- 1{i}:00 {words[(day + i) % 8]} note {day}.{i}\n\n" for i in range(3))
        write(vault, f"memory/daily/2026-11-{day:02d}.md", f"# 2026-11-{day:02d}\n\n{bullets}")
        write(
            vault, f"memory/archive/daily/2026-08-{day:02d}.md", f"# 2026-08-{day:02d}\n\n{bullets}"
        )
    sync(vault, embed=False)
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((6, 384)).astype(np.float32)
    with Store.open(vault) as store, store.transaction():
        rows = store.conn.execute("SELECT id, path, line_start, tier FROM chunks").fetchall()
        for chunk_id, *_ in rows:
            vector = centres[chunk_id % 6] + 0.15 * rng.standard_normal(384).astype(np.float32)
            store.conn.execute(
                "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)",
                (chunk_id, (vector / np.linalg.norm(vector)).tobytes()),
            )
            store.conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))
        vectors = {
            i: np.frombuffer(v, dtype=np.float32)
            for i, v in store.conn.execute("SELECT rowid, embedding FROM chunks_vec")
        }
        model_id = store.model_id
    rank = {"hot": 0, "warm": 1, "cold": 2}
    by_id = {r[0]: r for r in rows}
    expected = {
        (by_id[a][1], by_id[a][2], by_id[b][1], by_id[b][2])
        for a in vectors
        for b in vectors
        if rank[by_id[a][3]] < rank[by_id[b][3]]
        and calibrated_cosine(float(vectors[a] @ vectors[b]), model_id) >= 0.5
    }
    assert 0 < len(expected) < 200
    (vault.root / ".memctl.toml").write_text("[lifecycle]\nduplicate_cosine = 0.5\n")
    found = [f for f in lint(Vault(vault.root)).findings if f.message.startswith("cosine")]
    got = set()
    for f in found:
        other = f.message.split(" with ", 1)[1].split(" (", 1)[0]
        path, line = other.rsplit(":", 1)
        got.add((f.path, f.line, path, int(line)))
    assert got == expected
    # Search's cached matrix, read from its file block by block, gives the same neighbours.
    from memctl.index.sqlite import vectors as search_vectors
    from memctl.lifecycle.duplicates import Neighbourhood

    with Store.open(vault) as store:
        from_vec0 = Neighbourhood.of(store, None)
        assert search_vectors.cached_blocks(store.conn, vault.state_dir, 7) is None  # none yet
        search_vectors.load(store.conn, vault.state_dir, min_vectors=0)
        assert search_vectors.cached_blocks(store.conn, vault.state_dir, 7) is not None
        from_cache = Neighbourhood.of(store, vault.state_dir)
    assert from_vec0 is not None and from_cache is not None
    assert [(p.source, p.neighbour) for p in from_cache.pairs] == [
        (p.source, p.neighbour) for p in from_vec0.pairs
    ]
    assert [round(p.cosine, 5) for p in from_cache.pairs] == [
        round(p.cosine, 5) for p in from_vec0.pairs
    ]


def test_line_duplicates_against_cold_from_neighbours_match_all_pairs(vault: Vault) -> None:
    """With vectors, a WARM line is compared with the lines of its chunk's nearest COLD
    chunks only; on a vault whose copies are each other's neighbours the findings are
    those of the all-pairs comparison made without vectors."""
    import numpy as np

    from memctl.index.store import Store
    from memctl.index.sync import sync

    lines = [
        "Деплой только после ревью кода и зелёного CI",
        "הפריסה רק אחרי סקירת קוד ובדיקות ירוקות",
        "deploy only after code review and a green CI run",
    ]
    for n, line in enumerate(lines):
        write(vault, f"memory/daily/2026-11-2{n}.md", f"# 2026-11-2{n}\n\n- 10:00 {line}\n")
        write(
            vault,
            f"memory/archive/daily/2026-08-2{n}.md",
            f"# 2026-08-2{n}\n\n- 11:00 {line}!\n\n## other\n\n- 12:00 nothing like it at all {n}\n",
        )
    sync(vault, embed=False)

    def lexical() -> set[str]:
        return {
            f"{f.path}:{f.line} {f.message}"
            for f in lint(Vault(vault.root)).findings
            if f.code == "near-duplicate" and "% like" in f.message
        }

    without_vectors = lexical()
    assert len(without_vectors) == 3
    rng = np.random.default_rng(3)
    with Store.open(vault) as store, store.transaction():
        for chunk_id, text in store.conn.execute("SELECT id, text FROM chunks"):
            topic = next((i for i, line in enumerate(lines) if line in text), None)
            noise = rng.standard_normal(384)
            seed = noise if topic is None else np.eye(384)[topic] + 0.01 * noise  # copies: close
            vector = (seed / np.linalg.norm(seed)).astype(np.float32)
            store.conn.execute(
                "INSERT OR REPLACE INTO chunks_vec(rowid, embedding) VALUES (?, ?)",
                (chunk_id, vector.tobytes()),
            )
            store.conn.execute("UPDATE chunks SET embedded = 1 WHERE id = ?", (chunk_id,))
    assert lexical() == without_vectors
