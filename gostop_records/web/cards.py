"""Card drawings: an SVG for each of the 48 month cards, the bonus cards and the card back.

Drawn from the card table in :mod:`gostop_records.cards` (which card is a bright, which
ribbon belongs to which set, which junk is double), never downloaded: a page carries no
image, font or style from outside the package. The drawing is made to be read at 40 px
wide on a phone, so each card says what it is by a few bold marks rather than detail:

- the month's numeral in the top left corner, its name beside it, the card's code in the
  bottom right corner, on the month's colour with a simple drawing of its plant;
- a bright has a red disc with 光; an animal has its animal in dark silhouette; a ribbon
  has a ribbon across the card, red with a cream poem panel and 홍단 (hongdan), blue with
  청단 (cheongdan), plain red with 초단 (chodan), or the striped rain ribbon; double junk
  has a ×2 badge; a bonus card is gold with +2 or +3.

Hangul and 光 are drawn as strokes, because a phone or the test machine may have no font
with them. Card sizes are CSS matters: every drawing has the view box 0 0 50 80.
"""

from __future__ import annotations

import math
from functools import lru_cache
from html import escape

from .. import cards as C

__all__ = [
    "BACK_ID",
    "HEIGHT",
    "MONTH_NAMES",
    "WIDTH",
    "back_svg",
    "card_svg",
    "label",
    "labels",
    "plant",
    "sprite",
    "symbol_id",
    "use_svg",
]

WIDTH, HEIGHT = 50, 80
VIEWBOX = f"0 0 {WIDTH} {HEIGHT}"
BACK_ID = "card-back"

MONTH_NAMES = (
    "",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# (background, plant colour, accent) per month
_PALETTE: dict[int, tuple[str, str, str]] = {
    1: ("#e4efdc", "#2e6b36", "#7a4a26"),
    2: ("#fbe6ea", "#d23a52", "#6b3f22"),
    3: ("#fdeaf1", "#ee7fa9", "#7b4a2c"),
    4: ("#ebe8ef", "#24202b", "#5b5566"),
    5: ("#e9e9f8", "#5646b8", "#2f7d3a"),
    6: ("#fbe8ee", "#c41c4e", "#2f7d3a"),
    7: ("#f8e6df", "#b3321f", "#6b3f22"),
    8: ("#f6e3d3", "#262320", "#d23a2a"),
    9: ("#fbf3d6", "#e0a000", "#2f7d3a"),
    10: ("#fde7d8", "#d9480f", "#6b3f22"),
    11: ("#ede6f1", "#6a4c8c", "#3d3350"),
    12: ("#dfe3e7", "#35584a", "#2b2f36"),
}

_RED = "#d62828"
_BLUE = "#1d5bbf"
_DARK = "#1f1d1a"
_CREAM = "#fbf4df"


def plant(month: int) -> str:
    """The month's plant, read from the card table (the name of its junk card)."""
    for c in C.MONTH_CARDS:
        if c.month == month and c.kind in (C.Kind.JUNK, C.Kind.DOUBLE_JUNK):
            return c.name.replace(" double junk", "").replace(" junk", "")
    raise ValueError(f"no month {month}")


# --- strokes for Hangul and 光 (a 10 x 10 box, stroked) --------------------------------------

_GLYPHS: dict[str, str] = {
    "홍": "M4.2 .7H5.8M2.6 1.9H7.4M5 4.3V5.4M1.2 5.6H8.8",
    "단": "M6.2 .9H1.6V4.3H6.2M8.2 .4V5.4M8.2 2.9H9.6M1.8 6.3V9.2H8.8",
    "청": "M2.3 .5H4M1 1.7H5.4M3.2 1.7 1.1 4.9M3.2 1.7 5.4 4.9M8.4 .4V5.5M6.6 2.9H8.4",
    "초": "M4.2 .5H5.8M2.3 1.6H7.7M5 1.6 2.3 4.7M5 1.6 7.7 4.7M5 5.5V7.3M.8 7.6H9.2",
    "光": "M5 .4V3.8M2.4 1.1 3.3 3M7.6 1.1 6.7 3M.9 4H9.1M3.9 4Q3.7 7.6 .9 9.4"
    "M6.2 4V8.3Q6.2 9.2 7.2 9.2H9.2V8",
}
# circles that complete a glyph (the ㅇ and the dot of ㅎ): cx, cy, r
_GLYPH_RINGS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "홍": ((5.0, 3.2, 0.95), (5.0, 8.1, 1.45)),
    "청": ((4.6, 8.0, 1.45),),
}


