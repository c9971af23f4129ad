"""``/api/query`` on a running ``gostop serve``: a heavy query is answered 408, a large
answer 413, a statement that is not a read 400, each naming why and the limits; a query
whose client went away is cancelled."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import Server

from gostop_records.service.settings import ServiceSettings

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: A cross join that would run for hours: only a limit (or a cancel) ends it.
ENDLESS = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("q") / "s.duckdb"
    limits = ["--query-timeout", "3", "--query-max-rows", "50", "--query-max-bytes", "100000"]
    with Server(db, None, *limits) as s:
        yield s


def _ask(server: Server, sql: str, **extra: Any) -> httpx.Response:
    return server.http.post("/api/query", json={"sql": sql, **extra}, timeout=30)


def test_a_heavy_query_is_answered_408_within_its_limit(server: Server) -> None:
    start = time.monotonic()
    r = _ask(server, ENDLESS)
    assert r.status_code == 408, r.text
    assert time.monotonic() - start < 30  # it stops; not a measure of speed
    body = r.json()
    assert body["error"] == "query_timeout" and "time limit of 3 s" in body["reason"]
    assert body["limits"]["timeout_s"] == 3
    assert _ask(server, "SELECT 42 AS a").json()["rows"] == [[42]]


def test_health_answers_while_a_heavy_query_runs(server: Server) -> None:
    """The query runs on a read thread's own connection: health (and entries) do not wait
    for it."""
    answers: list[httpx.Response] = []
    heavy = threading.Thread(target=lambda: answers.append(_ask(server, ENDLESS)))
    heavy.start()
    try:
        time.sleep(0.3)
        health = server.http.get("/api/health", timeout=30)
        assert health.status_code == 200
        assert heavy.is_alive(), "health should answer before the query's 3 s limit"
    finally:
        heavy.join(30)
    assert answers and answers[0].status_code == 408


def test_an_answer_past_its_rows_or_bytes_is_413_naming_the_limits(server: Server) -> None:
    r = _ask(server, "SELECT * FROM range(1000)", limit=100_000)
    assert r.status_code == 413, r.text
    body = r.json()
    assert body["error"] == "query_too_large" and "more than 50 rows" in body["reason"]
    assert body["limits"]["max_rows"] == 50 and body["limits"]["max_bytes"] == 100_000
    r = _ask(server, "SELECT repeat('x', 10000) FROM range(40)")
    assert r.status_code == 413 and "more than 100000 bytes" in r.json()["reason"], r.text
    # the limit asked for, within the server's, cuts the answer as before
    r = _ask(server, "SELECT * FROM range(1000)", limit=5)
    assert r.status_code == 200 and r.json()["truncated"] is True and len(r.json()["rows"]) == 5


@pytest.mark.parametrize(
    "sql",
    [
        "CHECKPOINT",
        "FORCE CHECKPOINT",
        "SELECT * FROM checkpoint()",
        "SET threads = 8",
        "PRAGMA threads = 8",
        "SELECT 1; SELECT 2",
        "CREATE TABLE x AS SELECT 1",
    ],
)
def test_what_is_not_a_read_is_400(server: Server, sql: str) -> None:
    r = _ask(server, sql)
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "bad_sql" and r.json()["reason"]


def test_a_query_whose_client_went_away_is_cancelled(tmp_path: Path) -> None:
    """The server's limit is long; the clients give up after a second. Their queries hold
    every read thread; a read after them is answered long before the limit, so they were
    cancelled at the disconnect."""
    threads = ServiceSettings().read_threads
    with Server(tmp_path / "s.duckdb", None, "--query-timeout", "60") as s:

        def leave() -> None:
            with pytest.raises(httpx.TimeoutException):
                httpx.post(f"{s.url}/api/query", json={"sql": ENDLESS}, timeout=1.0)

        clients = [threading.Thread(target=leave) for _ in range(threads)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(30)
        start = time.monotonic()
        assert s.http.post("/api/query", json={"sql": "SELECT 1 AS a"}).json()["rows"] == [[1]]
        assert time.monotonic() - start < 20
