"""A notice on every page while the server's figures lag behind its record.

While a projection rebuild runs, the pages are answered from the tables as they were
before it (the new ones are not swapped in yet): no page is blank, and none may be stale
without saying so. :func:`announce` wraps the app's ASGI handler: while ``notice()`` gives
text, every HTML answer gets it as a paragraph (``<p class="server-notice"
role="status">``) right after its ``<body>`` tag (after its ``<title>``, or first, in a
page without one), its ``Content-Length`` set again. Every other answer (JSON, streams,
files, a ``HEAD``) passes as it is, and so does every answer while there is nothing to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any

__all__ = ["announce", "with_notice"]

_BODY = re.compile(rb"<body\b[^>]*>", re.IGNORECASE)
_TITLE_END = re.compile(rb"</title\s*>", re.IGNORECASE)


def with_notice(page: bytes, text: str) -> bytes:
    """``page`` (HTML) with ``text`` as its first paragraph (see the module docstring)."""
    para = f'<p class="server-notice" role="status">{escape(text)}</p>'.encode()
    m = _BODY.search(page) or _TITLE_END.search(page)
    at = m.end() if m is not None else 0
    return page[:at] + para + page[at:]


def _is_html(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """An HTML page as it is (not compressed: nothing can be put into its bytes)."""
    found = {k.lower(): v for k, v in headers}
    ctype = found.get(b"content-type", b"")
    return ctype.lower().startswith(b"text/html") and b"content-encoding" not in found


def announce(app: Callable[..., Any], notice: Callable[[], str | None]) -> Callable[..., Any]:
    """``app`` (an ASGI handler) with ``notice()`` on every HTML page while it gives text."""

    async def handler(scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") == "HEAD" or notice() is None:
            await app(scope, receive, send)
            return
        start: dict[str, Any] | None = None
        parts: list[bytes] = []

        async def watch(message: Mapping[str, Any]) -> None:
            nonlocal start
            kind = message["type"]
            if kind == "http.response.start" and _is_html(message.get("headers", ())):
                start = dict(message)  # held until the whole page is here
                return
            if kind != "http.response.body" or start is None:
                await send(message)
                return
            parts.append(message.get("body", b""))
            if message.get("more_body"):
                return
            text = notice()
            body = b"".join(parts)
            if text is not None:
                body = with_notice(body, text)
            headers = [
                (k, v) for k, v in start.get("headers", ()) if k.lower() != b"content-length"
            ]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await app(scope, receive, watch)

    return handler
