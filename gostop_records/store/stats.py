"""A store at a glance: games, hands, outcomes, average payouts, how often each special comes.

Every figure is one query over the typed projection tables, so the numbers here are what
the same SQL gives at ``gostop db query``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..engine import rulebook as RB
from .connection import scalar

if TYPE_CHECKING:
    from .handle import StoreHandle

__all__ = ["SPECIALS", "stats"]

#: Specials counted in turns (flag columns) and in payouts (multipliers that applied: every
#: rulebook factor with a flag column in ``payouts``).
SPECIALS = ("ppuk", "jjok", "ttadak", "sseul", "bomb", "shaken")
BAKS = tuple(m.id for m in RB.MULTIPLIERS if m.column)


def _one(store: StoreHandle, sql: str) -> Any:
    return scalar(store.conn, sql)


def stats(store: StoreHandle) -> dict[str, Any]:
    conn = store.conn
    hands = int(_one(store, "SELECT count(*) FROM hands") or 0)
    out: dict[str, Any] = {
        "games": int(_one(store, "SELECT count(*) FROM games") or 0),
        "hands": hands,
        "events": int(_one(store, "SELECT count(*) FROM events") or 0),
        "violations": int(_one(store, "SELECT coalesce(sum(violations), 0) FROM games") or 0),
        "disputed_payments": int(_one(store, "SELECT count(*) FROM v_payout_disputes") or 0),
    }
    out["outcomes"] = {
        (o or "in_progress"): int(n)
        for o, n in conn.execute(
            "SELECT outcome, count(*) FROM hands GROUP BY outcome ORDER BY count(*) DESC, outcome"
        ).fetchall()
    }
    cols = (
        "ruleset",
        "players",
        "games",
        "hands",
        "stop_hands",
        "nagari_rate",
        "dealer_win_rate",
        "avg_points",
        "avg_chips",
    )
    out["by_ruleset"] = [
        dict(zip(cols, r, strict=True))
        for r in conn.execute(
            """
            SELECT ruleset, players, count(DISTINCT game_id), count(*),
                   count(*) FILTER (WHERE outcome = 'stop'),
                   round(avg(CASE WHEN outcome = 'nagari' THEN 1.0 ELSE 0.0 END)
                         FILTER (WHERE ended), 4),
                   round(avg(CASE WHEN winner = dealer THEN 1.0 ELSE 0.0 END)
                         FILTER (WHERE winner IS NOT NULL), 4),
                   round(avg(points) FILTER (WHERE outcome = 'stop'), 2),
                   round(avg(chips) FILTER (WHERE outcome = 'stop'), 2)
            FROM hands GROUP BY ruleset, players ORDER BY ruleset, players
            """
        ).fetchall()
    ]
    turn_counts = conn.execute(
        "SELECT " + ", ".join(f"count(*) FILTER (WHERE {s})" for s in SPECIALS) + " FROM turns"
    ).fetchall()[0]
    bak_counts = conn.execute(
        "SELECT " + ", ".join(f"count(*) FILTER (WHERE {b})" for b in BAKS) + " FROM payouts"
    ).fetchall()[0]
    specials: dict[str, Any] = {}
    for name, n in (*zip(SPECIALS, turn_counts, strict=True), *zip(BAKS, bak_counts, strict=True)):
        key = "shake" if name == "shaken" else name
        specials[key] = {
            "count": int(n),
            "per_100_hands": round(100.0 * int(n) / hands, 2) if hands else 0.0,
        }
    out["specials"] = specials
    return out
