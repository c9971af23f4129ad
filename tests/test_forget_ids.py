"""``gostop people upgrade`` for persons whose id is made from their name (recorded before
persons had ids: ``Zelda Quux`` is ``zelda-quux``, or a seat with no id at all): each is
seated, in every game, under one minted id with the name sealed under the new person's key,
recorded so that ``db verify`` rebuilds the old games; then the person can be forgotten and
neither the name nor the old id is left in the store file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from record_helpers import script_for, sim_payloads
from store_support import gostop
from test_forget import _checkpointed, _found

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import GostopError
from gostop_records.integrity.signing import SigningKey, server_key_path, write_key_file
from gostop_records.names import is_sealed, open_name
from gostop_records.people import MINTED_ID, People
from gostop_records.play import seat_names
from gostop_records.store import Store
from gostop_records.store.codec import event_row
from gostop_records.store.reseal import KIND, Refused, Resealed, _plan
from gostop_records.store.reseat import Reseating

NAME, SLUG = "Zelda Quux", "zelda-quux"
YORICK = "Yorick Vane"


def _record(tmp_path: Path, gid: str, players: str, *where: str) -> list[str]:
    """Record the scripted hand as game ``gid``; the seals the recorder printed."""
    args = ["record", *where, "--players", players, "--ruleset", "matgo", "--game-id", gid]
    done = gostop(*args, "--script", str(tmp_path / "hand.txt"))
    assert done.returncode == 0, done.stderr
    return [ln.split()[1] for ln in done.stdout.splitlines() if " seal " in f" {ln}"]


def _without_id(log: Path, seat: int) -> None:
    """Rewrite a log as another producer's: seat ``seat`` has no ``id`` member at all (the
    chain made again over the new first line; the log is unsigned)."""
    prev, out = L.GENESIS, []
    for line in log.read_text().splitlines():
        d = json.loads(line)
        if d["seq"] == 1:
            del d["event"]["players"][seat]["id"]
        body = {k: v for k, v in d.items() if k not in ("prev", "hash")}
        canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        d["prev"], d["hash"] = prev, L.digest_after(prev, canon.encode())
        prev = d["hash"]
        out.append(json.dumps(d, separators=(",", ":"), ensure_ascii=False))
    log.write_text("\n".join(out) + "\n")


def _players(db: Path, gid: str) -> list[dict[str, Any]]:
    conn = duckdb.connect(str(db), read_only=True)
    try:
        row = conn.execute("SELECT payload FROM events WHERE game_id = ? AND seq = 1", [gid])
        return json.loads(row.fetchall()[0][0])["players"]
    finally:
        conn.close()


@pytest.fixture()
def slugs(tmp_path: Path) -> dict[str, Any]:
    """A club store holding Zelda by the id made from her name in four games: ``a`` signed
    with the server's key (an imported log, names in the clear), ``b`` another producer's
    log where Yorick's seat has no id, ``c`` a game against the computer, and ``d`` recorded
    into the store (her name sealed, her id still the slug), signed with the server's key."""
    db = tmp_path / "club.duckdb"
    server = server_key_path(db)
    write_key_file(server, SigningKey.generate("club"))
    (tmp_path / "hand.txt").write_text("\n".join(script_for(sim_payloads("matgo", 2, 7))))
    seals = _record(
        tmp_path,
        "a",
        f"{NAME}={SLUG},Ben",
        "--log",
        str(tmp_path / "a.jsonl"),
        "--key",
        str(server),
    )
    _record(
        tmp_path, "b", f"{NAME}={SLUG},{YORICK}", "--log", str(tmp_path / "b.jsonl"), "--no-sign"
    )
    _without_id(tmp_path / "b.jsonl", 1)
    computer = f"{NAME}={SLUG},Computer=computer"
    _record(tmp_path, "c", computer, "--log", str(tmp_path / "c.jsonl"), "--no-sign")
    logs = [str(tmp_path / f"{g}.jsonl") for g in "abc"]
    imported = gostop("db", "import", "--db", str(db), *logs)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    _record(tmp_path, "d", f"{NAME}={SLUG},Dee", "--db", str(db), "--key", str(server))
    assert "id" not in _players(db, "b")[1]
    assert is_sealed(_players(db, "d")[0]["name"]) and _players(db, "d")[0]["id"] == SLUG
    _checkpointed(db)
    assert _found(db, NAME, SLUG, YORICK) == [NAME, SLUG, YORICK]  # the checks can fail
    return {"db": db, "seals": seals, "tmp": tmp_path}


