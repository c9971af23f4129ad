"""A real ``gostop serve`` under everything at once (the soak, ``python -m stress.soak``, for
about 15 s), and the three ways of mixing imports and live entries that took every read of
the service down: an import then an entry, a finished ``/play`` hand then an entry, two
imports between entries. Each is followed by every kind of read, which must answer 200,
then the server is stopped and ``gostop db verify`` must pass without ``--accept-loss``.

Each once took the service down: an import moved the store's heads chain past a tip the
live entries remembered, so the next entry's chain row collided when the journal was written
into DuckDB (every read then answered 503 until a restart, and the store no longer
verified). The chain's tip is now read in the transaction that extends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import KEY, Server, auth, hand_lines, run_async

from gostop_records.service.worker import Worker
from stress.soak import play_answer, soak

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def _verify(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", "db", "verify", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )


class _Table:
    """A game recorded through the API, one line of a simulated matgo hand at a time."""

    def __init__(self, http: httpx.Client, seed: int = 3) -> None:
        self.http = http
        r = http.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY))
        assert r.status_code == 201, r.text
        game = r.json()
        self.game_id: str = game["game_id"]
        self.token: str = game["recorder_token"]
        self.version: int = game["version"]
        _sim, self.lines = hand_lines("matgo", 2, seed)

    def enter(self, n: int = 1) -> None:
        for _ in range(n):
            line = self.lines.pop(0)
            r = self.http.post(
                f"/api/games/{self.game_id}/entries",
                json={"entry": line, "expected_version": self.version},
                headers={**auth(self.token), "Idempotency-Key": f"{self.game_id}-{self.version}"},
            )
            assert r.status_code == 201, r.text
            self.version = r.json()["version"]


def _import(http: httpx.Client, sample: str) -> None:
    data = (SAMPLES / sample).read_bytes()
    r = http.post(
        "/api/import",
        content=data,
        headers={**auth(KEY), "Content-Type": "application/x-ndjson"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["ok"], r.text


def _every_read(http: httpx.Client, game_id: str) -> None:
    """Every kind of read answers 200 (the live game's and the store's)."""
    sql = {"sql": "SELECT count(*) AS n FROM events", "limit": 10}
    answers = {
        "/api/health": http.get("/api/health"),
        "/api/query": http.post("/api/query", json=sql),
        "/api/games": http.get("/api/games"),
        "game": http.get(f"/api/games/{game_id}"),
        "events": http.get(f"/api/games/{game_id}/events"),
        "now": http.get(f"/api/games/{game_id}/now"),
        "audit": http.get(f"/api/games/{game_id}/audit"),
        "page": http.get(f"/games/{game_id}"),
        "games page": http.get("/games"),
    }
    bad = {k: f"{r.status_code} {r.text[:200]}" for k, r in answers.items() if r.status_code != 200}
    assert not bad, bad


def _stopped_and_verified(server: Server) -> None:
    # SIGTERM; uvicorn ends a process it stopped on a signal by that signal again (-15)
    assert server.stop() in (0, -signal.SIGTERM)
    done = _verify(server.db)
    assert done.returncode == 0, done.stderr + done.stdout


def _play_hand(http: httpx.Client, seed: int) -> dict[str, Any]:
    """A CARDAVIA hand on /play against the random bot, played to its end: the last view."""
    r = http.post("/api/play", json={"bot": "random", "seed": seed})
    assert r.status_code == 201, r.text
    out = r.json()
    for _ in range(200):
        view = out["view"]
        if view["step"]["kind"] in ("over", "hand_over"):
            return view  # type: ignore[no-any-return]
        body = {k: v for k, v in play_answer(view).items() if v is not None}
        r = http.post(f"/api/play/{out['id']}", json={**body, "version": view["version"]})
        assert r.status_code == 200, r.text
        out = r.json()
    raise AssertionError("the hand did not end")


def test_an_import_then_an_entry_leaves_every_read_up_and_the_store_whole(
    tmp_path: Path,
) -> None:
    with Server(tmp_path / "s.duckdb") as server:
        table = _Table(server.http)
        table.enter(2)
        _import(server.http, "go-1.jsonl")
        table.enter()
        _every_read(server.http, table.game_id)
        _every_read(server.http, "sample-go-1")
        _stopped_and_verified(server)


def test_a_finished_play_hand_then_an_entry_leaves_every_read_up(tmp_path: Path) -> None:
    with Server(tmp_path / "s.duckdb") as server:
        table = _Table(server.http)
        table.enter(2)
        view = _play_hand(server.http, seed=11)
        assert view["stored"] is True, view.get("store_error")
        table.enter()
        _every_read(server.http, table.game_id)
        _every_read(server.http, view["game_id"])
        _stopped_and_verified(server)


def test_two_imports_between_entries_are_both_taken(tmp_path: Path) -> None:
    with Server(tmp_path / "s.duckdb") as server:
        table = _Table(server.http)
        table.enter()
        _import(server.http, "go-1.jsonl")
        table.enter()
        _import(server.http, "go-2.jsonl")  # a second import answered 500
        table.enter()
        _every_read(server.http, table.game_id)
        _stopped_and_verified(server)


def test_a_query_its_client_hangs_up_on_leaves_the_service_up(tmp_path: Path) -> None:
    sql = (
        "SELECT count(*) AS n FROM range(6000) a CROSS JOIN range(6000) b "
        "WHERE (a.range * 7 + b.range) % 11 = 3"
    )
    with Server(tmp_path / "s.duckdb") as server:
        table = _Table(server.http)
        for _ in range(2):
            with pytest.raises(httpx.TimeoutException):
                server.http.post("/api/query", json={"sql": sql, "limit": 1}, timeout=0.1)
        server.http.timeout = httpx.Timeout(15)
        table.enter()
        _every_read(server.http, table.game_id)
        _stopped_and_verified(server)


def test_a_cancelled_call_leaves_the_store_thread_running() -> None:
    worker = Worker()
    gate = threading.Event()

    async def cancel_then_call() -> int:
        waiting = asyncio.ensure_future(worker.call(gate.wait))
        await asyncio.sleep(0.1)
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        gate.set()
        return await asyncio.wait_for(worker.call(lambda: 42), 5)  # type: ignore[no-any-return]

    try:
        assert run_async(cancel_then_call) == 42
        assert worker.thread.is_alive()
    finally:
        gate.set()
        worker.stop()


def test_a_short_soak_loses_nothing_and_every_read_stays_up(tmp_path: Path) -> None:
    result = soak(tmp_path, seconds=15, seed=20261206, tables=2, gap=(4.0, 7.0))
    assert result.ok, result.render()
