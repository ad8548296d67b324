"""The document counts of a search's words and prefixes, for BM25's IDF and the lexical
plan (which words are common), fetched for every form and prefix in one statement."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memctl.index.postgres import words
from memctl.lexical.vocab import fold

if TYPE_CHECKING:
    from memctl.index.postgres.store import PgStore

ESTIMATE_MIN_ROWS = 1000  # a word the statistics put in more rows is not counted
PREFIX_WORDS = 8  # the most words of the vocabulary a prefix's count looks at in word_counts


class WordCounter:
    """Capped document counts, fetched for every form and prefix in one statement."""

    def __init__(
        self,
        store: PgStore,
        where: str,
        params: list[Any],
        cap: int,
        rows: int,
        column: str = "words",
        table: str = "chunks AS c",
        kept: tuple[str, list[str] | None] | None = None,
    ) -> None:
        self.where, self.params, self.cap = where, params, cap
        # (kind, vaults) when the only filter is the vaults: the words' counts are then
        # word_counts' (word_counts.py), not the rows' counted at search time.
        self.kept = kept
        self.conn = store.conn  # where the counts run (the window list's: its own)
        self.column = column  # `words`, or `window_words` for the window list
        self.table, self.alias = table, table.split()[2]
        self.known: dict[str, int] = {}
        # Counting a word's rows visits each of them in the table (the vault filter is
        # checked there): ~0.3-0.6 s for a word in 10k of 1M rows on a busy machine.
        # PostgreSQL's statistics of the column already estimate every frequent word
        # (within a few percent from a 300k-row sample; an IDF barely moves), so only
        # words they put under ESTIMATE_MIN_ROWS are counted. A small table is sampled
        # whole, and its words stay under that: counted exactly, as FTS5 does.
        self.estimates = store.word_estimates(rows, ESTIMATE_MIN_ROWS, column)

    def _estimate(self, key: str) -> int | None:
        kind, word = key.split(":", 1)
        word = fold(word)
        if kind == "w":
            return self.estimates.get(word)
        # A prefix also covers words too rare for the statistics: estimated only when
        # its common words alone pass the cap (the plan then treats it as common).
        total = sum(n for w, n in self.estimates.items() if w.startswith(word))
        return total if total > self.cap else None

    def _count(self, queries: dict[str, str], cap: int | None) -> dict[str, int]:
        estimated = {k: n for k in queries if (n := self._estimate(k)) is not None}
        keys = [k for k in queries if queries[k] and k not in estimated]
        if not keys:
            return {k: estimated.get(k, 0) for k in queries}
        limit = "LIMIT %s" if cap is not None else ""
        counted = (
            f"(SELECT count(*) FROM (SELECT 1 FROM {self.table} WHERE "
            f"{self.alias}.{self.column} @@ q.tsq::tsquery AND {self.where} {limit}) AS m)"
        )
        args = [*self.params, *([cap + 1] if cap is not None else [])]
        if self.kept is None:
            sql = f"SELECT q.key, {counted} FROM unnest(%s::text[], %s::text[]) AS q(key, tsq)"
            args += [keys, [queries[k] for k in keys]]
        else:
            # A word's count from word_counts, in the same round trip. A prefix's rows are
            # not the sum of its words', but when one word of the vocabulary that starts
            # with it is in the searched vaults, they are that word's: the common case of a
            # stem, whose count otherwise visits each of its rows (~10-25 ms of server
            # CPU, more waiting on pages, for a new query's stems at 1M). Else, or past
            # PREFIX_WORDS words, the prefix is counted as before.
            kind, vaults = self.kept
            in_vaults = "(%s::text[] IS NULL OR k.vault = ANY(%s::text[]))"
            # Each word looked up by its key (`lexemes` is collated "C", word_counts the
            # database's default: compared in the C collation, the key would not serve).
            one_word = (
                "(SELECT CASE WHEN count(*) <= %s AND count(*) FILTER (WHERE k.n > 0) <= 1 "
                "THEN sum(k.n) END "
                "FROM (SELECT x.word FROM lexemes AS x WHERE x.word >= q.stem "
                "AND x.word < q.stem || chr(1114111) AND x.word ^@ q.stem LIMIT %s) AS l "
                "CROSS JOIN LATERAL (SELECT coalesce(sum(k.rows), 0) AS n FROM word_counts AS k "
                f'WHERE k.kind = %s AND k.word = l.word COLLATE "default" AND {in_vaults}) AS k)'
            )
            sql = (
                f"SELECT q.key, CASE WHEN q.word IS NULL THEN coalesce({one_word}, {counted}) "
                "ELSE (SELECT coalesce(sum(k.rows), 0) FROM word_counts AS k WHERE k.kind = %s "
                f"AND k.word = q.word AND {in_vaults}) END "
                "FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[]) AS q(key, tsq, word, stem)"
            )
            args = [PREFIX_WORDS, PREFIX_WORDS + 1, kind, vaults, vaults, *args]
            args += [kind, vaults, vaults, keys, [queries[k] for k in keys]]
            args.append([fold(k[2:]) if k.startswith("w:") else None for k in keys])
            args.append([fold(k[2:]) if k.startswith("p:") else None for k in keys])
        rows = {k: int(n) for k, n in self.conn.execute(sql, args).fetchall()}
        if cap is not None:  # as a count that stops past the cap
            rows = {k: min(n, cap + 1) for k, n in rows.items()}
        rows.update(estimated)
        return {k: int(rows.get(k, 0)) for k in queries}

    def prefetch(self, forms: list[str], stems: list[str]) -> None:
        queries = {f"w:{f}": words.tsquery([f]) for f in forms}
        queries |= {f"p:{s}": words.tsquery([], [s]) for s in stems}
        self.known.update(self._count(queries, self.cap))

    def words(self, forms: list[str], exact: bool = False) -> dict[str, int]:
        missing = {
            f"w:{f}": words.tsquery([f]) for f in forms if exact or f"w:{f}" not in self.known
        }
        if missing:
            counted = self._count(missing, None if exact else self.cap)
            if exact:
                return {f: counted[f"w:{f}"] for f in forms}
            self.known.update(counted)
        return {f: self.known[f"w:{f}"] for f in forms}

    def prefix(self, stem: str) -> int:
        key = f"p:{stem}"
        if key not in self.known:
            self.known.update(self._count({key: words.tsquery([], [stem])}, self.cap))
        return self.known[key]
