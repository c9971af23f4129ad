"""The reading pages as Litestar routes: the game browser (``/games``), the players
(``/players``, ``/players/{id}``), the club's report (``/report``, what ``gostop db report``
writes from a file), a game's audit (``/games/{id}/audit``) and the review of its decisions
that the store keeps (``/games/{id}/review``).

The service hands in two readers: ``events_of`` (a game's events, with its access check
and 404) and ``read_store`` (runs a function on the store's connection where the service
runs its reads, after the same check). A bad filter is answered 400 with the form and the
reason; an unknown player 404, naming them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request, Response
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath

from ..review import DEFAULT_KINDS
from ..store.browse import (
    BrowseError,
    HandFilter,
    hands_page,
    player_figures,
    players,
    rulesets,
)
from .browse_pages import audit_page, games_page, player_page, players_page, report_page
from .notice import with_notice
from .review_jobs import ReviewBusy, ReviewJobs, Then
from .routes import EventsOf, game_page, html, page_get, refusal

__all__ = ["ReadStore", "browse_routes"]

#: Runs ``fn(connection)`` on the store for ``request`` (after the service's read check).
ReadStore = Callable[[Request[Any, Any, Any], Callable[[Any], Any]], Awaitable[Any]]


#: Where a refused reading page leads on.
_ONWARD = "<a href='/games'>the game browser</a> · <a href='/players'>players</a>"


def _refusal(status: int, title: str, reason: str) -> Response[str]:
    return refusal(status, title, reason, _ONWARD)


def _query(request: Request[Any, Any, Any]) -> dict[str, str]:
    """The query string, one value per key (the last one given)."""
    return {k: v[-1] for k, v in request.query_params.dict().items() if v}


#: How the server reviews a game nobody reviewed: as ``gostop review`` does by default.
SERVER_REVIEW: dict[str, Any] = {"kinds": DEFAULT_KINDS}


#: The permission these pages declare (``gostop_records.service.access``).
# Long: the routes are closures over the app's hooks; each route is short.
def browse_routes(
    events_of: EventsOf,
    read_store: ReadStore,
    reviews: ReviewJobs | None = None,
    keep_review: Then | None = None,
) -> list[HTTPRouteHandler]:
    """The route handlers of the reading pages; ``reviews`` computes the reviews a store
    does not keep yet, and ``keep_review`` stores each (the service's writer)."""
    jobs = reviews if reviews is not None else ReviewJobs()

    @page_get("/games", "read_store")
    async def games(request: Request[Any, Any, Any]) -> Response[str]:
        query = _query(request)
        try:
            flt = HandFilter.parse(query)
        except BrowseError as exc:
            choices = await read_store(request, rulesets)
            page = games_page(None, HandFilter(), str(exc), form=query, choices=choices)
            return html(page, 400)
        page = await read_store(request, lambda conn: hands_page(conn, flt))
        return html(await asyncio.to_thread(games_page, page, flt))

    @page_get("/players", "read_store")
    async def player_list(request: Request[Any, Any, Any]) -> Response[str]:
        rows = await read_store(request, players)
        return html(players_page(rows))

    @page_get("/players/{player_id:str}", "read_store")
    async def player(player_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        from ..review.store import player_luck

        def figures(conn: Any) -> tuple[Any, Any]:
            fig = player_figures(conn, player_id)
            return fig, (player_luck(conn, player_id) if fig is not None else None)

        fig, luck = await read_store(request, figures)
        if fig is None:
            return _refusal(
                404,
                "no such player",
                f"no ended hand has a player with id {player_id!r}: see /players for the ids",
            )
        return html(await asyncio.to_thread(player_page, fig, luck))

    @page_get("/report", "read_store")
    async def report(request: Request[Any, Any, Any]) -> Response[str]:
        """The club's report of the store the server holds (``gostop db report --server``
        reads it: the store is locked by the server, so a command cannot open the file)."""
        return html(await read_store(request, report_page))

    @page_get("/games/{game_id:str}/audit", "read_game")
    async def audit(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        cannot = ("cannot audit", "cannot be audited")
        return await game_page(events_of, request, game_id, audit_page, cannot)

    @page_get("/games/{game_id:str}/review", "read_game")
    async def review(game_id: FromPath[str], request: Request[Any, Any, Any]) -> Response[str]:
        """The stored review in the replayer; else one computed in the background (and
        stored), the page saying so with its progress meanwhile."""
        from ..review.store import load_review
        from .review_page import progress_page, review_page, stored_review

        envs = await events_of(request, game_id)
        stored = await read_store(request, lambda conn: load_review(conn, game_id))
        found = stored_review(game_id, envs, stored)
        key = f"game/{game_id}"
        job = jobs.get(key)
        newer = job.result if job is not None else None
        if newer is not None and (found is None or newer.through_seq > found.through_seq):
            found = newer  # computed, but not kept in the store (or not readable yet)
        last = envs[-1].seq if envs else 0
        if found is not None and found.through_seq >= last:
            if stored is not None:
                jobs.forget(key)
            return html(await asyncio.to_thread(review_page, found, envs))
        if found is not None:  # the game went on since: shown as it is, the rest reviewed
            if job is not None and job.state == "done":
                jobs.forget(key)  # it reviewed less than there is now
            try:
                job = jobs.submit(key, game_id, envs, SERVER_REVIEW, keep_review)
                doing = (
                    f"{job.done} of {job.total} decisions judged"
                    if job.total
                    else "waiting for the reviewer"
                )
            except ReviewBusy:
                doing = "the reviewer is busy: load the page again later"
            page = await asyncio.to_thread(review_page, found, envs)
            said = (
                f"This review covers the game up to event {found.through_seq}; it went on to "
                f"event {last}. The game is being reviewed again ({doing})."
            )
            return html(with_notice(page.encode(), said).decode())
        if job is not None and job.state == "failed":
            jobs.forget(key)  # said once; the next look tries again
            return html(progress_page(game_id, "failed", 0, 0, job.error), 422)
        try:
            job = jobs.submit(key, game_id, envs, SERVER_REVIEW, keep_review)
        except ReviewBusy as exc:
            return _refusal(503, "the reviewer is busy", str(exc))
        return html(progress_page(game_id, job.state, job.done, job.total, job.error), 202)

    return [games, player_list, player, report, audit, review]
