"""Inline SVG bar charts (no plotting library, no CDN): the report's per-domain charts."""

from __future__ import annotations

import html
from collections.abc import Sequence

_COLORS = ("#3b6fb6", "#e08a2c", "#4a9a5b", "#b04a4a")


def bar_chart(
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float], Sequence[float] | None]],
    *,
    width: int = 640,
    bar_height: int = 18,
) -> str:
    """A horizontal bar chart of success rates (0-1) as an SVG document.

    Args:
        title: the chart's title.
        labels: one label per group (a domain or a task).
        series: ``(name, values, errors)`` per bar series; ``errors`` are +- half-widths or None.
        width: the SVG width in pixels.
        bar_height: the height of one bar.
    """
    label_width, right = 190, 60
    plot = width - label_width - right
    group = bar_height * len(series) + 8
    height = 40 + group * len(labels) + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<text x="4" y="16" font-size="14" font-weight="bold">{html.escape(title)}</text>',
    ]
    for tick in range(0, 101, 25):
        x = label_width + plot * tick / 100
        out.append(f'<line x1="{x:.1f}" y1="26" x2="{x:.1f}" y2="{height - 20}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" fill="#555">{tick}%</text>')
    for row, label in enumerate(labels):
        top = 30 + row * group
        out.append(
            f'<text x="{label_width - 6}" y="{top + group / 2 + 2:.1f}" text-anchor="end">{html.escape(label)}</text>'
        )
        for index, (name, values, errors) in enumerate(series):
            value = max(0.0, min(1.0, float(values[row])))
            y = top + index * bar_height
            color = _COLORS[index % len(_COLORS)]
            out.append(
                f'<rect x="{label_width}" y="{y}" width="{plot * value:.1f}" height="{bar_height - 3}" fill="{color}">'
                f"<title>{html.escape(name)}: {100 * value:.1f}%</title></rect>"
            )
            if errors is not None and errors[row]:
                low = label_width + plot * max(0.0, value - errors[row])
                high = label_width + plot * min(1.0, value + errors[row])
                middle = y + (bar_height - 3) / 2
                out.append(f'<line x1="{low:.1f}" y1="{middle}" x2="{high:.1f}" y2="{middle}" stroke="#222"/>')
            out.append(
                f'<text x="{label_width + plot * value + 4:.1f}" y="{y + bar_height - 6}" fill="#222">'
                f"{100 * value:.0f}%</text>"
            )
    if len(series) > 1:
        for index, (name, _, _) in enumerate(series):
            x = width - right - 150 * (len(series) - index)
            color = _COLORS[index % len(_COLORS)]
            out.append(f'<rect x="{x}" y="6" width="10" height="10" fill="{color}"/>')
            out.append(f'<text x="{x + 14}" y="15">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)
