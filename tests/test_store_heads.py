"""The store's heads chain: a game deleted, replaced or cut short is found, and a rebuild
never hides it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.integrity import checkpoints as CP
from gostop_records.integrity.seals import parse_seal, seal_text
from gostop_records.integrity.signing import SigningKey
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store, schema
from gostop_records.store.codec import event_row
from gostop_records.store.heads import LossError, check_seal
from gostop_records.store.writer import insert_events

runner = CliRunner()


def _games(count: int = 3, seed: int = 41, hands: int = 2) -> list[list[E.Envelope]]:
    return list(simulate(PRESETS["matgo"], 2, count, hands, seed))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    st = Store(tmp_path / "s.duckdb")
    st.import_envelopes([e for g in _games() for e in g])
    yield st
    st.close()


def _problems(st: Store) -> list[str]:
    return st.verify().problems()


def test_every_write_is_an_entry_and_a_clean_store_verifies(store: Store) -> None:
    rows = store.conn.execute("SELECT entry, kind, game_id, seq FROM heads").fetchall()
    assert [r[1] for r in rows] == ["game_imported"] * 3 and [r[0] for r in rows] == [1, 2, 3]
    gid = rows[0][2]
    store.append(gid, [E.NoteAdded(text="a note")], rows[0][3])  # every append: an entry
    last = store.conn.execute("SELECT kind, game_id, seq FROM heads WHERE entry = 4").fetchone()
    assert last == ("appended", gid, rows[0][3] + 1)
    first = E.GameStarted(
        ruleset=PRESETS["matgo"].pinned(), players=[E.Player("a", "A"), E.Player("b", "B")]
    )
    store.append("new", [first], 0)
    last = store.conn.execute("SELECT kind, game_id, seq FROM heads WHERE entry = 5").fetchone()
    assert last == ("game_appended", "new", 1)
    assert store.verify().ok
    entry, tip = store.heads_tip()
    assert entry == 5 and check_seal(store.conn, parse_seal(seal_text(tip))).holds


def test_a_game_deleted_from_the_store(store: Store) -> None:
    gid = store.game_ids()[0]
    store.conn.execute("DELETE FROM events WHERE game_id = ?", [gid])
    problems = _problems(store)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"game {gid}: deleted from the store: the heads chain recorded")
    assert "the store holds none of its events" in problems[0]
    assert "gostop db rebuild" not in problems[0]


def test_a_whole_game_replaced(store: Store) -> None:
    gid = store.game_ids()[1]
    other = [msgspec.structs.replace(e, game_id=gid) for e in _games(1, seed=77)[0]]
    other = L.seal(other)
    store.conn.execute("DELETE FROM events WHERE game_id = ?", [gid])
    insert_events(store.conn, [event_row(e) for e in other])
    report = store.verify()
    assert not report.breaks  # the replacement is a valid chain of its own
    problems = report.problems()
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"game {gid}: replaced or changed: the heads chain recorded")
    assert (
        "no head the chain recorded for it is still held: the whole game was replaced"
        in (problems[0])
    )


def test_a_last_event_deleted_then_rebuild_attempted(store: Store, tmp_path: Path) -> None:
    gid = store.game_ids()[2]
    n = store.version(gid)
    store.conn.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", [gid, n])
    problems = _problems(store)
    assert (
        problems == [p for p in problems if p.startswith(f"game {gid}: seq {n} missing")]
        and len(problems) == 1
    )
    assert "run gostop db rebuild" not in problems[0]
    before = store.conn.execute("SELECT count(*) FROM hands").fetchone()
    with pytest.raises(LossError) as caught:
        store.rebuild()
    assert f"game {gid}: seq {n} missing" in str(caught.value)
    assert "gostop db rebuild --accept-loss" in str(caught.value)
    assert store.conn.execute("SELECT count(*) FROM hands").fetchone() == before
    path = store.path
    store.close()
    res = runner.invoke(app, ["db", "rebuild", "--db", str(path)])
    assert res.exit_code == 1 and "refusing to rebuild" in res.stderr
    res = runner.invoke(app, ["db", "verify", "--db", str(path)])
    assert res.exit_code == 1 and f"seq {n} missing" in res.stderr
    res = runner.invoke(app, ["db", "rebuild", "--db", str(path), "--accept-loss"])
    assert res.exit_code == 0, res.stderr
    assert f"loss accepted and recorded: game {gid}" in res.stderr
    with Store(path) as st:
        assert st.verify().ok
        kinds = [r[0] for r in st.conn.execute("SELECT kind FROM heads ORDER BY entry").fetchall()]
        assert kinds[-2:] == ["loss_accepted", "rebuild"]
        detail = st.conn.execute(
            "SELECT detail::JSON ->> 'had_events' FROM heads WHERE kind = 'loss_accepted'"
        ).fetchone()
        assert detail == (str(n),)


def test_the_heads_chain_itself_changed(store: Store) -> None:
    store.conn.execute("UPDATE heads SET seq = seq - 1 WHERE entry = 2")
    assert any("entry 2 (game_imported) was changed" in p for p in _problems(store))
    store.conn.execute("UPDATE heads SET seq = seq + 1 WHERE entry = 2")
    store.conn.execute("DELETE FROM heads WHERE entry = 2")
    problems = _problems(store)
    assert any("entry 2 is missing (removed?)" in p for p in problems), problems
    assert any("entry 3 does not follow the entry before it" in p for p in problems)


def test_a_version_2_store_begins_its_heads_chain(tmp_path: Path) -> None:
    path = tmp_path / "v2.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in _games(2) for e in g])
        st.conn.execute("DROP TABLE heads")
        st.conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION >= 8
        kinds = [r[0] for r in st.conn.execute("SELECT kind FROM heads ORDER BY entry").fetchall()]
        assert kinds == ["migrated", "migrated", "rebuild"]
        assert st.verify().ok
        gid = st.game_ids()[0]
        st.conn.execute("DELETE FROM events WHERE game_id = ?", [gid])
        assert any(p.startswith(f"game {gid}: deleted") for p in st.verify().problems())


def test_db_verify_checks_signatures_and_seal_reads_the_store(tmp_path: Path) -> None:
    key = SigningKey.generate("club laptop")
    envs = _games(1, seed=5, hands=1)[0]
    gid = envs[0].game_id
    # the recorder's key after game_started, then a checkpoint of the head at the end
    game = L.seal(
        [
            envs[0],
            L.envelope(gid, 2, None, CP.key_added(key), by="t", at=envs[0].at),
            *[msgspec.structs.replace(e, seq=e.seq + 1) for e in envs[1:]],
        ]
    )
    cp = CP.checkpoint(gid, game[-1], key)
    game += L.seal([L.envelope(gid, len(game) + 1, game[-1].hand, cp, by="t")], game[-1].hash)
    assert CP.check(game).ok
    db = tmp_path / "s.duckdb"
    with Store(db) as st:
        st.import_envelopes(game)
    res = runner.invoke(app, ["db", "verify", "--db", str(db)])
    assert res.exit_code == 0, res.stderr
    assert "1 signed game(s), 1 valid signature(s)" in res.stdout
    res = runner.invoke(app, ["seal", "--db", str(db)])
    assert res.exit_code == 0 and "store seal " in res.stdout
    store_seal = res.stdout.split("store seal ")[1].split()[0]
    res = runner.invoke(app, ["verify", "--db", str(db), "--seal", store_seal])
    assert res.exit_code == 0 and "holds seal" in res.stdout
    res = runner.invoke(
        app, ["verify", "--db", str(db), "--game", gid, "--seal", seal_text(game[-1].hash)]
    )
    assert res.exit_code == 0 and "it is the latest event" in res.stdout
    # a forged checkpoint imported into the store is named by db verify
    bad = msgspec.structs.replace(
        game[-1].event,
        signature=("A" if game[-1].event.signature[0] != "A" else "B")  # type: ignore[union-attr]
        + game[-1].event.signature[1:],  # type: ignore[union-attr]
    )
    forged = [
        *game[:-1],
        L.seal([msgspec.structs.replace(game[-1], event=bad)], prev=game[-2].hash)[0],
    ]
    forged = [msgspec.structs.replace(e, game_id="forged") for e in forged]
    forged = L.seal(forged)
    # an import refuses it whole, naming the file, the line and the seq
    path = tmp_path / "forged.jsonl"
    path.write_bytes(b"".join(L.encode_json(e) + b"\n" for e in forged))
    res = runner.invoke(app, ["db", "import", str(path), "--db", str(db)])
    assert res.exit_code == 1
    n = len(forged)
    assert f"{path}:{n}: game forged seq {n}: signature: " in res.stderr, res.stderr
    assert "re-hashed after they were signed" in res.stderr  # its id changed: re-hashed
    assert "none of the game is imported" in res.stderr
    with Store(db) as st:
        assert "forged" not in st.game_ids()
        report = st.import_envelopes(forged)
        assert not report.imported and report.rejected[0].rule == "checkpoint_head"
        # stored all the same by a program's append (no import), db verify names it
        st.append("forged", forged, 0)
        problems = st.verify().problems()
    assert any(p.startswith("game forged seq") and "does not verify" in p for p in problems)


def _live_game(st: Store, gid: str = "live", seed: int = 5) -> int:
    """A game appended live, one event per append, stopped in its second hand's plays."""
    game = _games(1, seed=seed)[0]
    ends = [i for i, e in enumerate(game) if type(e.event) is E.HandEnded]
    upto = ends[0] + 12
    for i, env in enumerate(game[:upto]):
        st.append(gid, [env.event], i)
    return upto


