"""Players as people: a person's id, apart from the name shown for them, and the record of
renames and merges.

A game's seats (``game_started.players``) name persons by id. A new game mints an id for a
name it has not been given a person for (:func:`mint_person_id`), or reuses the id of a
person the recorder picks from the store's known players; so two people called Ann are two
persons, and one Ann is one person in every game she plays, whatever she was called.

A seat written before persons had their own ids keeps the id it has: the recorder used to
make it from the name (``Ann Lee``: ``ann-lee``), and that stays the person's id. A seat
with no id at all (another producer's log) is given the same deterministic id from its name
(:func:`derived_person_id`), so an old log replays, and shows, as it always did. Such an id
says the name (:func:`says_name`), so ``gostop people upgrade`` seats that person in the
store under a minted id, which lets them be forgotten (``store.reseat``). The computer's
seats (:func:`is_computer`) are no person and keep theirs.

Renames, merges and forgetting are events (``person_renamed``, ``persons_merged``,
``person_forgotten``), never edits: they go in the people record, a hash-chained stream of
its own beside the games (``events`` defines them with every other event type).
:class:`People` folds that stream; it is pure and refuses an event that does not follow
from the ones before, with the reason.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import events as E
from .errors import GostopError
from .names import is_sealed

__all__ = [
    "COMPUTER_IDS",
    "MAX_NAME",
    "MINTED_ID",
    "PEOPLE_STREAM",
    "People",
    "PeopleError",
    "Person",
    "computer_names",
    "derived_person_id",
    "is_computer",
    "mint_person_id",
    "name_error",
    "named_in",
    "person_id_error",
    "says_name",
    "seat_ids",
]

#: The stream id of the people record (the ``game_id`` of its envelopes): not a game.
PEOPLE_STREAM = "people"
#: The longest name a person may be given.
MAX_NAME = 80
#: A minted id: ``p_`` and twelve hex digits. A derived id is a slug of lower-case letters,
#: digits and ``-`` only, so the two never meet.
MINTED_ID = re.compile(r"^p_[0-9a-f]{12}$")
#: Any id a person may have: what minted, derived and older producers' ids are made of.
_ID = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_.-]{0,63}$")


class PeopleError(GostopError):
    """An event of the people record that does not follow from the ones before it."""


def mint_person_id() -> str:
    """A new person's id: ``p_`` and 48 random bits in hex (``p_3fa2c1d04e5b``)."""
    return "p_" + secrets.token_hex(6)


def derived_person_id(name: str) -> str:
    """The id of a seat that has none: the slug of its name, as the recorder made ids
    before persons had their own (``Ann Lee``: ``ann-lee``); a name with no letter or digit
    gets ``x-`` and the hex of its UTF-8 bytes, so that the id is still the name's alone."""
    slug = re.sub(r"[^0-9a-z]+", "-", name.strip().lower()).strip("-")
    return slug[:64] if slug else ("x-" + name.strip().encode().hex())[:64]


def says_name(pid: str, name: str) -> bool:
    """Whether a seat's person id is made from its name (none, or the name's slug): such an
    id tells the name to whoever reads it, sealed or not (``gostop people upgrade`` gives
    that person a minted id)."""
    return not pid or pid == derived_person_id(name)


def computer_names(players: int) -> list[str]:
    """The names of the computer's seats on ``/play`` and ``gostop play``: ``Computer``, or
    ``Computer 1`` and ``Computer 2`` at three."""
    if players == 2:
        return ["Computer"]
    return [f"Computer {k}" for k in range(1, players)]


#: The computer's names at every table size, and the ids made from them (no person's).
_COMPUTERS = frozenset(computer_names(2) + computer_names(3))
COMPUTER_IDS = frozenset(derived_person_id(n) for n in _COMPUTERS)


def is_computer(pid: str, name: str) -> bool:
    """Whether a seat is the computer's (a bot on ``/play``): seated by the id of a
    computer's name, under that name. Not a person: its name is the same public word in
    every game, so it is never sealed by an upgrade and never forgotten."""
    return name in _COMPUTERS and pid == derived_person_id(name)


def person_id_error(pid: str) -> str | None:
    """Why ``pid`` cannot be a person's id, or None when it can."""
    if not _ID.match(pid):
        return (
            f"{pid!r} is not a person id: 1 to 64 letters, digits, '_', '.' or '-', "
            "beginning with a letter or digit"
        )
    return None


def seat_ids(players: Sequence[E.Player]) -> list[str]:
    """Each seat's person id, in seat order (a seat without one: :func:`derived_person_id`)."""
    return [p.id or derived_person_id(p.name) for p in players]


def name_error(name: str) -> str | None:
    """Why ``name`` cannot be shown for a person, or None when it can."""
    text = name.strip()
    if not text:
        return "the name is empty"
    if len(text) > MAX_NAME:
        return f"the name is {len(text)} characters long: give at most {MAX_NAME}"
    if any(ord(c) < 32 for c in text):
        return "the name holds a control character"
    return None


@dataclass(slots=True)
class Person:
    """What the people record says of one person: the name last given by a rename (None:
    the name they had at the table), and the person their games now count for."""

    id: str
    name: str | None = None
    named_at: str | None = None
    merged_into: str | None = None
    forgotten: bool = False


