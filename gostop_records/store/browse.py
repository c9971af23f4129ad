"""Reading the store for people: the hands of the game browser, a page at a time, and a
player's figures from the player views (``v_player_stats``, ``v_player_gos``,
``v_player_hands``), so that a page and ``gostop db query`` give the same numbers.

Every filter is checked here and refused with a :class:`BrowseError` naming the field and
why; the queries read only the projection tables and views, newest hand first.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from .. import events as E
from ..errors import GostopError
from .errors import StoreError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "OUTCOMES",
    "PAGE_SIZE",
    "BrowseError",
    "HandFilter",
    "HandsPage",
    "PlayerFigures",
    "hands_page",
    "player_figures",
    "players",
    "require_views",
    "rulesets",
]

#: How a hand may end (``hands.outcome``).
OUTCOMES: tuple[str, ...] = get_args(E.HandOutcome)
#: Hands per page of the browser, and the most a page may ask for.
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
#: Points of the chips-over-time line at most (a long career is sampled evenly).
SERIES_POINTS = 240


class BrowseError(GostopError):
    """A filter that cannot be used: ``field`` names it, the message says why."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name


def _date(name: str, value: str | None) -> dt.date | None:
    if value is None or not value.strip():
        return None
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise BrowseError(name, f"{value!r} is not a date: give YYYY-MM-DD") from None


def _int(name: str, value: str | None, default: int, low: int, high: int | None) -> int:
    if value is None or not value.strip():
        return default
    try:
        n = int(value.strip())
    except ValueError:
        raise BrowseError(name, f"{value!r} is not a whole number") from None
    if n < low or (high is not None and n > high):
        span = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise BrowseError(name, f"{n} is out of range: give {span}")
    return n


