"""A payment made while nothing is due needs a note (``payment_note``): the engine refuses
one without, mid-hand or after the dues are answered, and says the rule; the recorder and
the service refuse it the same way; with a note, or answering a due at another amount, it
is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from record_helpers import script_for, sim_payloads
from service_helpers import auth, new_game, service_client

from gostop_records import events as E
from gostop_records.engine.game import PAYMENT_NOTE, apply_game
from gostop_records.errors import IllegalAction
from gostop_records.recorder import JsonlSink, RecordingSession

#: A matgo hand (seed 5) recorded with its hands hidden: deal, plays, Go, Stop, pay.
LINES = script_for(sim_payloads("matgo", 2, 5), hidden=True)


def _session(path: Path) -> RecordingSession:
    return RecordingSession.start(JsonlSink(path), ["Ann", "Ben"], "matgo", game_id="g1")


def test_the_engine_refuses_a_payment_with_nothing_due_and_no_note(tmp_path: Path) -> None:
    with _session(tmp_path / "g.jsonl") as s:
        for line in LINES[:3]:  # mid-hand: dealt, a play and a flip
            s.enter(line)
        g = s.game
        assert g.in_hand and not g.pending_dues()
        with pytest.raises(IllegalAction) as exc:
            apply_game(g, E.PaymentRecorded(payer=1, payee=0, chips=5))
        assert exc.value.rule == PAYMENT_NOTE == "payment_note"
        assert "nothing is due during hand 1" in exc.value.reason
        assert "from seat 1 to seat 0" in exc.value.reason
        assert "needs a note" in exc.value.reason
        # with a note saying why, it is the table's record
        noted = E.PaymentRecorded(payer=1, payee=0, chips=5, note="a side bet on the flip")
        after, _ = apply_game(g, noted)
        assert after.payments[-1] == (1, 1, 0, 5)


def test_the_recorder_refuses_it_and_names_the_players(tmp_path: Path) -> None:
    with _session(tmp_path / "g.jsonl") as s:
        for line in LINES[:3]:
            s.enter(line)
        before = s.last_seq
        with pytest.raises(IllegalAction) as exc:
            s.enter("pay 1->0 5")
        assert exc.value.rule == "payment_note"
        assert "a payment from Ben to Ann needs a note" in str(exc.value.reason)
        assert s.last_seq == before, "nothing is written"
        s.enter("pay 1->0 5 a side bet")
        assert s.last_seq == before + 1


def test_after_the_dues_a_second_payment_needs_a_note_a_differing_one_does_not(
    tmp_path: Path,
) -> None:
    due = LINES[-1].split()
    assert due[0] == "pay"
    with _session(tmp_path / "g.jsonl") as s:
        for line in LINES[:-1]:
            s.enter(line)
        # a due answered at another amount is recorded (the audit compares it)
        s.enter(f"pay {due[1]} {int(due[2]) - 1}")
        assert not s.game.pending_dues()
        with pytest.raises(IllegalAction) as exc:
            s.enter(f"pay {due[1]} 1")
        assert exc.value.rule == "payment_note"


def test_the_service_refuses_it_with_the_rule(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client)
        gid, token = g["game_id"], g["recorder_token"]
        for line in LINES[:3]:
            v = client.get(f"/api/games/{gid}/now").json()["version"]
            r = client.post(
                f"/api/games/{gid}/entries",
                json={"entry": line, "expected_version": v},
                headers=auth(token),
            )
            assert r.status_code == 201, r.text
        v = client.get(f"/api/games/{gid}/now").json()["version"]
        r = client.post(
            f"/api/games/{gid}/entries",
            json={"entry": "pay 1->0 5", "expected_version": v},
            headers=auth(token),
        )
        assert r.status_code == 422, r.text
        assert r.json()["rule"] == "payment_note"
        assert "needs a note" in r.json()["reason"]
