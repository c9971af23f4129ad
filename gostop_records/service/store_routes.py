"""The API of the whole store: searching the games, importing logs, read-only SQL and
backups."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromQuery, JSONBody, QueryParameter

from ..store.sandbox import QueryHandle
from . import reads as R
from .access import Action
from .errors import ServiceError
from .models import (
    BackupIn,
    GamesPage,
    QueryIn,
)
from .route_kit import ENTRY_LIMIT, IMPORT_LIMIT, JSON, refusals, route_opt
from .state import app_state

__all__ = ["store_routes"]


@get("/api/games", summary="Search the stored games (paged)", opt=route_opt(Action.READ_STORE))
async def list_games(
    request: Request[Any, Any, Any],
    player: FromQuery[str | None] = None,
    date: Annotated[str | None, QueryParameter(description="YYYY-MM-DD: started that day")] = None,
    date_from: Annotated[str | None, QueryParameter(name="from")] = None,
    date_to: Annotated[str | None, QueryParameter(name="to")] = None,
    ruleset: FromQuery[str | None] = None,
    outcome: Annotated[
        str | None, QueryParameter(description="a hand ended so: stop, instant, nagari, void")
    ] = None,
    disputed: Annotated[
        bool | None, QueryParameter(description="a recorded payment differs from the computed one")
    ] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 50,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> GamesPage:
    st = app_state(request)
    page = await st.read(
        R.search,
        player=player,
        date=date,
        date_from=date_from,
        date_to=date_to,
        ruleset=ruleset,
        outcome=outcome,
        disputed=disputed,
        limit=limit,
        offset=offset,
    )
    return msgspec.convert(page, GamesPage)


@post(
    "/api/import",
    summary="Import a JSON Lines upload, validated and whole per game (needs the server key)",
    request_max_body_size=IMPORT_LIMIT,
    status_code=200,
    opt=route_opt(Action.IMPORT, raw_body=True),
)
async def import_logs(
    request: Request[Any, Any, Any], lenient: FromQuery[bool] = False
) -> Response[bytes]:
    st = app_state(request)
    data = await request.body()
    report = await st.upload(data, lenient=lenient)
    status = 200 if report.get("ok") else 422
    return Response(msgspec.json.encode(report), status_code=status, media_type=JSON)


@post(
    "/api/query",
    summary="Read-only SQL over the store's tables and views (no write, no file)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=200,
    responses=refusals(400, 401, 403, 408, 413),
    opt=route_opt(Action.READ_STORE),
)
async def run_query(data: JSONBody[QueryIn], request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = app_state(request)
    if not st.svc.sql:
        raise ServiceError(
            501, "no_sql", "SQL over HTTP needs pyarrow on the server (pip install pyarrow)"
        )
    svc = st.svc
    limits = st.config.settings.query_limits
    handle = QueryHandle()  # cancelled when the client goes away, even while it waits
    gone = asyncio.ensure_future(_cancel_when_gone(request, handle))
    try:
        answer = await st.read(R.query, data.sql, data.limit, limits, handle)
    except ServiceError as exc:  # DuckDB's words may name a file of the server's
        exc.reason = svc.hide_paths(exc.reason)
        raise
    finally:  # answered, failed, or the handler cancelled (the server stopping): it ends
        gone.cancel()
        handle.cancel()
    return svc.hide_paths(answer)  # type: ignore[no-any-return]


@post(
    "/api/backup",
    summary="Back the store up into the server's backup folder (needs the server key)",
    request_max_body_size=1024,
    status_code=201,
    responses=refusals(400, 401, 403),
    opt=route_opt(Action.BACKUP, raw_body=True),
)
async def take_backup(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """A copy of the store at this point (every entry acknowledged before it, none after),
    written into the backup folder under a name of the UTC time or the one given
    (``{"name": "FILE.duckdb"}``, a bare file name); the answer names it, with its size and
    the heads chain tip (entry, hash) it holds."""
    st = app_state(request)
    raw = await request.body()
    name = None
    if raw.strip():
        try:
            name = msgspec.json.decode(raw, type=BackupIn).name
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise ServiceError(400, "bad_request", f"the body: {exc}") from None
    return await st.backup(name)


async def _cancel_when_gone(request: Request[Any, Any, Any], handle: QueryHandle) -> None:
    """Cancels ``handle`` at the client's disconnect: the body has been read, so the next
    message of the connection is ``http.disconnect``."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
    handle.cancel()


def store_routes() -> list[HTTPRouteHandler]:
    """The routes of this module, for the app."""
    return [list_games, import_logs, run_query, take_backup]
