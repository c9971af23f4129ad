"""The pages people use at a table: the games of the store (``/``), the recorder
(``/games/{id}/record``) and the live table (``/games/{id}``).

Each page is a shell drawn by a template, with the card drawings, its styles and its
hand-written script inline; the table itself comes from the API (``GET
/api/games/{id}/now``, the SSE stream), so the page and ``gostop`` agree by construction
and nothing is fetched from anywhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import segno
from markupsafe import Markup

from .. import cards as C
from .. import events as E
from ..rules import PRESETS
from . import cards as W
from .pages import TABLE_CSS, _env, _script_json, _static, page_policy, style

__all__ = ["index_page", "live_page", "qr_svg", "recorder_page"]


#: The recorder's scripts, in the order they load (they share the page's global scope).
RECORDER_JS = (
    "recorder_state.js",
    "recorder_queue.js",
    "recorder_taps.js",
    "recorder_panels.js",
    "recorder.js",
)


def table_page(
    template: str,
    scripts: Sequence[str],
    data: dict[str, Any],
    css: Sequence[str] = TABLE_CSS,
    **extra: Any,
) -> str:
    """A felt page of ``template``: the table's script, the proof's and ``scripts`` after
    them, the style of ``css``, the card labels and ``data`` for its scripts."""
    own = [_static(s) for s in scripts]
    sheet = style(css)
    return (
        _env()
        .get_template(template)
        .render(
            css=Markup(sheet),
            table_js=Markup(_static("table.js")),
            proof_js=Markup(_static("proof.js")),
            scripts=[Markup(s) for s in own],
            csp=page_policy(
                [_static("table.js"), _static("proof.js"), *own], [sheet], connect=True
            ),
            sprite=Markup(W.sprite()),
            data=Markup(_script_json({"labels": W.labels(), **data})),
            **extra,
        )
    )


def recorder_page(game_id: str) -> str:
    """The recorder of a game (its token comes in the address's fragment)."""
    deck = [c.code for c in C.ALL_CARDS]
    data = {"game_id": game_id, "deck": deck, "inputs": sorted(E.INPUT_TYPES)}
    return table_page("recorder.html", RECORDER_JS, data, game_id=game_id)


def live_page(game_id: str) -> str:
    """The live table of a game, redrawn from its event stream."""
    data = {"game_id": game_id}
    return table_page("live.html", ("live.js",), data, game_id=game_id)


def index_page() -> str:
    """The games of the store and the form that starts one."""
    presets = [(name, r.description) for name, r in PRESETS.items()]
    return table_page("index.html", ("index.js",), {"game_id": None}, presets=presets)


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as an inline SVG element (no XML declaration)."""
    qr = segno.make(text, error="m")
    return str(qr.svg_inline(border=2, dark="#10311f", light="#ffffff", omitsize=True))
