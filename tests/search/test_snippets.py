from __future__ import annotations

from memctl.search.present.snippets import Matcher, TextWords, best_snippet, text_words
from memctl.search.query.matcher import has_words
from memctl.tokens import estimate_tokens


def m(*words: str, prefixes: tuple[str, ...] = ()) -> Matcher:
    return Matcher(exact=frozenset(words), prefixes=prefixes)


def test_window_holds_the_matching_lines_with_exact_line_numbers() -> None:
    lines = [f"filler line number {i} about nothing much at all here" for i in range(60)]
    lines[40] = "the sqlite decision was made here"
    snip = best_snippet(lines, 101, m("sqlite"), budget=40)
    assert "sqlite" in snip.text
    assert estimate_tokens(snip.text) <= 40
    assert lines[snip.line_start - 101 : snip.line_end - 101 + 1] == snip.text.split("\n")
    assert snip.truncated


def test_prefers_the_window_with_more_distinct_words() -> None:
    lines = ["alpha", "x", "x", "x", "x", "x", "beta gamma", "alpha here", "x"]
    snip = best_snippet(lines, 1, m("alpha", "beta", "gamma"), budget=8)
    assert "beta gamma" in snip.text and "alpha here" in snip.text


def test_highlights_cover_matched_words_in_three_languages() -> None:
    text = "Deploy блокирован: הפריסה נדחתה; deployments later"
    snip = best_snippet(
        [text], 1, m("deploy", "блокирован", "פריסה", prefixes=("deploym",)), budget=200
    )
    found = [snip.text[a:b] for a, b in snip.highlights]
    assert found == ["Deploy", "блокирован", "הפריסה", "deployments"]


def test_an_over_long_line_is_cut_around_its_match() -> None:
    words = ["word"] * 400
    words[300] = "needle"
    snip = best_snippet([" ".join(words)], 7, m("needle"), budget=30)
    assert "needle" in snip.text
    assert snip.text.startswith("…") and snip.text.endswith("…")
    assert snip.line_start == snip.line_end == 7
    assert estimate_tokens(snip.text) <= 32


def test_context_widens_a_small_chunk_but_stops_at_hidden_lines() -> None:
    lines: list[str | None] = [
        None,
        "## D1:1",
        "**Ana:** I adopted a dog",
        "",
        "## D1:2",
        "**Bo:** what breed?",
    ]
    snip = best_snippet(lines, 10, m("dog"), budget=200, core=(1, 2))
    assert snip.line_start == 11 and snip.line_end == 15
    assert "what breed" in snip.text


def test_empty_text() -> None:
    snip = best_snippet([""], 1, m("x"), budget=10)
    assert snip.text == "" and snip.highlights == ()


def test_a_hit_near_the_chunks_end_still_gets_the_whole_budget() -> None:
    # A chunk of 60 lines (far over budget), the only match on its second-last line: the
    # window centred on it is clipped by the chunk's end and grows back to the budget.
    lines = [f"filler line number {i} about nothing much at all here" for i in range(60)]
    lines[58] = "the sqlite decision was made here"
    snip = best_snippet(lines, 1, m("sqlite"), budget=120, core=(0, 59))
    assert "sqlite" in snip.text
    assert snip.line_end == 60
    used = estimate_tokens(snip.text)
    assert 120 - estimate_tokens(lines[0]) - 1 < used <= 120


def test_maybe_holds_every_word_the_matcher_matches() -> None:
    """The words Matcher.maybe hands on (to the floor's coverage) include every word
    `matches` finds: exact forms in any case, stems, Hebrew prefix letters, a sigma."""
    text = (
        "Deploys DEPLOYED the deploy; בבית ובית שבת הבית\n"
        "ΟΔΟΣ οδος İstanbul istanbul Straße strasse nothing else"
    )
    matchers = [
        Matcher(exact=frozenset({"deploy", "בית", "οδος"}), prefixes=("deplo",)),
        Matcher(exact=frozenset({"istanbul", "i̇stanbul", "straße"})),
        Matcher(exact=frozenset({"שבת"}), prefixes=("οδο",)),
    ]
    kept = text_words(text)
    for matcher in matchers:
        maybe = matcher.maybe(kept)
        assert len(maybe) == len(set(maybe))
        matched = {w for w in kept.distinct if matcher.matches(w) is not None}
        assert matched and matched <= set(maybe)


