"""``gostop serve`` as a process: live streams, a kill between commit and answer, the
terminal recording into it, a clean stop."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import KEY, NAMES, Server, auth, comparable, hand_lines
from store_support import journal_records
from typer.testing import CliRunner

from gostop_records import log as L
from gostop_records.store import Store, open_for_queries
from gostop_records.store.journal import segments

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
runner = CliRunner()


def start_game(server: Server, players: int = 2, ruleset: str = "matgo") -> dict[str, Any]:
    r = server.http.post(
        "/api/games",
        json={"players": NAMES[:players], "ruleset": ruleset},
        headers=auth(KEY),
    )
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def enter(
    server: Server, game: dict[str, Any], line: str, version: int, key: str | None = None
) -> httpx.Response:
    headers = auth(game["recorder_token"])
    if key:
        headers["Idempotency-Key"] = key
    return server.http.post(
        f"/api/games/{game['game_id']}/entries",
        json={"entry": line, "expected_version": version},
        headers=headers,
        timeout=10,
    )


def read_stream(
    url: str, *, until: str, headers: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The messages of a Server-Sent Events stream up to the first of event type ``until``."""
    out: list[dict[str, Any]] = []
    msg: dict[str, Any] = {}
    with httpx.stream("GET", url, headers=headers or {}, timeout=20) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if not line:
                if "data" in msg:
                    out.append(msg)
                    if msg.get("event") == until:
                        return out
                msg = {}
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(": ")
            msg[field] = value
    return out


def test_sse_delivers_every_event_in_order_and_resumes_from_last_event_id(
    tmp_path: Path,
) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with Server(tmp_path / "s.duckdb") as server:
        game = start_game(server)
        gid = game["game_id"]
        url = f"{server.url}/api/games/{gid}/stream"
        version = game["version"]
        half = len(lines) // 2
        for line in lines[:half]:
            version = enter(server, game, line, version).json()["version"]
        got: list[dict[str, Any]] = []

        def watch() -> None:  # joins in the middle of the hand: the start comes first
            got.extend(read_stream(url, until="note_added"))

        viewer = threading.Thread(target=watch)
        viewer.start()
        health = "/api/health"
        for _ in range(100):
            if server.http.get(health).json()["viewers"]:
                break
            time.sleep(0.05)
        for line in [*lines[half:], "note the end"]:
            version = enter(server, game, line, version).json()["version"]
        viewer.join(timeout=30)
        assert not viewer.is_alive()
        full_log = server.http.get(f"/api/games/{gid}/events").text.splitlines()
        assert [int(m["id"]) for m in got] == list(range(1, version + 1))
        assert [m["data"] for m in got] == full_log  # each line exactly as stored
        assert [m["event"] for m in got] == [json.loads(x)["event"]["type"] for x in full_log]
        # a viewer that reconnects with Last-Event-ID gets exactly what it missed
        resumed = read_stream(url, until="note_added", headers={"Last-Event-ID": "20"})
        assert [int(m["id"]) for m in resumed] == list(range(21, version + 1))
        assert [m["data"] for m in resumed] == full_log[20:]
        assert server.http.get(f"{url}?after=x").status_code == 400
        assert server.http.get(url, headers={"Last-Event-ID": "nope"}).status_code == 400
        assert server.http.get("/api/games/nope/stream").status_code == 404


FAULT_SERVER = [sys.executable, str(Path(__file__).with_name("fault_server.py"))]