def test_a_cut_tail_of_plays_in_progress_is_found(store: Store) -> None:
    n = _live_game(store)
    assert store.verify().ok
    # the last play of the hand in progress (no hand end, no checkpoint after it) cut off
    store.conn.execute("DELETE FROM events WHERE game_id = 'live' AND seq = ?", [n])
    problems = _problems(store)
    assert problems == [p for p in problems if p.startswith(f"game live: seq {n} missing")]
    assert len(problems) == 1, problems


def test_events_added_behind_the_chain_are_found(store: Store) -> None:
    n = _live_game(store)
    head = store.events("live")[-1]
    forged = L.envelope("live", n + 1, head.hand, E.NoteAdded(text="forged"), by="x")
    forged = L.seal([forged], prev=head.hash)[0]
    insert_events(store.conn, [event_row(forged)])
    problems = _problems(store)
    assert any(
        p.startswith(f"game live: seq {n + 1} are not in the heads chain") for p in problems
    ), problems


def test_a_version_3_store_chains_the_appends_it_did_not(tmp_path: Path) -> None:
    path = tmp_path / "v3.duckdb"
    with Store(path) as st:
        st.import_envelopes([e for g in _games(1) for e in g])
        gid = st.game_ids()[0]
        n = st.version(gid)
        st.append(gid, [E.NoteAdded(text="after the end")], n)
        # version 3 wrote no entry for a plain append: the chain's tip goes
        st.conn.execute("DELETE FROM heads WHERE entry = (SELECT max(entry) FROM heads)")
        st.conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    with Store(path) as st:
        assert schema.file_version(st.conn) == schema.SCHEMA_VERSION
        last = st.conn.execute(
            "SELECT kind, game_id, seq FROM heads WHERE game_id IS NOT NULL"
            " ORDER BY entry DESC LIMIT 1"
        ).fetchone()
        assert last == ("migrated", gid, n + 1)
        assert st.verify().ok
