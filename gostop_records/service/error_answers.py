"""How a refusal or a failure is answered: JSON ``{"error": ..., "reason": ...}`` with a
4xx status, or a 500 naming an error id the server's log has; never a traceback. A page
asked for by a browser (a stale link, a game id mistyped, a recorder's page without its
link) is answered with a short page saying the same, in place of the JSON."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import msgspec
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException

from ..web.routes import refusal
from .errors import ServiceError
from .headers import MAX_DEPTH
from .route_kit import JSON
from .state import log

__all__ = ["EXCEPTION_HANDLERS"]


#: Where a refused page leads on.
_ONWARD = "<a href='/games'>the game browser</a> · <a href='/'>the tables</a>"


def _asks_for_page(request: Request[Any, Any, Any]) -> bool:
    """Whether the refusal is answered as a page: the route answers HTML, or no route
    matched a browser's GET outside the API."""
    handler = request.scope.get("route_handler")
    if handler is not None:
        return getattr(handler, "media_type", None) == MediaType.HTML
    return (
        request.method == "GET"
        and not request.url.path.startswith("/api")
        and "text/html" in request.headers.get("accept", "")
    )


def _page(status: int, error: str, reason: str) -> Response[Any]:
    return refusal(status, error.replace("_", " "), reason, _ONWARD)


def _service_error(request: Request[Any, Any, Any], exc: ServiceError) -> Response[Any]:
    if _asks_for_page(request):
        return _page(exc.status, exc.error, exc.reason)
    return Response(msgspec.json.encode(exc.body()), status_code=exc.status, media_type=JSON)


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if exc.status_code >= 500:
        return _internal_error(request, exc)
    reason = str(exc.detail)
    if isinstance(exc, ValidationException) and exc.extra:
        parts = []
        for item in exc.extra if isinstance(exc.extra, list) else [exc.extra]:
            if isinstance(item, dict):
                where = item.get("key") or item.get("source") or ""
                parts.append(f"{item.get('message', '')}" + (f" ({where})" if where else ""))
            else:
                parts.append(str(item))
        reason = f"{reason}: " + "; ".join(parts)
    names = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}
    body = {"error": names.get(exc.status_code, "http_error"), "reason": reason}
    if _asks_for_page(request):
        if exc.status_code == 404 and "route_handler" not in request.scope:
            reason = f"there is no page at {request.url.path}"
        page = _page(exc.status_code, body["error"], reason)
        page.headers.update(getattr(exc, "headers", None) or {})
        return page
    return Response(
        msgspec.json.encode(body),
        status_code=exc.status_code,
        media_type=JSON,
        headers=getattr(exc, "headers", None) or {},
    )


def _internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """A failure of the server: the answer says only that, with an error id; the server's
    log has the id with the exception and its traceback (never sent: they name files)."""
    if isinstance(exc, RecursionError):  # a body the size limit let through, nested deep
        body = {
            "error": "too_deep",
            "reason": f"the body nests too deeply to be read (at most {MAX_DEPTH} levels)",
        }
        return Response(msgspec.json.encode(body), status_code=400, media_type=JSON)
    error_id = secrets.token_hex(6)
    log.error(
        "internal error %s on %s %s", error_id, request.method, request.url.path, exc_info=exc
    )
    body = {
        "error": "internal",
        "reason": f"the server failed on this request; its log has the details under error id "
        f"{error_id}",
        "error_id": error_id,
    }
    return Response(msgspec.json.encode(body), status_code=500, media_type=JSON)


#: The app's exception handlers: a refusal, an HTTP error, anything else.
EXCEPTION_HANDLERS: dict[type[Exception], Callable[..., Response[Any]]] = {
    ServiceError: _service_error,
    HTTPException: _http_error,
    Exception: _internal_error,
}
