"""The page's pure parts: SVG charts escape their labels, snippets cut at highlights."""

from __future__ import annotations

from memctl.ui import charts
from memctl.ui.search_view import pieces

EVIL = "<script>alert(1)</script>"


def test_charts_escape_every_label() -> None:
    drawn = [
        charts.line_chart([EVIL, "b"], [(EVIL, [1.0, None])], limit=2),
        charts.bar_chart([EVIL], [(EVIL, [3.0])]),
        charts.signal_bars({EVIL: 0.5}, 0.5),
    ]
    for svg in drawn:
        assert "<script>" not in svg and "&lt;script&gt;" in svg
        assert svg.startswith("<svg")


def test_a_line_chart_scales_to_its_cap() -> None:
    svg = charts.line_chart(["d1", "d2"], [("HOT lines", [50.0, 120.0])], limit=100)
    assert 'stroke-dasharray="4 3"' in svg  # the cap drawn
    assert ">120<" in svg  # the top of the scale is the highest value, not the cap
    assert charts.bar_chart([], [])  # no data still draws an empty frame


def test_pieces_cut_a_snippet_at_its_highlights() -> None:
    text = "גיבוי יומי at 03:00"
    assert pieces(text, ((0, 5), (6, 10))) == [
        ("גיבוי", True),
        (" ", False),
        ("יומי", True),
        (" at 03:00", False),
    ]
    assert pieces("abc", ((1, 2), (0, 3))) == [("abc", True)]  # overlaps kept once
    assert pieces("abc", ()) == [("abc", False)]
