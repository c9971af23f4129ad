"""What the server is doing (``gostop_records/service/metrics.py``), over HTTP against a real
``gostop serve``: ``GET /metrics`` for the server key only, in Prometheus' text format (read
with ``prometheus_client``'s parser), its counters moving with entries, refusals and
queries, the viewer gauge with a live stream; ``--access-log``: one JSON line per request,
never a token or the key, off by default."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from service_helpers import KEY, Server, auth, hand_lines, service_client

from gostop_records.service.metrics import Metrics, Snapshot

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "disputed-payment.jsonl"
#: A cross join that would run for hours: only the time limit ends it.
ENDLESS = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = 7"
LIMITS = ("--query-timeout", "0.2", "--query-max-rows", "50")
ENTRIES = "/api/games/{game_id}/entries"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("metrics") / "s.duckdb", None, *LIMITS) as s:
        yield s


def scrape(s: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``GET /metrics``: (name, labels) -> value."""
    r = s.http.get("/metrics", headers=auth(KEY))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    out = {}
    for family in text_string_to_metric_families(r.text):
        assert family.documentation, family.name  # HELP and TYPE for each
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def _start(s: Server) -> dict[str, Any]:
    r = s.http.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY))
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def _entry(s: Server, game: dict[str, Any], line: str, version: int) -> httpx.Response:
    return s.http.post(
        f"/api/games/{game['game_id']}/entries",
        json={"entry": line, "expected_version": version},
        headers=auth(game["recorder_token"]),
    )


def _timing(r: httpx.Response) -> dict[str, float]:
    """``Server-Timing``'s durations in seconds, by name."""
    out = {}
    for part in r.headers["server-timing"].split(","):
        name, *params = (p.strip() for p in part.split(";"))
        dur = next(p for p in params if p.startswith("dur="))
        out[name] = float(dur[4:]) / 1000
    return out


def test_metrics_are_the_server_keys_alone(server: Server) -> None:
    game = _start(server)
    r = server.http.get("/metrics")
    assert r.status_code == 401 and r.json()["error"] == "unauthorized", r.text
    for other in ("not-the-key", game["recorder_token"]):
        r = server.http.get("/metrics", headers=auth(other))
        assert r.status_code == 403 and r.json()["error"] == "forbidden", r.text
    assert server.http.get("/metrics", headers=auth(KEY)).status_code == 200


def test_counters_move_as_entries_refusals_and_queries_arrive(server: Server) -> None:
    before = scrape(server)
    game = _start(server)
    _sim, lines = hand_lines("matgo", 2, 3)
    version = game["version"]
    timings = []
    for line in lines[:3]:
        r = _entry(server, game, line, version)
        assert r.status_code == 201, r.text
        version = r.json()["version"]
        timings.append(_timing(r))
    assert _entry(server, game, lines[3], version - 1).status_code == 409  # conflict
    retry = {"entry": lines[3], "expected_version": version}
    for _ in range(2):  # the second is answered as stored
        r = server.http.post(
            ENTRIES.format(game_id=game["game_id"]),
            json=retry,
            headers={**auth(game["recorder_token"]), "Idempotency-Key": "once"},
        )
        assert r.status_code == 201, r.text
        timings.append(_timing(r))
    body = {"entry": "note x", "expected_version": version}
    r = server.http.post(ENTRIES.format(game_id=game["game_id"]), json=body)
    assert r.status_code == 401  # no token
    asked = {
        ENDLESS: 408,  # query_timeout
        "SELECT * FROM range(1000)": 413,  # query_too_large: past 50 rows
        "DELETE FROM games": 400,  # bad_sql: not a read
        "SELECT 42": 200,
    }
    for sql, status in asked.items():
        r = server.http.post("/api/query", json={"sql": sql, "limit": 100_000}, timeout=30)
        assert r.status_code == status, r.text
    r = server.http.post("/api/import", content=SAMPLE.read_bytes(), headers=auth(KEY))
    assert r.status_code == 200, r.text
    after = scrape(server)

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0) - before.get(key, 0)

    assert moved("gostop_entries_total", status="201") == 5
    assert moved("gostop_entries_replayed_total") == 1
    assert moved("gostop_entries_total", status="409") == 1
    assert moved("gostop_entries_total", status="401") == 1
    assert moved("gostop_refusals_total", error="conflict") == 1
    assert moved("gostop_refusals_total", error="unauthorized") == 1
    for outcome in ("query_timeout", "query_too_large", "bad_sql", "ok"):
        assert moved("gostop_queries_total", outcome=outcome) == 1, outcome
    assert moved("gostop_refusals_total", error="query_timeout") == 1
    assert moved("gostop_imports_total", outcome="ok") == 1
    route = {"method": "POST", "route": ENTRIES}
    assert moved("gostop_http_requests_total", **route, code="2xx") == 5
    assert moved("gostop_http_requests_total", **route, code="4xx") == 2
    # the histograms hold the timings the answers' Server-Timing reported
    for metric, part in (("queue", "queue"), ("store", "store")):
        name = f"gostop_entry_{metric}_seconds"
        assert moved(f"{name}_count") == 5
        assert moved(f"{name}_sum") == pytest.approx(sum(t[part] for t in timings), abs=1e-4)
        assert after[(f"{name}_bucket", (("le", "+Inf"),))] == after[(f"{name}_count", ())]
    assert after[("gostop_live_games", ())] >= 1
    assert after[("gostop_writes_failing", ())] == 0
    assert after[("gostop_settler_failures_total", ())] == 0
    assert after[("gostop_backups_total", ())] == 0
    assert after[("gostop_uptime_seconds", ())] > before[("gostop_uptime_seconds", ())]
    for gauge in ("gostop_writer_queue_depth", "gostop_journal_records"):
        assert after[(gauge, ())] >= 0
    # the settler's batches show once a read has asked for the entries
    assert server.http.get(f"/api/games/{game['game_id']}").status_code == 200
    assert scrape(server)[("gostop_settler_batches_total", ())] >= 1


