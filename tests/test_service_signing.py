"""The table service signs what it records: its key file beside the store, its key in each
game's record, a signed checkpoint at each hand's end, and players' countersignatures taken
through the API after they are checked."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import Any

import msgspec
from service_helpers import KEY, auth, hand_lines, new_game, run_async, service_client

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.integrity import checkpoints as CP
from gostop_records.integrity.signing import SigningKey, read_key_file
from gostop_records.service import reads as R
from gostop_records.service.core import TableService
from gostop_records.service.models import EntryIn, NewGame
from gostop_records.service.settings import ServiceSettings
from gostop_records.store import Store


def _post(c: Any, game: dict[str, Any], line: str, version: int) -> Any:
    return c.post(
        f"/api/games/{game['game_id']}/entries",
        json={"entry": line, "expected_version": version},
        headers=auth(game["recorder_token"]),
    )


def _record_hand(c: Any, game: dict[str, Any], lines: list[str]) -> tuple[int, list[str]]:
    """The hand's lines through the API: the version after, and the types answered."""
    version, types = game["version"], []
    for line in lines:
        r = _post(c, game, line, version)
        assert r.status_code == 201, r.text
        types += [e["event"]["type"] for e in r.json()["events"]]
        version = r.json()["version"]
    return version, types


def _envelopes(c: Any, gid: str) -> list[E.Envelope]:
    return [L.decode_json_line(x) for x in c.get(f"/api/games/{gid}/events").text.splitlines()]


