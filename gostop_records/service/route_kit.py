"""What every API route shares: the action it performs (checked by :mod:`.access`), the
refusals it documents, its body limits and how it sends a stored answer."""

from __future__ import annotations

import time
from typing import Any

from litestar import Request, Response
from litestar.openapi.datastructures import ResponseSpec

from .access import Action
from .core import Answer
from .errors import ServiceError
from .models import ErrorAnswer

__all__ = [
    "ENTRY_LIMIT",
    "IMPORT_LIMIT",
    "JSON",
    "JSONL",
    "idempotency_key",
    "refusals",
    "route_opt",
    "send_answer",
]

#: Largest body of an entry or a new game; of an import upload.
ENTRY_LIMIT = 64 * 1024
IMPORT_LIMIT = 64 * 1024 * 1024

JSON = "application/json"
JSONL = "application/x-ndjson"


def send_answer(a: Answer, since: float | None = None) -> Response[Any]:
    """The answer's JSON as made (and, for a retry, as stored), sent byte for byte.

    ``Server-Timing`` of an entry: ``queue`` (waiting for the store's thread), ``store``
    (the thread's work on the group of entries committed together, ``desc`` its size) and
    ``app`` (from the handler receiving the parsed request, ``since``, to the answer)."""
    headers = {"Idempotent-Replayed": "true"} if a.replayed else {}
    if a.store_ms is not None:
        timing = [f'store;dur={a.store_ms:.2f};desc="group of {a.group}"']
        if a.queue_ms is not None:
            timing.insert(0, f"queue;dur={a.queue_ms:.2f}")
        if since is not None:
            timing.append(f"app;dur={(time.perf_counter() - since) * 1000:.2f}")
        headers["Server-Timing"] = ", ".join(timing)

    return Response(a.body, status_code=a.status, media_type=JSON, headers=headers)


def refusals(*codes: int) -> dict[int, ResponseSpec]:
    words = {
        400: "the request cannot be read (bad JSON, unknown field, unknown card code)",
        401: "no token or key given",
        403: "the token or key does not open this",
        404: "no such game",
        409: "another device recorded first: the answer has the current version",
        408: "a query ran past its time limit (the answer names the limits)",
        413: "the body is too large, or a query's answer is (the answer names the limits)",
        422: "the rules refuse the entry: the answer names the rule; nothing was written",
    }
    return {c: ResponseSpec(ErrorAnswer, description=words[c]) for c in codes}


def idempotency_key(request: Request[Any, Any, Any]) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > 200:
        raise ServiceError(400, "bad_request", "Idempotency-Key: give 1 to 200 characters")
    return key


def route_opt(action: Action, **more: Any) -> dict[str, Any]:
    """A route's ``opt``: the action it performs, which :mod:`.access` checks."""
    return {"access": action, **more}
