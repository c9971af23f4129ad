"""The HTTP API of the table service: Litestar routes over one :class:`TableService`.

Litestar speaks msgspec: the request and answer types are Structs and a typed entry is an
event payload of :mod:`gostop_records.events`, so the OpenAPI document (served at
``/schema``) is generated from the same definitions the log uses.

Every write runs on the writer thread (:mod:`.worker`), one at a time; every read runs on
a read thread with a DuckDB connection of its own (:mod:`.reads`), so a slow read delays
no entry and the event loop stays free for the live streams. Refusals are JSON
``{"error": ..., "reason": ...}`` with a 4xx status, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Litestar, Request
from litestar.config.cors import CORSConfig
from litestar.openapi.config import OpenAPIConfig

from .. import events as E
from ..review.model import GameReview
from ..web.browse_routes import browse_routes
from ..web.notice import announce
from ..web.play_routes import play_routes
from ..web.review_jobs import ReviewJobs
from ..web.routes import page_routes
from . import access
from . import reads as R
from .access import Action
from .error_answers import EXCEPTION_HANDLERS
from .game_routes import game_routes
from .headers import add_security_headers, refuse_deep_json
from .metrics import observe
from .people_routes import people_routes
from .rebuilds import rebuild_routes
from .route_kit import ENTRY_LIMIT
from .state import AppState, ServiceConfig, T
from .status_routes import status_routes
from .store_routes import store_routes

__all__ = ["ServiceConfig", "create_app"]


def create_app(config: ServiceConfig | None = None) -> Litestar:
    """The Litestar app over the store of ``config.db`` (opened at startup, closed at
    shutdown)."""
    cfg = config or ServiceConfig()
    st = AppState(cfg)

    async def startup(app: Litestar) -> None:
        await st.start()

    async def shutdown(app: Litestar) -> None:
        await reviews.close()
        await st.stop()

    async def events_of(request: Request[Any, Any, Any], game_id: str) -> list[E.Envelope]:
        """A game's events for the web pages, read as the API reads them."""
        await access.require(request, Action.READ_GAME, game_id)
        return await st.read(R.events, game_id)

    async def store_game(data: bytes) -> dict[str, Any]:
        """A hand played on /play, stored as an import (strict) is."""
        return await st.upload(data)

    async def read_store(request: Request[Any, Any, Any], fn: Callable[[Any], T]) -> T:
        """Runs ``fn`` on the store's connection for the reading pages, after the read check."""
        await access.require(request, Action.READ_STORE)
        return await st.read(fn)

    async def keep_review(review: GameReview) -> None:
        """A review computed in the background, kept in the store (a write job: a few rows)."""
        from ..review.store import store_review

        await st.run(lambda: store_review(st.svc.store.conn, review))

    reviews = ReviewJobs()

    app = Litestar(
        route_handlers=[
            *page_routes(events_of, st.hub),
            *play_routes(store_game, reviews=reviews),
            *browse_routes(events_of, read_store, reviews, keep_review),
            *people_routes(),
            *status_routes(),
            *game_routes(),
            *store_routes(),
            *rebuild_routes(),
        ],
        on_startup=[startup],
        on_shutdown=[shutdown],
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_config=OpenAPIConfig(
            title="gostop-records table service",
            version="1",
            description="Record Go-Stop and matgo games from every device at a table.",
        ),
        # no CORS unless origins are named (gostop serve --allow-origin URL)
        cors_config=CORSConfig(
            allow_origins=list(cfg.allow_origins),
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "Last-Event-ID"],
            expose_headers=["Idempotent-Replayed", "Server-Timing"],
        )
        if cfg.allow_origins
        else None,
        guards=[access.guard],
        before_request=refuse_deep_json,
        before_send=[add_security_headers],
        request_max_body_size=ENTRY_LIMIT,
        debug=False,
    )
    app.state["gostop"] = st
    # every request counted (and logged, when asked), routed or not: around the whole app
    app.asgi_handler = observe(
        announce(app.asgi_handler, st.rebuilds.notice), st.metrics, log=cfg.access_log
    )
    return app
