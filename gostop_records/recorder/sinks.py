"""Where a session's events go: any object with the :class:`EventSink` methods; a log file
or the store, picked by :func:`open_sink`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from .. import events as E
from ..errors import GostopError
from ..log import JsonlSink
from ..projector import Projector
from ..store.sink import StoreSink


@runtime_checkable
class EventSink(Protocol):
    """Where a session writes: every ``append`` is durable when it returns.

    ``expected_version`` is the seq of the game's last stored event (0 for a new game); a
    sink refuses an append when its stored version differs, which keeps two writers of one
    game apart.
    """

    location: str

    def version(self, game_id: str) -> int:
        """The seq of the game's last stored event; 0 when the game is not stored."""
        ...

    def game_events(self, game_id: str) -> list[E.Envelope]:
        """Every stored envelope of a game, in seq order."""
        ...

    def append(
        self,
        envs: Sequence[E.Envelope],
        expected_version: int,
        checked: Projector | None = None,
    ) -> None:
        """Store sealed envelopes of one game, all or none, durably, or raise. They follow
        seq ``expected_version``; ``checked`` is the projector the session fed them to (a
        sink that runs the rules itself may skip them)."""
        ...

    def close(self) -> None: ...


def open_sink(
    *,
    db: str | os.PathLike[str] | None = None,
    log: str | os.PathLike[str] | None = None,
    create: bool = True,
) -> EventSink:
    """Where a session writes: the log file ``log`` (JSON Lines, or msgpack by suffix) when
    given, else the store ``db`` (``$GOSTOP_DB`` or ``gostop.duckdb`` by default).
    ``create=False`` refuses a file that does not exist yet (a game to resume)."""
    if log is not None and db is not None:
        raise GostopError("write to a log file or to the store, not both")
    if log is not None:
        return JsonlSink(log, create=create)
    return StoreSink(db, create=create)
