"""The players of a new game, their person ids checked or minted, and a new game's id."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

from .. import events as E
from .. import log as L
from ..errors import GostopError
from ..people import derived_person_id, mint_person_id, name_error, person_id_error, seat_ids

#: What gives the time of an event, as the log writes it.
Clock = Callable[[], str]


def make_players(players: Sequence[str | E.Player]) -> list[E.Player]:
    """Players in seat order, each a person (see ``people``): ``Ann`` is a new person with
    a minted id, ``Ann=p_3fa2c1d04e5b`` the known person of that id, seated as ``Ann``. Two
    seats may not share an id, nor a name (a seat is named in entries by its name)."""
    out: list[E.Player] = []
    for p in players:
        if isinstance(p, E.Player):
            out.append(p)
            continue
        name, eq, pid = p.partition("=")
        name, pid = name.strip(), pid.strip()
        if not name:
            raise GostopError(f"player {p!r} has no name: give each seat a name")
        if eq:
            why = person_id_error(pid)
            if why:
                raise GostopError(f"player {p!r}: {why}")
        out.append(E.Player(id=pid if eq else mint_person_id(), name=name))
    for p in out:
        why = name_error(p.name) if p.name or not p.id else None
        if why:
            raise GostopError(f"player {p.name!r}: {why}")
    ids = seat_ids(out)
    names = [derived_person_id(p.name) for p in out if p.name]
    for key, what in ((ids, "id"), (names, "name")):
        twice = next((k for k in key if key.count(k) > 1), None)
        if twice is not None:
            raise GostopError(f"two players have the {what} {twice!r}: give each seat its own")
    return out


def new_game_id(clock: Clock = L.now) -> str:
    """A fresh game id: the date and six random hex digits (``2026-05-01-3fa2c1``)."""
    return f"{clock()[:10]}-{uuid.uuid4().hex[:6]}"
