"""Pages for reading the store: the game browser (``/games``), the players (``/players``,
``/players/{id}``), a game's audit (``/games/{id}/audit``) and the club's report
(``gostop db report --html``).

Pages are drawn by the server from the store's views and the audit's result, with their
styles and charts (SVG) inline and no script: they work offline, print, and the report is
one file. The figures come from :mod:`gostop_records.store.browse`, the words of a
finding from :mod:`gostop_records.audit`; nothing here computes a rule.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from markupsafe import Markup

from .. import events as E
from ..engine import rulebook as RB
from ..proof_view import proof_html
from ..store.browse import (
    OUTCOMES,
    HandFilter,
    HandsPage,
    PlayerFigures,
    player_figures,
    players,
    require_views,
)
from ..store.schema import FLAG_IDS, SPECIAL_KINDS
from . import charts
from .pages import BROWSE_CSS, _env, page_policy, style, write_page

if TYPE_CHECKING:
    import duckdb

    from ..review.store import PlayerLuck
    from ..store import Store

__all__ = [
    "audit_page",
    "games_page",
    "player_page",
    "players_page",
    "report_page",
    "write_report_html",
]

#: How each payout flag is named on a page (the rulebook's words).
FLAG_NAMES = {m.id: m.name for m in RB.MULTIPLIERS if m.column}


def _render(template: str, **values: Any) -> str:
    return (
        _env()
        .get_template(template)
        .render(
            css=Markup(style(BROWSE_CSS)),
            csp=page_policy(styles=[style(BROWSE_CSS)]),
            q=quote,
            **values,
        )
    )


def _chips(v: Any) -> str:
    return "" if v is None else f"{int(v):+,}" if v else "0"


def games_page(
    page: HandsPage | None,
    flt: HandFilter,
    error: str | None = None,
    *,
    form: dict[str, str] | None = None,
    choices: Sequence[str] = (),
) -> str:
    """The browser: the filter form, one page of hands, links to the pages around it. A
    refused filter comes back with ``error`` and the ``form`` as it was sent."""
    hands = []
    for h in page.hands if page else []:
        names = h["player_names"] or []
        ids = h["player_ids"] or []
        hands.append(
            {
                **h,
                "players": list(zip(ids, names, strict=False)),
                "winner_name": names[h["winner"]]
                if h["winner"] is not None and h["winner"] < len(names)
                else None,
            }
        )
    links = {}
    if page is not None:
        if flt.page > 1:
            links["first"] = urlencode(flt.query(page=1))
            links["prev"] = urlencode(flt.query(page=flt.page - 1))
        if flt.page < page.pages:
            links["next"] = urlencode(flt.query(page=flt.page + 1))
            links["last"] = urlencode(flt.query(page=page.pages))
    return _render(
        "games.html",
        form=form if form is not None else flt.query(),
        rulesets=page.rulesets if page is not None else list(choices),
        f=flt,
        page=page,
        hands=hands,
        links=links,
        outcomes=OUTCOMES,
        error=error,
        chips=_chips,
    )


def players_page(rows: Sequence[dict[str, Any]]) -> str:
    """Every player of the store with their totals (``v_player_stats``)."""
    return _render("players.html", players=rows, chips=_chips)


def _player_context(fig: PlayerFigures) -> dict[str, Any]:
    s = fig.stats
    specials = [(k, s[f"{k}_made"], s[f"{k}_suffered"]) for k in SPECIAL_KINDS]
    baks = [(FLAG_NAMES.get(b, b), s[f"{b}_paid"], s[f"{b}_received"]) for b in FLAG_IDS]
    gos = [(str(g["score"]), int(g["gos"]), int(g["paid_off"])) for g in fig.gos_by_score]
    return {
        "s": s,
        "specials": specials,
        "baks": baks,
        "gos": fig.gos_by_score,
        "recent": fig.recent,
        "chart_chips": Markup(
            charts.line(fig.chips_series, f"{s['player_name']}: chips over time", "hands played")
        ),
        "chart_gos": Markup(
            charts.bars(
                gos,
                f"{s['player_name']}: Go outcomes by the score called at",
                ("called", "paid off"),
                "score at the Go",
            )
        ),
        "chart_payouts": Markup(
            charts.histogram(
                fig.payouts, f"{s['player_name']}: hands by net chips", "net chips of a hand"
            )
        ),
    }


def player_page(fig: PlayerFigures, luck: PlayerLuck | None = None) -> str:
    """A player's figures and charts, and the luck line over the hands a stored review
    covers (:func:`~gostop_records.review.store.player_luck`)."""
    return _render("player.html", chips=_chips, luck=luck, **_player_context(fig))


# --- the audit page ------------------------------------------------------------------------


def _hand_ends(envelopes: Sequence[E.Envelope]) -> dict[int, int]:
    """The seq that ends each hand (its ``hand_ended``, else its last event)."""
    out: dict[int, int] = {}
    for env in envelopes:
        if env.hand is None:
            continue
        if env.type == "hand_ended" or env.hand not in out or out[env.hand] < 0:
            out[env.hand] = env.seq if env.type == "hand_ended" else -env.seq
    return {h: abs(s) for h, s in out.items()}


def audit_page(game_id: str, envelopes: Sequence[E.Envelope], *, lenient: bool = True) -> str:
    """The audit of a game as a page: the record's integrity (chain, seal, signatures,
    violations), then each hand's proof and its payments beside what is due, with the
    explanations in the audit's order (one the table's note names first, and marked) and
    links into the replayer."""
    from ..audit import audit_game
    from ..audit.render import AS_NOTED, TABLE_NOTED
    from ..integrity.seals import seal_of

    audit = audit_game(envelopes, lenient=lenient)
    result = audit.to_dict()
    names = [audit.seat_label(s) for s in range(len(audit.seats))]
    # each proof as the one HTML rendering of it (its text escaped there)
    proofs = {h.hand: Markup(proof_html(h.proof, names)) for h in audit.hands if h.proof}
    seal = seal_of(envelopes)
    seats = {s["seat"]: s for s in result["seats"]}
    return _render(
        "audit.html",
        a=result,
        proofs=proofs,
        game_id=game_id,
        seal=seal,
        seats=seats,
        ends=_hand_ends(envelopes),
        events=len(envelopes),
        chips=_chips,
        table_noted=TABLE_NOTED,
        as_noted=AS_NOTED,
    )


# --- the club's report ---------------------------------------------------------------------


def report_page(conn: duckdb.DuckDBPyConnection, *, title: str = "Club report") -> str:
    """The club's report: every player's totals and charts, the hands by month and ruleset,
    the disputed payments; one self-contained page."""
    require_views(conn)
    rows = players(conn)
    figs = [f for f in (player_figures(conn, r["player_id"]) for r in rows) if f is not None]
    summary = conn.execute(
        "SELECT count(DISTINCT game_id), count(*), count(*) FILTER (WHERE ended), "
        "min(date), max(date) FROM hands"
    ).fetchall()[0]
    by_month = conn.execute(
        "SELECT strftime(date, '%Y-%m') AS month, ruleset, count(*) AS hands "
        "FROM hands WHERE date IS NOT NULL GROUP BY ALL ORDER BY month, ruleset"
    ).fetchall()
    disputes = conn.execute(
        "SELECT game_id, hand, payer_name, payee_name, computed_chips, recorded_chips, "
        "difference FROM v_payout_disputes ORDER BY game_id, hand LIMIT 200"
    ).fetchall()
    return _render(
        "report.html",
        title=title,
        made=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        games=summary[0],
        hands=summary[1],
        ended=summary[2],
        first=summary[3],
        last=summary[4],
        by_month=by_month,
        disputes=disputes,
        players=rows,
        figures=[_player_context(f) for f in figs],
        chips=_chips,
    )


def write_report_html(store: Store, path: str | os.PathLike[str]) -> int:
    """Write the club's report to ``path`` whole or not at all; the bytes written."""
    return write_page(path, report_page(store.conn))
