"""Stopping always stops: SIGTERM during a long query, an import or a live stream ends
``gostop serve`` within seconds, with the store closed and free for other commands."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from service_helpers import KEY, Server, auth

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

HEAVY = "SELECT count(*) FROM range(100000000000) a"
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "corpus-mixed.jsonl"


def _in_background(fn: object) -> threading.Thread:
    def run() -> None:
        with contextlib.suppress(httpx.HTTPError):  # the server goes away under it
            fn()  # type: ignore[operator]

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _stops_within(server: Server, seconds: float) -> float:
    start = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(timeout=seconds)
    return time.monotonic() - start


def _store_is_free(db: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", "db", "verify", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "in use" not in done.stderr


@pytest.mark.parametrize("what", ["query", "import", "stream"])
def test_sigterm_during_a_long_request_ends_the_server_and_frees_the_store(
    tmp_path: Path, what: str
) -> None:
    db = tmp_path / "s.duckdb"
    with Server(db) as server:
        url = server.url
        game = server.http.post(
            "/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY)
        ).json()
        if what == "query":
            _in_background(lambda: httpx.post(f"{url}/api/query", json={"sql": HEAVY}, timeout=120))
        elif what == "import":
            big = SAMPLE.read_bytes()
            _in_background(
                lambda: httpx.post(f"{url}/api/import", content=big, headers=auth(KEY), timeout=120)
            )
        else:

            def follow() -> None:
                with httpx.stream(
                    "GET", f"{url}/api/games/{game['game_id']}/stream", timeout=120
                ) as r:
                    for _line in r.iter_lines():
                        pass

            _in_background(follow)
        time.sleep(1.0)  # the request is under way
        took = _stops_within(server, 20)
        assert server.proc.returncode is not None
        assert took < 20
    _store_is_free(db)