@dataclass(frozen=True, slots=True)
class HandFilter:
    """Which hands to show: a player (id or name, any case), started on or between dates,
    a ruleset, an outcome, only hands whose recorded payments differ from the computed."""

    player: str | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    ruleset: str | None = None
    outcome: str | None = None
    disputed: bool = False
    page: int = 1
    per_page: int = PAGE_SIZE

    @classmethod
    def parse(cls, query: Mapping[str, str | None]) -> HandFilter:
        """The filter of a query string (``player``, ``from``, ``to``, ``ruleset``,
        ``outcome``, ``disputed``, ``page``, ``per_page``); unknown keys are refused."""
        known = {"player", "from", "to", "ruleset", "outcome", "disputed", "page", "per_page"}
        extra = sorted(set(query) - known)
        if extra:
            raise BrowseError(extra[0], f"unknown filter; use {', '.join(sorted(known))}")

        def text(key: str) -> str | None:
            value = query.get(key)
            return value.strip() or None if value is not None else None

        outcome = text("outcome")
        if outcome is not None and outcome not in OUTCOMES:
            raise BrowseError("outcome", f"{outcome!r} is not an outcome: {', '.join(OUTCOMES)}")
        disputed = (text("disputed") or "").lower()
        if disputed not in ("", "1", "true", "yes", "on", "0", "false", "no", "off"):
            raise BrowseError("disputed", f"{disputed!r}: give true or false")
        out = cls(
            player=text("player"),
            date_from=_date("from", query.get("from")),
            date_to=_date("to", query.get("to")),
            ruleset=text("ruleset"),
            outcome=outcome,
            disputed=disputed in ("1", "true", "yes", "on"),
            page=_int("page", query.get("page"), 1, 1, None),
            per_page=_int("per_page", query.get("per_page"), PAGE_SIZE, 1, MAX_PAGE_SIZE),
        )
        if out.date_from and out.date_to and out.date_from > out.date_to:
            raise BrowseError("to", f"{out.date_to} is before from ({out.date_from})")
        return out

    def query(self, **change: Any) -> dict[str, str]:
        """This filter as query parameters (with ``change`` applied), for links."""
        values = {
            "player": self.player,
            "from": self.date_from.isoformat() if self.date_from else None,
            "to": self.date_to.isoformat() if self.date_to else None,
            "ruleset": self.ruleset,
            "outcome": self.outcome,
            "disputed": "true" if self.disputed else None,
            "page": str(self.page) if self.page != 1 else None,
            "per_page": str(self.per_page) if self.per_page != PAGE_SIZE else None,
        }
        values.update({k: (None if v is None else str(v)) for k, v in change.items()})
        return {k: v for k, v in values.items() if v is not None}

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition on ``hands h`` and its parameters."""
        cond: list[str] = []
        params: list[Any] = []
        if self.player:
            cond.append(
                "h.game_id IN (SELECT game_id FROM games WHERE list_contains(player_ids, ?) "
                "OR list_contains([lower(x) FOR x IN player_names], lower(?)) "
                "OR EXISTS (SELECT 1 FROM people p WHERE p.counts_for = ? "
                "AND list_contains(player_ids, p.person_id)))"
            )
            params += [self.player, self.player, self.player]
        for test, value in (
            ("h.date >= ?", self.date_from),
            ("h.date <= ?", self.date_to),
            ("h.ruleset = ?", self.ruleset),
            ("h.outcome = ?", self.outcome),
        ):
            if value:
                cond.append(test)
                params.append(value)
        if self.disputed:
            cond.append("(h.game_id, h.hand) IN (SELECT game_id, hand FROM v_payout_disputes)")
        return " AND ".join(f"({c})" for c in cond) or "true", params


@dataclass(frozen=True, slots=True)
class HandsPage:
    """One page of hands (newest first) and how many match in all."""

    filter: HandFilter
    total: int
    hands: list[dict[str, Any]]
    rulesets: list[str]

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.filter.per_page))


#: The browser's order, newest first (``date`` is the UTC date of ``started_at``).
_ORDER = "h.date DESC NULLS LAST, h.started_at DESC NULLS LAST, h.game_id, h.hand"

_PAGE_COLUMNS = (
    "game_id",
    "hand",
    "started_at",
    "date",
    "ruleset",
    "outcome",
    "reason",
    "winner",
    "chips",
    "recorded_chips",
    "checked",
    "ended",
)


def _add_games(conn: duckdb.DuckDBPyConnection, hands: list[dict[str, Any]]) -> None:
    """Each hand's players (``player_ids``, ``player_names``) and its disputed payments
    (``disputes``, from ``v_payout_disputes``), read for the page's games only."""
    ids = sorted({h["game_id"] for h in hands})
    if not ids:
        return
    marks = ", ".join("?" * len(ids))
    games = {
        r[0]: (r[1], r[2])
        for r in conn.execute(
            f"SELECT game_id, player_ids, player_names FROM games WHERE game_id IN ({marks})",
            ids,
        ).fetchall()
    }
    disputes = {
        (r[0], r[1]): int(r[2])
        for r in conn.execute(
            "SELECT game_id, hand, count(*) FROM v_payout_disputes "
            f"WHERE game_id IN ({marks}) GROUP BY game_id, hand",
            ids,
        ).fetchall()
    }
    for h in hands:
        h["player_ids"], h["player_names"] = games.get(h["game_id"], ([], []))
        h["disputes"] = disputes.get((h["game_id"], h["hand"]), 0)


def hands_page(conn: duckdb.DuckDBPyConnection, flt: HandFilter) -> HandsPage:
    """The hands ``flt`` selects, one page of them, newest first.

    Hands are ordered by ``date``, then ``started_at``, game and hand, newest first. One scan
    counts the matching hands of each date; the page then reads only the dates it spans, so
    the thousandth page costs what the first does (an OFFSET over a million rows would sort
    them all).
    """
    cond, params = flt.where()
    buckets = conn.execute(
        f"SELECT h.date, count(*) FROM hands h WHERE {cond} "
        "GROUP BY h.date ORDER BY h.date DESC NULLS LAST",
        params,
    ).fetchall()
    total = sum(int(n) for _, n in buckets)
    offset = (flt.page - 1) * flt.per_page
    before, seen, dates = 0, 0, []
    for day, n in buckets:
        if seen + n <= offset:
            seen += n
            before = seen
            continue
        dates.append(day)
        seen += n
        if seen >= offset + flt.per_page:
            break
    rows = []
    if dates:
        known = [d for d in dates if d is not None]
        span = []
        if known:
            span.append("h.date BETWEEN ? AND ?")
        if None in dates:
            span.append("h.date IS NULL")
        rows = conn.execute(
            f"SELECT {', '.join(f'h.{c}' for c in _PAGE_COLUMNS)} FROM hands h "
            f"WHERE ({cond}) AND ({' OR '.join(span)}) ORDER BY {_ORDER} LIMIT ? OFFSET ?",
            [
                *params,
                *((min(known), max(known)) if known else ()),
                flt.per_page,
                offset - before,
            ],
        ).fetchall()
    hands = [dict(zip(_PAGE_COLUMNS, r, strict=True)) for r in rows]
    _add_games(conn, hands)
    return HandsPage(flt, total, hands, rulesets(conn))


