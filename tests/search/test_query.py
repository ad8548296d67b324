from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.lexical.parse import fts_expression, hebrew_variants, parse_query, quote, stem
from memctl.sqlite import connect


@pytest.fixture(scope="module")
def fts():
    conn = connect(":memory:", load_vec=False)
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(text, tokenize='unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO f VALUES ('deploy AND near the get_vault function')")
    return conn


NASTY = [
    "deploy AND near",
    "NEAR(deploy get)",
    "get*",
    "-deploy",
    "(a OR b)",
    '"',
    'a"b',
    "x'y",
    "^deploy",
    "f:deploy",
]


@pytest.mark.parametrize("text", NASTY)
def test_fts_syntax_in_user_text_is_plain_words(fts, text: str) -> None:
    q = parse_query(text)
    expression = fts_expression([f for t in q.terms for f in t.forms()])
    # Only quoted strings joined by OR: no operator, prefix, column filter or group.
    assert re.fullmatch(r'(?:"(?:[^"]|"")*"(?: OR |$))*', expression)
    rows = (
        fts.execute("SELECT rowid FROM f WHERE f MATCH ?", (expression,)).fetchall()
        if expression
        else []
    )
    # A word of the stored row, wrapped in FTS5 syntax, still finds that row as a plain word.
    expected = [(1,)] if set(q.words) & {"deploy", "and", "near", "get"} else []
    assert rows == expected


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_gives_a_valid_match_expression(text: str) -> None:
    conn = connect(":memory:", load_vec=False)
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(text)")
    q = parse_query(text)
    expression = fts_expression(
        [f for t in q.terms for f in t.forms()], [t.stem for t in q.terms if t.stem]
    )
    if expression:
        conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (expression,)).fetchall()


def test_quote_doubles_inner_quotes() -> None:
    assert quote('a"b') == '"a""b"'


def test_words_split_like_unicode61_and_identifiers_kept_whole() -> None:
    q = parse_query("Why does get_vault fail on 2026-11-02?")
    assert [t.text for t in q.terms][:4] == ["why", "does", "get", "vault"]
    assert "get_vault" in q.identifiers
    assert q.dates == ("2026-11-02",)
    assert [t.text for t in q.content_terms] == ["get", "vault", "fail", "2026", "11", "02"]


def test_all_stopword_query_keeps_its_words() -> None:
    assert [t.text for t in parse_query("what is it").content_terms] == ["what", "is", "it"]


def test_hebrew_prefixes_are_stripped_as_variants() -> None:
    assert hebrew_variants("והחופשה") == ("החופשה", "חופשה")
    assert hebrew_variants("בית") == ()  # too short to be prefix + word


def test_russian_and_english_stems() -> None:
    assert stem("уведомления") == "уведомл"
    assert stem("памяти") == "памят"
    assert stem("deployments") == "deploy"
    assert stem("ran") is None
    assert stem("שרתים") is None
