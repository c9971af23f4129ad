"""The API of one game: starting it, recording its entries, countersigning its hands,
its recorder token, and reading it (table, what comes next, events, audit, live stream)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from . import access
from . import reads as R
from .access import Action
from .core import EntryRequest
from .errors import ServiceError
from .models import (
    CountersignIn,
    EntryAnswer,
    EntryIn,
    GameCreated,
    NewGame,
)
from .route_kit import ENTRY_LIMIT, JSON, JSONL, idempotency_key, refusals, route_opt, send_answer
from .state import app_state
from .streams import sse_message

__all__ = ["game_routes"]


def _reads_game(path: str, summary: str, **more: Any) -> Callable[..., HTTPRouteHandler]:
    """A GET of one game's record, open to whoever may read the game (see :mod:`.access`)."""
    return get(path, summary=summary, opt=route_opt(Action.READ_GAME), **more)


@post(
    "/api/games",
    summary="Start a game (needs the server key)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=refusals(400, 401, 403, 409),
    opt=route_opt(Action.START_GAME),
)
async def create_game(
    data: JSONBody[NewGame], request: Request[Any, Any, Any]
) -> Response[GameCreated]:
    st = app_state(request)
    return send_answer(await st.journaled(st.svc.create_game, data, idempotency_key(request)))


@post(
    "/api/games/{game_id:str}/entries",
    summary="Record one entry: a line of the recorder's grammar or a typed input event",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=refusals(400, 401, 403, 404, 409, 413, 422),
    opt=route_opt(Action.RECORD),
)
async def add_entry(
    game_id: FromPath[str], data: JSONBody[EntryIn], request: Request[Any, Any, Any]
) -> Response[EntryAnswer]:
    since = time.perf_counter()
    st = app_state(request)
    token = access.bearer(request)
    key = idempotency_key(request)
    raw_event = None
    if data.event is not None:
        with contextlib.suppress(Exception):
            raw = msgspec.json.decode(await request.body())
            raw_event = raw.get("event") if isinstance(raw, dict) else None

    if st.worker is None:
        raise ServiceError(503, "unavailable", "the service is starting or stopping")
    request_ = EntryRequest(
        game_id,
        data,
        raw_event=raw_event if isinstance(raw_event, dict) else None,
        idempotency_key=key,
        token=token,
        check_token=True,
    )
    answer = await st.worker.enter(request_)
    st.metrics.timed(answer.queue_ms, answer.store_ms)
    return send_answer(answer, since)


@_reads_game(
    "/api/games/{game_id:str}/checkpoint",
    summary="The latest signed checkpoint and the bytes each seat signs to countersign it",
    responses=refusals(404),
)
async def game_checkpoint(
    game_id: FromPath[str], request: Request[Any, Any, Any]
) -> dict[str, Any]:
    st = app_state(request)
    return await st.look(st.svc.checkpoint, game_id)


@post(
    "/api/games/{game_id:str}/countersign",
    summary="Countersign a hand's result: a player's signature of a signed checkpoint (a "
    "seat's first binds its key and needs the game's recorder token)",
    request_max_body_size=ENTRY_LIMIT,
    status_code=201,
    responses=refusals(400, 401, 403, 404, 422),
    opt=route_opt(Action.COUNTERSIGN),
)
async def countersign(
    game_id: FromPath[str], data: JSONBody[CountersignIn], request: Request[Any, Any, Any]
) -> Response[bytes]:
    st = app_state(request)
    # binding a seat's key is the recorder's (access.TABLE[BIND_SEAT]): the service asks
    # for it only when the seat has no key yet
    confirmed = await access.permits(request, Action.BIND_SEAT, game_id)
    return send_answer(await st.run(st.svc.countersign, game_id, data, confirmed=confirmed))


@post(
    "/api/games/{game_id:str}/token",
    summary="Issue a new recorder token for a stored game (needs the server key)",
    request_max_body_size=1024,
    opt=route_opt(Action.REISSUE_TOKEN),
)
async def issue_token(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[bytes]:
    st = app_state(request)
    body = await st.run(st.svc.issue_token, game_id)
    return Response(msgspec.json.encode(body), status_code=201, media_type=JSON)


@get(
    "/api/token",
    summary="The game a recorder token opens (the token as Bearer)",
    opt=route_opt(Action.PUBLIC),
)
async def token_game(request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = app_state(request)
    return await st.look(st.svc.token_game, access.bearer(request))


@_reads_game(
    "/api/games/{game_id:str}",
    summary="The table and scores (as gostop replay --json)",
)
async def game_table(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    at: Annotated[int | None, QueryParameter(ge=1, description="right after this seq")] = None,
) -> dict[str, Any]:
    st = app_state(request)
    return await st.read(R.table, game_id, at)


@_reads_game(
    "/api/games/{game_id:str}/now",
    summary="The table, what the rules wait for and every entry they accept next (as lines)",
)
async def game_now(game_id: FromPath[str], request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = app_state(request)
    return await st.look(st.svc.now, game_id)


@_reads_game(
    "/api/games/{game_id:str}/events",
    summary="The log as JSON Lines, each line as stored",
    media_type=JSONL,
)
async def game_events(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, description="only events after this seq")] = 0,
) -> Response[bytes]:
    st = app_state(request)
    return Response(await st.read(R.event_lines, game_id, after), media_type=JSONL)


@_reads_game(
    "/api/games/{game_id:str}/audit",
    summary="The audit of a game as JSON",
)
async def game_audit(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    hand: Annotated[int | None, QueryParameter(ge=1)] = None,
    claim: Annotated[
        list[str] | None,
        QueryParameter(description='claimed payments "PAYER->PAYEE=CHIPS", repeatable'),
    ] = None,
    lenient: FromQuery[bool] = False,
) -> dict[str, Any]:
    st = app_state(request)
    return await st.read(R.audit, game_id, hand=hand, claims=claim or [], lenient=lenient)


@_reads_game(
    "/api/games/{game_id:str}/stream",
    summary="Server-Sent Events: one message per event, its seq as the id",
    media_type="text/event-stream",
)
async def game_stream(
    game_id: FromPath[str],
    request: Request[Any, Any, Any],
    after: Annotated[int | None, QueryParameter(ge=0, description="start after this seq")] = None,
) -> Stream:
    st = app_state(request)
    last_id = request.headers.get("last-event-id")
    cursor = after or 0
    if last_id is not None:
        try:
            cursor = int(last_id.strip())
        except ValueError:
            raise ServiceError(400, "bad_request", "Last-Event-ID: give a seq") from None
    queue = st.hub.subscribe(game_id)
    try:
        backlog = await st.read(R.events, game_id, cursor)
    except BaseException:
        st.hub.unsubscribe(game_id, queue)
        raise

    async def messages() -> AsyncIterator[bytes]:
        seen = cursor
        try:
            yield b"retry: 2000\n\n"
            for env in backlog:
                yield sse_message(env)
                seen = env.seq
            while True:
                batch = await queue.get()
                if batch is None:
                    return
                if not batch:  # the hub's keep-alive beat
                    yield b": keep-alive\n\n"
                    continue
                out = [data for seq, data in batch if seq > seen]
                if out:
                    seen = max(seq for seq, _ in batch)
                    yield b"".join(out)
        finally:
            st.hub.unsubscribe(game_id, queue)

    return Stream(
        messages(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def game_routes() -> list[HTTPRouteHandler]:
    """The routes of this module, for the app."""
    return [
        create_game,
        add_entry,
        issue_token,
        game_checkpoint,
        countersign,
        token_game,
        game_table,
        game_now,
        game_events,
        game_audit,
        game_stream,
    ]
