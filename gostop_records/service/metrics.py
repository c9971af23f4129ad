"""What the server is doing: its metrics in Prometheus' text format, and the access log.

One :class:`Metrics` per app (on the app's state object, no global): counters the requests
move, histograms of the entry timings ``Server-Timing`` reports, and gauges read from the
service when ``GET /metrics`` is asked (:class:`Snapshot`). :func:`observe` wraps the app's
ASGI handler: every HTTP request, routed or not, is counted by its route template, method
and status class when its answer ends, a 4xx by the ``error`` its body names, and, when
asked (``gostop serve --access-log``), written as one JSON line to the ``gostop.access``
logger. The line never holds a credential: no header, no query string, and the route's
template rather than its path (a ``/play`` hand's id opens the hand).

The format is written here (it is a few lines of text); ``prometheus_client`` only parses
it, in the tests. A feature elsewhere bumps its counter through the state object, e.g.
``app.state["gostop"].metrics.backups.inc()``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = [
    "CONTENT_TYPE",
    "Counter",
    "Histogram",
    "Metrics",
    "Snapshot",
    "access_log",
    "observe",
]

#: Litestar adds ``; charset=utf-8``.
CONTENT_TYPE = "text/plain; version=0.0.4"
access_log = logging.getLogger("gostop.access")

#: Seconds: an entry's wait for the writer thread, and the thread's work on its group.
TIME_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
ENTRY_ROUTE = "/api/games/{game_id}/entries"
QUERY_ROUTE = "/api/query"
IMPORT_ROUTE = "/api/import"
#: Methods counted by name; any other is counted as ``other`` (a label per stranger's word
#: would grow without end).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
#: The most body messages of a 4xx kept to read its error name (a refusal is one).
_PARTS = 4

Labels = tuple[str, ...]


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: Labels, values: Labels, extra: str = "") -> str:
    parts = [f'{n}="{_escape(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


def _num(x: float) -> str:
    return repr(float(x)) if isinstance(x, float) and not x.is_integer() else str(int(x))


def _head(name: str, kind: str, help_: str) -> list[str]:
    text = help_.replace("\\", r"\\").replace("\n", r"\n")
    return [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]


class Counter:
    """A counter by label values; safe to bump from any thread."""

    def __init__(self, name: str, help_: str, labels: Labels = ()) -> None:
        self.name, self.help, self.label_names = name, help_, labels
        self.values: dict[Labels, float] = {} if labels else {(): 0}
        self._lock = threading.Lock()

    def inc(self, *labels: str, by: float = 1) -> None:
        with self._lock:
            self.values[labels] = self.values.get(labels, 0) + by

    def get(self, *labels: str) -> float:
        return self.values.get(labels, 0)

    def lines(self) -> list[str]:
        out = _head(self.name, "counter", self.help)
        for key, v in sorted(self.values.items()):
            out.append(f"{self.name}{_labels(self.label_names, key)} {_num(v)}")
        return out


class Histogram:
    """Observations in cumulative buckets (seconds), with their sum and count."""

    def __init__(self, name: str, help_: str, buckets: tuple[float, ...] = TIME_BUCKETS) -> None:
        self.name, self.help, self.buckets = name, help_, buckets
        self.counts = [0] * len(buckets)
        self.sum = 0.0
        self.count = 0
        self._lock = threading.Lock()

    def observe(self, value: float) -> None:
        with self._lock:
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    self.counts[i] += 1
            self.sum += value
            self.count += 1

    def lines(self) -> list[str]:
        out = _head(self.name, "histogram", self.help)
        for bound, n in zip(self.buckets, self.counts, strict=True):
            out.append(f'{self.name}_bucket{{le="{bound}"}} {n}')
        out.append(f'{self.name}_bucket{{le="+Inf"}} {self.count}')
        out.append(f"{self.name}_sum {_num(self.sum)}")
        out.append(f"{self.name}_count {self.count}")
        return out


def _metric(name: str, kind: str, help_: str, default: float = 0) -> Any:
    """A field of :class:`Snapshot` and the metric it is exported as: its name, type
    (``gauge`` or ``counter``) and help."""
    return field(default=default, metadata={"metric": (name, kind, help_)})


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the service holds at a scrape: read on the event loop, without the store. Each
    field is exported as the gauge or counter beside it."""

    queue: int = _metric(
        "gostop_writer_queue_depth", "gauge", "Jobs waiting for the writer thread."
    )
    journal: int = _metric(
        "gostop_journal_records",
        "gauge",
        "Journal records not yet written into DuckDB by the settler.",
    )
    batches: int = _metric(
        "gostop_settler_batches_total",
        "counter",
        "Batches of journal rows the settler wrote into DuckDB.",
    )
    failures: int = _metric(
        "gostop_settler_failures_total",
        "counter",
        "Settler batches that could not be written (each tried again).",
    )
    failing: bool = _metric(
        "gostop_writes_failing",
        "gauge",
        "1 while entries cannot be written into the store (503 store_unavailable), else 0.",
        default=False,
    )
    viewers: int = _metric(
        "gostop_live_viewers", "gauge", "Open live streams of games (SSE viewers)."
    )
    live: int = _metric(
        "gostop_live_games", "gauge", "Games whose recording session is held in memory."
    )
    rebuilding: bool = _metric(
        "gostop_rebuild_running",
        "gauge",
        "1 while a projection rebuild runs beside the live tables, else 0.",
        default=False,
    )
    rebuild_done: float = _metric(
        "gostop_rebuild_progress",
        "gauge",
        "The share of the games a running rebuild has derived (0 to 1; 0 when none runs).",
        default=0.0,
    )
    rebuild_behind: int = _metric(
        "gostop_rebuild_lag_events",
        "gauge",
        "Events recorded since a running rebuild derived their game, not in its new tables yet.",
    )


