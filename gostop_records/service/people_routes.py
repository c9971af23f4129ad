"""The API of the people record: every person (``GET /api/people``), and a rename, a merge
or forgetting a person (``POST``, with the server key: they change how every page counts
and names a player). The writes are events of the people record, never edits (see
``people``)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath

from .. import events as E
from ..people import MAX_NAME
from ..store.people import persons
from .access import Action
from .errors import ServiceError

__all__ = ["MergeIn", "RenameIn", "people_routes"]

#: A rename's or merge's body is small: its name, or two ids.
BODY_LIMIT = 1024


class RenameIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/people/{id}/rename``: the name to show from now on."""

    name: str
    by: str = "api"


class ForgetIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/people/{id}/forget``: who asks (the body may be empty)."""

    by: str = "api"


class MergeIn(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/people/merge``: ``person``'s games count for ``into``'s from now on."""

    person: str
    into: str
    by: str = "api"


def _body(raw: bytes, kind: type[Any]) -> Any:
    try:
        return msgspec.json.decode(raw, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ServiceError(400, "bad_request", f"the body: {exc}") from None


def _who(by: str) -> str:
    who = by.strip()
    if not who or len(who) > MAX_NAME:
        raise ServiceError(400, "bad_request", f"by: give 1 to {MAX_NAME} characters")
    return who


def _people_post(path: str, summary: str) -> Any:
    """A route that writes the people record: the server key's, answered 201."""
    return post(
        path,
        summary=summary,
        request_max_body_size=BODY_LIMIT,
        status_code=201,
        opt={"access": Action.PEOPLE},
    )


async def _record(request: Request[Any, Any, Any], event: Any, by: str) -> dict[str, Any]:
    """Append ``event`` to the people record, by ``by``; the entry as written."""
    st = request.app.state["gostop"]
    return await st.run(st.svc.person_event, event, _who(by))  # type: ignore[no-any-return]


def people_routes() -> list[HTTPRouteHandler]:
    """The route handlers; the service's state is the app's (``app.state["gostop"]``)."""

    @get(
        "/api/people",
        summary="Every person a game seated, the name shown and who their games count for",
        opt={"access": Action.READ_STORE},
    )
    async def list_people(request: Request[Any, Any, Any]) -> list[dict[str, Any]]:
        return await request.app.state["gostop"].read(persons)  # type: ignore[no-any-return]

    @_people_post(
        "/api/people/{person_id:str}/rename",
        summary="Show a person by another name from now on (needs the server key)",
    )
    async def rename(person_id: FromPath[str], request: Request[Any, Any, Any]) -> dict[str, Any]:
        data = _body(await request.body(), RenameIn)
        return await _record(
            request, E.PersonRenamed(person=person_id, name=data.name.strip()), data.by
        )

    @_people_post(
        "/api/people/merge",
        summary="Count one id's games for another person (needs the server key)",
    )
    async def merge(request: Request[Any, Any, Any]) -> dict[str, Any]:
        data = _body(await request.body(), MergeIn)
        return await _record(request, E.PersonsMerged(person=data.person, into=data.into), data.by)

    @_people_post(
        "/api/people/{person_id:str}/forget",
        summary="Forget a person: their names become unreadable (needs the server key)",
    )
    async def forget(person_id: FromPath[str], request: Request[Any, Any, Any]) -> dict[str, Any]:
        raw = await request.body()
        who = _who(_body(raw, ForgetIn).by) if raw.strip() else "api"
        st = request.app.state["gostop"]
        return await st.run(st.svc.forget_person, person_id, who)  # type: ignore[no-any-return]

    return [list_people, rename, merge, forget]
