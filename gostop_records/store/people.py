"""The people record in the store: ``person_events`` and the ``people`` table derived from it.

Renames and merges of persons (:mod:`gostop_records.people`) are events of one stream of
their own, hash-chained like a game's (``game_id`` ``people``, ``seq`` from 1) and kept in
``person_events``, never in ``events``: they belong to no game, and every game stays as its
table recorded it. Each append adds an entry to the store's heads chain (kind ``people``,
no game), so that ``gostop db verify`` names a record cut short or replaced, as it does
for a game; ``people`` is derived from the whole record again in the same transaction.

The store checks what only it knows (the person a rename or merge names was seated in a
game, or is in the record); :class:`~gostop_records.people.People` checks the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from .. import events as E
from .. import log as L
from ..names import FORGOTTEN, is_sealed, new_key, open_name, seal_name
from ..people import PEOPLE_STREAM, People, PeopleError, named_in, says_name, seat_ids
from . import heads as H
from .bulk import insert_rows
from .codec import event_row, rows_to_envelopes
from .connection import fetch_one
from .person_keys import keys_for, revealed
from .schema import PEOPLE_COLUMNS, PERSON_EVENT_COLUMNS, quote
from .writer import transaction

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = [
    "Forgotten",
    "PeopleCheck",
    "append_person_event",
    "check_people",
    "forget_person",
    "in_the_clear",
    "keys_for",
    "known_person",
    "people_rows",
    "person_envelopes",
    "person_key",
    "persons",
    "revealed",
]

_SELECT = ", ".join(quote(c) for c, _ in PERSON_EVENT_COLUMNS)


def person_envelopes(conn: duckdb.DuckDBPyConnection) -> list[E.Envelope]:
    """The people record's envelopes in seq order, decoded as from a log file."""
    rows = conn.execute(f"SELECT {_SELECT} FROM person_events ORDER BY seq").fetchall()
    return rows_to_envelopes(rows, source="person_events")


def known_person(conn: duckdb.DuckDBPyConnection, pid: str) -> bool:
    """Whether a game seated ``pid`` or the people record names them."""
    row = fetch_one(
        conn,
        "SELECT 1 WHERE EXISTS (SELECT 1 FROM games WHERE list_contains(player_ids, $p)) "
        "OR EXISTS (SELECT 1 FROM people WHERE person_id = $p)",
        {"p": pid},
    )
    return row is not None