def rulesets(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """The rulesets of the store's games (the browser's choices)."""
    sql = "SELECT DISTINCT ruleset FROM games WHERE ruleset IS NOT NULL ORDER BY 1"
    return [str(r[0]) for r in conn.execute(sql).fetchall()]


def require_views(conn: duckdb.DuckDBPyConnection) -> None:
    """Refuse, in words, a store made before the player views (a read-only open cannot add
    them; a writer's open does)."""
    have = {r[0] for r in conn.execute("SELECT view_name FROM duckdb_views()").fetchall()}
    missing = [v for v in ("v_player_hands", "v_player_gos", "v_player_stats") if v not in have]
    if missing:
        raise StoreError(
            f"this store has no {', '.join(missing)} yet: open it for writing once "
            "(gostop db rebuild, or gostop serve) to add them"
        )


def _dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description or ()]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def players(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every player's row of ``v_player_stats``, most hands first."""
    return _dicts(conn.execute("SELECT * FROM v_player_stats ORDER BY hands DESC, player_id"))


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """A player's page: the ``v_player_stats`` row, Gos by the score they were called at,
    the running chips total (sampled to at most :data:`SERIES_POINTS` points) and how many
    hands paid each net amount."""

    stats: dict[str, Any]
    gos_by_score: list[dict[str, Any]]
    chips_series: list[tuple[int, int]]  # (hand number in the career, running chips)
    payouts: list[tuple[int, int]]  # (net chips of a hand, hands)
    recent: list[dict[str, Any]] = field(default_factory=list)


def player_figures(conn: duckdb.DuckDBPyConnection, player_id: str) -> PlayerFigures | None:
    """The figures of the person with id ``player_id`` over every game and name (an id
    merged into another's gives that person's figures); None when no ended hand has them."""
    found = conn.execute(
        "SELECT counts_for FROM people WHERE person_id = ?", [player_id]
    ).fetchall()
    player_id = found[0][0] if found else player_id
    rows = _dicts(conn.execute("SELECT * FROM v_player_stats WHERE player_id = ?", [player_id]))
    if not rows:
        return None
    stats = rows[0]
    gos = _dicts(
        conn.execute(
            "SELECT score, count(*) AS gos, count(*) FILTER (WHERE paid_off) AS paid_off "
            "FROM v_player_gos WHERE person_id = ? GROUP BY score ORDER BY score",
            [player_id],
        )
    )
    n = int(stats["hands"])
    step = max(1, -(-n // SERIES_POINTS))
    # the player's rows of v_player_hands once, read three ways
    series, payouts, recent = conn.execute(
        """
        WITH mine AS MATERIALIZED (
            SELECT game_id, hand, started_at, ruleset, seat, outcome, won, gos, chips,
                   recorded_chips, row_number() OVER w AS k, sum(chips) OVER w AS total
            FROM v_player_hands WHERE person_id = ?
            WINDOW w AS (ORDER BY started_at NULLS FIRST, game_id, hand
                         ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        )
        SELECT
            (SELECT list([k, total] ORDER BY k) FROM mine WHERE k % ? = 0 OR k = ?),
            (SELECT list([chips, n] ORDER BY chips)
             FROM (SELECT chips, count(*) AS n FROM mine GROUP BY chips)),
            (SELECT list({'game_id': game_id, 'hand': hand, 'started_at': started_at,
                          'ruleset': ruleset, 'seat': seat, 'outcome': outcome, 'won': won,
                          'gos': gos, 'chips': chips, 'recorded_chips': recorded_chips}
                         ORDER BY k DESC)
             FROM (SELECT * FROM mine ORDER BY k DESC LIMIT 20))""",
        [player_id, step, n],
    ).fetchall()[0]
    return PlayerFigures(
        stats=stats,
        gos_by_score=gos,
        chips_series=[(int(k), int(t)) for k, t in series or ()],
        payouts=[(int(c), int(k)) for c, k in payouts or ()],
        recent=list(recent or ()),
    )
