"""Forgetting a person: names sealed under a key of the person's own before hashing, so that
``gostop people forget`` (or the API, with the server key) leaves their name in no file the
project writes (the store after a CHECKPOINT, a Parquet export, an archive, a report, the
pages) while every chain, seal, signature and countersignature still verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, auth, service_client
from store_support import gostop

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.names import FORGOTTEN, is_sealed, open_name, seal_name
from gostop_records.people import People, PeopleError
from gostop_records.store import Store
from gostop_records.store.errors import QueryRefusedError
from gostop_records.store.people import append_person_event, forget_person
from gostop_records.store.statements import check_read_only

NAME = "Zelda Quux"
RENAMED = "Zelda Q. Marlowe"


def _found(path: Path, *words: str) -> list[str]:
    """The words some file under ``path`` holds (every file, read as bytes)."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return [w for w in words if any(w.encode() in f.read_bytes() for f in files)]


def _checkpointed(db: Path) -> None:
    conn = duckdb.connect(str(db))
    conn.execute("CHECKPOINT")
    conn.close()


@pytest.fixture()
def club(tmp_path: Path) -> dict[str, Any]:
    """A store with two signed games recorded at the terminal (Zelda plays the first), a
    rename of Zelda, and the seals and verify summary before anything is forgotten."""
    db = tmp_path / "club.duckdb"
    script = tmp_path / "hand.txt"
    script.write_text("\n".join(script_for(sim_payloads("matgo", 2, 7))))
    env = {"GOSTOP_KEYS": str(tmp_path / "keys")}
    for gid, players in (("g1", f"{NAME},Ben"), ("g2", "Yan,Ben")):
        done = gostop(
            "record", "--db", str(db), "--players", players, "--ruleset", "matgo",
            "--game-id", gid, "--script", str(script), env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    with Store(db) as s:
        started = s.events("g1")[0].event
        assert isinstance(started, E.GameStarted) and started.players[0].name == NAME
        zelda = started.players[0].id
        raw = s.conn.execute("SELECT payload FROM events WHERE seq = 1 AND game_id = 'g1'")
        assert NAME not in raw.fetchall()[0][0]  # sealed in the hashed payload
        append_person_event(s, E.PersonRenamed(person=zelda, name=RENAMED), by="club")
        seals = {x.game_id: x.text for x in s.seals()}
    _checkpointed(db)
    assert _found(db, NAME, RENAMED) == [NAME, RENAMED]  # the check below is not vacuous
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stderr
    return {"db": db, "zelda": zelda, "seals": seals, "verified": verified.stdout}


def test_a_forgotten_name_is_in_no_file_and_every_seal_still_holds(
    club: dict[str, Any], tmp_path: Path
) -> None:
    db, zelda = club["db"], club["zelda"]
    done = gostop("people", "forget", zelda, "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert f"{zelda} forgotten; 1 game(s) derived again" in done.stdout
    _checkpointed(db)
    assert _found(db, NAME, RENAMED) == []
    # every chain, signature and seal as before; the people record says who, not what
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stderr
    assert "2 signed game(s), 4 valid signature(s)" in verified.stdout
    assert "2 signed game(s), 4 valid signature(s)" in club["verified"]
    with Store(db, read_only=True) as s:
        assert {x.game_id: x.text for x in s.seals()} == club["seals"]
        assert s.events("g1")[0].event.players[0].name == FORGOTTEN
        last = s.conn.execute(
            "SELECT type, payload FROM person_events ORDER BY seq DESC LIMIT 1"
        ).fetchall()[0]
        assert last[0] == "person_forgotten" and json.loads(last[1]) == {
            "type": "person_forgotten",
            "person": zelda,
        }
        names = s.conn.execute("SELECT DISTINCT player_names FROM games ORDER BY 1").fetchall()
        assert names == [([FORGOTTEN, "Ben"],), (["Yan", "Ben"],)]
    for game in ("g1", "g2"):
        sealed = gostop("verify", "--db", str(db), "--game", game, "--seal", club["seals"][game])
        assert sealed.returncode == 0, sealed.stderr
    # the exports, a report and an archive of the logs hold it nowhere either
    out = tmp_path / "parquet"
    assert gostop("db", "export", "--db", str(db), "--parquet", str(out)).returncode == 0
    report = tmp_path / "club.html"
    assert gostop("db", "report", "--db", str(db), "--html", str(report)).returncode == 0
    logs = tmp_path / "logs"
    logs.mkdir()
    with Store(db, read_only=True) as s:
        for gid in s.game_ids():
            L.write_jsonl(logs / f"{gid}.jsonl", s.events(gid))
    assert gostop("validate", str(logs / "g1.jsonl")).returncode == 0  # byte for byte
    assert _found(out, NAME, RENAMED) == [] and _found(report, NAME, RENAMED) == []
    assert _found(logs, NAME, RENAMED) == []
    assert FORGOTTEN in report.read_text()
    _archive(logs, tmp_path / "archive")


def _archive(logs: Path, out: Path) -> None:
    pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    from gostop_records.archive import build_archive

    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as client:
        report = build_archive([str(p) for p in sorted(logs.iterdir())], str(out), client=client)
    cluster.close()
    assert report.ok, report
    assert _found(out, NAME, RENAMED) == []


def test_the_pages_and_the_api_forget_with_the_server_key(club: dict[str, Any]) -> None:
    db, zelda = club["db"], club["zelda"]
    with service_client(db) as c:
        assert NAME in c.get("/api/games/g1").text or RENAMED in c.get("/players").text
        assert c.post(f"/api/people/{zelda}/forget").status_code == 401
        assert c.post(f"/api/people/{zelda}/forget", headers=auth("nope")).status_code == 403
        r = c.post(f"/api/people/{zelda}/forget", headers=auth(KEY))
        assert r.status_code == 201 and r.json()["forgotten"] == [zelda], r.text
        again = c.post(f"/api/people/{zelda}/forget", headers=auth(KEY))
        assert again.status_code == 400 and "is forgotten" in again.json()["reason"]
        for url in (
            "/players",
            f"/players/{zelda}",
            "/games",
            "/games/g1/audit",
            "/api/games/g1",
            "/api/games/g1/events",
            "/api/people",
        ):
            page = c.get(url)
            assert page.status_code == 200, url
            assert NAME not in page.text and RENAMED not in page.text, url
        assert FORGOTTEN in c.get(f"/players/{zelda}").text
        # a forgotten person is not seated again by their id
        r = c.post(
            "/api/games",
            json={"players": [f"Zelda={zelda}", "Ben"], "ruleset": "matgo"},
            headers=auth(KEY),
        )
        assert r.status_code == 400 and f"{zelda} is forgotten" in r.json()["reason"], r.text
        q = c.post("/api/query", json={"sql": "SELECT * FROM person_keys"})
        assert q.status_code == 400 and "person_keys" in q.json()["reason"]
    assert gostop("db", "compact", "--db", str(db)).returncode == 0
    _checkpointed(db)
    assert _found(db, NAME, RENAMED) == []
    assert gostop("db", "verify", "--db", str(db)).returncode == 0


def test_a_name_in_the_clear_is_not_forgotten_halfway(tmp_path: Path) -> None:
    """A game recorded before names were sealed (here: imported from a log) holds the name
    in its hashed payload: forgetting refuses, naming the game, and writes nothing."""
    db = tmp_path / "old.duckdb"
    log = tmp_path / "old.jsonl"
    script = tmp_path / "hand.txt"
    script.write_text("\n".join(script_for(sim_payloads("matgo", 2, 7))))
    done = gostop(
        "record", "--log", str(log), "--players", "Old Timer,Ben", "--ruleset", "matgo",
        "--game-id", "old", "--script", str(script), env={"GOSTOP_KEYS": str(tmp_path / "k")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Store(db) as s:
        assert s.import_paths([log]).ok
        pid = s.events("old")[0].event.players[0].id
        with pytest.raises(PeopleError, match=r"game\(s\) old hold .* in the clear"):
            forget_person(s, pid, by="t")
        assert s.conn.execute("SELECT count(*) FROM person_events").fetchall() == [(0,)]


def test_sealed_names_open_only_with_their_key_and_person() -> None:
    key, other = b"k" * 32, b"o" * 32
    text = seal_name("Ann", key, "p_1")
    assert is_sealed(text) and "Ann" not in text and text != seal_name("Ann", key, "p_1")
    assert open_name(text, key, "p_1") == "Ann"
    assert open_name(text, other, "p_1") == FORGOTTEN  # the wrong key
    assert open_name(text, key, "p_2") == FORGOTTEN  # copied to another person's seat
    assert open_name(text, None, "p_1") == FORGOTTEN
    assert open_name("Ann", None, "p_1") == "Ann"  # a name in the clear is shown as it is
    people = People([L.envelope("people", 1, None, E.PersonForgotten(person="a"), by="t")])
    for ev in (E.PersonRenamed(person="a", name="A"), E.PersonForgotten(person="a")):
        with pytest.raises(PeopleError, match="a is forgotten"):
            people.check(ev)


def test_no_query_reads_the_keys(tmp_path: Path) -> None:
    conn = duckdb.connect()
    conn.execute("CREATE TABLE person_keys (person_id VARCHAR, key BLOB)")
    for sql in (
        "SELECT * FROM person_keys",
        'WITH k AS (SELECT * FROM "PERSON_KEYS") SELECT * FROM k',
        "SELECT * FROM query_table('person_keys')",
        "SELECT * FROM query_table('person' || '_keys')",
        "SELECT (SELECT count(*) FROM main.person_keys)",
    ):
        with pytest.raises(QueryRefusedError, match="person_keys holds each person's key"):
            check_read_only(conn, sql)
