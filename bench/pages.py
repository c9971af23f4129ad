"""The reading pages on a million hands: each page of the game browser (the store's query
and the HTML drawn from it, as ``GET /games`` makes it), a player's page and the players'
list, timed on the million-hand copy of :func:`bench.runs.million_copy`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .figures import Figure

#: Each page of the game browser must be drawn in less than this.
PAGE_TARGET_MS = 300.0

#: The browser's pages timed: (name, query string).
BROWSER_PAGES: tuple[tuple[str, dict[str, str]], ...] = (
    ("every hand, page 1", {}),
    ("every hand, page 2,000", {"page": "2000"}),
    ("one player", {"player": "p2"}),
    ("a player by name, a month", {"player": "player 1", "from": "2026-02-01", "to": "2026-02-28"}),
    ("ruleset and outcome", {"ruleset": "gamerules", "outcome": "nagari"}),
    ("disputed only", {"disputed": "true"}),
)


def _best(fn: Callable[[], Any], runs: int = 3) -> float:
    fn()  # warm: the first run pays for loading the columns
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def page_figures(db: Path) -> list[Figure]:
    """Time each page against :data:`PAGE_TARGET_MS` (the player pages beside it, no
    target of their own)."""
    from gostop_records.store import Store
    from gostop_records.store.browse import HandFilter, hands_page, player_figures, players
    from gostop_records.web.browse_pages import games_page, player_page, players_page

    out = []
    with Store(db, read_only=True) as store:
        conn = store.conn
        hands = conn.execute("SELECT count(*) FROM hands").fetchone()[0]  # type: ignore[index]
        for name, query in BROWSER_PAGES:
            flt = HandFilter.parse(query)
            ms = _best(lambda f=flt: games_page(hands_page(conn, f), f))  # type: ignore[misc]
            met = "met" if ms < PAGE_TARGET_MS else "not met"
            out.append(
                Figure(
                    f"page /games: {name} ({hands:,} hands)",
                    ms,
                    "ms",
                    target=f"< {PAGE_TARGET_MS:.0f} ms: {met}",
                )
            )
        top = conn.execute(
            "SELECT player_ids[1] FROM games GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]  # type: ignore[index]
        ms = _best(lambda: player_page(player_figures(conn, top)), runs=1)  # type: ignore[arg-type]
        out.append(Figure(f"page /players/{top} ({hands:,} hands)", ms, "ms"))
        ms = _best(lambda: players_page(players(conn)), runs=1)
        out.append(Figure(f"page /players ({hands:,} hands)", ms, "ms"))
    return out
