from __future__ import annotations

import pytest

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


# A day of unrelated bullets per language, too long for the budget below whole.
DAYS = {
    "en": [
        "# 2026-11-20",
        "",
        "- 08:10 Omer finished the label proofs for the rosé, printing on Monday",
        "- 09:00 the forklift battery died again, a new one is ordered from the dealer",
        "- 10:20 Dana moved the team lunch to Thursday at the vineyard",
        "- 11:40 the Haifa courier was two hours late with the Jerusalem boxes",
        "- 14:00 Gil: the bank approved the loan for the press, 180,000 over five years",
        "- 15:30 Boris put the festival ticket page with a seat counter on staging",
    ],
    "he": [
        "# 2026-11-20",
        "",
        "- 08:10 עומר סיים את הגהת התוויות לרוזה, הדפסה ביום שני",
        "- 09:00 הסוללה של המלגזה מתה שוב, הוזמנה חדשה מהסוכן",
        "- 10:20 דנה העבירה את ארוחת הצוות ליום חמישי בכרם",
        "- 11:40 השליח מחיפה איחר בשעתיים עם הארגזים לירושלים",
        "- 14:00 גיל: הבנק אישר את ההלוואה למכבש, 180,000 על פני חמש שנים",
        "- 15:30 בוריס העלה לסביבת הבדיקות את דף הכרטיסים לפסטיבל",
    ],
    "ru": [
        "# 2026-11-20",
        "",
        "- 08:10 Омер закончил корректуру этикеток для розе, печать в понедельник",
        "- 09:00 аккумулятор погрузчика опять сел, новый заказан у дилера",
        "- 10:20 Дана перенесла обед команды на четверг в винограднике",
        "- 11:40 курьер из Хайфы опоздал на два часа с ящиками для Иерусалима",
        "- 14:00 Гиль: банк одобрил кредит на пресс, 180 000 на пять лет",
        "- 15:30 Борис выложил страницу билетов на фестиваль на тестовый сервер",
    ],
}
LOAN = 6  # the bullet a question was matched to by its vector (0-based)
# A word of the day's first bullet, and one of the loan's bullet, per language.
FIRST_WORD = {"en": "forklift", "he": "המלגזה", "ru": "погрузчика"}
LOAN_WORD = {"en": "bank", "he": "הבנק", "ru": "банк"}


def day_budget(lines: list[str]) -> int:
    """Room for about three of the day's bullets: the day does not fit whole."""
    return sum(estimate_tokens(line) + 1 for line in lines[:5])


@pytest.mark.parametrize("language", sorted(DAYS))
def test_without_a_query_word_the_window_holds_the_matched_fact(language: str) -> None:
    lines = DAYS[language]
    budget = day_budget(lines)
    before = best_snippet(lines, 1, m("nothing"), budget=budget, core=(0, len(lines) - 1))
    assert before.line_start == 1 and before.line_end < LOAN + 1  # the day's start, as ever
    snip = best_snippet(
        lines, 1, m("nothing"), budget=budget, core=(0, len(lines) - 1), facts=[(LOAN, LOAN)]
    )
    assert snip.line_start <= LOAN + 1 <= snip.line_end
    assert lines[snip.line_start - 1 : snip.line_end] == snip.text.split("\n")
    assert estimate_tokens(snip.text) <= budget
    # Its neighbours fill the budget: more than the fact alone is shown.
    assert snip.line_end - snip.line_start >= 1


@pytest.mark.parametrize("language", sorted(DAYS))
def test_a_window_with_more_query_words_beats_the_matched_fact(language: str) -> None:
    lines = DAYS[language]
    snip = best_snippet(
        lines, 1, m(FIRST_WORD[language]), budget=day_budget(lines), facts=[(LOAN, LOAN)]
    )
    assert FIRST_WORD[language] in snip.text
    assert snip.line_end < LOAN + 1


@pytest.mark.parametrize("language", sorted(DAYS))
def test_on_a_tie_of_query_words_the_matched_fact_wins(language: str) -> None:
    lines = list(DAYS[language])
    # The same word in the first bullet and in the fact: one distinct word either way.
    lines[3] = f"{lines[3]} {LOAN_WORD[language]}"
    matcher = m(LOAN_WORD[language])
    words_alone = best_snippet(lines, 1, matcher, budget=day_budget(lines))
    assert words_alone.line_start <= 4 <= words_alone.line_end
    assert not words_alone.line_start <= LOAN + 1 <= words_alone.line_end
    snip = best_snippet(lines, 1, matcher, budget=day_budget(lines), facts=[(LOAN, LOAN)])
    assert snip.line_start <= LOAN + 1 <= snip.line_end


@pytest.mark.parametrize("language", sorted(DAYS))
def test_facts_nearly_as_near_are_shown_beside_the_nearest_where_they_fit(language: str) -> None:
    lines = DAYS[language]
    budget = day_budget(lines)
    snip = best_snippet(lines, 1, m("nothing"), budget=budget, facts=[(LOAN, LOAN), (4, 4)])
    assert snip.line_start <= 5 and snip.line_end >= LOAN + 1
    # One too far to fit beside it: the nearest is what the window holds.
    far = best_snippet(lines, 1, m("nothing"), budget=budget, facts=[(LOAN, LOAN), (2, 2)])
    assert far.line_start <= LOAN + 1 <= far.line_end
