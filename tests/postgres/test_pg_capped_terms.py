"""A capped BM25 term (more rows than RANK_PER_TERM) brings its first rows in the table's
order, not its best: the row that holds every query word must still be found, as SQLite's
FTS5 (which ranks every row) finds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.index.postgres import bm25 as pgsearch
from memctl.index.sync import sync
from memctl.search.hybrid import Searcher
from memctl.vault import Vault
from tests.postgres.conftest import use_postgres
from tests.search.conftest import NOW

# Each word alone in many rows; the one row holding both written last, in its own file, so
# it is never among a capped word's first rows.
SINGLES = "".join(
    f"## Note {i}\n\nThe {word} report number {i} lists routine items for the week.\n\n"
    for i in range(12)
    for word in ("quokka", "wombat", "отчёт", "דוח")
)
BOTH = {
    "english": ("quokka wombat", "The quokka and the wombat were both seen at the gate.\n"),
    "russian": ("отчёт wombat", "Этот отчёт про wombat у ворот.\n"),
    "hebrew": ("דוח quokka", "ה-quokka נראה ליד השער, דוח מלא.\n"),
}


def _vault(root: Path) -> Vault:
    (root / "memory" / "archive").mkdir(parents=True)
    (root / "memory" / "archive" / "singles.md").write_text(
        f"# Singles\n\n{SINGLES}", encoding="utf-8"
    )
    return Vault(root)


def _add_both(vault: Vault) -> None:
    text = "".join(f"## Both {name}\n\n{body}\n" for name, (_, body) in BOTH.items())
    (vault.root / "memory" / "archive" / "both.md").write_text(
        f"# Both\n\n{text}", encoding="utf-8"
    )


def test_the_row_with_every_word_is_found_when_each_word_is_capped(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lite = _vault(tmp_path / "lite")
    pg = _vault(tmp_path / "pg")
    pg = use_postgres(pg.root, "carol", pg_url, monkeypatch)
    for vault in (lite, pg):
        sync(vault, embed=False, now=NOW)  # the single-word rows first in the table
        _add_both(vault)
        sync(vault, embed=False, now=NOW)
    # 12 rows a word, ranked whole by default: capped at 3, as a word in thousands of rows
    # is at 1M.
    monkeypatch.setattr(pgsearch, "RANK_PER_TERM", 3)
    real = pgsearch._conjunction

    def tops(s: Searcher, query: str) -> list[str]:
        found = s.search(query, k=1, log=False, now=NOW, mode="bm25", use_floor=False)
        return [r.heading for r in found.results]

    with Searcher(lite, fresh=False) as a, Searcher(pg, fresh=False) as b:
        for name, (query, _) in BOTH.items():
            expected = [f"Both > Both {name}"]
            assert tops(a, query) == expected, (name, "sqlite")
            assert tops(b, query) == expected, (name, "postgres")
            # Without the conjunction's rows the capped words miss it: the case is real.
            monkeypatch.setattr(pgsearch, "_conjunction", lambda groups, terms: "")
            assert tops(b, query) != expected, (name, "postgres without the conjunction")
            monkeypatch.setattr(pgsearch, "_conjunction", real)


def test_the_conjunction_intersects_capped_terms_only_when_every_word_has_one() -> None:
    capped, ranked = pgsearch.RANK_PER_TERM + 1, pgsearch.RANK_PER_TERM
    groups = [["'a'", "'a2'"], ["'b'"], ["'c':*"]]
    counts = [("'a'", capped), ("'a2'", ranked), ("'b'", capped), ("'c':*", capped)]
    # a2 is ranked whole, but a row holding a (not a2), b and c is not: intersected.
    assert pgsearch._conjunction(groups, counts) == "('a') & ('b') & ('c':*)"
    # Every row holding b is ranked: a row with all the words is among them.
    assert pgsearch._conjunction(groups, [*counts[:2], ("'b'", ranked), counts[3]]) == ""
    assert pgsearch._conjunction(groups[:1], counts) == ""  # one word: its own rows