def _glyph(ch: str, x: float, y: float, size: float, colour: str, width: float = 1.25) -> str:
    """One glyph in a ``size`` box at (x, y), drawn as strokes."""
    k = size / 10
    rings = "".join(
        f'<circle cx="{cx}" cy="{cy}" r="{r}"/>' for cx, cy, r in _GLYPH_RINGS.get(ch, ())
    )
    return (
        f'<g transform="translate({x:g} {y:g}) scale({k:g})" fill="none" stroke="{colour}" '
        f'stroke-width="{width:g}" stroke-linecap="round" stroke-linejoin="round">'
        f'<path d="{_GLYPHS[ch]}"/>{rings}</g>'
    )


# --- small drawing helpers --------------------------------------------------------------------


def _blossom(cx: float, cy: float, r: float, colour: str, centre: str = "#f5d04c") -> str:
    petals = "".join(
        f'<circle cx="{cx + r * math.cos(a):.1f}" cy="{cy + r * math.sin(a):.1f}" '
        f'r="{r * 0.72:.1f}"/>'
        for a in (math.radians(-90 + 72 * i) for i in range(5))
    )
    heart = f'<circle cx="{cx}" cy="{cy}" r="{r * 0.45:.1f}" fill="{centre}"/>'
    return f'<g fill="{colour}">{petals}</g>{heart}'


def _bird(cx: float, cy: float, s: float, colour: str, flip: bool = False, beak: str = "") -> str:
    """A small bird in profile, facing right (left when ``flip``)."""
    t = f"translate({cx:g} {cy:g}) scale({-s if flip else s:g} {s:g})"
    b = f'<path d="M6 -1.2 9 -.3 6 .6Z" fill="{beak}"/>' if beak else ""
    return (
        f'<g transform="{t}" fill="{colour}">'
        '<ellipse cx="0" cy="0" rx="6" ry="3.6"/><circle cx="5" cy="-2.4" r="2.6"/>'
        '<path d="M-4 -1 -11 -4 -9 1 -4 2Z"/><path d="M-2 -1 3 -7 4 -1Z" opacity=".75"/>'
        f"{b}</g>"
    )


def _leaf(cx: float, cy: float, rx: float, ry: float, angle: float, colour: str) -> str:
    return (
        f'<ellipse cx="{cx:g}" cy="{cy:g}" rx="{rx:g}" ry="{ry:g}" fill="{colour}" '
        f'transform="rotate({angle:g} {cx:g} {cy:g})"/>'
    )


