"""What a store keeps per game between appends: the game as of its head (:class:`GameCache`)
and its projection rows not written yet (:class:`PendingRows`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .. import events as E
    from ..projector import Projector
    from .projections import Rows

__all__ = ["GameCache", "PendingRows"]


@dataclass(slots=True)
class GameCache:
    """A game's stored events, the projector after them and the game's projection rows,
    as of (version, last hash)."""

    projector: Projector
    events: list[E.Envelope]
    version: int
    last_hash: str | None
    rows: Rows


@dataclass(slots=True)
class PendingRows:
    """A game's projection rows not written yet (``append_group(defer_rows=True)``): the
    rows as the tables hold them, the hands touched since, and the rows as they are now.
    A writer takes them out of ``store.pending_rows`` (:func:`.pending.flush_rows`); an
    append to the game meanwhile starts anew from the rows taken, which the tables hold
    once the writer commits (and a writer that fails puts its rows back, merged)."""

    stored: Rows
    hands: set[int]
    rows: Rows
