"""A projection rebuild on a running server (``POST /api/rebuild``), held in the middle.

The rebuild's bulk is stopped at its first group of games (a gate in ``fresh_rows`` on
the rebuild's own thread), so that what the server does meanwhile is seen without any
timing: it answers from the live tables, records entries, says so on its pages, in
``/api/health`` and ``/metrics``; then, released, the rebuild catches up with the entries
recorded meanwhile and swaps, and the store verifies. A cancelled or failed rebuild leaves
the live tables exactly as they were, and no new table behind.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from service_helpers import KEY, auth, hand_lines, new_game, service_client
from store_support import every_preset

from gostop_records.store import Store, staging
from gostop_records.store import rebuild as R
from gostop_records.store.schema import TABLES


class Gate:
    """Stops the rebuild's thread at its first group until released (the writer thread,
    which derives a game's rows at start or in the swap, passes)."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.entered = threading.Event()
        self.released = threading.Event()

    def __call__(self, *args: Any) -> Any:
        if threading.current_thread().name != "gostop-writer":
            self.entered.set()
            assert self.released.wait(60), "the test never released the rebuild"
        return self.real(*args)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    g = Gate(R.fresh_rows)
    monkeypatch.setattr(R, "fresh_rows", g)
    yield g
    g.released.set()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store of a few games, one of whose projection rows is wrong (as if derived by an
    older version): a rebuild derives it again from the events."""
    path = tmp_path / "club.duckdb"
    with Store(path) as st:
        logs = every_preset(count=1, hands=2, seed=31)[:4]
        assert st.import_envelopes([e for g in logs for e in g]).ok
        st.conn.execute("UPDATE games SET venue = 'stale' WHERE game_id = ?", [logs[0][0].game_id])
    return path


def _record(client: Any, game: dict[str, Any], lines: list[str]) -> int:
    version = game["version"]
    for line in lines:
        r = client.post(
            f"/api/games/{game['game_id']}/entries",
            json={"entry": line, "expected_version": version},
            headers=auth(game["recorder_token"]),
        )
        assert r.status_code == 201, r.text
        version = r.json()["version"]
    return version


def _tables(conn: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in TABLES}


def _staged(conn: duckdb.DuckDBPyConnection) -> list[str]:
    rows = conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    return [r[0] for r in rows if r[0].startswith(staging.NEXT)]


def _ended(client: Any) -> dict[str, Any]:
    """The rebuild's status once it has ended (waits for it, not for a time)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = client.get("/api/health", headers=auth(KEY)).json()["rebuild"]
        if not status["running"]:
            return status  # type: ignore[no-any-return]
        time.sleep(0.02)
    raise AssertionError("the rebuild did not end")


def _metric(client: Any, name: str) -> float:
    text = client.get("/metrics", headers=auth(KEY)).text
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in /metrics")


def test_a_rebuild_runs_beside_entries_and_says_so_until_it_swaps(db: Path, gate: Gate) -> None:
    with service_client(db) as client:
        game = new_game(client)
        _sim, lines = hand_lines("matgo", 2, 7)
        half = len(lines) // 2
        version = _record(client, game, lines[:5])

        r = client.post("/api/rebuild", headers=auth(KEY))
        assert r.status_code == 202, r.text
        assert r.json()["rebuild"]["state"] == "deriving"
        assert gate.entered.wait(30)

        # held in its bulk: the server records, answers from the live tables, and says so
        game = {**game, "version": version}
        version = _record(client, game, lines[5:half])
        games = client.get("/api/games").json()
        assert games["total"] == 5
        mine = next(g for g in games["games"] if g["game_id"] == game["game_id"])
        assert mine["version"] == version  # the live tables follow the entries meanwhile
        page = client.get("/games")
        assert page.status_code == 200 and 'class="server-notice"' in page.text
        assert "being rebuilt" in page.text and "computed as before" in page.text
        health = client.get("/api/health").json()
        assert health["rebuilding"] is True and "rebuild" not in health  # progress: key only
        status = client.get("/api/health", headers=auth(KEY)).json()["rebuild"]
        assert status["running"] and status["state"] == "deriving"
        assert status["total"] == 5 and status["games"] == 0
        assert _metric(client, "gostop_rebuild_running") == 1
        again = client.post("/api/rebuild", headers=auth(KEY))
        assert again.status_code == 409 and again.json()["error"] == "rebuild_running"
        assert client.post("/api/rebuild").status_code == 401

        gate.released.set()
        status = _ended(client)
        assert status["state"] == "done" and status["error"] is None
        assert status["games"] == 5 and status["behind_events"] == 0
        assert _metric(client, "gostop_rebuild_running") == 0
        assert _metric(client, 'gostop_rebuilds_total{outcome="done"}') == 1
        assert 'class="server-notice"' not in client.get("/games").text
        assert client.get("/api/health").json()["rebuilding"] is False

        # the swapped tables go on following the entries
        version = _record(client, {**game, "version": version}, lines[half:])
        games = client.get("/api/games").json()["games"]
        assert next(g for g in games if g["game_id"] == game["game_id"])["version"] == version
        assert all(g["venue"] != "stale" for g in games)  # derived again from the events

    with Store(db) as st:
        assert st.verify().ok
        kinds = [k for (k,) in st.conn.execute("SELECT kind FROM heads ORDER BY entry").fetchall()]
        assert "rebuild" in kinds
        assert _staged(st.conn) == []


