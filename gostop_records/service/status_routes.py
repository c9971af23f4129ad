"""Whether the service is up (``/api/health``) and what it is doing (``/metrics``)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler

from . import access
from . import reads as R
from .access import Action
from .metrics import CONTENT_TYPE
from .route_kit import route_opt
from .state import app_state

__all__ = ["status_routes"]


@get(
    "/api/health",
    summary="Whether the service is up (the store's file name for the server key only)",
    opt=route_opt(Action.PUBLIC),
)
async def health(request: Request[Any, Any, Any]) -> dict[str, Any]:
    st = app_state(request)
    out = await st.read_now(R.health)
    svc = st.svc
    out["live"] = len(svc.live)
    cause = svc.write_error()
    if cause is not None:  # that it fails for everyone; the cause for the key holder
        out["ok"] = False
    out["rebuilding"] = st.rebuilds.running  # the pages say it to everyone
    if access.holds_key(request):
        out["store"] = svc.path.name
        if cause is not None:
            out["writes"] = cause
        rebuild = st.rebuilds.status()
        if rebuild is not None:  # the running rebuild's progress, or the last one's end
            out["rebuild"] = rebuild
    if st.worker is not None:
        out["queue"] = st.worker.depth
    out["viewers"] = st.hub.viewer_count()
    out["open"] = st.config.opens_games
    out["private"] = st.config.private
    return out


@get(
    "/metrics",
    summary="What the server is doing, in Prometheus' text format (needs the server key)",
    media_type=CONTENT_TYPE,
    opt=route_opt(Action.METRICS),
)
async def server_metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
    st = app_state(request)
    return Response(st.metrics.render(st.snapshot()), media_type=CONTENT_TYPE)


def status_routes() -> list[HTTPRouteHandler]:
    """The routes of this module, for the app."""
    return [health, server_metrics]
