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

from .. import events as E
from .. import log as L
from ..people import PEOPLE_STREAM, People, PeopleError
from . import heads as H
from .codec import event_row, rows_to_envelopes
from .connection import fetch_one
from .rows import insert_rows
from .schema import PEOPLE_COLUMNS, PERSON_EVENT_COLUMNS, quote
from .writer import transaction

if TYPE_CHECKING:
    import duckdb

    from .store import Store

__all__ = [
    "PeopleCheck",
    "append_person_event",
    "check_people",
    "known_person",
    "person_envelopes",
    "persons",
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
        "SELECT 1 WHERE EXISTS (SELECT 1 FROM player_games WHERE player_id = $p) "
        "OR EXISTS (SELECT 1 FROM people WHERE person_id = $p)",
        {"p": pid},
    )
    return row is not None


def persons(conn: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every person (``v_people``), the most recently seated first."""
    cur = conn.execute("SELECT * FROM v_people ORDER BY last_started_at DESC NULLS LAST, person_id")
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def append_person_event(store: Store, event: Any, *, by: str, at: str | None = None) -> E.Envelope:
    """Append one rename or merge to the people record, with its heads entry and the
    ``people`` table derived again, in one transaction; the sealed envelope.

    Raises :class:`~gostop_records.people.PeopleError` (nothing written) for an event the
    record refuses or one naming a person the store does not know.
    """
    store._writable()
    store.settle()
    conn = store.conn
    with H.writing(store.path), transaction(conn):
        envs = person_envelopes(conn)
        people = People(envs)
        people.check(event)
        named = (
            (event.person,) if isinstance(event, E.PersonRenamed) else (event.person, event.into)
        )
        for pid in named:
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


def _write_people(conn: duckdb.DuckDBPyConnection, people: People) -> None:
    conn.execute("DELETE FROM people")
    insert_rows(conn, "people", PEOPLE_COLUMNS, people.rows())


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
        rows = People(envs).rows()
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