def test_the_viewer_gauge_follows_a_live_stream(server: Server) -> None:
    game = _start(server)
    assert scrape(server)[("gostop_live_viewers", ())] == 0
    with (
        httpx.Client(base_url=server.url, timeout=20) as viewer,
        viewer.stream("GET", f"/api/games/{game['game_id']}/stream") as stream,
    ):
        chunks = stream.iter_raw()  # held: a dropped iterator closes the stream
        assert next(chunks).startswith(b"retry:")
        assert scrape(server)[("gostop_live_viewers", ())] == 1
    deadline = time.monotonic() + 15
    while scrape(server)[("gostop_live_viewers", ())] != 0:
        assert time.monotonic() < deadline, "the viewer left, the gauge stayed"
        time.sleep(0.1)


def test_writes_failing_shows_while_the_settler_cannot_write(tmp_path: Path) -> None:
    """The gauge reads the settler's error, as the 503s of entries and reads do (the disk
    is made full for real in test_disk_full.py; here the settler's error is set)."""
    with service_client(tmp_path / "s.duckdb") as c:
        settler = c.app.state["gostop"].worker.service.settler

        def failing() -> float:
            text = c.get("/metrics", headers=auth(KEY)).text
            families = {f.name: f for f in text_string_to_metric_families(text)}
            return families["gostop_writes_failing"].samples[0].value

        assert failing() == 0
        settler.error = "the disk holding the store is full"
        try:
            assert failing() == 1
            assert c.get("/api/health").json()["ok"] is False
        finally:
            settler.error = None
        assert failing() == 0


def test_the_format_escapes_label_values_and_help() -> None:
    """The text is written by hand: a label value with a quote, a backslash and a newline,
    and help text with a backslash, read back by prometheus_client as they were."""
    m = Metrics()
    odd = 'a "quoted"\\ back\nslash'
    m.refusals.inc(odd)
    m.refusals.help += " \\ too"
    m.answered("BREW", "unmatched", 404, None)
    families = {f.name: f for f in text_string_to_metric_families(m.render(Snapshot()).decode())}
    refusals = families["gostop_refusals"]
    assert refusals.documentation.endswith(" \\ too")
    assert {s.labels["error"]: s.value for s in refusals.samples} == {odd: 1, "404": 1}
    (request,) = families["gostop_http_requests"].samples
    assert request.labels == {"method": "other", "route": "unmatched", "code": "4xx"}


# --- the access log -------------------------------------------------------------------------


def _lines(text: str) -> list[dict[str, Any]]:
    out = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    for line in out:
        assert {"time", "method", "route", "status", "ms", "client"} <= set(line), line
    return out


def test_the_access_log_has_a_line_per_request_and_no_credential(tmp_path: Path) -> None:
    log = tmp_path / "access.log"
    s = Server(tmp_path / "s.duckdb", None, "--access-log", str(log))
    with s:
        game = _start(s)
        gid, token = game["game_id"], game["recorder_token"]
        _sim, lines = hand_lines("matgo", 2, 3)
        assert _entry(s, game, lines[0], game["version"]).status_code == 201
        assert _entry(s, game, lines[0], 0).status_code == 409
        # a credential in a query string (nothing reads one there) stays out of the log
        assert s.http.get(f"/api/games/{gid}/events?after=0&token={token}").status_code == 200
        assert s.http.get(f"/nowhere?key={KEY}").status_code == 404
        hand = s.http.post("/api/play", json={"seed": 1}).json()["id"]  # the id opens the hand
        assert s.http.get(f"/api/play/{hand}").status_code == 200
        assert s.http.delete(f"/api/play/{hand}").status_code == 405  # a route's path
        assert s.http.get("/metrics", headers=auth(KEY)).status_code == 200
        assert s.http.get("/metrics", headers=auth(token)).status_code == 403
    text = log.read_text()
    got = [(d["method"], d["route"], d["status"], d.get("error")) for d in _lines(text)]
    while got and got[0][1] == "/api/health":  # the helper's wait for the server
        got.pop(0)
    assert got == [
        ("POST", "/api/games", 201, None),
        ("POST", ENTRIES, 201, None),
        ("POST", ENTRIES, 409, "conflict"),
        ("GET", "/api/games/{game_id}/events", 200, None),
        ("GET", "/nowhere", 404, "not_found"),
        ("POST", "/api/play", 201, None),
        ("GET", "/api/play/{hand_id}", 200, None),
        ("DELETE", "unmatched", 405, "method_not_allowed"),
        ("GET", "/metrics", 200, None),
        ("GET", "/metrics", 403, "forbidden"),
    ]
    assert all(d["client"] == "127.0.0.1" and d["ms"] >= 0 for d in _lines(text))
    assert [d.get("game") for d in _lines(text)].count(gid) == 3
    for secret in (KEY, token, hand, "Bearer", "?"):
        assert secret not in text, secret


def test_the_access_log_goes_to_stdout_with_a_dash_and_is_off_by_default(
    tmp_path: Path, server: Server
) -> None:
    with Server(tmp_path / "s.duckdb", None, "--access-log", "-") as s:
        assert s.http.get("/api/health").status_code == 200
        proc = s.proc
    assert any(d["route"] == "/api/health" for d in _lines(proc.stdout.read()))  # type: ignore[union-attr]
    server.stop()  # the module's server, started without --access-log, wrote none
    out = server.proc.stdout.read() + server.proc.stderr.read()  # type: ignore[operator, union-attr]
    assert '"route"' not in out and "/api/" not in out, out