def persons(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every person (``v_people``), the most recently seated first."""
    cur = conn.execute("SELECT * FROM v_people ORDER BY last_started_at DESC NULLS LAST, person_id")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def append_person_event(
    store: StoreHandle, event: Any, *, by: str, at: str | None = None
) -> E.Envelope:
    """Append one rename or merge to the people record, with its heads entry and the
    ``people`` table derived again, in one transaction; the sealed envelope. A rename's
    name is sealed under the person's key before it is hashed (see
    :mod:`gostop_records.names`), so that forgetting them makes it unreadable too.

    Raises :class:`~gostop_records.people.PeopleError` (nothing written) for an event the
    record refuses or one naming a person the store does not know.
    """
    store._writable()
    store.settle()
    conn = store.conn
    People(person_envelopes(conn)).check(event)
    if isinstance(event, E.PersonRenamed):
        key = person_key(store, event.person)
        event = msgspec.structs.replace(
            event, name=seal_name(event.name.strip(), key, event.person)
        )
    with H.writing(store.path), transaction(conn):
        return _append(store, event, by, at)


def _append(store: StoreHandle, event: Any, by: str, at: str | None) -> E.Envelope:
    """The append itself, inside the caller's transaction."""
    conn = store.conn
    envs = person_envelopes(conn)
    people = People(envs)
    people.check(event)
    for pid in named_in(event):
        if not known_person(conn, pid):
            raise PeopleError(
                f"{E.event_type(event)}: no game seated a person {pid!r} and the "
                "people record does not name them (see gostop people list)"
            )
    seq = len(envs) + 1
    prev = envs[-1].hash if envs else L.GENESIS
    env = L.Chain(prev).seal(L.envelope(PEOPLE_STREAM, seq, None, event, by=by, at=at))
    insert_rows(conn, "person_events", PERSON_EVENT_COLUMNS, [event_row(env)])
    people.apply(env)
    _write_people(conn, people)
    H.record(conn, "people", [(None, seq, env.hash)])
    return env


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What ``gostop people forget`` did: the event, the ids forgotten and the games whose
    rows were derived again without their names."""

    envelope: E.Envelope
    ids: tuple[str, ...]
    games: tuple[str, ...]


def forget_person(store: StoreHandle, pid: str, *, by: str, at: str | None = None) -> Forgotten:
    """Forget a person: delete the keys of their names (theirs and every id merged into
    theirs), append ``person_forgotten`` (naming their id, never a name) and derive again
    the projection rows of every game that seats them, all in one transaction. The events
    are not touched: every chain, seal and signature verifies as before.

    Refuses (:class:`~gostop_records.people.PeopleError`, nothing written) a person some
    game holds by a name in the clear (recorded before names were sealed): that game must
    be upgraded first (``gostop people upgrade``), or the name would stay readable.
    """
    from .stored_events import fresh_rows
    from .writer import clear_games, insert_projection

    store._writable()
    store.settle()
    conn = store.conn
    event = E.PersonForgotten(person=pid)
    people = People(person_envelopes(conn))
    people.check(event)
    ids = people.ids_of(pid)
    games = [
        str(r[0])
        for r in conn.execute(
            "SELECT game_id FROM games WHERE list_has_any(player_ids, ?::VARCHAR[]) "
            "ORDER BY game_id",
            [ids],
        ).fetchall()
    ]
    clear = in_the_clear(store, games, ids)
    if clear:
        raise PeopleError(
            f"person_forgotten: game(s) {', '.join(clear[:5])}"
            + (f" and {len(clear) - 5} more" if len(clear) > 5 else "")
            + f" hold {pid}'s name in the clear or in an id made from it (recorded before "
            "names were sealed, or before persons had ids of their own): run gostop people "
            "upgrade first, or the name would stay readable"
        )
    with H.writing(store.path), transaction(conn):
        conn.execute(
            "DELETE FROM person_keys WHERE person_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
        )
        env = _append(store, event, by, at)
        failed: list[Any] = []
        rows, _ = fresh_rows(store, games, failed)
        clear_games(conn, games)
        insert_projection(conn, rows)
    for gid in games:
        store.cache.pop(gid, None)
    return Forgotten(env, tuple(ids), tuple(games))


def in_the_clear(store: StoreHandle, games: Sequence[str], ids: Sequence[str]) -> list[str]:
    """The games whose ``game_started`` holds one of these persons' names unsealed, or
    seats them by an id made from the name (none, or its slug: see ``people.says_name``)."""
    out = []
    wanted = set(ids)
    keys = keys_for(store.conn, ids)
    for gid, rows in store.games_events(list(games)).items():
        first = rows_to_envelopes(rows[:1], source=str(store.path))
        ev = first[0].event if first else None
        if isinstance(ev, E.GameStarted) and any(
            pid in wanted and _readable(p, keys.get(pid))
            for p, pid in zip(ev.players, seat_ids(ev.players), strict=True)
        ):
            out.append(gid)
    return out


def _readable(p: E.Player, key: bytes | None) -> bool:
    """Whether a seat's name can be read without its key: in the clear, or in the id."""
    if not p.name:
        return False
    return not is_sealed(p.name) or says_name(p.id, open_name(p.name, key, p.id))


