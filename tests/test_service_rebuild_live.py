"""A projection rebuild asked of a running ``gostop serve`` (``gostop db rebuild --server``)
while four tables record over HTTP and a reader reads the API and the pages throughout.

Every read is answered (no 5xx), every acknowledged entry is in the store afterwards, the
projection tables equal a rebuild from scratch of the same events, and ``gostop db verify``
is clean; a projection row made wrong before the server started is right afterwards (the
rebuild derived it from the events).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from service_helpers import KEY, Server, auth, hand_lines
from store_support import every_preset

from gostop_records.store import Store
from gostop_records.store.schema import TABLES


def _gostop(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gostop_cli.app", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


class _Table(threading.Thread):
    """One table recording hand after hand until told; every acknowledged version kept."""

    def __init__(self, url: str, seed: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.seed, self.stop = url, seed, stop
        self.acked: dict[str, int] = {}
        self.entries = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=60) as http:
                seed = self.seed
                while not self.stop.is_set():
                    self._hand(http, seed)
                    seed += 10
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _hand(self, http: httpx.Client, seed: int) -> None:
        r = http.post("/api/games", json={"players": ["Ann", "Ben"]}, headers=auth(KEY))
        assert r.status_code == 201, r.text
        game = r.json()
        gid, version = game["game_id"], game["version"]
        self.acked[gid] = version
        for line in hand_lines("matgo", 2, seed)[1]:
            if self.stop.is_set():
                return
            r = http.post(
                f"/api/games/{gid}/entries",
                json={"entry": line, "expected_version": version},
                headers={**auth(game["recorder_token"]), "Idempotency-Key": f"{gid}-{version}"},
            )
            assert r.status_code == 201, r.text
            version = self.acked[gid] = r.json()["version"]
            self.entries += 1


class _Reader(threading.Thread):
    """Reads the API and the pages in a loop until told; every status kept."""

    PATHS = ("/api/games", "/games", "/players", "/api/health", "/")

    def __init__(self, url: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.url, self.stop = url, stop
        self.statuses: list[tuple[str, int]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx.Client(base_url=self.url, timeout=60) as http:
                while not self.stop.is_set():
                    for path in self.PATHS:
                        self.statuses.append((path, http.get(path).status_code))
                    r = http.post("/api/query", json={"sql": "SELECT count(*) FROM hands"})
                    self.statuses.append(("/api/query", r.status_code))
        except BaseException as exc:
            self.error = exc


def _tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with Store(db, read_only=True) as st:
        return {
            t: sorted(st.conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES
        }


def _wait(cond: Any, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_rebuild_while_four_tables_record_answers_every_read_and_loses_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "club.duckdb"
    logs = every_preset(count=3, hands=2, seed=12)
    with Store(db) as st:
        assert st.import_envelopes([e for g in logs for e in g]).ok
        stale = logs[0][0].game_id
        st.conn.execute("UPDATE games SET venue = 'stale' WHERE game_id = ?", [stale])

    stop = threading.Event()
    with Server(db) as server:
        tables = [_Table(server.url, seed, stop) for seed in (1, 2, 3, 4)]
        reader = _Reader(server.url, stop)
        for t in [*tables, reader]:
            t.start()
        _wait(lambda: min(t.entries for t in tables) >= 5, "the tables did not record")
        started = sum(t.entries for t in tables)
        done = _gostop("db", "rebuild", "--server", server.url, "--key", KEY, "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        assert '"state": "done"' in done.stdout
        after = sum(t.entries for t in tables)
        _wait(lambda: sum(t.entries for t in tables) >= after + 20, "recording stopped")
        _wait(lambda: len(reader.statuses) > 20, "reading stopped")
        stop.set()
        for t in [*tables, reader]:
            t.join(timeout=120)
        errors = [t.error for t in [*tables, reader] if t.error is not None]
        assert errors == []
        assert after > started  # the tables recorded while the rebuild ran
        failed = [(p, s) for p, s in reader.statuses if s != 200]
        assert failed == [] and len(reader.statuses) > 20
        health = server.http.get("/api/health", headers=auth(KEY)).json()
        assert health["rebuild"]["state"] == "done" and health["rebuilding"] is False

    acked = {gid: v for t in tables for gid, v in t.acked.items()}
    with Store(db, read_only=True) as st:
        stored = dict(
            st.conn.execute("SELECT game_id, max(seq) FROM events GROUP BY game_id").fetchall()
        )
        kinds = [k for (k,) in st.conn.execute("SELECT kind FROM heads").fetchall()]
        venue = st.conn.execute("SELECT venue FROM games WHERE game_id = ?", [stale]).fetchall()
    assert all(stored.get(gid, 0) >= v for gid, v in acked.items())  # every acknowledged entry
    assert kinds.count("rebuild") == 1 and venue != [("stale",)]
    verify = _gostop("db", "verify", "--db", str(db))
    assert verify.returncode == 0, verify.stdout + verify.stderr

    scratch = tmp_path / "scratch.duckdb"
    shutil.copy(db, scratch)
    with Store(scratch) as st:
        st.rebuild()
    assert _tables(db) == _tables(scratch)


def test_db_rebuild_server_needs_the_key_and_names_the_refusal(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    with Server(db) as server:
        env = {"GOSTOP_SERVER_KEY": ""}
        done = _gostop("db", "rebuild", "--server", server.url, env=env)
        assert done.returncode == 1 and "--key KEY or $GOSTOP_SERVER_KEY" in done.stderr
        done = _gostop("db", "rebuild", "--server", server.url, "--key", "wrong", env=env)
        assert done.returncode == 1 and "server key" in done.stderr
        assert "Traceback" not in done.stderr
        done = _gostop("db", "rebuild", "--server", server.url, env={"GOSTOP_SERVER_KEY": KEY})
        assert done.returncode == 0, done.stderr
        assert "swapped in" in done.stdout
