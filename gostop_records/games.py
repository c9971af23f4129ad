"""One game's envelopes, from a log file or from the store: what every front end reads first.

``gostop replay``, ``gostop audit`` and the HTTP service ask for a game the same way (a log,
optionally with a game id; or a store and a game id) and get the same typed errors:
:class:`~gostop_records.errors.GameNotFound` when it is not there,
:class:`~gostop_records.errors.GameChoiceError` when the game id is needed to choose.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import log as L
from .errors import GameChoiceError, GameNotFound, GostopError

if TYPE_CHECKING:
    from .events import Envelope
    from .store import Store

__all__ = [
    "GameSummary",
    "load_game",
    "log_games",
    "resumable",
    "store_summaries",
    "summaries",
    "summarize",
]

#: What a game waits for while a hand is under way (or its payments are): an interrupted game.
IN_HAND = frozenset({"play", "flip", "cup", "decide", "pay"})


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One game in a listing: where it is, who plays, how far it went and what it waits for.

    ``waiting`` is :attr:`GameState.waiting`'s kind (``over`` for a finished single-hand
    game, ``closed`` for a night closed and its settlement paid); ``state`` says it in words.
    ``source`` is the log file (or store) it is in.
    """

    game_id: str
    source: str
    ruleset: str
    players: tuple[str, ...]
    hands: int
    events: int
    last_at: str
    waiting: str
    state: str
    problem: str | None = None

    @property
    def unfinished(self) -> bool:
        """The game can go on: it is not over and its record could be read."""
        return self.waiting not in ("over", "closed") and self.problem is None

    @property
    def in_hand(self) -> bool:
        """Stopped in the middle of a hand (or before its payments): a recording cut off."""
        return self.waiting in IN_HAND and self.problem is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "source": self.source,
            "ruleset": self.ruleset,
            "players": list(self.players),
            "hands": self.hands,
            "events": self.events,
            "last_at": self.last_at,
            "waiting": self.waiting,
            "state": self.state,
            "unfinished": self.unfinished,
            "problem": self.problem,
        }


def summarize(game_id: str, envs: Sequence[Envelope], source: str) -> GameSummary:
    """A game's summary from its envelopes, folded leniently: a broken record is listed
    with its first problem rather than left out."""
    from .projector import project
    from .words import waiting_words

    proj = project(envs, strict=False)
    g = proj.game
    last_at = envs[-1].at if envs else ""
    if g is None:
        return GameSummary(
            game_id, source, "?", (), 0, len(envs), last_at, "over", "?", "no game_started"
        )
    w = g.waiting()
    violation = next((i for i in proj.issues if i.severity == "violation"), None)
    problem = f"seq {violation.seq}: {violation.reason}" if violation is not None else None
    return GameSummary(
        game_id,
        source,
        g.rules.name,
        tuple(p.name for p in g.players),
        g.hand_no,
        len(envs),
        last_at,
        w.kind,
        waiting_words(w.kind, w.seat, w.hand, g.players),
        problem,
    )


def summaries(paths: Iterable[PathLike]) -> Iterator[GameSummary]:
    """The games of log files and folders (searched as ``validate`` does), file by file."""
    files, missing = L.find_logs(paths)
    if missing:
        raise GameNotFound(f"{os.fspath(missing[0])}: no such file or folder")
    for f in files:
        for gid, envs in log_games(f, exact=False).items():
            yield summarize(gid, envs, os.fspath(f))


def store_summaries(store: Store) -> Iterator[GameSummary]:
    """The games of an open store, by game id."""
    for gid in store.game_ids():
        yield summarize(gid, store.events(gid), os.fspath(store.path))


def resumable(games: Sequence[GameSummary]) -> GameSummary:
    """The game ``record --resume`` without an id continues: the only one cut off in the
    middle of a hand, else the only unfinished one; otherwise an error listing them."""
    for pool in ([g for g in games if g.in_hand], [g for g in games if g.unfinished]):
        if len(pool) == 1:
            return pool[0]
        if len(pool) > 1:
            listed = "; ".join(f"{g.game_id} ({g.state})" for g in pool[:10])
            more = " ..." if len(pool) > 10 else ""
            raise GameChoiceError(
                f"{len(pool)} games could be resumed: {listed}{more}",
                tuple(g.game_id for g in pool),
            )
    if not games:
        raise GameNotFound("there is no game to resume")
    raise GostopError("every game is over: there is none to resume")


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