def person_key(store: StoreHandle, pid: str) -> bytes:
    """The key of a person's sealed names, made (and committed) the first time it is asked
    for: a key without a game is harmless, a game without its key could not be read. A
    forgotten person gets none (:class:`~gostop_records.people.PeopleError`): a game that
    seated them again would write a readable name under their id."""
    conn = store.conn
    row = fetch_one(conn, "SELECT key FROM person_keys WHERE person_id = ?", [pid])
    if row is not None:
        return bytes(row[0])
    if People(person_envelopes(conn)).forgotten(pid):
        raise PeopleError(
            f"{pid} is forgotten: a new game cannot seat them by that id (seat them as a new "
            "person, by name)"
        )
    key = new_key()
    with H.writing(store.path), transaction(conn):
        row = fetch_one(conn, "SELECT key FROM person_keys WHERE person_id = ?", [pid])
        if row is not None:
            return bytes(row[0])
        conn.execute("INSERT INTO person_keys VALUES (?, ?)", [pid, key])
    return key


def people_rows(conn: duckdb.DuckDBPyConnection, people: People) -> list[tuple[Any, ...]]:
    """The ``people`` table's rows: the record's, with each rename's sealed name opened by
    the person's key (:data:`~gostop_records.names.FORGOTTEN` once forgotten)."""
    rows = people.rows()
    keys = keys_for(conn, [r[0] for r in rows])
    out = []
    for pid, name, at, into, counts, forgotten in rows:
        shown = open_name(name, keys.get(pid), pid) if name is not None else None
        out.append((pid, FORGOTTEN if forgotten else shown, at, into, counts, forgotten))
    return out


def _write_people(conn: duckdb.DuckDBPyConnection, people: People) -> None:
    conn.execute("DELETE FROM people")
    insert_rows(conn, "people", PEOPLE_COLUMNS, people_rows(conn, people))


@dataclass(frozen=True, slots=True)
class PeopleCheck:
    """What ``gostop db verify`` found of the people record: its events, and each problem
    (a broken chain, a record the heads chain says held more, a ``people`` row that the
    record does not give)."""

    events: int
    problems: tuple[str, ...]


def check_people(conn: duckdb.DuckDBPyConnection) -> PeopleCheck:
    """The people record's chain, its latest heads entry, and ``people`` against a fold."""
    problems: list[str] = []
    try:
        envs = person_envelopes(conn)
    except Exception as exc:  # an unreadable payload was changed after it was sealed
        return PeopleCheck(0, (f"the people record does not decode: {exc}",))
    result = L.verify(envs)
    if not result.ok:
        problems.append(f"the people record's chain breaks: {result.reason}")
    last = fetch_one(
        conn,
        "SELECT seq, head FROM heads WHERE kind = 'people' ORDER BY entry DESC LIMIT 1",
    )
    held = (len(envs), envs[-1].hash if envs else None)
    if last is not None and (int(last[0]), last[1]) != held:
        problems.append(
            f"the heads chain recorded {last[0]} event(s) of the people record with head "
            f"{str(last[1])[:12]}; the store holds {held[0]}: cut short or replaced"
        )
    try:
        rows = people_rows(conn, People(envs))
    except PeopleError as exc:
        problems.append(f"the people record does not fold: {exc}")
    else:
        stored = conn.execute(
            f"SELECT {', '.join(quote(c) for c, _ in PEOPLE_COLUMNS)} FROM people "
            "ORDER BY person_id"
        ).fetchall()
        if [tuple(r) for r in stored] != [tuple(r) for r in rows]:
            problems.append("table people differs from the people record: run gostop db rebuild")
    return PeopleCheck(len(envs), tuple(problems))


def rebuild_people(conn: duckdb.DuckDBPyConnection) -> int:
    """``people`` derived from the record again (``gostop db rebuild``); its row count."""
    people = People(person_envelopes(conn))
    _write_people(conn, people)
    return len(people.persons)


def names_of(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Person id to the name shown, from :func:`persons` rows."""
    return {r["person_id"]: r["name"] for r in rows if r["name"] is not None}