class People:
    """The people record folded: each person it names, and where merges lead.

    ``apply`` refuses (:class:`PeopleError`) an event that does not follow: a rename of a
    person merged into another (rename the one they count for), a merge of a person with
    themselves, of one already merged, or into one merged elsewhere (a merge names the
    person the games count for now, so a chain of merges never needs following backwards).
    """

    def __init__(self, envelopes: Iterable[E.Envelope] = ()) -> None:
        self.persons: dict[str, Person] = {}
        self.count = 0
        for env in envelopes:
            self.apply(env)

    def person(self, pid: str) -> Person:
        p = self.persons.get(pid)
        if p is None:
            p = self.persons[pid] = Person(pid)
        return p

    def canonical(self, pid: str) -> str:
        """The id a person's games count for: their own, or the one they were merged into."""
        seen = set()
        while (p := self.persons.get(pid)) is not None and p.merged_into is not None:
            if pid in seen:  # pragma: no cover - apply never lets a loop in
                break
            seen.add(pid)
            pid = p.merged_into
        return pid

    def check(self, event: object) -> None:
        """Refuse an event that does not follow from the record so far (see the class); a
        forgotten person is renamed, merged or forgotten no more."""
        if not isinstance(event, E.PeopleEvent):
            raise PeopleError(
                f"{E.event_type(event)}: the people record holds renames, merges and "
                "forgettings only"
            )
        for pid in named_in(event):
            if self.forgotten(pid):
                raise PeopleError(f"{E.event_type(event)}: {pid} is forgotten")
        _CHECKS[type(event)](self, event)

    def _check_forget(self, event: E.PersonForgotten) -> None:
        self._check_one(event, [person_id_error(event.person)], "forget")

    def _check_rename(self, event: E.PersonRenamed) -> None:
        named = None if is_sealed(event.name) else name_error(event.name)
        self._check_one(event, [person_id_error(event.person), named], "rename")

    def _check_merge(self, event: E.PersonsMerged) -> None:
        for pid in (event.person, event.into):
            why = person_id_error(pid)
            if why:
                raise PeopleError(f"persons_merged: {why}")
        if event.person == event.into:
            raise PeopleError(f"persons_merged: {event.person} cannot be merged into itself")
        for pid in (event.person, event.into):
            into = self._merged(pid)
            if into is not None:
                raise PeopleError(
                    f"persons_merged: {pid} was merged into {into} already"
                    + (f": merge into {into}" if pid == event.into else "")
                )

    def _check_one(
        self,
        event: E.PersonForgotten | E.PersonRenamed,
        problems: Sequence[str | None],
        verb: str,
    ) -> None:
        """Refuse an event about one person for the first of ``problems``, or when the person
        was merged into another (whom to ``verb`` instead)."""
        t = E.event_type(event)
        for why in problems:
            if why:
                raise PeopleError(f"{t}: {why}")
        into = self._merged(event.person)
        if into is not None:
            raise PeopleError(f"{t}: {event.person} was merged into {into}: {verb} {into}")

    def forgotten(self, pid: str) -> bool:
        """Whether the person (or the one their games count for) is forgotten."""
        p = self.persons.get(self.canonical(pid))
        return p is not None and p.forgotten

    def _merged(self, pid: str) -> str | None:
        p = self.persons.get(pid)
        return None if p is None else p.merged_into

    def apply(self, env: E.Envelope) -> None:
        """Fold one envelope of the people record (checked first)."""
        ev = env.event
        self.check(ev)
        _APPLY[type(ev)](self, ev, env.at)
        self.count += 1

    def _renamed(self, ev: E.PersonRenamed, at: str) -> None:
        p = self.person(ev.person)
        p.name, p.named_at = ev.name.strip(), at

    def _merged_into(self, ev: E.PersonsMerged, at: str) -> None:
        self.person(ev.into)
        self.person(ev.person).merged_into = ev.into

    def _forgotten(self, ev: E.PersonForgotten, at: str) -> None:
        self.person(ev.person).forgotten = True

    def ids_of(self, pid: str) -> list[str]:
        """The person and every id whose games count for them, sorted."""
        return sorted({pid} | {p for p in self.persons if self.canonical(p) == pid})

    def rows(self) -> list[tuple[str, str | None, str | None, str | None, str, bool]]:
        """The ``people`` table's rows: id, name given by a rename (sealed, as recorded),
        when, merged into, the id the person's games count for, and whether forgotten."""
        return [
            (p.id, p.name, p.named_at, p.merged_into, self.canonical(p.id), self.forgotten(p.id))
            for p in sorted(self.persons.values(), key=lambda p: p.id)
        ]


#: One table per concern, over the people record's event classes (every
#: :class:`~gostop_records.events.PeopleEvent`): what refuses one, and how one is folded.
_CHECKS: dict[type, Callable[[People, Any], None]] = {
    E.PersonRenamed: People._check_rename,
    E.PersonsMerged: People._check_merge,
    E.PersonForgotten: People._check_forget,
}
_APPLY: dict[type, Callable[[People, Any, str], None]] = {
    E.PersonRenamed: People._renamed,
    E.PersonsMerged: People._merged_into,
    E.PersonForgotten: People._forgotten,
}


def named_in(event: object) -> tuple[str, ...]:
    """The persons an event of the people record names."""
    if isinstance(event, E.PersonsMerged):
        return (event.person, event.into)
    if isinstance(event, E.PersonRenamed | E.PersonForgotten):
        return (event.person,)
    return ()
