"""The pages of ``gostop serve``: Litestar routes the service includes (the replayer at
``/games/{id}/replay``, each card drawing at ``/cards/{code}.svg``).

The service owns the store and who may read what; it hands these routes a function that
gives the events of a game to a request (checking access and raising its own 404), and the
routes make the page. A page is built off the event loop, on a thread of its own, so that a
large game does not hold up the live streams or the store's worker.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from html import escape
from typing import Any

import msgspec
from litestar import MediaType, Request, Response, get, post
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import ClientException, NotFoundException
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.response import Stream

from .. import cards as C
from .. import events as E
from ..errors import GostopError
from . import cards as W
from .live_view import live_view
from .pages import replay_page
from .table_pages import index_page, live_page, qr_svg, recorder_page

__all__ = ["EventsOf", "game_page", "html", "page_get", "page_routes", "refusal"]

#: Gives the events of game ``game_id`` to ``request``, or raises the service's refusal.
EventsOf = Callable[[Request[Any, Any, Any], str], Awaitable[Sequence[E.Envelope]]]


def html(body: str, status: int = 200) -> Response[str]:
    """An HTML answer."""
    return Response(body, status_code=status, media_type=MediaType.HTML)


def refusal(status: int, title: str, reason: str, links: str = "") -> Response[str]:
    """A short page saying why the page asked for is not shown, with ``links`` (HTML) on."""
    body = (
        "<!doctype html><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{escape(title)}</title><p>{escape(reason)}</p>"
    )
    return html(body + (f"<p>{links}</p>" if links else ""), status)


def page_get(path: str, access: str, **more: Any) -> Any:
    """The route of a page: ``GET path`` answered in HTML, left out of the API's schema,
    for ``access`` (an action of :mod:`gostop_records.service.access`)."""
    return get(
        path, media_type=MediaType.HTML, include_in_schema=False, opt={"access": access}, **more
    )


async def game_page(
    events_of: EventsOf,
    request: Request[Any, Any, Any],
    game_id: str,
    render: Callable[[str, Sequence[E.Envelope]], str],
    cannot: tuple[str, str],
) -> Response[str]:
    """A page made of one game's events, off the event loop; a game it cannot be made of
    is answered 422 with ``cannot`` (``("cannot replay", "cannot be replayed")``) and why."""
    envs = await events_of(request, game_id)
    try:
        page = await asyncio.to_thread(render, game_id, envs)
    except GostopError as exc:
        return refusal(422, cannot[0], f"game {game_id} {cannot[1]}: {exc}")
    return html(page)


#: Live views already built, by game and version: every viewer of a game asks for the same
#: one after each event.
_VIEWS: dict[tuple[str, int], bytes] = {}
_VIEWS_KEPT = 64


async def _view_of(game_id: str, envs: Sequence[E.Envelope]) -> bytes:
    key = (game_id, envs[-1].seq if envs else 0)
    body = _VIEWS.get(key)
    if body is None:
        view = await asyncio.to_thread(live_view, game_id, envs)
        body = msgspec.json.encode(view)
        if len(_VIEWS) >= _VIEWS_KEPT:
            _VIEWS.pop(next(iter(_VIEWS)))
        _VIEWS[key] = body
    return body


# Long: the routes are closures over the app's hooks; each route is short.
def page_routes(events_of: EventsOf, hub: Any = None) -> list[HTTPRouteHandler]:
    """The route handlers of the pages, reading games through ``events_of``; ``hub`` (the
    service's :class:`~gostop_records.service.streams.Hub`) tells the live tables of new
    events."""

    @page_get(
        "/games/{game_id:str}/replay",
        "read_game",
        summary="The replayer of a game: one self-contained HTML page",
    )
    async def replay(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        cannot = ("cannot replay", "cannot be replayed")
        return await game_page(events_of, request, game_id, replay_page, cannot)

    @get(
        "/cards/{name:str}",
        summary="One card drawing as SVG (01G.svg ... B3.svg, back.svg)",
        include_in_schema=False,
        cache_control=CacheControlHeader(max_age=86400, public=True),
        opt={"access": "public"},
    )
    async def card(name: FromPath[str]) -> Response[str]:
        code = name.removesuffix(".svg")
        if not name.endswith(".svg") or (code != "back" and code not in C.CODE_TO_INDEX):
            raise NotFoundException(f"there is no card drawing {name!r}: try 01G.svg or back.svg")
        return Response(W.card_svg(code), media_type="image/svg+xml")

    @page_get("/", "public")
    async def index() -> Response[str]:
        return html(index_page())

    @page_get("/games/{game_id:str}/record", "public")  # a shell: the token stays in the phone
    async def record(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        return html(recorder_page(game_id))

    @page_get("/games/{game_id:str}", "read_game")
    async def live(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        await events_of(request, game_id)  # the service's 404 for a game it does not have
        return html(live_page(game_id))

    @get("/games/{game_id:str}/view", include_in_schema=False, opt={"access": "read_game"})
    async def view(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[bytes]:
        """The live table's view (:func:`.live_view.live_view`): no card the table has not
        seen, every sentence written here."""
        envs = await events_of(request, game_id)
        body = await _view_of(game_id, envs)
        return Response(body, media_type=MediaType.JSON, headers={"Cache-Control": "no-store"})

    @get(
        "/games/{game_id:str}/watch",
        media_type="text/event-stream",
        include_in_schema=False,
        opt={"access": "read_game"},
    )
    async def watch(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Stream:
        """Server-Sent Events for the live table: the seq of each new event and nothing of
        it (the page reads the view again); a comment now and then keeps it open."""
        if hub is None:
            raise NotFoundException("this server streams no live table")
        queue = hub.subscribe(game_id)
        try:
            envs = await events_of(request, game_id)
        except BaseException:
            hub.unsubscribe(game_id, queue)
            raise
        start = envs[-1].seq if envs else 0

        async def ticks() -> AsyncIterator[bytes]:
            seen = start
            try:
                yield b"retry: 2000\n\nid: %d\nevent: seq\ndata: %d\n\n" % (seen, seen)
                while True:
                    batch = await queue.get()
                    if batch is None:
                        return
                    if not batch:
                        yield b": keep-alive\n\n"
                        continue
                    last = max(seq for seq, _ in batch)
                    if last > seen:
                        seen = last
                        yield b"id: %d\nevent: seq\ndata: %d\n\n" % (seen, seen)
            finally:
                hub.unsubscribe(game_id, queue)

        return Stream(
            ticks(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @post(
        "/qr",
        media_type="image/svg+xml",
        include_in_schema=False,
        status_code=200,
        request_max_body_size=2048,
        opt={"access": "public", "raw_body": True},
    )
    async def qr(request: Request[Any, Any, Any]) -> Response[str]:
        """A QR code of the text sent (the recorder link, whose token stays out of URLs)."""
        text = (await request.body()).decode("utf-8", "replace").strip()
        if not text:
            raise ClientException("send the text to encode as the body")
        return Response(qr_svg(text), media_type="image/svg+xml")

    return [replay, card, index, record, live, view, watch, qr]
