"""The table service's API through Litestar's test client: hands, refusals, retries, reads."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest
from gostop_cli.validate_cmd import validate_files
from service_helpers import (
    KEY,
    auth,
    comparable,
    hand_lines,
    new_game,
    service_client,
    sim_dicts,
)

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.store import Store

PRESET_GAMES = [
    pytest.param("cardavia", 2, 5, id="cardavia"),
    pytest.param("gamerules", 2, 7, id="gamerules-2p"),
    pytest.param("gamerules", 3, 2, id="gamerules-3p"),
    pytest.param("matgo", 2, 3, id="matgo"),
    pytest.param("gostop3", 3, 4, id="gostop3"),
]


def post_entry(client: Any, game: dict[str, Any], body: dict[str, Any], **headers: str) -> Any:
    return client.post(
        f"/api/games/{game['game_id']}/entries",
        json=body,
        headers={**auth(game["recorder_token"]), **headers},
    )


def record_lines(client: Any, game: dict[str, Any], lines: list[str]) -> int:
    version = game["version"]
    for line in lines:
        r = post_entry(client, game, {"entry": line, "expected_version": version})
        assert r.status_code == 201, (line, r.text)
        answer = r.json()
        assert answer["version"] == version + len(answer["events"])
        assert answer["events"][0]["seq"] == version + 1
        version = answer["version"]
    return version


def stored_payloads(client: Any, game_id: str) -> list[dict[str, Any]]:
    r = client.get(f"/api/games/{game_id}/events")
    assert r.status_code == 200
    return [json.loads(line)["event"] for line in r.text.splitlines()]


@pytest.mark.parametrize(("preset", "players", "seed"), PRESET_GAMES)
def test_a_complete_hand_of_each_preset(
    tmp_path: Path, preset: str, players: int, seed: int
) -> None:
    sim, lines = hand_lines(preset, players, seed)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c, players, preset)
        assert game["version"] == 2 and game["waiting"]["kind"] == "deal"
        assert game["signed_by"].startswith("ed25519:")
        version = record_lines(c, game, lines)
        gid = game["game_id"]
        assert comparable(stored_payloads(c, gid))[1:] == sim_dicts(sim)[1:]
        table = c.get(f"/api/games/{gid}").json()
        assert table["seq"] == version
        assert table["hand"]["phase"] == "ended"
        assert table["results"], table
        events = c.get(f"/api/games/{gid}/events").text
    log = tmp_path / "g.jsonl"
    log.write_text(events, encoding="utf-8")
    report = validate_files([log])
    assert report.valid and report.games == 1, [str(f) for f in report.errors]


def test_a_hand_entered_as_typed_events(tmp_path: Path) -> None:
    sim, _lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        version = game["version"]
        for ev in sim[1:]:
            if not E.is_input(ev):
                continue
            body = {"event": msgspec.to_builtins(ev), "expected_version": version}
            r = post_entry(c, game, body)
            assert r.status_code == 201, r.text
            version = r.json()["version"]
        assert comparable(stored_payloads(c, game["game_id"]))[1:] == sim_dicts(sim)[1:]


def test_two_devices_race_and_exactly_one_wins_each_version(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        gid = game["game_id"]
        i = 0
        while i + 1 < len(lines):
            version = c.get(f"/api/games/{gid}").json()["seq"]
            start = threading.Barrier(2)
            results: list[Any] = [None, None]

            def device(
                k: int, line: str, v: int, start: threading.Barrier, results: list[Any]
            ) -> None:
                start.wait()
                results[k] = post_entry(c, game, {"entry": line, "expected_version": v})

            threads = [
                threading.Thread(target=device, args=(k, lines[i], version, start, results))
                for k in (0, 1)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            codes = sorted(r.status_code for r in results)
            assert codes == [201, 409], [r.text for r in results]
            won = next(r for r in results if r.status_code == 201).json()
            lost = next(r for r in results if r.status_code == 409).json()
            assert lost["version"] == won["version"]
            # the loser reads the game again and records the next entry at the new version
            again = c.get(f"/api/games/{gid}").json()["seq"]
            assert again == won["version"]
            r = post_entry(c, game, {"entry": lines[i + 1], "expected_version": again})
            assert r.status_code == 201, r.text
            i += 2
        for line in lines[i:]:
            v = c.get(f"/api/games/{gid}").json()["seq"]
            assert post_entry(c, game, {"entry": line, "expected_version": v}).status_code == 201
        envs = [json.loads(x) for x in c.get(f"/api/games/{gid}/events").text.splitlines()]
        assert [e["seq"] for e in envs] == list(range(1, len(envs) + 1))
        assert L.verify([msgspec.convert(e, E.Envelope) for e in envs]).ok


def test_a_retry_with_the_same_key_gets_the_same_answer_and_appends_nothing(
    tmp_path: Path,
) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        gid = game["game_id"]
        body = {"entry": lines[0], "expected_version": 2}
        first = post_entry(c, game, body, **{"Idempotency-Key": "k-1"})
        assert first.status_code == 201
        again = post_entry(c, game, body, **{"Idempotency-Key": "k-1"})
        assert again.status_code == 201 and again.content == first.content
        assert again.headers["idempotent-replayed"] == "true"
        version = first.json()["version"]
        assert c.get(f"/api/games/{gid}").json()["seq"] == version
        other = {"entry": lines[1], "expected_version": version}
        reused = post_entry(c, game, other, **{"Idempotency-Key": "k-1"})
        assert reused.status_code == 422
        assert reused.json()["error"] == "idempotency_key_reused"
        assert post_entry(c, game, other, **{"Idempotency-Key": "k-2"}).status_code == 201
    # the answer outlives the process: a new server on the same store answers the retry
    with service_client(tmp_path / "s.duckdb") as c:
        again = post_entry(c, game, body, **{"Idempotency-Key": "k-1"})
        assert again.status_code == 201 and again.content == first.content


def test_starting_a_game_again_with_the_same_key_gives_the_same_game(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as c:
        body = {"players": ["Ann", "Ben"], "ruleset": "matgo"}
        h = {**auth(KEY), "Idempotency-Key": "start-1"}
        a = c.post("/api/games", json=body, headers=h).json()
        b = c.post("/api/games", json=body, headers=h).json()
        assert a["game_id"] == b["game_id"] and a["recorder_token"] != b["recorder_token"]
        assert c.get("/api/games").json()["total"] == 1
        # the newest token records; the first one, replaced, no longer does
        entry = {"entry": "note hello", "expected_version": 2}
        assert post_entry(c, a, entry).status_code == 403
        assert post_entry(c, b, entry).status_code == 201


def test_writes_are_refused_with_the_right_status_and_write_nothing(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        other = new_game(c)
        gid = game["game_id"]
        url = f"/api/games/{gid}/entries"
        ok = {"entry": lines[0], "expected_version": 2}

        def refused(status: int, **kw: Any) -> dict[str, Any]:
            r = c.post(url, **kw)
            assert r.status_code == status, r.text
            body = r.json()
            assert body["reason"], body
            return body  # type: ignore[no-any-return]

        refused(401, json=ok)
        refused(403, json=ok, headers=auth(other["recorder_token"]))
        refused(403, json=ok, headers=auth(KEY))  # the server key records no game
        tok = auth(game["recorder_token"])
        refused(413, content=b'{"entry": "' + b"x" * 70_000 + b'"}', headers=tok)
        refused(400, content=b'{"entry": "play 03G"', headers=tok)
        refused(400, content=b"[1, 2]", headers=tok)
        assert "unknown field" in refused(400, json={**ok, "colour": "red"}, headers=tok)["reason"]
        bad_card = {
            "event": {"type": "card_played", "seat": 0, "card": "13Z"},
            "expected_version": 2,
        }
        assert "13Z" in refused(400, json=bad_card, headers=tok)["reason"]
        extra = {"event": {"type": "go_called", "seat": 0, "count": 1, "score": 7, "x": 1}}
        assert "x" in refused(400, json={**extra, "expected_version": 2}, headers=tok)["reason"]
        refused(400, json={"entry": "deal layout 99Q", "expected_version": 2}, headers=tok)
        refused(400, json={"entry": "dance", "expected_version": 2}, headers=tok)
        refused(400, json={"expected_version": 2}, headers=tok)
        rules = refused(422, json={"entry": "go", "expected_version": 2}, headers=tok)
        assert rules["error"] == "rules" and rules["rule"]
        assert refused(409, json={**ok, "expected_version": 5}, headers=tok)["version"] == 2
        r = c.post("/api/games/no-such-game/entries", json=ok, headers=tok)
        assert r.status_code == 404
        # starting games needs the server key
        start = {"players": ["A", "B"]}
        assert c.post("/api/games", json=start).status_code == 401
        assert c.post("/api/games", json=start, headers=auth("wrong")).status_code == 403
        assert (
            c.post("/api/games", json={**start, "ruleset": "nope"}, headers=auth(KEY)).status_code
            == 400
        )
        assert (
            c.post(
                "/api/games", json={**start, "ruleset": "/etc/passwd"}, headers=auth(KEY)
            ).status_code
            == 400
        )
        assert c.post("/api/games", json={"players": ["A"]}, headers=auth(KEY)).status_code == 400
        assert c.post("/api/import", content=b"{}\n").status_code == 401
        # nothing was written by any refusal
        assert c.get(f"/api/games/{gid}").json()["seq"] == 2
        assert c.post(url, json=ok, headers=tok).status_code == 201


def test_a_line_that_needs_a_choice_is_refused_with_the_candidates(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        deal = "deal layout 03R 09A 06J2 04J2 03J2 05J1 12D 12R"
        assert post_entry(c, game, {"entry": deal, "expected_version": 2}).status_code == 201
        r = post_entry(c, game, {"entry": "play 03G", "expected_version": 4})
        assert r.status_code == 422
        body = r.json()
        assert body["rule"] == "choice_required" and body["candidates"] == ["03R", "03J2"]
        r = post_entry(c, game, {"entry": "play 03G 03J2", "expected_version": 4})
        assert r.status_code == 201
        undo = post_entry(c, game, {"entry": "undo", "expected_version": r.json()["version"]})
        assert undo.status_code == 201
        assert undo.json()["events"][0]["event"]["type"] == "entry_retracted"


def test_custom_ruleset_and_reads(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        rules = {"base": "matgo", "name": "friday", "pi_bak_max_units": 6}
        game = new_game(c, ruleset=rules, stake=100, venue="club")  # type: ignore[arg-type]
        assert game["ruleset"] == "friday"
        gid = game["game_id"]
        version = record_lines(c, game, lines)
        # the table at a point, the log after a point
        at3 = c.get(f"/api/games/{gid}", params={"at": 3}).json()
        assert at3["seq"] == 3
        assert c.get(f"/api/games/{gid}", params={"at": version + 5}).status_code == 400
        after = c.get(f"/api/games/{gid}/events", params={"after": 3}).text.splitlines()
        assert [json.loads(x)["seq"] for x in after] == list(range(4, version + 1))
        with Store(tmp_path / "copy.duckdb") as _:
            pass
        # the audit, with a claim
        audit = c.get(f"/api/games/{gid}/audit", params={"claim": "0->1=100"}).json()
        assert "hands" in audit and audit["game_id"] == gid
        assert c.get(f"/api/games/{gid}/audit", params={"claim": "nonsense"}).status_code == 400
        # search
        page = c.get("/api/games", params={"player": "ann"}).json()
        assert page["total"] == 1 and page["games"][0]["game_id"] == gid
        assert c.get("/api/games", params={"player": "zed"}).json()["total"] == 0
        assert c.get("/api/games", params={"ruleset": "friday"}).json()["total"] == 1
        assert c.get("/api/games", params={"date": "2001-01-01"}).json()["total"] == 0
        assert c.get("/api/games", params={"date": "yesterday"}).status_code == 400
        new_game(c)
        assert c.get("/api/games", params={"limit": 1}).json()["total"] == 2
        assert len(c.get("/api/games", params={"limit": 1, "offset": 1}).json()["games"]) == 1
        assert c.get(f"/api/games/{gid}/nothing").status_code == 404
        assert c.get("/api/games/none").status_code == 404


def test_search_by_outcome_and_dispute(tmp_path: Path) -> None:
    sample = Path(__file__).parent.parent / "samples" / "disputed-payment.jsonl"
    with service_client(tmp_path / "s.duckdb") as c:
        r = c.post("/api/import", content=sample.read_bytes(), headers=auth(KEY))
        assert r.status_code == 200, r.text
        assert r.json()["imported"] == 1
        again = c.post("/api/import", content=sample.read_bytes(), headers=auth(KEY)).json()
        assert again["skipped"] == 1 and again["events"] == 0
        disputed = c.get("/api/games", params={"disputed": "true"}).json()
        assert disputed["total"] == 1
        assert c.get("/api/games", params={"disputed": "false"}).json()["total"] == 0
        assert c.get("/api/games", params={"outcome": "stop"}).json()["total"] == 1
        assert c.get("/api/games", params={"outcome": "nagari"}).json()["total"] == 0
        gid = disputed["games"][0]["game_id"]
        audit = c.get(f"/api/games/{gid}/audit").json()
        assert audit["ok"] is False
        # an imported game has no recorder token until the server key issues one
        entry = {"entry": "note checked", "expected_version": disputed["games"][0]["version"]}
        r = c.post(f"/api/games/{gid}/entries", json=entry, headers=auth("x"))
        assert r.status_code == 403
        issued = c.post(f"/api/games/{gid}/token", headers=auth(KEY)).json()
        # the server records the game from now on, so it signs it: its key, and a
        # checkpoint of the hand that had ended
        before = entry["expected_version"]
        added = c.get(f"/api/games/{gid}/events?after={before}").text.splitlines()
        assert [json.loads(x)["event"]["type"] for x in added] == [
            "key_added",
            "checkpoint_signed",
        ]
        assert issued["version"] == before + 2
        entry["expected_version"] = issued["version"]
        r = c.post(f"/api/games/{gid}/entries", json=entry, headers=auth(issued["recorder_token"]))
        assert r.status_code == 201, r.text


def test_a_broken_upload_is_refused_whole_per_game(tmp_path: Path) -> None:
    sample = Path(__file__).parent.parent / "samples" / "disputed-payment.jsonl"
    lines = sample.read_bytes().splitlines()
    broken = json.loads(lines[5])
    broken["event"]["card"] = "01G" if broken["event"].get("card") != "01G" else "02A"
    data = b"\n".join([*lines[:5], json.dumps(broken).encode(), *lines[6:]]) + b"\n"
    with service_client(tmp_path / "s.duckdb") as c:
        r = c.post("/api/import", content=data, headers=auth(KEY))
        assert r.status_code == 422, r.text
        assert r.json()["rejected"] and r.json()["events"] == 0
        assert c.post("/api/import", content=b"not json\n", headers=auth(KEY)).status_code == 422
        assert c.post("/api/import", content=b"", headers=auth(KEY)).status_code == 400
        assert c.get("/api/games").json()["total"] == 0


def test_a_private_server_needs_a_key_or_the_token_to_read(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb", private=True) as c:
        game = new_game(c)
        gid = game["game_id"]
        assert c.get(f"/api/games/{gid}").status_code == 401
        assert c.get(f"/api/games/{gid}", headers=auth("wrong")).status_code == 403
        assert c.get(f"/api/games/{gid}", headers=auth(game["recorder_token"])).status_code == 200
        assert c.get(f"/api/games/{gid}/events", headers=auth(KEY)).status_code == 200
        other = new_game(c)
        assert c.get(f"/api/games/{gid}", headers=auth(other["recorder_token"])).status_code == 403
        assert c.get("/api/games").status_code == 401
        assert c.get("/api/games", headers=auth(KEY)).status_code == 200
        assert c.get("/api/health").status_code == 200


def test_an_open_server_starts_games_without_a_key(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb", key=None) as c:
        r = c.post("/api/games", json={"players": ["Ann", "Ben", "Cho"]})
        assert r.status_code == 201 and r.json()["ruleset"] == "gostop3"
        assert c.get("/api/health").json()["open"] is True


def test_the_openapi_document_has_the_event_types(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as c:
        doc = c.get("/schema/openapi.json").json()
    assert "/api/games/{game_id}/entries" in doc["paths"]
    names = set(doc["components"]["schemas"])
    assert {"CardPlayed", "GoCalled", "EntryIn", "NewGame"} <= names


def test_read_only_sql_over_http_writes_nothing_and_reads_no_file(tmp_path: Path) -> None:
    sample = Path(__file__).parent.parent / "samples" / "disputed-payment.jsonl"
    with service_client(tmp_path / "s.duckdb") as c:
        # the store's own writes go on after the connection is locked down
        assert c.post("/api/import", content=sample.read_bytes(), headers=auth(KEY)).is_success
        r = c.post("/api/query", json={"sql": "SELECT game_id, hands FROM games"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["columns"] == ["game_id", "hands"] and len(body["rows"]) == 1
        dated = c.post("/api/query", json={"sql": "SELECT started_on FROM games"}).json()
        assert isinstance(dated["rows"][0][0], str)
        for sql in (
            "DELETE FROM events",
            "COPY events TO 'x.csv'",
            f"SELECT * FROM read_text('{sample}')",
            "ATTACH 'other.duckdb'",
            "SELEC 1",
        ):
            r = c.post("/api/query", json={"sql": sql})
            assert r.status_code == 400, (sql, r.text)
            assert r.json()["reason"]
        assert c.post("/api/query", json={"sql": "SELECT 1", "x": 1}).status_code == 400
        assert c.post("/api/query", json={"sql": "SELECT count(*) FROM events"}).json()["rows"] == [
            [len(sample.read_bytes().splitlines())]
        ]
    with service_client(tmp_path / "s.duckdb", private=True) as c:
        assert c.post("/api/query", json={"sql": "SELECT 1"}).status_code == 401
        assert c.post("/api/query", json={"sql": "SELECT 1"}, headers=auth(KEY)).status_code == 200