class Metrics:
    """The server's metrics (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.requests = Counter(
            "gostop_http_requests_total",
            "HTTP requests answered, by method, route template (unmatched: no route) and "
            "status class.",
            ("method", "route", "code"),
        )
        self.refusals = Counter(
            "gostop_refusals_total",
            "4xx answers by the error they name (conflict, rules, unauthorized, ...).",
            ("error",),
        )
        self.entries = Counter(
            "gostop_entries_total",
            "Entries answered (POST /api/games/{id}/entries), by HTTP status: 201 accepted, "
            "409 conflict, 422 refused by the rules, ...",
            ("status",),
        )
        self.replayed = Counter(
            "gostop_entries_replayed_total",
            "Entries answered from the store to a retry of their Idempotency-Key.",
        )
        self.queries = Counter(
            "gostop_queries_total",
            "SQL queries (POST /api/query) by outcome: ok, query_timeout (408), "
            "query_cancelled (408, the client left), query_too_large (413), bad_sql (400, "
            "including every statement that is not a read), or another refusal's error.",
            ("outcome",),
        )
        self.imports = Counter(
            "gostop_imports_total",
            "Imports (POST /api/import) by outcome: ok, rejected (the report names a game "
            "refused), or a refusal's error.",
            ("outcome",),
        )
        self.backups = Counter("gostop_backups_total", "Backups of the store made.")
        self.rebuilds = Counter(
            "gostop_rebuilds_total",
            "Projection rebuilds ended, by outcome: done (swapped in), failed, cancelled.",
            ("outcome",),
        )
        self.queue_time = Histogram(
            "gostop_entry_queue_seconds",
            "How long an entry waited for the writer thread (Server-Timing: queue).",
        )
        self.store_time = Histogram(
            "gostop_entry_store_seconds",
            "How long the writer thread took for an entry's group (Server-Timing: store).",
        )

    def answered(
        self, method: str, route: str, status: int, error: str | None, replayed: bool = False
    ) -> None:
        """Count one finished request (``replayed``: answered as stored, to a retry)."""
        self.requests.inc(method if method in METHODS else "other", route, f"{status // 100}xx")
        if 400 <= status < 500:
            self.refusals.inc(error or str(status))
        if method != "POST":
            return
        if route == ENTRY_ROUTE:
            self.entries.inc(str(status))
            if replayed:
                self.replayed.inc()
        elif route == QUERY_ROUTE:
            self.queries.inc("ok" if status < 300 else error or str(status))
        elif route == IMPORT_ROUTE:
            rejected = "rejected" if status == 422 else str(status)
            self.imports.inc("ok" if status < 300 else error or rejected)

    def timed(self, queue_ms: float | None, store_ms: float | None) -> None:
        """An entry's ``Server-Timing`` (milliseconds), into the histograms."""
        if queue_ms is not None:
            self.queue_time.observe(queue_ms / 1000)
        if store_ms is not None:
            self.store_time.observe(store_ms / 1000)

    def render(self, now: Snapshot) -> bytes:
        """The text exposition (format 0.0.4) of everything, with ``now``'s gauges."""
        out: list[str] = []
        for metric in self._counters():
            out += metric.lines()
        out += self.queue_time.lines() + self.store_time.lines()
        for f in fields(Snapshot):
            name, kind, help_ = f.metadata["metric"]
            out += _head(name, kind, help_)
            out.append(f"{name} {_num(float(getattr(now, f.name)))}")
        out += _head("gostop_uptime_seconds", "gauge", "Seconds since the server started.")
        out.append(f"gostop_uptime_seconds {self.clock() - self.started:.3f}")
        return ("\n".join(out) + "\n").encode()

    def _counters(self) -> Iterable[Counter]:
        return (
            self.requests,
            self.refusals,
            self.entries,
            self.replayed,
            self.queries,
            self.imports,
            self.backups,
            self.rebuilds,
        )