def test_a_person_whose_id_is_their_name_gets_a_minted_id_and_can_be_forgotten(
    slugs: dict[str, Any],
) -> None:
    db, tmp = slugs["db"], slugs["tmp"]
    refused = gostop("people", "forget", SLUG, "--db", str(db))
    assert refused.returncode == 1 and "in an id made from it" in refused.stderr
    raw = db.read_bytes()

    dry = gostop("people", "upgrade", "--db", str(db), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"person {SLUG} (an id made from the name) would be seated as p_" in dry.stdout
    assert "4 game(s) to re-chain" in dry.stdout and db.read_bytes() == raw

    done = gostop("people", "upgrade", "--db", str(db))
    assert done.returncode == 0, done.stdout + done.stderr
    zelda = re.search(
        rf"person {SLUG} \(an id made from the name\) is seated as (\S+) ", done.stdout
    )
    yorick = re.search(r"person yorick-vane \(an id .*\) is seated as (\S+) ", done.stdout)
    assert zelda and yorick and MINTED_ID.match(zelda[1]) and MINTED_ID.match(yorick[1])
    new = zelda[1]
    assert "4 game(s) re-chained" in done.stdout and "0 refused" in done.stdout
    assert "computer" not in done.stdout  # the computer is no person: kept as it is
    assert "re-chained game a: 63 event(s), names of " in done.stdout
    assert "checkpoint(s) at seq 61, 63 signed again" in done.stdout

    # every game seats her by the new id, her name sealed under its key; the computer's stays
    for gid in "abcd":
        seat = _players(db, gid)[0]
        assert seat["id"] == new and is_sealed(seat["name"]), gid
    assert _players(db, "b")[1]["id"] == yorick[1]
    assert _players(db, "c")[1] == {"id": "computer", "name": "Computer"}
    with Store(db, read_only=True) as s:
        assert [s.events(g)[0].event.players[0].name for g in "abcd"] == [NAME] * 4
        assert s.conn.execute(
            "SELECT count(*) FROM person_keys WHERE person_id = ?", [SLUG]
        ).fetchall() == [(0,)]  # the old id's key, which named it, is gone
        details = [
            json.loads(d)
            for (d,) in s.conn.execute("SELECT detail FROM heads WHERE kind = ?", [KIND]).fetchall()
        ]
        counted = s.conn.execute(
            "SELECT count(*) FROM player_games WHERE player_id = ?", [new]
        ).fetchall()
    assert counted == [(4,)]
    # the record of the old ids says them only sealed, under the new person's key
    moved = [r for d in details for r in d.get("reseated", [])]
    assert len(moved) == 5 and all(SLUG not in json.dumps(d) for d in details)
    assert {r["person"] for r in moved} == {new, yorick[1]}
    assert [r.get("id_was") for r in moved if r["person"] == yorick[1]] == ["absent"]
    assert [r for r in moved if "sealed_as" in r] == [r for r in moved if r["seat"] == 0][3:]
    listed = gostop("people", "list", "--db", str(db), "--json")
    rows = {r["person_id"]: r for r in json.loads(listed.stdout)}
    assert SLUG not in rows and rows[new]["games"] == 4 and rows[new]["name"] == NAME

    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    traced = gostop("verify", "--db", str(db), "--game", "a", "--seal", slugs["seals"][0])
    assert traced.returncode == 0 and "the first event is the one it covered" in traced.stdout

    # an old log of a game seating her by the old id, imported later: the same person
    _record(tmp, "e", f"{NAME}={SLUG},Eun", "--log", str(tmp / "e.jsonl"), "--no-sign")
    assert gostop("db", "import", "--db", str(db), str(tmp / "e.jsonl")).returncode == 0
    again = gostop("people", "upgrade", "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert f"is seated as {new} in every game: the id an earlier upgrade gave" in again.stdout
    assert _players(db, "e")[0]["id"] == new
    # an old log of an upgraded game: in conflict, the store's kept
    conflict = gostop("db", "import", "--db", str(db), str(tmp / "a.jsonl"))
    assert conflict.returncode == 1 and "conflict" in conflict.stdout + conflict.stderr
    assert _players(db, "a")[0]["id"] == new

    forgot = gostop("people", "forget", new, "--db", str(db))
    assert forgot.returncode == 0, forgot.stderr
    assert f"{new} forgotten; 5 game(s) derived again" in forgot.stdout
    _checkpointed(db)
    assert _found(db, NAME, SLUG, "Zelda", "zelda", YORICK) == [YORICK]
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    traced = gostop("verify", "--db", str(db), "--game", "a", "--seal", slugs["seals"][0])
    assert traced.returncode == 0 and "can no longer be opened" in traced.stdout
    # the exports, a report and the store's logs hold neither the name nor the old id
    out, report, logs = tmp / "parquet", tmp / "club.html", tmp / "logs"
    assert gostop("db", "export", "--db", str(db), "--parquet", str(out)).returncode == 0
    assert gostop("db", "report", "--db", str(db), "--html", str(report)).returncode == 0
    logs.mkdir()
    with Store(db, read_only=True) as s:
        assert s.events("d")[0].event.players[0].name == "(forgotten)"
        for gid in s.game_ids():
            L.write_jsonl(logs / f"{gid}.jsonl", s.events(gid))
    assert gostop("validate", str(logs / "a.jsonl")).returncode == 0  # byte for byte
    for where in (out, report, logs):
        assert _found(where, NAME, SLUG, "Zelda", "zelda") == [], where
    # the checks can fail: what is not forgotten is there (the logs hold names sealed)
    assert _found(report, YORICK) == [YORICK] and _found(logs, "Computer") == ["Computer"]


def test_a_person_one_of_whose_games_is_refused_keeps_the_id_in_every_game(
    slugs: dict[str, Any],
) -> None:
    """A countersigned game cannot be re-chained: the person it seats by a slug keeps it in
    every game (the same id would otherwise be two persons), and the upgrade says why."""
    db, tmp = slugs["db"], slugs["tmp"]
    write_key_file(tmp / "zelda.key", SigningKey.generate(NAME))
    log, server = tmp / "f.jsonl", str(server_key_path(db))
    _record(tmp, "f", f"{NAME}={SLUG},Fay", "--log", str(log), "--key", server)
    signed = gostop("countersign", str(log), "--seat", "0", "--key", str(tmp / "zelda.key"))
    assert signed.returncode == 0, signed.stderr
    assert gostop("db", "import", "--db", str(db), str(tmp / "f.jsonl")).returncode == 0
    done = gostop("people", "upgrade", "--db", str(db))
    assert done.returncode == 1
    assert "refused game f: seat 0 countersigned" in done.stderr
    kept = f"person {SLUG} keeps an id made from the name, so cannot be forgotten: game f seats"
    assert kept in done.stderr
    assert [_players(db, g)[0]["id"] for g in "abcdf"] == [SLUG] * 5
    assert "yorick-vane" not in _players(db, "b")[1].get("id", "")  # Yorick moved all the same
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_person_the_people_record_names_by_that_id_keeps_it(slugs: dict[str, Any]) -> None:
    """A rename is hashed with the person's id: seated under a new one, the record would
    still say the old. They keep it (and cannot be forgotten yet); the others move."""
    db = slugs["db"]
    renamed = gostop("people", "rename", SLUG, "Zelda Q.", "--db", str(db))
    assert renamed.returncode == 0, renamed.stderr
    done = gostop("people", "upgrade", "--db", str(db))
    assert done.returncode == 1
    assert f"person {SLUG} keeps an id made from the name, so cannot be forgotten: the " in (
        done.stderr
    )
    assert "refused game c: seat 0's id is made from the name and stays" in done.stderr
    assert "re-chained game a" in done.stdout and "re-chained game b" in done.stdout
    assert [_players(db, g)[0]["id"] for g in "abcd"] == [SLUG] * 4
    assert MINTED_ID.match(_players(db, "b")[1]["id"])
    assert gostop("people", "forget", SLUG, "--db", str(db)).returncode == 1
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_club_store_of_the_last_version_names_who_keeps_an_id_made_from_the_name(
    tmp_path: Path,
) -> None:
    """The version 8 fixture's games recorded before persons had ids (``ann``, ``ben``,
    ``cho``, ``dan``) are signed with keys the store does not hold: refused, left as they
    were, and each of their persons named as keeping the id; the rest is sealed."""
    from test_store_upgrades import _fixture

    db = _fixture(tmp_path, 8)
    with Store(db):  # a writer upgrades it to this schema version
        pass
    before = {g: _players(db, g) for g in ("recorded-v8", "served-v8")}
    done = gostop("people", "upgrade", "--db", str(db))
    assert done.returncode == 1
    for pid, game in (("ann", "recorded-v8"), ("cho", "served-v8")):
        kept = f"person {pid} keeps an id made from the name, so cannot be forgotten: game {game}"
        assert kept in done.stderr
        assert f"refused game {game}: the checkpoint at seq 61 is signed by" in done.stderr
    assert {g: _players(db, g) for g in before} == before
    assert "3 game(s) re-chained" in done.stdout and "2 refused" in done.stdout
    assert gostop("db", "verify", "--db", str(db)).returncode == 0


def _plan_of(reseat: Reseating, *players: E.Player) -> Resealed | Refused | None:
    started = E.GameStarted(ruleset={}, players=list(players))
    env = L.seal([L.envelope("g", 1, None, started, by="t")])[0]
    keys = {"p_1": b"k" * 32, "p_000000000002": b"n" * 32}
    return _plan("g", [event_row(env)], None, keys, People([]), reseat)


def test_who_is_seated_again_and_who_keeps_the_name() -> None:
    old, computer = E.Player(name="Old Timer"), E.Player("computer", "Computer")
    ann = E.Player("p_1", "A")
    moved = Reseating({"old-timer": "p_000000000002"}, {"p_000000000002"}, {})
    done = _plan_of(moved, old, computer, ann)
    assert isinstance(done, Resealed) and done.sealed == ("p_000000000002", "p_1")
    assert done.kept == (1,) and done.reseated == (("old-timer", "p_000000000002"),)
    first = json.loads(done.rows[0][8])["players"]
    assert first[1] == {"id": "computer", "name": "Computer"}
    assert first[0]["id"] == "p_000000000002"
    assert open_name(first[0]["name"], b"n" * 32, "p_000000000002") == "Old Timer"
    record = done.detail["reseated"]
    assert record[0]["id_was"] == "empty" and "old-timer" not in json.dumps(record)
    assert open_name(record[0]["was"], b"n" * 32, "p_000000000002") == "old-timer"

    why = "the people record names old-timer"
    kept = _plan_of(Reseating({}, set(), {"old-timer": why}), old, computer)
    assert isinstance(kept, Refused) and why in kept.reason
    assert _plan_of(Reseating({}, set(), {}), computer, E.Player("p_1", "sealed:v1:AAAA")) is None


def test_nobody_at_the_terminal_plays_as_the_computer() -> None:
    """The computer is one person in every game: a player named as it would be counted as it."""
    for name in ("Computer", "computer 2"):
        with pytest.raises(GostopError, match="the computer's name"):
            seat_names(name, 2)
    assert seat_names("Ann", 3) == ["Ann", "Computer 1", "Computer 2"]