def test_the_server_signs_each_hand_end_with_the_key_beside_the_store(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(db) as c:
        game = new_game(c)
        gid = game["game_id"]
        key_file = tmp_path / "s.duckdb.key"
        assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
        key = read_key_file(key_file)
        assert game["signed_by"] == key.fingerprint
        _version, types = _record_hand(c, game, lines)
        # the hand's end and its checkpoint come back in the answer of the entry that ends it
        assert "hand_ended" in types and types.count("checkpoint_signed") >= 1
        envs = _envelopes(c, gid)
    assert type(envs[1].event) is E.KeyAdded and envs[1].event.key == key.public.text
    report = CP.check(envs)
    assert report.ok and report.signed, [str(p) for p in report.problems]
    ended = max(e.seq for e in envs if type(e.event) is E.HandEnded)
    assert report.vouched_until is not None and report.vouched_until >= ended
    assert any(key.fingerprint in w for w in report.who_signed())
    # a restarted server signs with the same key
    with service_client(db) as c:
        assert new_game(c)["signed_by"] == key.fingerprint


def _countersign(game_id: str, seat: int, cp: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    message = base64.b64decode(cp["messages"][seat])
    return {
        "seat": seat,
        "head_seq": cp["head_seq"],
        "head": cp["head"],
        "public_key": key.public.text,
        "signature": key.sign(message),
    }


def test_players_countersign_a_hand_through_the_api(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    ann, ben, eve = (SigningKey.generate(n) for n in ("Ann", "Ben", "Eve"))
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        gid = game["game_id"]
        assert c.get(f"/api/games/{gid}/checkpoint").status_code == 404  # none yet
        version, _ = _record_hand(c, game, lines[:-1])
        cp = c.get(f"/api/games/{gid}/checkpoint").json()
        assert cp["countersigned"] == [] and len(cp["messages"]) == 2
        url = f"/api/games/{gid}/countersign"
        body = _countersign(gid, 0, cp, ann)
        # a seat's first countersignature binds its key: the recorder confirms it
        assert c.post(url, json=body).status_code == 403
        recorder = auth(game["recorder_token"])
        r = c.post(url, json=body, headers=recorder)
        assert r.status_code == 201, r.text
        assert r.json()["events"][0]["event"]["type"] == "result_countersigned"
        # a retry appends nothing
        again = c.post(url, json=body)
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        # refusals, each with its reason, nothing written
        forged = {**_countersign(gid, 1, cp, ben), "signature": body["signature"]}
        r = c.post(url, json=forged)
        assert r.status_code == 422 and r.json()["error"] == "bad_signature", r.text
        assert "does not verify" in r.json()["reason"]
        other_head = {**_countersign(gid, 1, cp, ben), "head": "0" * 64}
        r = c.post(url, json=other_head)
        assert r.status_code == 422 and r.json()["error"] == "no_checkpoint"
        assert c.post(url, json={**body, "seat": 2}).status_code == 400
        assert c.post(url, json={**body, "extra": 1}).status_code == 400
        r = c.post(url, json=_countersign(gid, 0, cp, eve))  # seat 0 with another key
        assert r.status_code == 422 and r.json()["error"] == "wrong_key"
        # the recorder's device, a version behind by the countersignature alone, goes on
        r = _post(c, game, lines[-1], version)
        assert r.status_code == 201, r.text
        assert r.json()["events"][0]["seq"] == version + 2
        cp = c.get(f"/api/games/{gid}/checkpoint").json()
        assert c.post(url, json=_countersign(gid, 1, cp, ben), headers=recorder).status_code == 201
        envs = _envelopes(c, gid)
        assert c.get(f"/api/games/{gid}/audit").status_code == 200
    report = CP.check(envs)
    assert report.ok, [str(p) for p in report.problems]
    counter = [s for s in report.signatures if s.kind == "countersignature"]
    # the log as stored seals the players' names (see gostop_records.names): seats by number
    assert [(s.seat, s.signer) for s in counter] == [(0, "seat 0"), (1, "seat 1")]


def test_a_recorder_behind_by_a_play_still_gets_409(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "s.duckdb") as c:
        game = new_game(c)
        v0 = game["version"]
        assert _post(c, game, lines[0], v0).status_code == 201
        r = _post(c, game, lines[1], v0)
        assert r.status_code == 409


def test_projection_rows_written_after_the_answer_are_caught_up_after_a_crash(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.duckdb"
    _sim, lines = hand_lines("matgo", 2, 3)
    # the settler writes only when a read asks
    quiet = ServiceSettings(settle_records=10**6, settle_s=3600)
    svc = TableService(db, settings=quiet)
    game = msgspec.json.decode(svc.create_game(NewGame(players=["Ann", "Ben"])).body)
    version = game["version"]
    for line in lines:
        answer = svc.enter(game["game_id"], EntryIn(expected_version=version, entry=line))
        version = msgspec.json.decode(answer.body)["version"]
    assert svc.store.pending_rows  # committed events, rows not written yet
    assert svc.settler is not None and svc.settler.sync(10) is None  # a read asks
    assert R.search(svc.store.conn)["games"][0]["version"] == version
    assert not svc.store.pending_rows
    answer = svc.enter(game["game_id"], EntryIn(expected_version=version, entry="note late"))
    version += 1
    assert svc.store.pending_rows
    svc.store.pending_rows.clear()  # the process dies before it writes them
    svc.close()
    with Store(db, read_only=True) as st:
        report = st.verify()
        assert [d.table for d in report.diffs] and not report.heads and not report.breaks
    svc = TableService(db)  # the next start derives them again
    try:
        assert svc.store.verify().ok
        assert R.search(svc.store.conn)["games"][0]["version"] == version
    finally:
        svc.close()


def test_the_server_key_file_names_itself_when_it_cannot_be_read(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    (tmp_path / "s.duckdb.key").write_text("not a key\n")
    try:
        TableService(db)
    except Exception as exc:
        assert "s.duckdb.key" in str(exc) and "not a key file" in str(exc)
    else:
        raise AssertionError("an unreadable key file was accepted")
    with Store(db) as st:  # the store was closed again: another opens it
        assert st.game_ids() == []


def test_a_server_with_the_key_issues_countersign_only_to_readers(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb", private=True) as c:
        game = new_game(c)
        gid = game["game_id"]
        assert c.get(f"/api/games/{gid}/checkpoint").status_code == 401
        r = c.get(f"/api/games/{gid}/checkpoint", headers=auth(KEY))
        assert r.status_code == 404  # readable with the key; no checkpoint yet


def test_the_settler_writes_deferred_rows_once_they_fall_due(tmp_path: Path) -> None:
    """Entries kept coming: the rows are written by the settler within its marks, not only
    when the queue runs dry or a read comes."""
    import asyncio
    import time

    from gostop_records.service.core import EntryRequest
    from gostop_records.service.worker import Worker

    _sim, lines = hand_lines("matgo", 2, 3)
    worker = Worker()
    try:

        async def run() -> tuple[int, float]:
            await worker.call(lambda: setattr(worker, "service", TableService(tmp_path / "w.db")))
            svc = worker.service
            assert svc is not None
            game = msgspec.json.decode(
                (await worker.call(lambda: svc.create_game(NewGame(players=["Ann", "Ben"])))).body
            )
            version, start = game["version"], time.monotonic()
            for line in lines:
                req = EntryRequest(game["game_id"], EntryIn(expected_version=version, entry=line))
                version = msgspec.json.decode((await worker.enter(req)).body)["version"]
            deadline = time.monotonic() + 10
            while svc.store.rows_pending() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            return version, time.monotonic() - start

        version, _took = run_async(run)
        svc = worker.service
        assert svc is not None and not svc.store.rows_pending()
        pos = svc.store.conn.execute("SELECT seq FROM positions").fetchall()
        assert pos == [(version,)]
    finally:
        if worker.service is not None:
            worker.service.close()
        worker.stop()


def test_an_upload_with_a_forged_checkpoint_is_refused_whole(tmp_path: Path) -> None:
    _sim, lines = hand_lines("matgo", 2, 3)
    with service_client(tmp_path / "a.duckdb") as c:
        game = new_game(c)
        _record_hand(c, game, lines)
        envs = _envelopes(c, game["game_id"])
    k = next(i for i, e in enumerate(envs) if type(e.event) is E.CheckpointSigned)
    sig = envs[k].event.signature  # type: ignore[union-attr]
    forged = msgspec.structs.replace(
        envs[k].event, signature=("B" if sig[0] == "A" else "A") + sig[1:]
    )
    bad = [*envs[:k], msgspec.structs.replace(envs[k], event=forged), *envs[k + 1 :]]
    bad = bad[:k] + L.seal(bad[k:], prev=bad[k - 1].hash)
    data = b"".join(L.encode_json(e) + b"\n" for e in bad)
    with service_client(tmp_path / "b.duckdb") as c:
        r = c.post("/api/import", content=data, headers=auth(KEY))
        assert r.status_code == 422, r.text
        [problem] = r.json()["rejected"]
        assert (problem["file"], problem["line"], problem["seq"]) == ("upload", k + 1, k + 1)
        assert problem["rule"] == "checkpoint_signature"
        assert "does not verify" in problem["reason"]
        assert c.get("/api/games").json()["total"] == 0
        good = b"".join(L.encode_json(e) + b"\n" for e in envs)
        assert c.post("/api/import", content=good, headers=auth(KEY)).status_code == 200
