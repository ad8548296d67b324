"""A name written in another script than the vault's becomes a query word: «Борис» and
בוריס find Boris, Perlman finds פרלמן (memctl.lexical.crossing)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memctl.lexical import crossing, lexicon, vocab
from memctl.lexical.crossing import Crossings, asks_name, hebrew_word, is_name, key
from memctl.lexical.parse import parse_query
from memctl.lexical.plan import build_plan
from memctl.search.hybrid import Searcher
from memctl.search.trace import SearchTrace
from memctl.vault import Vault
from tests.search.conftest import NOW


@pytest.mark.parametrize(
    ("spellings", "expected"),
    [
        (("Boris", "Борис", "בוריס"), "brs"),
        (("Postgres", "Постгрес", "פוסטגרס"), "pstgrs"),
        (("Perlman", "Перлман", "פרלמן"), "prlmn"),
        (("Vetropack", "Ветропак", "ווטרופק"), "btrpk"),
        (("Rachel", "Рахель", "רחל"), "rkl"),
        (("Zhukov", "Жуков", "ז׳וקוב"), "Zkb"),
        (("Katz", "Кац", "כץ"), "kC"),
    ],
)
def test_one_name_has_one_key_in_three_scripts(spellings: tuple[str, ...], expected: str) -> None:
    assert {key(word.lower()) for word in spellings} == {expected}


VAULT_WORDS = [
    "boris",
    "postgres",
    "the",
    "sort",
    "פרלמן",
    "бориса",
    "gesher",
    "ветропак",
    "chardonnay",
    "tesla",
    "shabbat",
    "פוליסה",
]


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("борис", ["boris"]),  # Russian → English
        ("בוריס", ["boris"]),  # Hebrew → English, never Hebrew → Russian
        ("perlman", ["פרלמן"]),  # English → Hebrew
        ("vetropack", ["ветропак"]),  # English → Russian
        ("גשר", ["gesher"]),
        ("постгрес", ["postgres"]),
        ("boris", ["бориса"]),  # never a word of the query's own script
        ("טסלה", ["tesla"]),
        ("צוות", []),  # ts is not s: צוות is not shabbat
        ("полиции", []),  # nor is Cyrillic crossed into Hebrew (פוליסה)
        ("шардоне", ["chardonnay"]),  # a Latin "ch" may be said "sh"
        ("שרדונה", ["chardonnay"]),
        ("каберне", []),  # the vault has no such name
        ("бор", []),  # a key of two consonants matches too much to be trusted
        ("сор", []),
    ],
)
def test_a_word_meets_the_vaults_spelling_in_another_script(word: str, forms: list[str]) -> None:
    assert Crossings(VAULT_WORDS).forms(word) == forms


def test_cyrillic_spelling_must_also_resemble_the_vault_word() -> None:
    # Same consonants, other vowels: Russian writes its vowels, so they must agree too.
    assert Crossings(["barsa"]).forms("борис") == ["barsa"]
    assert Crossings(["ubrusu"]).forms("борис") == []


@pytest.mark.parametrize(
    ("term", "ordinary", "capitalised", "name"),
    [
        ("postgres", set(), False, True),  # no ordinary English word
        ("boris", {"boris"}, True, True),  # ordinary to wordfreq, but written as a name
        ("magazine", {"magazine"}, False, False),  # магазине must not find it
        ("борис", {"борис"}, True, True),
        ("систему", {"систему"}, False, False),
        ("פרלמן", {"פרלמן"}, False, True),  # five consonants: a name, common or not
        ("דלת", {"דלת"}, True, False),  # Hebrew has no capitals to tell a name by
        # ... nor is a long one a name when it is an ordinary word, inflected
        ("מתקשר", {"מתקשר", "מתקשרת", "מתקשרים"}, False, False),
    ],
)
def test_only_a_name_crosses(term: str, ordinary: set[str], capitalised: bool, name: bool) -> None:
    assert is_name(term, ordinary.__contains__, lambda word: capitalised) is name


def test_an_ordinary_word_is_never_taken_for_a_name_in_another_script() -> None:
    crossings = Crossings(["magazine", "system", "boris", "דלתות"])
    ordinary = {"magazine", "system", "boris", "דלתות"}
    capitals = {"boris"}

    def named(term: str) -> bool:
        return is_name(term, ordinary.__contains__, capitals.__contains__)

    assert crossings.forms("магазине", named) == []
    assert crossings.forms("систему", named) == []
    assert crossings.forms("בוריס", named) == ["boris"]
    assert crossings.forms("dltt", named) == []


@pytest.mark.parametrize(
    ("forms", "raw", "ordinary", "asks"),
    [
        (("bukhara",), "Which Bukhara hotel?", {"bukhara"}, True),  # capitalised: a name
        (("messed",), "Which release messed up?", {"messed"}, False),  # an ordinary word
        (("perlman",), "how do we reach perlman", set(), True),  # no ordinary word
        (("борис",), "Что решил Борис?", {"борис"}, True),
        (("часто",), "Как часто поливаем?", {"часто"}, False),
        (("בוריס",), "מה אמר בוריס?", {"בוריס"}, True),  # Hebrew: no capitals to tell
        # An ordinary Hebrew word, inflected in two ways among the ordinary words, is no
        # name, nor is a word holding one after its prefix letters.
        (("נדרש",), "מה נדרש?", {"נדרש", "נדרשת", "נדרשים"}, False),
        (("ובוטל", "בוטל", "וטל"), "מה ובוטל", {"בוטל", "בוטלה", "בוטלו"}, False),
        (("כשהמון", "שהמון", "המון"), "כשהמון הגיע", {"המון", "המונה", "המונים"}, False),
        (("לבוריס", "בוריס", "וריס"), "מה אמרו לבוריס", {"בוריס", "בוריסה"}, True),
    ],
)
def test_a_query_word_may_be_a_name(
    forms: tuple[str, ...], raw: str, ordinary: set[str], asks: bool
) -> None:
    assert asks_name(forms, raw, ordinary.__contains__) is asks


@pytest.mark.parametrize(
    ("word", "ordinary"),
    [
        ("נדרש", True),
        ("פרטי", True),
        ("בוטל", True),
        ("המון", True),
        ("בוריס", False),  # names wordfreq counts stand alone
        ("אשדוד", False),
        ("פרלמן", False),
        ("טומר", False),  # no ordinary word at all
    ],
)
def test_an_ordinary_hebrew_word_is_told_by_its_inflections(word: str, ordinary: bool) -> None:
    assert hebrew_word(word, lexicon.is_common) is ordinary


def _plan_crossings(query: str, known: set[str]) -> tuple[dict[str, list[str]], list[str]]:
    asked: list[str] = []
    crossings = Crossings(["boris", "postgres", "פרלמן", *known])

    def cross(word: str) -> list[str]:
        asked.append(word)
        return crossings.forms(word)

    plan = build_plan(
        parse_query(query),
        100,
        df=lambda words: {
            w: (3 if w in known | {"boris", "postgres", "פרלמן"} else 0) for w in words
        },
        stem_df=lambda stem: 0,
        correct=lambda word: None,
        exact_df=lambda words: {w: 3 for w in words},
        cross=cross,
    )
    assert set(plan.crossings) <= set(asked)
    assert all(form in plan.forms for forms in plan.crossings.values() for form in forms)
    return plan.crossings, asked


@pytest.mark.parametrize(
    ("query", "known", "crossed"),
    [
        ("что Борис решил про Постгрес", {"решил"}, {"борис": ["boris"], "постгрес": ["postgres"]}),
        ("מה בוריס החליט", {"החליט"}, {"בוריס": ["boris"]}),
        ("מה אמרו לבוריס", {"אמרו"}, {"לבוריס": ["boris"]}),  # a prefix letter
        ("who is Perlman", {"who"}, {"perlman": ["פרלמן"]}),
    ],
)
def test_the_plan_crosses_only_words_the_index_lacks(
    query: str, known: set[str], crossed: dict[str, list[str]]
) -> None:
    crossings, asked = _plan_crossings(query, known)
    assert crossings == crossed
    assert not set(asked) & known


@pytest.mark.parametrize(
    "query", ["what did boris decide about postgres", "מה החליט פרלמן", "бориса спросили"]
)
def test_a_query_the_vault_holds_word_for_word_never_crosses(query: str) -> None:
    crossings, asked = _plan_crossings(
        query, {"what", "decide", "about", "מה", "החליט", "бориса", "спросили"}
    )
    assert crossings == {} and asked == []


NOTES = {
    "memory/archive/database.md": "# Database\n\n- We agreed, and Boris decided we move the"
    " shop to Postgres in March.\n- The magazine ran a piece on our system.\n",
    "memory/archive/insurance.md": "# ביטוח\n\n- הסוכן הוא אורי פרלמן, עונה רק בוואטסאפ.\n",
    "memory/archive/decoy.md": "# Weekly\n\n- The shop's newsletter went out on Tuesday.\n"
    "- Решили сменить поставщика коробок.\n- החלטנו להחליף ספק קרטונים.\n"
    "- The invoice came from Andrassy at the Bottle Shop in Porto.\n",
}


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("Что решил Борис насчёт Постгреса?", "memory/archive/database.md"),
        ("מה החליט בוריס?", "memory/archive/database.md"),
        ("How do we reach Perlman?", "memory/archive/insurance.md"),
    ],
)
def test_a_search_finds_the_name_written_in_another_script(
    vault: Vault, query: str, found: str
) -> None:
    _write_notes(vault, NOTES)
    trace = SearchTrace()
    with Searcher(vault) as searcher:
        out = searcher.search(query, k=3, log=False, now=NOW, mode="lexical", trace=trace)
    assert trace.plan is not None and trace.plan.crossings
    assert out.results and out.results[0].path == found
    assert "magazine" not in str(trace.plan.crossings)


@pytest.mark.parametrize(
    "query",
    [
        "Что пишут в магазине про систему?",
        "מה כתוב במגזין?",
        "מה נדרש מהספק הפרטי?",  # not Andrassy nor Porto: ordinary Hebrew words
        "מה בוטל בהזמנה?",  # not Bottle
        "What do the magazine's writers think?",
    ],
)
def test_ordinary_words_do_not_cross_in_a_search(vault: Vault, query: str) -> None:
    _write_notes(vault, NOTES)
    trace = SearchTrace()
    with Searcher(vault) as searcher:
        searcher.search(query, k=3, log=False, now=NOW, mode="lexical", trace=trace)
    assert trace.plan is not None and trace.plan.crossings == {}


def _write_notes(vault: Vault, notes: dict[str, str]) -> None:
    for rel, text in notes.items():
        path = vault.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _crossed(vault: Vault, query: str) -> dict[str, list[str]]:
    trace = SearchTrace()
    with Searcher(vault) as searcher:
        searcher.search(query, k=3, log=False, now=NOW, mode="lexical", trace=trace)
    assert trace.plan is not None
    return trace.plan.crossings


@pytest.mark.parametrize(
    ("query", "crossed", "later", "added", "crossed_later"),
    [
        ("Что решил Борис?", {"борис": ["boris"]}, "А Ветропак?", "Vetropack", "ветропак"),
        ("מה החליט בוריס?", {"בוריס": ["boris"]}, "ומה עם ווטרופק?", "Vetropack", "ווטרופק"),
        (
            "How do we reach Perlman?",
            {"perlman": ["פרלמן"]},
            "And Goldberg?",
            "גולדברג",
            "goldberg",
        ),
    ],
)
def test_the_keys_are_kept_beside_the_vocabulary_and_grown_with_it(
    vault: Vault,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    crossed: dict[str, list[str]],
    later: str,
    added: str,
    crossed_later: str,
) -> None:
    _write_notes(vault, NOTES)
    assert _crossed(vault, query) == crossed
    keys_file = vault.state_dir / "search-vocab-keys.txt"
    assert keys_file.is_file()
    # A one-shot search reads the keys, keying no word again...
    monkeypatch.setattr(crossing, "keyed", _never)
    assert _crossed(vault, query) == crossed
    monkeypatch.undo()
    # ... but the words a newer note brings, and only those.
    _write_notes(vault, {"memory/archive/later.md": f"# Later\n\n- We asked {added} again.\n"})
    keyed_now: list[str] = []
    monkeypatch.setattr(crossing, "keyed", _counting(keyed_now))
    assert crossed_later in _crossed(vault, later)
    assert vocab.fold(added) in keyed_now and len(keyed_now) < 10


def _never(term: str) -> crossing.Keyed | None:
    raise AssertionError(f"{term} keyed again")


def _counting(seen: list[str]) -> Callable[[str], crossing.Keyed | None]:
    keyed = crossing.keyed

    def counted(term: str) -> crossing.Keyed | None:
        seen.append(term)
        return keyed(term)

    return counted


def test_keys_of_another_version_are_keyed_again(vault: Vault) -> None:
    _write_notes(vault, NOTES)
    keys_file = vault.state_dir / "search-vocab-keys.txt"
    keys_file.parent.mkdir(parents=True, exist_ok=True)
    # Keyed otherwise by an older version: "boris" had no key then.
    keys_file.write_text("keys 0 1 1\n\t\tboris\n", encoding="utf-8")
    assert _crossed(vault, "Что решил Борис?") == {"борис": ["boris"]}
    assert keys_file.read_text(encoding="utf-8").startswith(f"keys {crossing.KEYS_VERSION} ")


def test_a_latin_name_in_a_vault_of_latin_words_keys_nothing(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (A Hebrew or Russian name always has Latin words to meet: a vault's front matter,
    # its identifiers, "title".)
    _write_notes(vault, {"memory/archive/a.md": "# A\n\n- We asked Vetropack about the glass.\n"})
    monkeypatch.setattr(crossing, "keyed", _never)
    assert _crossed(vault, "Kogan?") == {}
    assert not (vault.state_dir / "search-vocab-keys.txt").exists()