# --- every request: counted, and logged when asked ------------------------------------------


def _error_name(body: bytes) -> str | None:
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    name = doc.get("error") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else None


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    return next((v for k, v in headers if k.lower() == name), None)


def observe(app: Callable[..., Any], metrics: Metrics, *, log: bool = False) -> Callable[..., Any]:
    """``app`` (an ASGI handler) with every HTTP request counted and, with ``log``, logged
    on the ``gostop.access`` logger (see the module docstring)."""

    async def handler(scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # unless an answer starts
        body: list[bytes] | None = None
        replayed = False

        async def watch(message: Mapping[str, Any]) -> None:
            nonlocal status, body, replayed
            kind = message["type"]
            if kind == "http.response.start":
                status = int(message["status"])
                headers = message.get("headers", ())
                if status >= 400 and b"json" in (_header(headers, b"content-type") or b""):
                    body = []
                replayed = _header(headers, b"idempotent-replayed") == b"true"
            elif kind == "http.response.body" and body is not None and len(body) < _PARTS:
                body.append(message.get("body", b""))
            await send(message)

        try:
            await app(scope, receive, watch)
        finally:
            error = _error_name(b"".join(body)) if body else None
            route = scope.get("path_template") or "unmatched"
            metrics.answered(scope["method"], route, status, error, replayed)
            if log:
                ms = (time.perf_counter() - start) * 1000
                access_log.info(_line(scope, route, status, ms, error))

    return handler


def _line(scope: Mapping[str, Any], route: str, status: int, ms: float, error: str | None) -> str:
    """One request as a JSON line: no header, no query string; a route's template (an id
    in a path may open something: a /play hand), the path itself only when no route has it
    (a 404 from the router; a 405 is a route's path asked with another method)."""
    client = scope.get("client")
    if route == "unmatched" and status == 404:
        route = scope.get("path", "")
    line: dict[str, Any] = {
        "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
        "method": scope["method"],
        "route": route,
        "status": status,
        "ms": round(ms, 2),
    }
    game = (scope.get("path_params") or {}).get("game_id")
    if game is not None:
        line["game"] = game
    if error is not None:
        line["error"] = error
    line["client"] = client[0] if client else None
    return json.dumps(line, ensure_ascii=False)
