"""One game's envelopes, from a log file or from the store: what every front end reads first.

``gostop replay``, ``gostop audit`` and the HTTP service ask for a game the same way (a log,
optionally with a game id; or a store and a game id) and get the same typed errors:
:class:`~gostop_records.errors.GameNotFound` when it is not there,
:class:`~gostop_records.errors.GameChoiceError` when the game id is needed to choose.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import log as L
from .errors import GameChoiceError, GameNotFound

if TYPE_CHECKING:
    from .events import Envelope
    from .store import Store

__all__ = ["load_game", "log_games"]

PathLike = str | os.PathLike[str]


def log_games(log: PathLike, *, exact: bool = True) -> dict[str, list[Envelope]]:
    """Every game of a log file, by id in the order they first appear."""
    games: dict[str, list[Envelope]] = {}
    for env in L.read_log(log, exact=exact):
        games.setdefault(env.game_id, []).append(env)
    return games


def load_game(
    log: PathLike | None = None,
    db: PathLike | None = None,
    game: str | None = None,
    *,
    store: Store | None = None,
    exact: bool = True,
) -> tuple[str, list[Envelope]]:
    """(game id, envelopes) of one game: from ``log``, or from the store (``store`` open, or
    the file ``db``); exactly one source. ``game`` picks among the games of a log and is
    needed with a store. ``exact=False`` skips keeping each line's stored form, which only
    hash checks need."""
    if sum(x is not None for x in (log, db, store)) != 1:
        raise GameChoiceError("give a log file or a store (one of them)")
    if log is not None:
        # streamed: only the events of the game asked for (or of the first) are kept
        games: dict[str, None] = {}
        envs: list[Envelope] = []
        want = game
        for env in L.read_log(log, exact=exact):
            if env.game_id not in games:
                games[env.game_id] = None
                want = env.game_id if want is None else want
            if env.game_id == want:
                envs.append(env)
        if not games:
            raise GameNotFound(f"{os.fspath(log)}: the log holds no events")
        if game is None:
            if len(games) > 1:
                ids = ", ".join(list(games)[:10]) + (" ..." if len(games) > 10 else "")
                raise GameChoiceError(
                    f"{os.fspath(log)} holds {len(games)} games: pick one ({ids})", tuple(games)
                )
            game = next(iter(games))
        if game not in games:
            raise GameNotFound(
                f"{os.fspath(log)}: there is no game {game!r} (games: {', '.join(games)})"
            )
        return game, envs
    if game is None:
        raise GameChoiceError("a store needs a game id: the game to read from it")
    if store is not None:
        envs = store.events(game)
        where = os.fspath(store.path)
    else:
        from .store import Store

        assert db is not None
        with Store(db, read_only=True) as opened:
            envs = opened.events(game)
        where = os.fspath(db)
    if not envs:
        raise GameNotFound(f"{where}: there is no game {game!r} in the store")
    return game, envs
