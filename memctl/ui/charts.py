"""Charts drawn on the server as SVG (pure): no chart library, no script in the page.

Every label goes through markupsafe's escape, so a query or a path shown in a chart is
text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT, PAD = 480, 160, 28  # two charts side by side in the page's width
COLOURS = ("#2b6cb0", "#c05621", "#2f855a", "#6b46c1")


def _scale(top: float) -> float:
    return top if top > 0 else 1.0


def line_chart(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None]]],
    *,
    limit: float | None = None,
) -> Markup:
    """One or more lines over shared x labels (dates); `limit` draws a dashed cap."""
    values = [v for _, points in series for v in points if v is not None]
    top = _scale(max([*values, limit or 0.0, 0.0]))
    n = len(labels)
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def x(i: int) -> float:
        return PAD + (inner_w * i / (n - 1) if n > 1 else inner_w / 2)

    def y(v: float) -> float:
        return PAD + inner_h * (1 - v / top)

    parts = [_frame(labels, top)]
    if limit is not None:
        parts.append(
            f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y(limit):.1f}" y2="{y(limit):.1f}" '
            'stroke="#c53030" stroke-dasharray="4 3"/>'
        )
    for k, (name, points) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        coords = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(points) if v is not None]
        if len(coords) > 1:
            parts.append(
                f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                f'points="{" ".join(coords)}"/>'
            )
        for c in coords:
            cx, cy = c.split(",")
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{colour}"/>')
        parts.append(
            f'<text x="{PAD + 4 + 110 * k}" y="14" fill="{colour}" font-size="11">'
            f"{escape(name)}</text>"
        )
    return _svg(parts)


def bar_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float]]]) -> Markup:
    """Grouped bars per label (weeks, days)."""
    top = _scale(max([v for _, points in series for v in points] + [0.0]))
    n, groups = max(1, len(labels)), max(1, len(series))
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD
    slot = inner_w / n
    width = max(1.0, slot * 0.8 / groups)
    parts = [_frame(labels, top)]
    for k, (name, points) in enumerate(series):
        colour = COLOURS[k % len(COLOURS)]
        for i, v in enumerate(points):
            h = inner_h * v / top
            parts.append(
                f'<rect x="{PAD + slot * i + slot * 0.1 + width * k:.1f}" '
                f'y="{PAD + inner_h - h:.1f}" width="{width:.1f}" height="{h:.1f}" '
                f'fill="{colour}"><title>{escape(labels[i])}: {v:g}</title></rect>'
            )
        parts.append(
            f'<text x="{PAD + 4 + 110 * k}" y="14" fill="{colour}" font-size="11">'
            f"{escape(name)}</text>"
        )
    return _svg(parts)


def signal_bars(contributions: dict[str, float], final: float) -> Markup:
    """`--explain`'s contributions as horizontal bars, each against the final score."""
    rows = list(contributions.items())
    top = _scale(max([abs(v) for _, v in rows] + [final, 0.0]))
    height = 16 * (len(rows) + 1) + 4
    parts = []
    for i, (name, value) in enumerate([*rows, ("final", final)]):
        y = 4 + 16 * i
        w = 220 * abs(value) / top
        colour = "#4a5568" if name == "final" else COLOURS[i % len(COLOURS)]
        parts.append(
            f'<text x="0" y="{y + 11}" font-size="11">{escape(name)}</text>'
            f'<rect x="90" y="{y + 2}" width="{w:.1f}" height="10" fill="{colour}"/>'
            f'<text x="{96 + w:.1f}" y="{y + 11}" font-size="11">{value:.4f}</text>'
        )
    return Markup(
        f'<svg class="bars" width="380" height="{height}" viewBox="0 0 380 {height}" '
        f'role="img" aria-label="signals">{"".join(parts)}</svg>'
    )


def _frame(labels: Sequence[str], top: float) -> str:
    bottom = HEIGHT - PAD
    parts = [
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{bottom}" y2="{bottom}" stroke="#a0aec0"/>',
        f'<text x="2" y="{PAD + 4}" font-size="10">{top:g}</text>',
        f'<text x="2" y="{bottom}" font-size="10">0</text>',
    ]
    if labels:
        parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" font-size="10">{escape(labels[0])}</text>')
        parts.append(
            f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" font-size="10" text-anchor="end">'
            f"{escape(labels[-1])}</text>"
        )
    return "".join(parts)


def _svg(parts: list[str]) -> Markup:
    return Markup(
        f'<svg class="chart" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img">{"".join(parts)}</svg>'
    )