def test_a_retry_after_a_kill_between_commit_and_answer_appends_once(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    _sim, lines = hand_lines("matgo", 2, 3)
    with Server(db) as server:
        game = start_game(server)
        version = enter(server, game, lines[0], game["version"], key="e-1").json()["version"]
    # this server dies (SIGKILL) right after it commits an entry (the journal's sync),
    # before it answers
    with Server(db, command=FAULT_SERVER) as server:
        with pytest.raises(httpx.HTTPError):
            enter(server, game, lines[1], version, key="e-2")
        server.proc.wait(timeout=15)
        assert server.proc.returncode == -9
    # the entry is in the journal only (DuckDB's rows were not written), and a record torn
    # by the kill (never acknowledged) follows it
    records, _torn = journal_records(db)
    assert [len(r["service_requests"]) for r in records] == [1]
    with open(segments(db)[-1], "ab") as f:
        f.write(b"\x00\x00\x01\x00\xde\xad")
    # gostop db query, read-only, sees the acknowledged entry
    with open_for_queries(db) as store:
        sql = "SELECT count(*) FROM service_requests WHERE key = 'e-2'"
        assert store.query(sql).rows == [(1,)]
    with Store(db) as store:  # the entry was committed
        committed = store.version(game["game_id"])
        assert committed > version
    with Server(db) as server:
        again = enter(server, game, lines[1], version, key="e-2")
        assert again.status_code == 201, again.text
        assert again.headers["idempotent-replayed"] == "true"
        assert again.json()["version"] == committed
        assert again.json()["events"][0]["seq"] == version + 1
        # once more, and the next entry goes on from there
        assert enter(server, game, lines[1], version, key="e-2").json()["version"] == committed
        nxt = enter(server, game, lines[2], committed, key="e-3")
        assert nxt.status_code == 201
        log = server.http.get(f"/api/games/{game['game_id']}/events").text
    envs = [L.decode_json_line(x) for x in log.splitlines()]
    assert [e.seq for e in envs] == list(range(1, len(envs) + 1))
    assert L.verify(envs).ok
    assert sum(1 for e in envs if e.type == "card_played") <= 2


def test_recording_through_the_server_and_with_a_script_give_the_same_log(
    tmp_path: Path,
) -> None:
    _sim, lines = hand_lines("gostop3", 3, 4)
    script = tmp_path / "hand.txt"
    script.write_text("\n".join(["play 99Z", *lines]) + "\n", encoding="utf-8")
    log = tmp_path / "g.jsonl"
    from gostop_cli.app import app

    res = runner.invoke(
        app,
        [
            "record",
            "--log",
            str(log),
            "--players",
            "Ann,Ben,Cho",
            "--ruleset",
            "gostop3",
            "--script",
            str(script),
        ],
    )
    assert res.exit_code == 1  # the bad first line is refused, the rest recorded
    with Server(tmp_path / "s.duckdb") as server:
        cmd = [
            sys.executable,
            "-m",
            "gostop_cli.app",
            "record",
            "--server",
            server.url,
            "--players",
            "Ann,Ben,Cho",
            "--ruleset",
            "gostop3",
            "--script",
            str(script),
        ]
        env = {"GOSTOP_SERVER_KEY": KEY, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr
        assert "99Z" in done.stderr and "1 line(s) refused" in done.stderr
        games = server.http.get("/api/games").json()["games"]
        assert len(games) == 1
        served = server.http.get(f"/api/games/{games[0]['game_id']}/events").text

        # the same recorder output as from the log, seq for seq
        # (seals left out: they are hashes, of other times and game ids)
        def unsealed(text: str) -> list[str]:
            return [x for x in text.split("\n")[1:] if not x.lstrip().startswith("seal ")]

        assert unsealed(done.stdout) == unsealed(res.stdout)
    mine = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    theirs = [json.loads(x) for x in served.splitlines()]
    assert len(mine) == len(theirs)
    assert (
        comparable([m["event"] for m in mine])[1:] == comparable([t["event"] for t in theirs])[1:]
    )
    assert [(m["seq"], m["hand"], m["by"]) for m in mine] == [
        (t["seq"], t["hand"], t["by"]) for t in theirs
    ]


def test_a_second_device_continues_with_the_token_and_conflicts_are_shown(
    tmp_path: Path,
) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with Server(tmp_path / "s.duckdb") as server:
        game = start_game(server)
        version = enter(server, game, lines[0], game["version"]).json()["version"]
        script = tmp_path / "rest.txt"
        script.write_text("\n".join(lines[1:4]) + "\n", encoding="utf-8")
        cmd = [
            sys.executable,
            "-m",
            "gostop_cli.app",
            "record",
            "--server",
            server.url,
            "--token",
            game["recorder_token"],
            "--script",
            str(script),
        ]
        env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "resumed game" in done.stdout
        table = server.http.get(f"/api/games/{game['game_id']}").json()
        assert table["seq"] > version
        bad = [
            sys.executable,
            "-m",
            "gostop_cli.app",
            "record",
            "--server",
            server.url,
            "--token",
            "not-a-token",
            "--script",
            str(script),
        ]
        refused = subprocess.run(bad, capture_output=True, text=True, env=env, timeout=120)
        assert refused.returncode == 1 and "no game has this token" in refused.stderr


def test_replay_and_audit_read_from_the_server(tmp_path: Path) -> None:
    sample = Path(__file__).parent.parent / "samples" / "disputed-payment.jsonl"
    from gostop_cli.app import app

    with Server(tmp_path / "s.duckdb") as server:
        r = server.http.post("/api/import", content=sample.read_bytes(), headers=auth(KEY))
        assert r.status_code == 200, r.text
        gid = server.http.get("/api/games").json()["games"][0]["game_id"]
        local = runner.invoke(app, ["replay", str(sample), "--json"])
        remote = runner.invoke(app, ["replay", "--server", server.url, "--game", gid, "--json"])
        assert remote.exit_code == 0, remote.stderr
        assert json.loads(remote.stdout) == json.loads(local.stdout)
        local = runner.invoke(app, ["audit", str(sample)])
        remote = runner.invoke(app, ["audit", "--server", server.url, "--game", gid])
        assert remote.exit_code == local.exit_code == 1
        assert remote.stdout == local.stdout
        sql = "SELECT game_id, hands FROM games"
        local_db = tmp_path / "local.duckdb"
        assert (
            runner.invoke(app, ["db", "import", str(sample), "--db", str(local_db)]).exit_code == 0
        )
        for fmt in ("json", "csv", "table"):
            here = runner.invoke(app, ["db", "query", sql, "--db", str(local_db), "--format", fmt])
            there = runner.invoke(
                app, ["db", "query", sql, "--server", server.url, "--format", fmt]
            )
            assert there.exit_code == 0, there.stderr
            assert there.stdout == here.stdout
        refused = runner.invoke(app, ["db", "query", "DELETE FROM events", "--server", server.url])
        assert refused.exit_code == 1 and "read-only" in refused.stderr
        missing = runner.invoke(app, ["replay", "--server", server.url, "--game", "nope"])
        assert missing.exit_code == 1 and "no game" in missing.stderr


def test_sigterm_stops_the_server_and_hands_the_store_back(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    server = Server(db)
    game = start_game(server)
    viewer = httpx.stream("GET", f"{server.url}/api/games/{game['game_id']}/stream", timeout=20)
    with viewer as r:
        assert r.status_code == 200
        server.proc.terminate()
        server.proc.wait(timeout=15)
    out = server.proc.stdout.read()  # type: ignore[union-attr]
    assert "server key" in out and "stopped" in out
    assert "signs     with key ed25519:" in out and "s.duckdb.key" in out
    with Store(db, read_only=True) as store:
        assert store.version(game["game_id"]) == 2  # game_started, the server key


def test_the_terminal_recorder_rereads_the_game_when_another_device_was_first(
    tmp_path: Path,
) -> None:
    import io

    from gostop_cli import common
    from gostop_cli.render import Painter
    from gostop_cli.server_record import RemoteSink, ServerSession

    from gostop_records.recorder import RecordingSession
    from gostop_records.service.client import ServiceClient

    _sim, lines = hand_lines("matgo", 2, 3)
    with Server(tmp_path / "s.duckdb") as server:
        game = start_game(server)
        gid = game["game_id"]
        client = ServiceClient(server.url, game["recorder_token"])

        class OtherDeviceFirst(io.StringIO):
            """The script, but before its third line another device records that line."""

            def readline(self, *args: Any) -> str:
                line = super().readline(*args)
                if line.strip() == lines[2]:
                    v = server.http.get(f"/api/games/{gid}").json()["seq"]
                    assert enter(server, game, lines[2], v).status_code == 201
                return line

        out: list[str] = []
        rec = RecordingSession.resume(RemoteSink(client, gid), gid)
        loop = ServerSession(
            rec,
            common.LineReader(OtherDeviceFirst("\n".join(lines[:5]) + "\n"), False),
            out=out.append,
            err=out.append,
            paint=Painter(False),
            client=client,
            by="recorder",
        )
        loop.run()
        assert loop.refused == 1
        assert any("(recorded by another device)" in x for x in out)
        stored = server.http.get(f"/api/games/{gid}/events").text.splitlines()
    got = [json.loads(x)["event"] for x in stored]
    # every line recorded once: the other device's copy of line 3 and the rest by this one
    assert sum(1 for e in got if e["type"] in ("card_played", "card_flipped")) == sum(
        1 for x in lines[:5] if x.split()[0] in ("play", "flip")
    )