def test_a_cancelled_rebuild_leaves_the_live_tables_as_they_were(db: Path, gate: Gate) -> None:
    with service_client(db) as client:
        conn = client.app.state["gostop"].svc.store.conn.cursor()
        before = _tables(conn)
        assert client.delete("/api/rebuild", headers=auth(KEY)).status_code == 404
        assert client.post("/api/rebuild", headers=auth(KEY)).status_code == 202
        assert gate.entered.wait(30)
        r = client.delete("/api/rebuild", headers=auth(KEY))
        assert r.status_code == 200, r.text
        gate.released.set()
        status = _ended(client)
        assert status["state"] == "cancelled"
        assert _metric(client, 'gostop_rebuilds_total{outcome="cancelled"}') == 1
        assert _tables(conn) == before  # the stale venue included: nothing was swapped
        assert _staged(conn) == []
        conn.close()


def test_a_failed_swap_leaves_the_live_tables_and_the_server_answering(
    db: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(conn: duckdb.DuckDBPyConnection) -> None:
        conn.execute("ALTER TABLE games RENAME TO gostop_old_games")  # half done, then
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(staging, "swap", broken)
    gate.released.set()
    with service_client(db) as client:
        conn = client.app.state["gostop"].svc.store.conn.cursor()
        before = _tables(conn)
        assert client.post("/api/rebuild", headers=auth(KEY)).status_code == 202
        status = _ended(client)
        assert status["state"] == "failed" and "disk went away" in status["error"]
        assert _metric(client, 'gostop_rebuilds_total{outcome="failed"}') == 1
        assert _tables(conn) == before and _staged(conn) == []
        game = new_game(client)
        _sim, lines = hand_lines("matgo", 2, 3)
        _record(client, game, lines[:4])  # entries still go in, into the live tables
        assert client.get("/api/games").json()["total"] == 5
        conn.close()
    monkeypatch.undo()
    with Store(db) as st:
        assert st.verify().ok is False  # the stale venue is still there: nothing swapped
        st.rebuild()
        assert st.verify().ok


def test_the_notice_goes_after_the_body_tag_or_first() -> None:
    from gostop_records.web.notice import with_notice

    page = b"<!doctype html><html><body class='x'><main>hi</main></body></html>"
    out = with_notice(page, "a <rebuild> runs")
    assert out.startswith(b"<!doctype html><html><body class='x'><p class=\"server-notice\"")
    assert b"a &lt;rebuild&gt; runs" in out
    bare = with_notice(b"<title>t</title><p>no</p>", "n")
    assert bare.startswith(b'<title>t</title><p class="server-notice" role="status">n</p>')
    assert with_notice(b"plain", "n").endswith(b"</p>plain")


def test_new_tables_a_killed_server_left_are_dropped_at_the_next_start(db: Path) -> None:
    with Store(db) as st:
        staging.create(st.conn)  # as a server killed in the middle of a rebuild leaves them
        assert _staged(st.conn)
    with service_client(db) as client:
        conn = client.app.state["gostop"].svc.store.conn.cursor()
        assert _staged(conn) == []
        conn.close()
