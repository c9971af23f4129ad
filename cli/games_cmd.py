"""``gostop games``: the games of logs, folders or the store, with where each one stands.

The listing is the library's (:func:`gostop_records.games.summaries`); it is what a person
needs to pick a game for ``record --resume``, ``replay --game`` or ``audit --game``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gostop_records import games as G

from . import common

__all__ = ["games"]

COLUMNS = ("game", "players", "ruleset", "hands", "events", "state", "last event at")


def listing(paths: list[Path], db: Path | None) -> list[G.GameSummary]:
    """The summaries of ``paths`` (logs, folders) or of the store ``db``."""
    if db is not None:
        from gostop_records.store import Store

        with Store(db, read_only=True) as store:
            return list(G.store_summaries(store))
    return list(G.summaries(paths))


def row(g: G.GameSummary) -> tuple[str, ...]:
    state = g.state if g.problem is None else f"{g.state}; broken at {g.problem.split(':')[0]}"
    return (
        g.game_id,
        ", ".join(g.players),
        g.ruleset,
        str(g.hands),
        str(g.events),
        state,
        g.last_at,
    )


def games(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(metavar="[LOG|FOLDER]...", help="Log files, or folders searched for them."),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            metavar="FILE",
            help="List the games of this store (default, without LOG: $GOSTOP_DB or "
            "gostop.duckdb here).",
        ),
    ] = None,
    unfinished: Annotated[
        bool, typer.Option("--unfinished", help="Only the games that can go on.")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="The list as JSON on stdout.")] = False,
) -> None:
    """List games: id, players, ruleset, hands, events, where each stands, last event.

    Without a LOG or --db, the games of the default store ($GOSTOP_DB or gostop.duckdb here).

    A game stopped in the middle of a hand continues with gostop record --resume.

    Example: gostop games friday.jsonl, gostop games logs/, gostop games --db club.duckdb
    """
    if paths and db is not None:
        common.fail("give LOG files or folders, or --db FILE (one of them)", common.EXIT_USAGE)
    if not paths and db is None:
        from gostop_records.store.connection import default_path

        db = default_path()  # the store record and play write to by default
        if not db.exists():
            common.fail(f"{db}: no store here; give LOG files or folders, or --db FILE")
    found = listing(paths or [], db)
    if unfinished:
        found = [g for g in found if g.unfinished]
    if json_out:
        common.print_json([g.to_dict() for g in found])
        return
    common.print_table(COLUMNS, [row(g) for g in found], noun="game")
