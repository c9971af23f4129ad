"""The people record through the service: a rename or a merge of persons as a write job
(on the writer thread, as every write), refused with the reason as a 4xx."""

from __future__ import annotations

from typing import Any

import msgspec

from .. import events as E
from ..people import PeopleError
from ..store.people import append_person_event, forget_person
from .errors import ServiceError
from .sessions import Sessions

__all__ = ["Persons"]


class Persons(Sessions):
    """Renames and merges of persons (see :mod:`gostop_records.people`)."""

    def person_event(self, event: E.PersonRenamed | E.PersonsMerged, by: str) -> dict[str, Any]:
        """Append one event to the store's people record; the sealed envelope as JSON."""
        try:
            env = append_person_event(self.store, event, by=by)
        except PeopleError as exc:
            raise ServiceError(400, "people", str(exc)) from None
        return {"seq": env.seq, "hash": env.hash, "event": msgspec.to_builtins(env.event)}

    def forget_person(self, pid: str, by: str) -> dict[str, Any]:
        """Forget a person (see :func:`~gostop_records.store.people.forget_person`); the
        games in memory that seat them are dropped, read again without the name."""
        try:
            done = forget_person(self.store, pid, by=by)
        except PeopleError as exc:
            raise ServiceError(400, "people", str(exc)) from None
        for gid in done.games:  # read again from the store, without the name
            self.live.pop(gid, None)
            self.store.cache.pop(gid, None)
        return {
            "seq": done.envelope.seq,
            "hash": done.envelope.hash,
            "forgotten": list(done.ids),
            "games": len(done.games),
            "compact": "the store file still holds freed blocks: stop the server and run "
            "gostop db compact to rewrite it",
        }
