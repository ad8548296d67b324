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


def test_the_listening_socket_says_tcp_so_answers_are_not_delayed() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP; with proto 0 a
    keep-alive client's every later request waited ~40 ms (bench_ui: 44 ms -> 1.6 ms)."""
    import asyncio
    import socket

    from memctl.agent.mcp_server import bind

    sock, url = bind("127.0.0.1", 0)
    seen: list[int] = []

    async def serve_one() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted = writer.get_extra_info("socket")
            seen.append(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    try:
        asyncio.run(serve_one())
    finally:
        sock.close()
    assert url.startswith("http://127.0.0.1:")
    assert seen and seen[0] != 0
