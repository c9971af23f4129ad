"""The pages people use at a table: the games of the store (``/``), the recorder
(``/games/{id}/record``) and the live table (``/games/{id}``).

Each page is a shell drawn by a template, with the card drawings, its styles and its
hand-written script inline; the table itself comes from the API (``GET
/api/games/{id}/now``, the SSE stream), so the page and ``gostop`` agree by construction
and nothing is fetched from anywhere else.
"""

from __future__ import annotations

from typing import Any

import segno
from markupsafe import Markup

from .. import cards as C
from .. import events as E
from ..rules import PRESETS
from . import cards as W
from .pages import _env, _script_json, _static, page_policy

__all__ = ["index_page", "live_page", "qr_svg", "recorder_page"]


#: The recorder's scripts, in the order they load (they share the page's global scope).
RECORDER_JS = (
    "recorder_state.js",
    "recorder_queue.js",
    "recorder_taps.js",
    "recorder_panels.js",
    "recorder.js",
)


def _render(template: str, scripts: tuple[str, ...], data: dict[str, Any], **extra: Any) -> str:
    """A page of ``template`` with the table's script, the proof's and ``scripts`` after them."""
    own = [_static(s) for s in scripts]
    return (
        _env()
        .get_template(template)
        .render(
            css=Markup(_static("table.css")),
            table_js=Markup(_static("table.js")),
            proof_js=Markup(_static("proof.js")),
            scripts=[Markup(s) for s in own],
            csp=page_policy(
                [_static("table.js"), _static("proof.js"), *own],
                [_static("table.css")],
                connect=True,
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
    return _render("recorder.html", RECORDER_JS, data, game_id=game_id)


def live_page(game_id: str) -> str:
    """The live table of a game, redrawn from its event stream."""
    data = {"game_id": game_id}
    return _render("live.html", ("live.js",), data, game_id=game_id)


def index_page() -> str:
    """The games of the store and the form that starts one."""
    presets = [(name, r.description) for name, r in PRESETS.items()]
    return _render("index.html", ("index.js",), {"game_id": None}, presets=presets)


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as an inline SVG element (no XML declaration)."""
    qr = segno.make(text, error="m")
    return str(qr.svg_inline(border=2, dark="#10311f", light="#ffffff", omitsize=True))
