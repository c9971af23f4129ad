"""Whole pages: the replayer of a game, as one self-contained HTML document.

The same document serves ``/games/{id}/replay`` on ``gostop serve`` and the file that
``gostop replay --html`` writes: its styles, script, card drawings and the game's data are
all inside it (a Content-Security-Policy forbids anything else), so it opens from the disk
with no network and can be attached to a message in a dispute.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from .. import events as E
from ..atomic import written_whole
from . import cards as W
from . import replay_data as R

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["STYLES", "replay_page", "replay_page_for", "style", "write_replay_html"]


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("gostop_records.web", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )


@lru_cache(maxsize=16)
def _static(name: str) -> str:
    return resources.files("gostop_records.web").joinpath("static", name).read_text("utf-8")


#: The inline style of each kind of page, as the static files it joins: the felt pages
#: start from ``felt.css`` (their colours and base), the reading pages have their own.
TABLE_CSS = ("felt.css", "table.css")
PLAY_CSS = (*TABLE_CSS, "play.css")
REPLAY_CSS = ("felt.css", "replay.css")
REVIEW_CSS = ("review.css",)
BROWSE_CSS = ("browse.css",)
#: Every inline style a page holds (the service's policy allows each by hash).
STYLES = (TABLE_CSS, PLAY_CSS, REPLAY_CSS, REVIEW_CSS, BROWSE_CSS)


def style(names: Sequence[str]) -> str:
    """The text of an inline style: the static files ``names`` joined."""
    return "".join(_static(n) for n in names)


def source_hash(text: str) -> str:
    """The CSP source of an inline script or style: ``'sha256-...'`` of its text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def page_policy(
    scripts: Sequence[str] = (), styles: Sequence[str] = (), *, connect: bool = False
) -> str:
    """The Content-Security-Policy a page states in its ``<meta>``: its own inline
    ``scripts`` and ``styles`` (their texts, allowed by hash), images from ``data:``, and,
    with ``connect``, requests to the server that served it. The page works as a file too;
    a server adds its own policy in a header (``frame-ancestors`` works only there)."""
    parts = ["default-src 'none'"]
    if scripts:
        parts.append("script-src " + " ".join(source_hash(t) for t in scripts))
    if styles:
        parts.append("style-src " + " ".join(source_hash(t) for t in styles))
    parts += ["img-src data:", "base-uri 'none'", "form-action 'self'"]
    if connect:
        parts.append("connect-src 'self'")
    return "; ".join(parts)


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``</`` can close it early."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def replay_page(
    game_id: str,
    envelopes: Sequence[E.Envelope],
    *,
    start: int | None = None,
    review: dict[str, Any] | None = None,
) -> str:
    """The replayer page of one game's events; it opens at seq ``start`` (default: the last
    event) unless its address names a seq (``#seq=N``). With ``review`` (the data of
    :func:`~.review_page.review_data`), the review is drawn over it: each decision marked on
    the timeline and the events, and at a decision its options (``review.js``)."""
    data = R.build(game_id, envelopes)
    data["start"] = start
    data["review"] = review
    scripts = [_static("proof.js"), _static("replay.js")]
    styles = [style(REPLAY_CSS)]
    if review is not None:
        scripts.append(_static("review.js"))
        styles.append(style(REVIEW_CSS))
    players = ", ".join(f"{p['name']} (seat {p['seat']})" for p in data["players"])
    violations = [x for x in data["issues"] if x["severity"] == "violation"]
    problems = ""
    if violations:
        first = violations[0]
        problems = (
            f"{len(violations)} disagreement(s) with the rules; first at seq {first['seq']}: "
            f"{first['reason']}"
        )
    if data["replayed"] < data["events_total"]:
        problems += f" (replayed {data['replayed']} of {data['events_total']} events)"
    return (
        _env()
        .get_template("replay.html")
        .render(
            title="Review" if review is not None else "Replay",
            review=review,
            game_id=game_id,
            ruleset=data["ruleset"] or "?",
            players=players,
            stake=data["stake"],
            events=data["events_total"],
            head=data["head"],
            seal=data["seal"],
            problems=problems.strip(),
            styles=[Markup(t) for t in styles],
            scripts=[Markup(t) for t in scripts],
            csp=page_policy(scripts, styles),
            sprite=Markup(W.sprite()),
            data=Markup(_script_json(data)),
        )
    )


def replay_page_for(store: Store, game_id: str) -> str:
    """The replayer page of a game of the store; :class:`~gostop_records.errors.GameNotFound`
    when the store has no such game (a 404 for the service)."""
    from ..games import load_game

    gid, envs = load_game(store=store, game=game_id, exact=False)
    return replay_page(gid, envs)


def write_replay_html(
    path: str | os.PathLike[str],
    game_id: str,
    envelopes: Sequence[E.Envelope],
    *,
    start: int | None = None,
) -> int:
    """Write the replayer page to ``path``, whole or not at all (``PATH.part`` renamed over
    it); returns the bytes written."""
    return write_page(path, replay_page(game_id, envelopes, start=start))


def write_page(path: str | os.PathLike[str], page: str) -> int:
    """Write a self-contained page to ``path`` whole or not at all (``PATH.part`` renamed
    over it); returns the bytes written."""
    body = page.encode("utf-8")
    with written_whole(path) as tmp:
        tmp.write_bytes(body)
    return len(body)