def _maple_leaf(cx: float, cy: float, r: float, colour: str, angle: float = 0) -> str:
    pts = []
    for i in range(10):
        a = math.radians(angle - 90 + 36 * i)
        rr = r if i % 2 == 0 else r * 0.45
        pts.append(f"{cx + rr * math.cos(a):.1f},{cy + rr * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="{colour}"/>'


def _flower(cx: float, cy: float, r: float, n: int, colour: str, centre: str) -> str:
    petals = "".join(
        _leaf(
            cx + r * 0.55 * math.cos(math.radians(i * 360 / n)),
            cy + r * 0.55 * math.sin(math.radians(i * 360 / n)),
            r * 0.5,
            r * 0.2,
            i * 360 / n,
            colour,
        )
        for i in range(n)
    )
    return petals + f'<circle cx="{cx:g}" cy="{cy:g}" r="{r * 0.25:g}" fill="{centre}"/>'


# --- each month's plant -----------------------------------------------------------------------


def _plant_art(month: int) -> str:
    _bg, p, a = _PALETTE[month]
    if month == 1:  # pine
        return (
            f'<path d="M6 68C12 56 14 44 26 34" stroke="{a}" stroke-width="4" fill="none"/>'
            f'<g fill="{p}"><ellipse cx="24" cy="34" rx="13" ry="5"/>'
            '<ellipse cx="14" cy="48" rx="11" ry="4.5"/><ellipse cx="36" cy="46" rx="10" ry="4"/>'
            '<ellipse cx="30" cy="60" rx="12" ry="4.5"/></g>'
        )
    if month in (2, 3):  # plum, cherry
        pos = ((14, 40, 4), (28, 30, 4.5), (38, 46, 3.8), (22, 56, 4), (40, 62, 3.4))
        return f'<path d="M4 66C16 56 22 44 44 24" stroke="{a}" stroke-width="3" fill="none"/>' + (
            "".join(_blossom(x, y, r, p) for x, y, r in pos)
        )
    if month in (4, 7):  # black and red bush clover: hanging sprays
        out = []
        for x0 in (10, 22, 34, 44):
            out.append(
                f'<path d="M{x0} 16C{x0 - 4} 32 {x0 + 4} 46 {x0 - 2} 64" stroke="{p}" '
                'stroke-width="1.4" fill="none"/>'
            )
            for k in range(4):
                y = 24 + k * 11
                out.append(_leaf(x0 - 2 + (k % 2) * 4, y, 3.2, 1.6, 60 if k % 2 else -60, p))
        return "".join(out)
    if month == 5:  # orchid (iris)
        blades = "".join(
            f'<path d="M{x} 68Q{x + d} 46 {x + 2 * d} 30" stroke="{a}" stroke-width="2" '
            'fill="none"/>'
            for x, d in ((10, 2), (18, 4), (30, -3), (40, -4))
        )
        return blades + _flower(16, 30, 12, 3, p, "#f5d04c") + _flower(36, 40, 10, 3, p, "#f5d04c")
    if month == 6:  # peony
        return (
            _leaf(12, 54, 9, 4, -30, a)
            + _leaf(38, 56, 9, 4, 30, a)
            + f'<circle cx="25" cy="40" r="13" fill="{p}"/>'
            + '<circle cx="25" cy="40" r="8.5" fill="#e8567e"/>'
            + '<circle cx="25" cy="40" r="4" fill="#f5d04c"/>'
        )
    if month == 8:  # pampas grass: the black hill under a red sky
        return (
            f'<rect x="0" y="16" width="50" height="30" fill="{a}" opacity=".85"/>'
            f'<path d="M0 46C10 30 40 30 50 46V68H0Z" fill="{p}"/>'
            '<g stroke="#f2e6cf" stroke-width="1" fill="none">'
            '<path d="M8 66 12 44M16 66 18 40M26 66 25 38M34 66 32 40M42 66 38 44"/></g>'
        )
    if month == 9:  # chrysanthemum
        return (
            _leaf(14, 58, 8, 3.5, -35, a)
            + _leaf(36, 60, 8, 3.5, 35, a)
            + _flower(25, 40, 22, 14, p, "#a86b00")
        )
    if month == 10:  # maple
        return (
            f'<path d="M4 66C18 50 30 40 46 20" stroke="{a}" stroke-width="2" fill="none"/>'
            + _maple_leaf(14, 30, 9, p, 10)
            + _maple_leaf(34, 38, 10, p, -12)
            + _maple_leaf(20, 56, 8, "#e8590c", 20)
            + _maple_leaf(40, 60, 7, p)
        )
    if month == 11:  # paulownia
        return (
            f'<g fill="{a}"><ellipse cx="14" cy="54" rx="12" ry="9"/>'
            '<ellipse cx="36" cy="56" rx="12" ry="9"/></g>'
            f'<g fill="{p}"><circle cx="25" cy="24" r="4"/><circle cx="18" cy="30" r="3.5"/>'
            '<circle cx="32" cy="30" r="3.5"/><circle cx="25" cy="34" r="3.5"/></g>'
            '<path d="M25 36V46" stroke="#3d3350" stroke-width="1.5"/>'
        )
    # 12: rain and willow
    return (
        '<rect x="0" y="16" width="50" height="52" fill="#5d6873" opacity=".35"/>'
        + "".join(
            f'<path d="M{x} 16C{x + 3} 30 {x - 3} 44 {x + 2} 58" stroke="{p}" '
            'stroke-width="1.6" fill="none"/>'
            for x in (8, 18, 30, 42)
        )
        + '<g stroke="#8aa0b4" stroke-width=".7"><path d="M6 20 2 30M26 18 22 28M46 22 42 32"/>'
        '<path d="M14 40 10 50M38 42 34 52"/></g>'
    )


# --- what makes a card what it is -------------------------------------------------------------


# Long: one drawing per bright and animal card: data more than logic.
def _subject(code: str) -> str:
    """The picture of a bright or an animal, drawn over the plant."""
    if code == "01G":  # crane and sun
        return (
            '<circle cx="34" cy="30" r="9" fill="#e03131"/>'
            '<g fill="#fff" stroke="#222" stroke-width=".8">'
            '<ellipse cx="22" cy="50" rx="9" ry="5"/>'
            '<path d="M28 48Q34 40 30 34" fill="none" stroke-width="1.6"/></g>'
            '<circle cx="30" cy="34" r="1.6" fill="#e03131"/>'
            '<path d="M18 54 16 64M24 54 24 64" stroke="#222" stroke-width="1"/>'
        )
    if code == "03G":  # the curtain
        stripes = "".join(
            f'<rect x="{6 + 8 * i}" y="38" width="8" height="22" '
            f'fill="{_RED if i % 2 else "#fff"}"/>'
            for i in range(5)
        )
        return stripes + '<rect x="6" y="36" width="40" height="3" fill="#7b4a2c"/>'
    if code == "08G":  # full moon
        return '<circle cx="25" cy="30" r="11" fill="#fff8e1" stroke="#e0c36a" stroke-width="1"/>'
    if code == "11G":  # phoenix
        return (
            '<path d="M10 62Q16 40 30 38Q42 36 44 24" stroke="#2f9e44" stroke-width="4" '
            'fill="none"/>'
            '<path d="M10 62Q22 56 26 44" stroke="#f59f00" stroke-width="3" fill="none"/>'
            + _bird(30, 38, 1.15, "#c92a2a", beak="#f5d04c")
        )
    if code == "12G":  # the man with the umbrella
        return (
            f'<path d="M10 36A14 12 0 0 1 38 36Z" fill="{_RED}"/>'
            '<path d="M24 36V44" stroke="#222" stroke-width="1.2"/>'
            f'<circle cx="22" cy="44" r="3.6" fill="{_DARK}"/>'
            f'<path d="M16 64 18 48H27L30 64Z" fill="{_DARK}"/>'
            '<ellipse cx="38" cy="62" rx="4" ry="2.6" fill="#2f9e44"/>'
        )
    if code == "02A":
        return _bird(26, 44, 1.25, "#6b7d16", beak="#d9a400")
    if code == "04A":
        return '<path d="M34 24A7 7 0 1 0 40 34A5.5 5.5 0 1 1 34 24Z" fill="#f5d04c"/>' + _bird(
            22, 46, 1.25, "#3b3b4f", flip=True, beak="#d9a400"
        )
    if code == "05A":  # the bridge
        return (
            f'<path d="M2 56 14 46 26 56 38 46 50 56" stroke="{_DARK}" stroke-width="4" '
            'fill="none"/>'
            '<path d="M2 62H50" stroke="#7b4a2c" stroke-width="3"/>'
        )
    if code == "06A":  # butterflies
        return "".join(
            f'<g transform="translate({x} {y}) scale({s})" fill="{_DARK}">'
            '<ellipse cx="-4" cy="-3" rx="4" ry="3.2"/><ellipse cx="4" cy="-3" rx="4" ry="3.2"/>'
            '<ellipse cx="-3" cy="3" rx="2.8" ry="2.2"/><ellipse cx="3" cy="3" rx="2.8" ry="2.2"/>'
            '<rect x="-.6" y="-4" width="1.2" height="8"/></g>'
            for x, y, s in ((16, 24, 1.1), (38, 58, 0.9))
        )
    if code == "07A":  # the boar
        return (
            '<g fill="#5a3a1e"><ellipse cx="24" cy="52" rx="13" ry="7"/>'
            '<path d="M34 48 44 50 42 56 34 56Z"/>'
            '<rect x="14" y="56" width="3" height="8"/>'
            '<rect x="30" y="56" width="3" height="8"/></g>'
            '<circle cx="39" cy="50" r="1" fill="#fff"/>'
        )
    if code == "08A":  # three geese
        return "".join(_bird(x, y, 0.8, _DARK) for x, y in ((14, 24), (26, 30), (38, 24)))
    if code == "09A":  # the sake cup
        return (
            '<path d="M12 44H38L33 58H17Z" fill="#c92a2a" stroke="#f5d04c" stroke-width="1.4"/>'
            '<ellipse cx="25" cy="44" rx="13" ry="3" fill="#e03131" stroke="#f5d04c"/>'
            '<rect x="21" y="58" width="8" height="4" fill="#f5d04c"/>'
        )
    if code == "10A":  # the deer
        return (
            '<g fill="#8a5a2b"><ellipse cx="22" cy="50" rx="11" ry="6"/>'
            '<path d="M30 46 36 36 40 38 34 50Z"/>'
            '<rect x="14" y="54" width="2.6" height="10"/>'
            '<rect x="27" y="54" width="2.6" height="10"/></g>'
            '<path d="M37 36 34 28M37 36 42 29M35 31 31 30M40 31 44 33" stroke="#5a3a1e" '
            'stroke-width="1.2" fill="none"/>'
        )
    if code == "12A":  # the swallow
        return (
            f'<g fill="{_DARK}"><path d="M10 30 26 38 20 40Z"/><path d="M26 38 44 26 36 40Z"/>'
            '<ellipse cx="26" cy="41" rx="6" ry="3"/>'
            '<path d="M22 42 14 52 22 46 20 54 26 44Z"/></g>'
            '<circle cx="31" cy="40" r="1.2" fill="#e03131"/>'
        )
    return ""


def _ribbon(card: C.Card) -> str:
    """A ribbon across the card, coloured by its set, with the set's Hangul."""
    shape = "M13 20Q19 19 25 20L23 62Q17 63 11 62Z"
    if card.ribbon_set is C.RibbonSet.HONGDAN:  # red with a cream poem panel
        return (
            f'<path d="{shape}" fill="{_RED}" stroke="#7a1010" stroke-width=".8"/>'
            f'<rect x="13.4" y="25" width="9.6" height="22" rx="1.2" fill="{_CREAM}"/>'
            + _glyph("홍", 13.9, 26.2, 8.6, _DARK, 1.4)
            + _glyph("단", 13.9, 36.6, 8.6, _DARK, 1.4)
        )
    if card.ribbon_set is C.RibbonSet.CHEONGDAN:
        colour, text = _BLUE, "청"
    elif card.ribbon_set is C.RibbonSet.CHODAN:
        colour, text = _RED, "초"
    else:  # the rain ribbon: no set, striped
        return (
            f'<path d="{shape}" fill="{_RED}" stroke="#7a1010" stroke-width=".8"/>'
            '<path d="M12 30 25 26M12 40 24 36M11 50 24 46M11 58 23 55" stroke="#1f1d1a" '
            'stroke-width="2.2"/>'
        )
    return (
        f'<path d="{shape}" fill="{colour}" stroke="#0b1f44" stroke-width=".6"/>'
        + _glyph(text, 13.6, 26, 9, "#fff", 1.5)
        + _glyph("단", 13.4, 37, 9, "#fff", 1.5)
    )


def _kind_mark(card: C.Card) -> str:
    """The corner mark: the red 光 disc of a bright, the ×2 badge of double junk."""
    if card.kind is C.Kind.BRIGHT:
        return (
            '<g class="mark-bright">'
            '<circle cx="39" cy="11" r="8.6" fill="#e03131" stroke="#fff" stroke-width="1.2"/>'
            + _glyph("光", 34.3, 6.2, 9.4, "#fff", 1.55)
            + "</g>"
        )
    if card.kind is C.Kind.DOUBLE_JUNK:
        return (
            f'<g class="mark-double"><rect x="30" y="3" width="17" height="13" rx="3" '
            f'fill="{_DARK}" stroke="#f5d04c" '
            'stroke-width="1"/>'
            '<text x="38.5" y="13.6" font-size="10" font-weight="700" fill="#f5d04c" '
            'text-anchor="middle">×2</text></g>'
        )
    return ""


def _double_junk_art(card: C.Card) -> str:
    if card.code == "12D":  # the lightning and drum of December
        return (
            '<rect x="0" y="16" width="50" height="52" fill="#2b2f36"/>'
            '<path d="M30 18 18 40H28L16 66" stroke="#f5d04c" stroke-width="2.6" fill="none"/>'
            '<circle cx="36" cy="52" r="7" fill="#c92a2a" stroke="#f5d04c" stroke-width="1"/>'
        )
    return ""


_FONT = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif"'


def _frame(bg: str, inner: str, corner: str, code: str, name: str) -> str:
    """The card face around a drawing: rounded edge, numeral, name and code bands."""
    return (
        f'<rect x=".5" y=".5" width="49" height="79" rx="4.5" fill="{bg}" stroke="{_DARK}"/>'
        f'<clipPath id="clip-{code}"><rect x="1.5" y="16" width="47" height="52"/></clipPath>'
        f'<g clip-path="url(#clip-{code})">{inner}</g>'
        f"<g {_FONT}>"
        f'<text x="3.2" y="14" font-size="14.5" font-weight="700" fill="{_DARK}" stroke="#fff" '
        f'stroke-width="2.4" paint-order="stroke">{escape(corner)}</text>'
        + '<rect x="1" y="68" width="48" height="11" rx="3" fill="#fff" opacity=".92"/>'
        f'<text x="3" y="76.6" font-size="6" fill="#555">{escape(name)}</text>'
        f'<text x="47" y="77.4" font-size="9.6" font-weight="700" fill="{_DARK}" '
        f'text-anchor="end">{escape(code)}</text></g>'
    )


def _face(card: C.Card) -> str:
    if card.kind is C.Kind.BONUS:
        units = str(card.junk_units)
        return (
            '<rect x=".5" y=".5" width="49" height="79" rx="4.5" fill="#f7d774" stroke="#7a5600"/>'
            '<rect x="4" y="4" width="42" height="62" rx="3" fill="none" stroke="#b07d00" '
            'stroke-dasharray="2 1.5"/>' + _maple_leaf(25, 24, 9, "#e8590c") + f"<g {_FONT}>"
            '<text class="mark-bonus" x="25" y="52" font-size="20" font-weight="700" '
            f'fill="#7a1010" text-anchor="middle">+{units}</text>'
            '<text x="25" y="62" font-size="6.4" fill="#5a3a00" text-anchor="middle">BONUS</text>'
            '<rect x="1" y="68" width="48" height="11" rx="3" fill="#fff" opacity=".92"/>'
            f'<text x="47" y="77.4" font-size="9.6" font-weight="700" fill="{_DARK}" '
            f'text-anchor="end">{card.code}</text></g>'
        )
    bg = _PALETTE[card.month][0]
    inner = _plant_art(card.month) + _double_junk_art(card)
    if card.kind is C.Kind.RIBBON:
        kind = card.ribbon_set.value if card.ribbon_set else "plain"
        inner += f'<g class="mark-ribbon ribbon-{kind}">{_ribbon(card)}</g>'
    elif card.kind is C.Kind.ANIMAL:
        inner += f'<g class="mark-animal">{_subject(card.code)}</g>'
    else:
        inner += _subject(card.code)
    name = MONTH_NAMES[card.month][:3].upper()
    return _frame(bg, inner, str(card.month), card.code, name) + _kind_mark(card)


def _back() -> str:
    diamonds = "".join(
        f'<path d="M{x} {y - 4}L{x + 4} {y}L{x} {y + 4}L{x - 4} {y}Z"/>'
        for y in range(12, 72, 10)
        for x in range(11 + (y // 10 % 2) * 5, 42, 10)
    )
    return (
        '<rect x=".5" y=".5" width="49" height="79" rx="4.5" fill="#b3202a" stroke="#4a0b10"/>'
        '<rect x="4" y="4" width="42" height="72" rx="3" fill="#8f1820"/>'
        f'<g fill="#c9323c">{diamonds}</g>'
        '<circle cx="25" cy="40" r="8" fill="#8f1820" stroke="#e8b04a" stroke-width="1.4"/>'
    )


# --- the public drawings ----------------------------------------------------------------------


def symbol_id(code: str) -> str:
    """The id of a card's ``<symbol>`` in :func:`sprite` (``card-01G``)."""
    return f"card-{code}"


@lru_cache(maxsize=64)
def _face_of(code: str) -> str:
    return _back() if code == "back" else _face(C.card(code))


def label(code: str) -> str:
    """A short text for a card, for screen readers and tooltips:
    ``01G January, bright: pine, crane and sun``."""
    if code == "back":
        return "a card face down"
    card = C.card(code)
    if card.kind is C.Kind.BONUS:
        return f"{card.code} {card.name}"
    kind = {
        C.Kind.BRIGHT: "bright",
        C.Kind.ANIMAL: "animal",
        C.Kind.RIBBON: "ribbon",
        C.Kind.JUNK: "junk",
        C.Kind.DOUBLE_JUNK: "double junk",
    }[card.kind]
    extra = f" ({card.ribbon_set.value})" if card.ribbon_set else ""
    what = card.name if card.kind not in (C.Kind.JUNK, C.Kind.DOUBLE_JUNK) else plant(card.month)
    return f"{card.code} {MONTH_NAMES[card.month]}, {kind}{extra}: {what}"


def labels() -> dict[str, str]:
    """Every card's :func:`label`, by code (the back under ``back``)."""
    return {c.code: label(c.code) for c in C.ALL_CARDS} | {"back": label("back")}


def card_svg(code: str, width: int | None = None) -> str:
    """A standalone SVG document of one card (``back`` for the card back)."""
    size = f' width="{width}" height="{width * HEIGHT // WIDTH}"' if width else ""
    text = escape(label(code))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{VIEWBOX}"{size} role="img" '
        f'aria-label="{text}"><title>{text}</title>{_face_of(code)}</svg>'
    )


def back_svg(width: int | None = None) -> str:
    """The card back: a card whose face the record does not know."""
    return card_svg("back", width)


@lru_cache(maxsize=1)
def sprite() -> str:
    """One hidden ``<svg>`` holding every card (and the back) as a ``<symbol>``, to put once
    in a page; each card is then ``<svg><use href="#card-01G"/></svg>`` (:func:`use_svg`)."""
    symbols = "".join(
        f'<symbol id="{symbol_id(code)}" viewBox="{VIEWBOX}">{_face_of(code)}</symbol>'
        for code in [*(c.code for c in C.ALL_CARDS), "back"]
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" aria-hidden="true" '
        f'class="sprite">{symbols}</svg>'
    )


def use_svg(code: str, cls: str = "card") -> str:
    """A card in a page that holds :func:`sprite`: a small ``<svg>`` with its label."""
    text = escape(label(code))
    return (
        f'<svg class="{cls}" viewBox="{VIEWBOX}" role="img" aria-label="{text}">'
        f'<use href="#{symbol_id(code)}"/></svg>'
    )