def test_maybe_is_the_word_by_word_definition() -> None:
    """TextWords.maybe (stems found by bisecting the sorted words, Hebrew-initial words
    kept) is exactly the words a test of each word picks: a lowercase form, a word
    starting with a stem (itself or lowercased), a Hebrew prefix letter first."""
    from memctl.lexical.parse import HEBREW_PREFIXES

    texts = [
        "Deploys DEPLOYED the deploy; deplo dep deployment Zdeploy בבית ובית שבת הבית",
        "ΟΔΟΣ οδος İstanbul istanbul Straße strasse nothing else ab abc abd a",
        "",
        "all lowercase: deploy deplo straße οδος בבית ab",  # no word differs from its lowercase
    ]
    cases = [
        (frozenset({"deploy", "בית", "οδος"}), ("deplo",)),
        (frozenset({"istanbul", "straße"}), ("ab", "a", "st")),
        (frozenset(), ("", "zz")),
        (frozenset({"the"}), ()),
    ]
    for text in texts:
        kept = text_words(text)
        for _ in range(2):  # the second time from its kept sorted words
            for forms, stems in cases:
                for hebrew in (True, False):
                    plain = {
                        w
                        for w in kept.distinct
                        if w.lower() in forms
                        or (stems and (w.startswith(stems) or w.lower().startswith(stems)))
                        or (hebrew and w[:1] in HEBREW_PREFIXES)
                    }
                    assert kept.maybe(forms, stems, hebrew) == plain


def test_spans_from_kept_words_are_the_plain_spans() -> None:
    """A matcher given kept text words highlights exactly what the word-by-word test does."""
    texts = [
        "Deploys DEPLOYED the deploy; בבית ובית שבת הבית",
        "ΟΔΟΣ οδος İstanbul istanbul Straße strasse nothing else",
        "no match here at all",
    ]
    for exact, prefixes in (
        ({"deploy", "בית", "οδος"}, ("deplo",)),
        ({"istanbul", "i̇stanbul", "straße", "שבת"}, ()),
    ):
        kept: dict[str, TextWords] = {}
        quick = Matcher(exact=frozenset(exact), prefixes=prefixes, texts=kept)
        plain = Matcher(exact=frozenset(exact), prefixes=prefixes)
        for _ in range(2):  # the second time from the kept words
            for text in texts:
                assert quick.spans(text) == plain.spans(text)
        assert set(kept) == set(texts)


def test_has_words_is_whether_text_words_finds_any() -> None:
    """The reranker's test for a line it does not split: the same word pattern."""
    texts = ["", "   ", "---", "- **A:**", "a", "_", "שלום", "ΟΔΟΣ.", "12", "…!?"]
    assert [has_words(t) for t in texts] == [bool(text_words(t).words) for t in texts]
    assert not has_words("--- * ") and has_words("x")


def test_laid_out_puts_each_row_at_its_lines_with_blanks_between() -> None:
    from memctl.search.present.results import _slotted, laid_out

    rows = [(3, 4, "a\nb"), (7, 7, "c"), (8, 9, "d\ne")]
    assert laid_out(rows, 3) == ["a", "b", "", "", "c", "d", "e"]
    # A text with fewer lines than its range leaves the rest blank, as line by line.
    short = [(1, 3, "x"), (5, 5, "y")]
    assert laid_out(short, 1) == _slotted(short, 1, 5) == ["x", "", "", "", "y"]
    # Rows out of order or overlapping: a later row's lines over an earlier's.
    for odd in ([(5, 5, "y"), (1, 2, "a\nb")], [(1, 3, "a\nb\nc"), (2, 2, "B")]):
        first = min(r[0] for r in odd)
        size = max(r[1] for r in odd) - first + 1
        assert laid_out(odd, first) == _slotted(odd, first, size)
    assert laid_out([(1, 3, "a\nb\nc"), (2, 2, "B")], 1) == ["a", "B", "c"]


def test_a_line_too_long_for_the_room_is_not_priced() -> None:
    from memctl.search.present.snippets import _Costs

    long = "wordy " * 40  # 80 tokens and its newline; 200 non-space characters
    known: dict[str, int] = {}
    costs = _Costs(["short", long], known)
    assert costs.fits(0, 3) and known["short"] == 3
    assert not costs.fits(1, 50) and long not in known  # at least 1 + 200 / 4 > 50
    assert not costs.fits(1, 60) and known[long] == 81  # the bound does not decide: priced
    assert costs.fits(1, 81)
