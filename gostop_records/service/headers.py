"""What ``gostop serve`` adds to every answer, and what it refuses before decoding a body.

Every answer (pages, API, refusals, 404s, card drawings) carries:

- a ``Content-Security-Policy`` that lets a page run only the project's own scripts and
  styles, by hash (the pages hold them inline, so they also work as files: the hashes are
  of the static files under ``gostop_records/web/static``), reach only this server, load
  images only from itself or ``data:``, and never be framed;
- ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``;
- ``Referrer-Policy: no-referrer``: a recorder's link carries its token (in the fragment,
  which no browser sends; the policy makes sure no address leaves the page).

A JSON body that nests deeper than :data:`MAX_DEPTH` is refused with a 400 before it is
decoded (a thousand levels made the decoder's recursion give up with a traceback).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

from ..web.pages import STYLES, source_hash, style
from .errors import ServiceError

__all__ = ["MAX_DEPTH", "csp", "json_depth", "security_headers"]

#: The deepest a request's JSON may nest (the service's bodies nest 4 or 5 levels).
MAX_DEPTH = 32


@lru_cache(maxsize=1)
def csp() -> str:
    """The policy of every answer: the project's scripts and styles by hash, nothing else."""
    static = resources.files("gostop_records.web").joinpath("static")
    scripts = sorted(
        source_hash(f.read_text("utf-8")) for f in static.iterdir() if f.name.endswith(".js")
    )
    styles = sorted({source_hash(style(names)) for names in STYLES})
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(scripts),
            "style-src " + " ".join(styles),
            "img-src 'self' data:",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ]
    )


#: The policy of the OpenAPI viewer Litestar serves at ``/schema`` (Redoc, which it loads
#: from its CDN with an inline script): that page only; ``/schema/openapi.json`` is plain.
SCHEMA_VIEWER_CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'unsafe-inline' https://cdn.redoc.ly",
        "style-src 'unsafe-inline' https://fonts.googleapis.com",
        "font-src https://fonts.gstatic.com",
        "img-src 'self' data: https://cdn.jsdelivr.net https://cdn.redoc.ly",
        "connect-src 'self'",
        "worker-src blob:",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)


@lru_cache(maxsize=2)
def security_headers(schema_viewer: bool = False) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", (SCHEMA_VIEWER_CSP if schema_viewer else csp()).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", b"no-referrer"),
    ]


def _schema_viewer(path: str) -> bool:
    return (path == "/schema" or path.startswith("/schema/")) and not path.endswith(
        (".json", ".yaml", ".yml")
    )


async def add_security_headers(message: Any, scope: Any) -> None:
    """A ``before_send`` hook: the headers above on every answer the app sends."""
    if message["type"] != "http.response.start":
        return
    headers = list(message.get("headers") or [])
    have = {k.lower() for k, _ in headers}
    extra = security_headers(_schema_viewer(scope.get("path", "")))
    headers += [(k, v) for k, v in extra if k not in have]
    message["headers"] = headers


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(body: bytes) -> int:
    """How deep the JSON of ``body`` nests (brackets inside strings do not count)."""
    brackets = _STRINGS.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        if b in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


async def refuse_deep_json(request: Any) -> None:
    """A ``before_request`` hook: a JSON body nested deeper than :data:`MAX_DEPTH` is a 400
    before anything decodes it (whatever its ``Content-Type`` says: the routes decode their
    bodies as JSON). A route that reads its body otherwise declares ``opt={"raw_body":
    True}`` (an import's JSON Lines are read line by line by the store)."""
    if request.method not in ("POST", "PUT", "PATCH") or request.route_handler.opt.get("raw_body"):
        return
    body = await request.body()
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH and json_depth(body) > MAX_DEPTH:
        raise ServiceError(
            400,
            "too_deep",
            f"the JSON body nests deeper than {MAX_DEPTH} levels, the most a request may",
        )
