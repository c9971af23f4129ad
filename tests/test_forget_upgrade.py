"""``gostop people upgrade``: games holding names in the clear (recorded before names were
sealed, here imported from logs) get their names sealed and are re-chained, and only those
the store can sign again; the rewrite is recorded in the heads chain so that ``db verify``
and a seal taken before still hold; then the person can be forgotten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from record_helpers import script_for, sim_payloads
from store_support import gostop
from test_forget import _checkpointed, _found

from gostop_records import log as L
from gostop_records.integrity.signing import (
    SigningKey,
    read_key_file,
    server_key_path,
    write_key_file,
)
from gostop_records.names import is_sealed
from gostop_records.store import Store, reseal
from gostop_records.store import heads as H
from gostop_records.store.codec import row_to_envelope
from gostop_records.store.reseal import KIND

NAME = "Zelda Quux"


def _rows(db: Path, game: str) -> list[tuple[Any, ...]]:
    conn = duckdb.connect(str(db), read_only=True)
    try:
        return conn.execute(
            "SELECT * FROM events WHERE game_id = ? ORDER BY seq", [game]
        ).fetchall()
    finally:
        conn.close()


@pytest.fixture()
def old_club(tmp_path: Path) -> dict[str, Any]:
    """A store whose three games hold their names in the clear (imported logs): ``a``
    signed with the club server's key (beside the store), ``b`` the same but countersigned
    by a player, ``c`` signed with a key of its own the store does not hold."""
    db = tmp_path / "club.duckdb"
    write_key_file(server_key_path(db), SigningKey.generate("club"))
    write_key_file(tmp_path / "ann.key", SigningKey.generate("Ann"))
    script = tmp_path / "hand.txt"
    script.write_text("\n".join(script_for(sim_payloads("matgo", 2, 7))))
    env = {"GOSTOP_KEYS": str(tmp_path / "keys")}
    seals = {}
    for gid, players, key in (
        ("a", f"{NAME},Ben", True),
        ("b", "Ann,Ben", True),
        ("c", "Cy,Ben", False),
    ):
        log = tmp_path / f"{gid}.jsonl"
        args = ["record", "--log", str(log), "--players", players, "--ruleset", "matgo"]
        args += ["--game-id", gid, "--script", str(script)]
        args += ["--key", str(server_key_path(db))] if key else []
        done = gostop(*args, env=env)
        assert done.returncode == 0, done.stderr
        seals[gid] = [ln.split()[1] for ln in done.stdout.splitlines() if " seal " in f" {ln}"]
    signed = gostop("countersign", str(tmp_path / "b.jsonl"), "--seat", "0", "--key",
                    str(tmp_path / "ann.key"))  # fmt: skip
    assert signed.returncode == 0, signed.stderr
    logs = [str(tmp_path / f"{g}.jsonl") for g in "abc"]
    assert gostop("db", "import", "--db", str(db), *logs).returncode == 0
    with Store(db, read_only=True) as s:
        zelda = s.events("a")[0].event.players[0].id
        head = s.head("a")[1]
    _checkpointed(db)
    assert _found(db, NAME) == [NAME]  # the name is in the file: the checks below can fail
    return {"db": db, "zelda": zelda, "seals": seals, "head": head}


def test_an_upgrade_re_chains_what_the_store_can_sign_and_the_person_is_then_forgotten(
    old_club: dict[str, Any],
) -> None:
    db, zelda = old_club["db"], old_club["zelda"]
    refused = gostop("people", "forget", zelda, "--db", str(db))
    assert refused.returncode != 0 and "gostop people upgrade first" in refused.stderr
    before = {g: _rows(db, g) for g in "abc"}
    raw = db.read_bytes()

    dry = gostop("people", "upgrade", "--db", str(db), "--dry-run")
    assert dry.returncode == 1, dry.stderr  # games refused
    assert "would re-chain game a: 63 event(s)" in dry.stdout
    assert "Nothing written (--dry-run)" in dry.stdout
    assert db.read_bytes() == raw  # the dry run wrote nothing

    done = gostop("people", "upgrade", "--db", str(db))
    assert done.returncode == 1, done.stderr
    assert "re-chained game a: 63 event(s)" in done.stdout
    assert "checkpoint(s) at seq 61, 63 signed again" in done.stdout
    assert "1 game(s) re-chained" in done.stdout and "2 refused" in done.stdout
    assert "refused game b: seat 0 countersigned the head at seq 64" in done.stderr
    assert "refused game c: the checkpoint at seq 61 is signed by" in done.stderr
    # the refused games are left byte for byte; the upgraded one is sealed and re-chained
    assert _rows(db, "b") == before["b"] and _rows(db, "c") == before["c"]
    after = _rows(db, "a")
    assert [r[:8] for r in after] == [r[:8] for r in before["a"]]
    assert all(n[9] != o[9] for n, o in zip(after, before["a"], strict=True))
    assert NAME not in after[0][8] and is_sealed(json.loads(after[0][8])["players"][0]["name"])
    with Store(db, read_only=True) as s:
        assert s.events("a")[0].event.players[0].name == NAME  # shown opened
        entry = s.conn.execute(
            "SELECT game_id, seq, head, detail FROM heads WHERE kind = ?", [KIND]
        ).fetchall()
    assert len(entry) == 1 and entry[0][:3] == ("a", 63, after[-1][9])
    detail = json.loads(entry[0][3])
    assert detail["old_head"] == old_club["head"] and detail["new_head"] == after[-1][9]

    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "3 signed game(s), 7 valid signature(s)" in verified.stdout
    # a seal written down at the end of the hand, before the upgrade, is traced to the record
    for seal in old_club["seals"]["a"]:
        traced = gostop("verify", "--db", str(db), "--game", "a", "--seal", seal)
        assert traced.returncode == 0, traced.stderr
        assert "before the names of its first event were sealed" in traced.stdout
        assert "the first event is the one it covered but for its names" in traced.stdout
    assert gostop("verify", "--db", str(db), "--game", "a", "--seal", "0000-0000-00").returncode

    forgot = gostop("people", "forget", zelda, "--db", str(db))
    assert forgot.returncode == 0, forgot.stderr
    _checkpointed(db)
    assert _found(db, NAME) == []
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    traced = gostop("verify", "--db", str(db), "--game", "a", "--seal", old_club["seals"]["a"][0])
    assert traced.returncode == 0 and "can no longer be opened" in traced.stdout
    again = gostop("people", "upgrade", "--db", str(db))  # nothing left it can do
    assert "0 game(s) re-chained" in again.stdout and _rows(db, "b") == before["b"]


def _stake(payload: dict[str, Any]) -> None:
    payload["stake"] = 100


def _nothing(payload: dict[str, Any]) -> None:
    pass


@pytest.mark.parametrize(
    ("seq", "change", "by", "found"),
    [
        (1, _stake, None, "the first event with its names opened is not the one"),
        (21, _nothing, "forger", "not those the old chain hashed"),
    ],
)
def test_a_game_changed_after_the_upgrade_is_named_by_verify(
    old_club: dict[str, Any], seq: int, change: Any, by: str | None, found: str
) -> None:
    """Whoever holds the file can change an event and make every hash after it again, and
    the heads chain too; the upgrade's record then no longer leads back to the old chain
    (an event after the first), or the first event with its names opened is not the old
    one (while the keys are held)."""
    db = old_club["db"]
    assert gostop("people", "upgrade", "--db", str(db)).returncode == 1
    with Store(db) as s:
        prev, rows = L.GENESIS, []
        stored = s.conn.execute("SELECT * FROM events WHERE game_id = 'a' ORDER BY seq")
        for r in stored.fetchall():
            payload = json.loads(r[8])
            if r[1] == seq:
                change(payload)
            row = (*r[:6], by if r[1] == seq and by else r[6], r[7], json.dumps(payload), "")
            digest = L.compute_hash(prev, row_to_envelope(row, prev))
            rows.append((*row[:9], digest))
            prev = digest
        s.conn.execute("DELETE FROM events WHERE game_id = 'a'")
        s.conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        prev = L.GENESIS
        for row in s.conn.execute(f"SELECT {H.ENTRY_SELECT} FROM heads ORDER BY entry").fetchall():
            fields = (*row[:4], rows[-1][9] if row[1] == KIND else row[4], *row[5:7])
            digest = H.entry_digest(prev, fields)
            s.conn.execute(
                "UPDATE heads SET head = ?, prev = ?, hash = ? WHERE entry = ?",
                [fields[4], prev, digest, row[0]],
            )
            prev = digest
    verified = gostop("db", "verify", "--db", str(db))
    assert verified.returncode != 0
    assert found in verified.stdout + verified.stderr


def test_games_upgraded_a_batch_at_a_time_share_a_persons_key(
    old_club: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ben sits in two games that can be upgraded, planned and written in batches of one
    game: one key is made for him, both games show his name, and the store verifies."""
    db = old_club["db"]
    with Store(db, read_only=True) as s:
        ben = s.events("a")[0].event.players[1].id
    log = tmp_path / "d.jsonl"
    done = gostop(
        "record", "--log", str(log), "--players", f"Dee,Ben={ben}", "--ruleset", "matgo",
        "--game-id", "d", "--script", str(tmp_path / "hand.txt"),
        "--key", str(server_key_path(db)),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    monkeypatch.setattr(reseal, "_BATCH", 1)
    with Store(db) as s:
        assert s.import_paths([log]).ok
        result = reseal.upgrade(s, read_key_file(server_key_path(db)))
        assert [d.game_id for d in result.resealed] == ["a", "d"]
        assert [r.game_id for r in result.refused] == ["b", "c"]
        keys = s.conn.execute("SELECT count(*) FROM person_keys WHERE person_id = ?", [ben])
        assert keys.fetchall() == [(1,)]
        for gid in ("a", "d"):
            assert s.events(gid)[0].event.players[1].name == "Ben"
        names = s.conn.execute("SELECT player_names FROM games WHERE game_id = 'd'").fetchall()
        assert names == [(["Dee", "Ben"],)]
        report = s.verify()
        assert report.ok, report.problems()
