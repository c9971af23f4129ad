"""Charts drawn by the server as inline SVG (no chart library, no request anywhere): a line
(chips over time), paired bars (Gos called and paid off by score) and a histogram (how many
hands paid each amount). Each chart is an ``<svg role="img">`` with a title and its figures
as ``data-`` attributes, so a page stays readable without styles and tests can read it."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

__all__ = ["bars", "histogram", "line"]

W, H = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 14, 34
INK, GRID, ACCENT, GOOD = "#1f2a24", "#d6ddd8", "#b3261e", "#2e7d4f"


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low..high``."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    mag = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = (low // step) * step
    out = []
    v = start
    while v <= high + step / 2:
        out.append(v)
        v += step
    return out


def _num(v: float) -> str:
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"


def _frame(title: str, kind: str, body: list[str], extra: str = "") -> str:
    return (
        f'<svg class="chart" data-chart="{kind}" viewBox="0 0 {W} {H}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" '
        f'font-size="11"{extra}><title>{escape(title)}</title>' + "".join(body) + "</svg>"
    )


def _y_axis(lo: float, hi: float, y: object) -> list[str]:
    out = []
    for t in _ticks(lo, hi):
        py = y(t)  # type: ignore[operator]
        if TOP - 1 <= py <= H - BOTTOM + 1:
            out.append(
                f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{py:.1f}" y2="{py:.1f}" '
                f'stroke="{GRID}"/><text x="{LEFT - 6}" y="{py + 4:.1f}" text-anchor="end" '
                f'fill="{INK}">{_num(t)}</text>'
            )
    return out


def _empty(title: str, kind: str) -> str:
    return _frame(
        title,
        kind,
        [f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle" fill="{INK}">no data yet</text>'],
    )


def line(points: Sequence[tuple[int, int]], title: str, x_label: str) -> str:
    """A line through ``(x, y)`` points, with the zero line marked."""
    if not points:
        return _empty(title, "line")
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    lo, hi = min(0, *ys), max(0, *ys)
    ticks = _ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    x0, x1 = min(xs), max(xs)

    def x(v: float) -> float:
        return LEFT + (v - x0) / ((x1 - x0) or 1) * (W - LEFT - RIGHT)

    def y(v: float) -> float:
        return TOP + (hi - v) / ((hi - lo) or 1) * (H - TOP - BOTTOM)

    path = " ".join(
        f"{'M' if i == 0 else 'L'}{x(a):.1f},{y(b):.1f}" for i, (a, b) in enumerate(points)
    )
    body = _y_axis(lo, hi, y)
    body.append(
        f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="{INK}"/>'
    )
    body.append(f'<path d="{path}" fill="none" stroke="{GOOD}" stroke-width="2"/>')
    body.append(
        f'<text x="{LEFT}" y="{H - 8}" fill="{INK}">{_num(x0)}</text>'
        f'<text x="{W - RIGHT}" y="{H - 8}" text-anchor="end" fill="{INK}">{_num(x1)}</text>'
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 8}" text-anchor="middle" '
        f'fill="{INK}">{escape(x_label)}</text>'
    )
    return _frame(title, "line", body, f' data-last="{ys[-1]}" data-points="{len(points)}"')


def bars(
    groups: Sequence[tuple[str, int, int]], title: str, labels: tuple[str, str], x_label: str
) -> str:
    """Paired bars per group: ``(label, first, second)``, e.g. Gos called and paid off."""
    if not groups:
        return _empty(title, "bars")
    hi = max(max(a, b) for _, a, b in groups)
    ticks = _ticks(0, hi)
    hi = max(hi, ticks[-1])
    band = (W - LEFT - RIGHT) / len(groups)
    bw = max(2.0, min(18.0, band * 0.38))

    top = TOP + 16  # room for the legend above the bars

    def y(v: float) -> float:
        return top + (hi - v) / (hi or 1) * (H - top - BOTTOM)

    body = _y_axis(0, hi, y)
    for i, (label, a, b) in enumerate(groups):
        cx = LEFT + band * (i + 0.5)
        for j, (v, color, name) in enumerate(((a, INK, labels[0]), (b, GOOD, labels[1]))):
            bx = cx - bw + j * bw
            body.append(
                f'<rect x="{bx:.1f}" y="{y(v):.1f}" width="{bw - 1:.1f}" '
                f'height="{y(0) - y(v):.1f}" fill="{color}" data-group="{escape(label)}" '
                f'data-series="{escape(name)}" data-value="{v}"><title>{escape(label)}: '
                f"{v} {escape(name)}</title></rect>"
            )
        body.append(
            f'<text x="{cx:.1f}" y="{H - BOTTOM + 13}" text-anchor="middle" '
            f'fill="{INK}">{escape(label)}</text>'
        )
    body.append(
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 4}" text-anchor="middle" '
        f'fill="{INK}">{escape(x_label)}</text>'
        f'<rect x="{LEFT}" y="{TOP - 8}" width="9" height="9" fill="{INK}"/>'
        f'<text x="{LEFT + 13}" y="{TOP}" fill="{INK}">{escape(labels[0])}</text>'
        f'<rect x="{LEFT + 80}" y="{TOP - 8}" width="9" height="9" fill="{GOOD}"/>'
        f'<text x="{LEFT + 93}" y="{TOP}" fill="{INK}">{escape(labels[1])}</text>'
    )
    return _frame(title, "bars", body)


def histogram(values: Sequence[tuple[int, int]], title: str, x_label: str, most: int = 24) -> str:
    """How many times each value occurs (``(value, count)``), in at most ``most`` equal bins;
    bins below zero are drawn in red."""
    if not values:
        return _empty(title, "histogram")
    lo, hi = values[0][0], values[-1][0]
    width = max(1, -(-(hi - lo + 1) // most))
    bins: dict[int, int] = {}
    for v, n in values:
        start = lo + (v - lo) // width * width
        bins[start] = bins.get(start, 0) + n
    starts = list(range(lo, hi + 1, width))
    top = max(bins.values())
    ticks = _ticks(0, top)
    top = max(top, int(ticks[-1]))
    band = (W - LEFT - RIGHT) / len(starts)

    def y(v: float) -> float:
        return TOP + (top - v) / (top or 1) * (H - TOP - BOTTOM)

    body = _y_axis(0, top, y)
    every = max(1, len(starts) // 8)
    for i, s in enumerate(starts):
        n = bins.get(s, 0)
        label = str(s) if width == 1 else f"{s}..{s + width - 1}"
        color = ACCENT if s + width - 1 < 0 else GOOD
        body.append(
            f'<rect x="{LEFT + band * i + 1:.1f}" y="{y(n):.1f}" width="{band - 2:.1f}" '
            f'height="{y(0) - y(n):.1f}" fill="{color}" data-bin="{label}" data-value="{n}">'
            f"<title>{label}: {n}</title></rect>"
        )
        if i % every == 0:
            body.append(
                f'<text x="{LEFT + band * (i + 0.5):.1f}" y="{H - BOTTOM + 13}" '
                f'text-anchor="middle" fill="{INK}">{_num(s)}</text>'
            )
    body.append(
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 4}" text-anchor="middle" '
        f'fill="{INK}">{escape(x_label)}</text>'
    )
    return _frame(title, "histogram", body)
