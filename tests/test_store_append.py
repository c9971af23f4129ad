"""Live appends: durable, validated, sealed, kept apart by expected versions."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import msgspec
import pytest
from store_support import ROOT, one_game

from gostop_records import events as E
from gostop_records import log
from gostop_records.errors import GostopError, LogError, ProjectionError
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads
from gostop_records.store import ConcurrencyError, Store

SPEC = GameSpec(PRESETS["gostop3"], 3, 2, 5)
GID = SPEC.id()


def payloads() -> list[E.Event]:
    return [p for _, p in play_payloads(SPEC)]


def test_append_payloads_one_by_one_seals_and_projects(tmp_path: Path) -> None:
    pl = payloads()
    with Store(tmp_path / "s.duckdb") as st:
        version = 0
        for p in pl:
            result = st.append(GID, [p], version, by="recorder")
            assert result.version == version + 1
            version = result.version
        stored = st.events(GID)
        assert [e.event for e in stored] == pl
        assert log.verify(stored).ok
        assert all(e.by == "recorder" for e in stored)
        # the projections kept in step event by event equal a fresh rebuild
        report = st.verify()
        assert report.ok, report.problems()
        hands = st.conn.execute(
            "SELECT hand, outcome FROM hands WHERE game_id = ? ORDER BY hand", [GID]
        ).fetchall()
        ended = [e.event for e in stored if type(e.event) is E.HandEnded]
        assert hands == [(k + 1, ev.outcome) for k, ev in enumerate(ended)]


def test_append_sealed_envelopes_checks_seq_and_chain(tmp_path: Path) -> None:
    game = one_game()
    with Store(tmp_path / "s.duckdb") as st:
        st.append(game[0].game_id, game[:10], 0)
        with pytest.raises(LogError, match="seq 12") as bad_seq:
            st.append(game[0].game_id, game[11:12], 10)
        assert bad_seq.value.seq == 12
        forged = msgspec.structs.replace(game[10], prev="f" * 64)
        with pytest.raises(LogError, match="prev"):
            st.append(game[0].game_id, [forged], 10)
        assert st.version(game[0].game_id) == 10
        st.append(game[0].game_id, game[10:], 10)
        assert [e.hash for e in st.events(game[0].game_id)] == [e.hash for e in game]


def test_strict_append_rejects_and_writes_nothing_lenient_keeps(tmp_path: Path) -> None:
    pl = payloads()
    k = next(i for i, p in enumerate(pl) if type(p) is E.CardPlayed)
    with Store(tmp_path / "s.duckdb") as st:
        st.append(GID, pl[:k], 0)
        played = pl[k]
        assert isinstance(played, E.CardPlayed)
        wrong = msgspec.structs.replace(played, seat=(played.seat + 1) % 3)
        with pytest.raises(ProjectionError) as exc:
            st.append(GID, [wrong], k)
        assert exc.value.seq == k + 1
        assert exc.value.rule == "turn_order"
        assert st.version(GID) == k
        assert st.conn.execute(
            "SELECT count(*) FROM turns WHERE game_id = ?", [GID]
        ).fetchall() == [(0,)]
        result = st.append(GID, [wrong], k, strict=False)
        assert [i.rule for i in result.issues] == ["turn_order"]
        assert st.conn.execute(
            "SELECT violations FROM games WHERE game_id = ?", [GID]
        ).fetchall() == [(1,)]
        assert st.verify().ok


def test_two_writers_with_the_same_expected_version(tmp_path: Path) -> None:
    pl = payloads()
    path = tmp_path / "s.duckdb"
    with Store(path) as a, Store(path) as b:
        a.append(GID, pl[:5], 0)
        seen_a, seen_b = a.version(GID), b.version(GID)
        assert seen_a == seen_b == 5
        a.append(GID, [pl[5]], seen_a)
        with pytest.raises(ConcurrencyError) as exc:
            b.append(GID, [pl[5]], seen_b)
        assert (exc.value.expected, exc.value.actual) == (5, 6)
        assert isinstance(exc.value, GostopError)
        # b re-reads and goes on from the version it now sees
        b.append(GID, [pl[6]], b.version(GID))
        assert a.version(GID) == 7
        assert a.verify().ok


def test_racing_threads_exactly_one_wins(tmp_path: Path) -> None:
    pl = payloads()
    path = tmp_path / "s.duckdb"
    stores = [Store(path), Store(path)]
    try:
        stores[0].append(GID, pl[:3], 0)
        for step in range(3, 8):
            version = stores[0].version(GID)
            barrier = threading.Barrier(2)
            outcome: list[str] = []

            def write(
                st: Store,
                step: int = step,
                version: int = version,
                barrier: threading.Barrier = barrier,
                outcome: list[str] = outcome,
            ) -> None:
                barrier.wait()
                try:
                    st.append(GID, [pl[step]], version)
                    outcome.append("ok")
                except ConcurrencyError:
                    outcome.append("conflict")

            threads = [threading.Thread(target=write, args=(st,)) for st in stores]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(outcome) == ["conflict", "ok"]
            assert stores[0].version(GID) == step + 1
        assert [e.event for e in stores[1].events(GID)] == pl[:8]
        assert stores[0].verify().ok
    finally:
        for st in stores:
            st.close()


def test_stale_version_from_another_process(tmp_path: Path) -> None:
    """Two processes one after the other: the second comes back with a stale version."""
    pl = payloads()
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        st.append(GID, pl[:4], 0)
        seen = st.version(GID)
    code = (
        "import sys\n"
        "from gostop_records.store import Store\n"
        "from gostop_records.rules import PRESETS\n"
        "from gostop_records.sim.selfplay import GameSpec, play_payloads\n"
        "pl = [p for _, p in play_payloads(GameSpec(PRESETS['gostop3'], 3, 2, 5))]\n"
        "with Store(sys.argv[1]) as st:\n"
        "    st.append(sys.argv[2], [pl[4]], 4)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path), GID],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    with Store(path) as st:
        with pytest.raises(ConcurrencyError, match="expected version 4"):
            st.append(GID, [pl[4]], seen)
        assert st.version(GID) == 5


def test_cache_is_rebuilt_when_another_store_wrote(tmp_path: Path) -> None:
    pl = payloads()
    path = tmp_path / "s.duckdb"
    with Store(path) as a, Store(path) as b:
        a.append(GID, pl[:20], 0)
        b.append(GID, pl[20:40], 20)  # a's cached projector is now stale
        a.append(GID, pl[40:], 40)
        assert [e.event for e in a.events(GID)] == pl
        assert a.verify().ok


def test_retraction_removes_the_entry_from_the_projections(tmp_path: Path) -> None:
    pl = payloads()
    # a played card with no consequence of its own (the flip comes next)
    k = next(
        i for i, p in enumerate(pl) if type(p) is E.CardPlayed and type(pl[i + 1]) is E.CardFlipped
    )
    path = tmp_path / "s.duckdb"
    with Store(path) as st:
        st.append(GID, pl[:k], 0)
        snapshot = "SELECT * FROM turns ORDER BY hand, turn"
        before = st.conn.execute(snapshot).fetchall()
        st.append(GID, [pl[k]], k)
        assert st.conn.execute(snapshot).fetchall() != before
        st.append(GID, [E.EntryRetracted(seq=k + 1, reason="typo")], k + 1)
        assert st.conn.execute(snapshot).fetchall() == before
        st.append(GID, pl[k:], k + 2)
        turns = st.conn.execute(
            "SELECT seat, played, flipped FROM turns WHERE game_id = ? ORDER BY hand, turn",
            [GID],
        ).fetchall()
        assert st.verify().ok
    with Store(tmp_path / "plain.duckdb") as plain:
        plain.append(GID, pl, 0)
        assert (
            turns
            == plain.conn.execute(
                "SELECT seat, played, flipped FROM turns WHERE game_id = ? ORDER BY hand, turn",
                [GID],
            ).fetchall()
        )


def test_a_game_must_start_with_game_started(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        with pytest.raises(ProjectionError, match="game_started"):
            st.append("g", [E.NoteAdded(text="hello")], 0)
        assert st.version("g") == 0
