"""Minted ids for the persons whose id is made from their name (``gostop people upgrade``).

Before persons had ids of their own the recorder made a seat's id from its name (``Ann
Lee``: ``ann-lee``), and a seat with no id is given that slug when it is read: such an id
tells the name to whoever reads the game, so sealing the name alone could never make the
person forgettable. The upgrade therefore seats each such person again under a minted id
(:func:`~gostop_records.people.mint_person_id`): one per distinct id, since the same id in
two games is one person (as ``/players`` counts it), and the same one an earlier upgrade gave
it, read back from that upgrade's record (see :func:`earlier_ids`). The old id is kept in that
record only sealed under the new person's key, so that forgetting them leaves it unreadable.

Some keep their id, each for a reason the upgrade names: the computer's seats (not a person:
the same public name in every game), a person the people record names (a rename or a merge
is hashed with the id, so the record would still say it), and a person forgotten already.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..names import FORGOTTEN, is_sealed, open_name
from ..people import MINTED_ID, People, derived_person_id, is_computer, mint_person_id, says_name
from .people import keys_for

if TYPE_CHECKING:
    import duckdb

__all__ = ["Reseating", "earlier_ids", "plan_ids", "seat_id"]


def seat_id(p: Mapping[str, Any]) -> str:
    """A stored seat's person id: its own, or the slug of its name when it has none."""
    pid = str(p.get("id") or "")
    return pid or derived_person_id(str(p.get("name") or ""))


@dataclass(slots=True)
class Reseating:
    """Which persons are seated again: old id to minted id, the ids minted by this run (the
    others an earlier upgrade gave), and each id made from a name that stays, with why."""

    ids: dict[str, str]
    minted: set[str]
    kept: dict[str, str]

    def keep(self, old: str, why: str) -> None:
        """Leave ``old`` as it is in every game (one of its games cannot be re-chained)."""
        self.ids.pop(old, None)
        self.kept[old] = why


def earlier_ids(
    conn: duckdb.DuckDBPyConnection, details: Iterable[Mapping[str, Any]]
) -> dict[str, str]:
    """Old id to minted id, as earlier upgrades recorded them (``reseated`` in the detail of
    each ``game_resealed`` heads entry: the old id sealed under the new person's key). A
    forgotten person's is unreadable: a game seating the old id again is a new person."""
    seats = [r for d in details for r in d.get("reseated", []) if r.get("was")]
    keys = keys_for(conn, sorted({str(r["person"]) for r in seats}))
    out: dict[str, str] = {}
    for r in seats:
        new = str(r["person"])
        old = open_name(str(r["was"]), keys.get(new), new)
        if old != FORGOTTEN:
            out[old] = new
    return out


def plan_ids(
    conn: duckdb.DuckDBPyConnection,
    firsts: Mapping[str, Mapping[str, Any]],
    people: People,
    earlier: Mapping[str, str],
) -> Reseating:
    """The persons of these games' first events (``game_started`` payloads by game) whose
    id is made from their name, each with the minted id it gets (an earlier upgrade's when
    it gave one) or the reason it keeps its id."""
    legacy: set[str] = set()
    sealed: list[tuple[str, str]] = []  # (id, sealed name) of seats whose id is no minted one
    seated: set[str] = set()
    for payload in firsts.values():
        for p in payload.get("players") or []:
            if not isinstance(p, dict):
                continue
            sid, name = seat_id(p), str(p.get("name") or "")
            seated.add(sid)
            if is_sealed(name):
                if not MINTED_ID.match(sid):
                    sealed.append((sid, name))
            elif name and says_name(str(p.get("id") or ""), name) and not is_computer(sid, name):
                legacy.add(sid)
    keys = keys_for(conn, sorted({pid for pid, _ in sealed}))
    for pid, text in sealed:
        name = open_name(text, keys.get(pid), pid)
        if name != FORGOTTEN and says_name(pid, name) and not is_computer(pid, name):
            legacy.add(pid)  # a person of an old log seated again by that id, sealed
    taken = seated | set(people.persons) | set(earlier.values())
    out = Reseating({}, set(), {})
    for old in sorted(legacy):
        if people.forgotten(old):
            out.kept[old] = f"{old} is forgotten already"
        elif old in people.persons:
            out.kept[old] = (
                f"the people record names {old} (a rename or a merge, hashed with the id, "
                "would still say it)"
            )
        elif old in earlier:
            out.ids[old] = earlier[old]
        else:
            new = mint_person_id()
            while new in taken:  # pragma: no cover - 48 random bits
                new = mint_person_id()
            taken.add(new)
            out.ids[old] = new
            out.minted.add(new)
    return out
