"""The recording session: validation before writing, durability, undo, resume, sinks."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from record_helpers import sim_payloads

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import GostopError, IllegalAction, LogError
from gostop_records.projector import project
from gostop_records.recorder import (
    ChoiceRequired,
    JsonlSink,
    RecordingSession,
    StoreSink,
    card_code,
    make_players,
)

GAMES = [
    ("cardavia", 2, 5),
    ("gamerules", 2, 7),
    ("gamerules", 3, 2),
    ("matgo", 2, 3),
    ("gostop3", 3, 4),
]


def _payloads(envs: list[E.Envelope]) -> list[dict[str, Any]]:
    out = []
    for env in envs:
        d = E.payload_to_dict(env.event)
        if d["type"] == "hand_started":
            d["deck"] = None  # a live table does not know the shuffled deck
        if d["type"] == "game_started":
            d = {"type": "game_started", "stake": d["stake"]}
        out.append(d)
    return out


def _record_inputs(s: RecordingSession, payloads: list[Any], hidden: bool = False) -> None:
    n = s.game.table.players
    for ev in payloads:
        if not E.is_input(ev) or type(ev) is E.GameStarted:
            continue
        if type(ev) is E.HandStarted:
            s.start_hand(ev.dealer)
            continue
        if hidden and type(ev) is E.CardsDealt:
            ev = E.CardsDealt(hands=[None] * n, layout=ev.layout, bonus_to_pile=ev.bonus_to_pile)
        s.record(ev)


def _start(path: Path, preset: str = "matgo", n: int = 2, gid: str = "g1") -> RecordingSession:
    names = ["Ann", "Ben", "Cho"][:n]
    return RecordingSession.start(JsonlSink(path), names, preset, game_id=gid)


def _lines(path: Path) -> int:
    return len(path.read_bytes().splitlines())


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES)
def test_recorded_inputs_give_the_simulated_log(
    tmp_path: Path, preset: str, players: int, seed: int
) -> None:
    sim = sim_payloads(preset, players, seed, hands=2)
    path = tmp_path / "g.jsonl"
    with _start(path, preset, players) as s:
        _record_inputs(s, sim)
    envs = list(L.read_log(path))
    assert L.verify(envs).ok
    assert project(envs).ok
    want = [E.payload_to_dict(p) for p in sim]
    for d in want:
        if d["type"] == "hand_started":
            d["deck"] = None
    got = _payloads(envs)
    assert got[1:] == want[1:]
    assert envs[0].event.ruleset["name"] == preset
    assert [p.name for p in envs[0].event.players] == ["Ann", "Ben", "Cho"][:players]


@pytest.mark.parametrize(("preset", "players", "seed"), GAMES)
def test_hidden_hands_and_stock_record_strictly(
    tmp_path: Path, preset: str, players: int, seed: int
) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path, preset, players) as s:
        _record_inputs(s, sim_payloads(preset, players, seed, hands=2), hidden=True)
        h = s.hand
        assert h is not None and h.phase.name == "ENDED"
    result = project(list(L.read_log(path)))
    assert result.ok and result.game is not None
    assert result.game.results[-1].outcome == h.outcome


def test_every_event_is_synced_when_the_call_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.jsonl"
    sim = sim_payloads("matgo", 2, 3)
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        synced.append(_lines(path))

    monkeypatch.setattr(os, "fsync", fsync)
    with _start(path) as s:
        assert synced == [1]
        assert _lines(path) == 1
        s.start_hand(0)
        entries = [s.record(sim[2])]
        entries.append(s.play(sim[3].card))
        # one sync per event, each after its line is complete
        assert synced == list(range(1, s.last_seq + 1))
        assert _lines(path) == s.last_seq
        assert [env.seq for env in L.read_log(path)] == list(range(1, s.last_seq + 1))


def test_a_refused_entry_writes_nothing_and_the_session_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    sim = sim_payloads("matgo", 2, 3)
    with _start(path) as s:
        s.start_hand(0)
        s.record(sim[2])  # the deal
        size, seq = path.stat().st_size, s.last_seq
        with pytest.raises(IllegalAction) as info:
            s.play("12G")  # on the layout? in the other hand? not in seat 0's hand
        assert info.value.rule == "card_in_hand"
        assert "does not hold 12G" in str(info.value)
        with pytest.raises(IllegalAction) as info:
            s.flip("01G")
        assert info.value.rule == "turn_order"
        with pytest.raises(IllegalAction):
            s.go()
        with pytest.raises(GostopError):
            s.play("13X")
        assert path.stat().st_size == size and s.last_seq == seq
        entry = s.play(sim[3].card)
        assert entry.input.seq == seq + 1
    assert project(list(L.read_log(path))).ok


def test_choice_required_names_the_candidates(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        s.deal(
            ["01G", "01J1", "02A", "03G", "04A", "05A", "06A", "07A"],
            hands=[["01R", "02R", "03R", "04R", "05R", "06R", "07R", "09R", "10R", "12R"], None],
        )
        assert s.candidates("01r") == ["01G", "01J1"]
        assert s.candidates("02R") == []
        size = path.stat().st_size
        with pytest.raises(ChoiceRequired) as info:
            s.play("01R")
        assert info.value.candidates == ("01G", "01J1")
        assert info.value.rule == "choice_required"
        assert path.stat().st_size == size
        entry = s.play("01r", "01j1")
        assert entry.input.event == E.CardPlayed(seat=0, card="01R", chosen="01J1")


def test_deal_starts_the_hand_and_checks_both_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        with pytest.raises(IllegalAction) as info:
            s.deal(["01G", "01J1", "02A"])  # a matgo layout has 8 cards
        assert info.value.rule == "deal_shape"
        assert s.last_seq == 1 and _lines(path) == 1
        entries = s.deal(["01G", "01J1", "02A", "03G", "04A", "05A", "06A", "07A"], dealer=1)
        assert [E.event_type(e.input.event) for e in entries] == ["hand_started", "cards_dealt"]
        assert entries[0].input.event.dealer == 1
        w = s.waiting()
        assert (w.kind, w.seat, w.hand) == ("play", 1, 1)


def test_undo_restores_the_state_and_is_an_event(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    sim = sim_payloads("matgo", 2, 3)
    with _start(path) as s:
        s.start_hand(0)
        s.record(sim[2])
        before = s.hand.to_dict()  # type: ignore[union-attr]
        played = s.play("01R")
        after_play = s.hand.to_dict()  # type: ignore[union-attr]
        assert after_play != before
        u = s.undo("typo")
        assert u.retracted == played.input
        assert u.input.event == E.EntryRetracted(seq=played.input.seq, reason="typo")
        assert s.hand.to_dict() == before  # type: ignore[union-attr]
        # the retracted entry stays in the log; the next one follows the retraction
        assert _lines(path) == u.input.seq
        again = s.play("B2")
        assert again.input.seq == u.input.seq + 1
        s.undo()
        s.undo()  # the deal
        s.undo()  # hand_started
        assert s.hand is None
        with pytest.raises(IllegalAction) as info:
            s.undo()
        assert info.value.rule == "retract_latest"
    envs = list(L.read_log(path))
    assert project(envs).ok
    assert sum(E.event_type(e.event) == "entry_retracted" for e in envs) == 4


def test_resume_continues_at_the_exact_point(tmp_path: Path) -> None:
    sim = sim_payloads("gostop3", 3, 4)
    inputs = [p for p in sim if E.is_input(p) and type(p) is not E.GameStarted]
    ref = tmp_path / "ref.jsonl"
    with _start(ref, "gostop3", 3) as s:
        _record_inputs(s, sim)
    cut = tmp_path / "cut.jsonl"
    with _start(cut, "gostop3", 3) as s:
        _record_inputs(s, [sim[0], *inputs[:15]])
        state = s.hand.to_dict()  # type: ignore[union-attr]
        seq = s.last_seq
    with RecordingSession.resume(JsonlSink(cut, create=False), "g1") as s:
        assert s.last_seq == seq and s.completed == []
        assert s.hand.to_dict() == state  # type: ignore[union-attr]
        _record_inputs(s, inputs[15:])
    assert _payloads(list(L.read_log(cut))) == _payloads(list(L.read_log(ref)))
    assert L.verify(list(L.read_log(cut))).ok


def test_resume_writes_the_consequences_a_crash_cut_off(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    ref = tmp_path / "ref.jsonl"
    with _start(ref) as s:
        _record_inputs(s, sim)
    envs = list(L.read_log(ref))
    # cut right after an input that has consequences, and tear the next line in half
    k = next(i for i, e in enumerate(envs) if E.event_type(e.event) == "cards_captured")
    lines = ref.read_bytes().splitlines(keepends=True)
    crashed = tmp_path / "crashed.jsonl"
    crashed.write_bytes(b"".join(lines[:k]) + lines[k][:40])
    sink = JsonlSink(crashed, create=False)
    assert sink.repaired == 40
    with RecordingSession.resume(sink, "g1") as s:
        assert E.event_type(s.completed[0].event) == "cards_captured"
        assert s.completed[0].seq == k + 1
        done = s.last_seq
        _record_inputs(s, [p for p in sim if E.is_input(p)][_inputs_before(envs, done) :])
    assert _payloads(list(L.read_log(crashed))) == _payloads(envs)


def _inputs_before(envs: list[E.Envelope], seq: int) -> int:
    """How many inputs (game_started included) the log holds up to ``seq``."""
    return sum(E.is_input(e.event) for e in envs if e.seq <= seq)


def test_resume_refuses_a_broken_chain(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        s.note("first")
        s.note("second")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b"first", b"fixed")
    path.write_bytes(b"".join(lines))
    with pytest.raises(LogError) as info, JsonlSink(path, create=False) as sink:
        RecordingSession.resume(sink, "g1")
    assert info.value.seq == 2 and "hash" in info.value.reason


def test_a_second_writer_is_locked_out(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path):
        with pytest.raises(LogError) as info:
            JsonlSink(path)
        assert "another recording" in str(info.value)
    JsonlSink(path).close()  # released on close


def test_a_game_id_is_not_reused_and_games_share_a_file(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _start(path, gid="a").close()
    with JsonlSink(path) as sink, pytest.raises(GostopError, match="already exists"):
        RecordingSession.start(sink, ["Ann", "Ben"], "matgo", game_id="a")
    with _start(path, gid="b") as s:
        s.note("b's note")
    with RecordingSession.resume(JsonlSink(path), "a") as s:
        s.note("a's note")
        assert s.last_seq == 2
    envs = list(L.read_log(path))
    assert [(e.game_id, e.seq) for e in envs] == [("a", 1), ("b", 1), ("b", 2), ("a", 2)]
    assert L.verify(list(L.read_log(path))).ok


def test_stale_expected_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        env = L.Chain(s.envelopes[-1].hash).seal(
            L.envelope("g1", 2, None, E.NoteAdded(text="x"), by="t")
        )
        with pytest.raises(LogError, match="stale expected version"):
            s.sink.append([env], 0)
        assert _lines(path) == 1


def test_payments_due_and_recorded(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        _record_inputs(s, [p for p in sim if type(p) is not E.PaymentRecorded])
        assert s.waiting().kind == "pay"
        want = [(d.payer, d.payee, d.chips) for d in sim if type(d) is E.PaymentDue]
        assert len(want) == 1 and want[0][:2] == (1, 0)
        due = s.pending_dues()
        assert [(d.payer, d.payee, d.chips) for d in due] == want
        proof = s.proof()
        assert proof is not None and proof.dues[0].chips == want[0][2]
        s.pay(1, 0, 10, "paid short")
        assert s.pending_dues() == []
        s.undo()
        entries = s.pay_due()
        assert [e.input.event.chips for e in entries] == [want[0][2]]
        assert s.waiting().kind == "deal" and s.waiting().hand == 2
        with pytest.raises(IllegalAction):
            s.pay_due()


def test_go_and_stop_carry_the_engine_facts(tmp_path: Path) -> None:
    sims = (sim_payloads("matgo", 2, seed) for seed in range(60))
    sim = next(p for p in sims if any(type(e) is E.GoCalled for e in p))
    path = tmp_path / "g.jsonl"
    with _start(path) as s:
        for ev in sim:
            if not E.is_input(ev) or type(ev) is E.GameStarted:
                continue
            if type(ev) is E.HandStarted:
                s.start_hand(ev.dealer)
            elif type(ev) is E.GoCalled:
                assert s.waiting().kind == "decide"
                assert s.go().input.event == ev
            elif type(ev) is E.StopCalled:
                assert s.stop().input.event == ev
            else:
                s.record(ev)
    assert project(list(L.read_log(path))).ok


def test_inputs_only() -> None:
    with pytest.raises(GostopError, match="two players have the name 'ann'"):
        make_players(["Ann", "ann"])
    # a bare name is a new person with a minted id; NAME=ID seats a known person
    ann, ben = make_players(["Ann Lee", "Ben=ben-7"])
    assert re.fullmatch(r"p_[0-9a-f]{12}", ann.id) and ann.name == "Ann Lee"
    assert ben == E.Player(id="ben-7", name="Ben")
    assert make_players(["Ann"])[0].id != make_players(["Ann"])[0].id  # two Anns: two persons
    with pytest.raises(GostopError, match="not a person id"):
        make_players(["Ann=no spaces"])
    with pytest.raises(GostopError, match="two players have the id 'ann'"):
        make_players(["Ann=ann", "Ann Lee=ann"])
    assert card_code("9a") == "09A" and card_code("11d") == "11D"


def test_derived_events_cannot_be_entered(tmp_path: Path) -> None:
    with _start(tmp_path / "g.jsonl") as s:
        for ev in (
            E.CardsCaptured(seat=0, cards=["01G"], source="hand", kind="pair"),
            E.EntryRetracted(seq=1),
        ):
            with pytest.raises(IllegalAction):
                s.record(ev)
        bad = msgspec.structs.replace(E.NoteAdded(text="x"), about_seq=0)
        with pytest.raises(IllegalAction):
            s.record(bad)
        assert s.last_seq == 1


def test_the_store_as_a_sink(tmp_path: Path) -> None:
    from gostop_records.store import ConcurrencyError, Store

    db = tmp_path / "g.duckdb"
    sim = sim_payloads("matgo", 2, 3)
    with RecordingSession.start(StoreSink(db), ["Ann", "Ben"], "matgo", game_id="g1") as s:
        _record_inputs(s, sim[:20])
        seq = s.last_seq
    with RecordingSession.resume(StoreSink(db, create=False), "g1") as s:
        assert s.last_seq == seq
        # a second writer of the same game (another session in this process) goes first
        other = RecordingSession.resume(StoreSink(db), "g1")
        other.note("from the other writer")
        with pytest.raises(ConcurrencyError):
            s.note("stale")
        other.close()
    with RecordingSession.resume(StoreSink(db), "g1") as s:
        _record_inputs(s, sim[20:])
    with Store(db, read_only=True) as store:
        envs = store.events("g1")
    assert L.verify(envs).ok and project(envs).ok
    assert [E.event_type(e.event) for e in envs].count("note_added") == 1
    with pytest.raises(GostopError, match="no store here"):
        StoreSink(tmp_path / "none.duckdb", create=False)


@pytest.mark.pure_python  # counts calls through the module, which compiled calls bypass
@pytest.mark.parametrize("sink_kind", ["store", "log"])
def test_one_pass_of_the_rules_per_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sink_kind: str
) -> None:
    """A live entry goes through the engine once, whatever the sink; a refused one writes
    nothing and leaves the session where it was."""
    import gostop_records.projector as projector_module
    from gostop_records.recorder import open_sink
    from gostop_records.store import Store

    calls: list[str] = []
    real = projector_module.apply_game

    def counted(game: Any, ev: Any, *args: Any) -> Any:
        calls.append(E.event_type(ev))
        return real(game, ev, *args)

    monkeypatch.setattr(projector_module, "apply_game", counted)
    where = {"db": tmp_path / "g.duckdb"} if sink_kind == "store" else {"log": tmp_path / "g.jsonl"}
    sim = sim_payloads("matgo", 2, 3)
    with RecordingSession.start(open_sink(**where), ["Ann", "Ben"], "matgo", game_id="g1") as s:
        _record_inputs(s, sim[:8])  # the store's first append reads the stored game once
        for p in sim[8:]:
            if not E.is_input(p):
                continue
            calls.clear()
            version = s.last_seq
            s.record(p)
            assert calls == [E.event_type(p)], calls
            after = s.last_seq
            with pytest.raises(IllegalAction):
                s.record(E.StopCalled(seat=s.actor or 0, score=99))  # nobody may stop now
            assert s.last_seq == after > version and s.sink.version("g1") == after
            break
        seq = s.last_seq
        assert s.sink.version("g1") == seq
    if sink_kind == "store":
        with Store(tmp_path / "g.duckdb", read_only=True) as store:
            envs = store.events("g1")
            rows = store.query("SELECT count(*) FROM hands WHERE game_id = 'g1'").rows
        assert len(envs) == seq and rows == [(1,)]
        assert project(envs).ok
