"""Seals, signed checkpoints and countersignatures: each tampering a file holder can do is
found, with a message that says what and where."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import msgspec
import pytest
from gostop_cli.app import app
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from record_helpers import sim_payloads
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import GostopError
from gostop_records.integrity import checkpoints as CP
from gostop_records.integrity.seals import SealError, check_seal, parse_seal, seal_of, seal_text
from gostop_records.integrity.signing import (
    KeyFileError,
    SigningKey,
    game_key,
    read_key_file,
    write_key_file,
)
from gostop_records.projector import project
from gostop_records.recorder import JsonlSink, RecordingSession
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.validate import validate_envelopes, validate_files

runner = CliRunner()


def _record(
    path: Path, signer: SigningKey | None, hands: int = 2, seed: int = 3
) -> RecordingSession:
    """A matgo game of ``hands`` hands recorded from a simulation, payments included."""
    rec = RecordingSession.start(
        JsonlSink(path), ["Ann", "Ben"], "matgo", game_id="g1", signer=signer
    )
    for ev in sim_payloads("matgo", 2, seed, hands=hands):
        if not E.is_input(ev) or type(ev) is E.GameStarted:
            continue
        if type(ev) is E.HandStarted:
            rec.start_hand(ev.dealer)
        else:
            rec.record(ev)
    rec.close()
    return rec


@pytest.fixture(scope="module")
def recorder_key() -> SigningKey:
    return SigningKey.generate("Ann's phone")


@pytest.fixture
def signed(tmp_path: Path, recorder_key: SigningKey) -> tuple[list[E.Envelope], RecordingSession]:
    rec = _record(tmp_path / "g.jsonl", recorder_key)
    return list(L.read_log(tmp_path / "g.jsonl")), rec


def _rechained(envs: list[E.Envelope], k: int, **change: Any) -> list[E.Envelope]:
    """The forger's edit: envelope ``k`` (0-based) changed, every hash after it recomputed."""
    out = [msgspec.structs.replace(e) for e in envs]
    out[k] = msgspec.structs.replace(envs[k], **change)
    prev = out[k - 1].hash if k else L.GENESIS
    return out[:k] + L.seal(out[k:], prev=prev)


def _first(envs: list[E.Envelope], t: type) -> int:
    return next(i for i, e in enumerate(envs) if type(e.event) is t)


def _rules(envs: list[E.Envelope]) -> list[str]:
    return [p.rule for p in CP.check(envs).problems]


# --- an honest record -----------------------------------------------------------------------


def test_a_signing_recorder_signs_every_hand_end_and_payment(
    signed: tuple[list[E.Envelope], RecordingSession], recorder_key: SigningKey
) -> None:
    envs, rec = signed
    assert L.verify(envs).ok
    report = CP.check(envs)
    assert report.ok, report.problems
    types = [e.type for e in envs]
    assert types[1] == "key_added" and types.count("checkpoint_signed") == 4
    # each hand's end is followed at once by a checkpoint, and again after its payment
    for k, t in enumerate(types):
        if t == "hand_ended":
            nxt = types[k + 1 :]
            assert nxt[: nxt.index("checkpoint_signed")].count("payment_due") == len(
                nxt[: nxt.index("checkpoint_signed")]
            )
    assert report.vouched_until == envs[-2].seq
    assert report.who_signed() == [
        f"recorder key {recorder_key.fingerprint} (Ann's phone) signed hands 1, 2 "
        f"(up to seq {envs[-2].seq})"
    ]
    # the seals printed are the checkpoints' heads, the last one the record's head
    assert [s.seq for s in rec.seals] == [
        e.seq for e in envs if type(e.event) is E.CheckpointSigned
    ]
    assert rec.seals[-1] == seal_of(envs)


def test_checkpoints_change_no_rule_score_or_payment(tmp_path: Path) -> None:
    a = _record(tmp_path / "a.jsonl", SigningKey.generate())
    b = _record(tmp_path / "b.jsonl", None)
    ga = project(list(L.read_log(tmp_path / "a.jsonl"))).game
    gb = project(list(L.read_log(tmp_path / "b.jsonl"))).game
    assert ga is not None and gb is not None
    assert ga.ledger() == gb.ledger() and ga.recorded_ledger() == gb.recorded_ledger()
    assert [(r.hand, r.outcome, r.winner, r.dues) for r in ga.results] == [
        (r.hand, r.outcome, r.winner, r.dues) for r in gb.results
    ]
    assert not any(E.is_metadata(e.event) for e in L.read_log(tmp_path / "b.jsonl"))
    assert len(b.seals) == len(a.seals) == 4  # unsigned, the seals are still printed


def test_a_countersignature_verifies_and_names_the_player(
    signed: tuple[list[E.Envelope], RecordingSession], tmp_path: Path
) -> None:
    ben = SigningKey.generate("Ben's phone")
    with RecordingSession.resume(JsonlSink(tmp_path / "g.jsonl"), "g1") as rec:
        env = rec.countersign(1, ben)
    envs = list(L.read_log(tmp_path / "g.jsonl"))
    report = CP.check(envs)
    assert report.ok and env.event.key == ben.public.text  # type: ignore[union-attr]
    assert f"seat 1 (Ben) with key {ben.fingerprint} countersigned hand 2" in report.who_signed()
    # a phone's countersignature made elsewhere is checked before it is recorded
    cp = envs[-2].event
    assert type(cp) is E.CheckpointSigned
    made = CP.countersign("g1", 0, cp.head_seq, cp.head, ben)
    assert CP.countersignature("g1", 0, cp.head_seq, cp.head, made.key, made.signature) == made
    with pytest.raises(GostopError, match="does not verify"):
        CP.countersignature("g1", 1, cp.head_seq, cp.head, made.key, made.signature)


# --- tampering ------------------------------------------------------------------------------


def test_a_tail_cut_after_a_seal_is_found_by_the_seal(
    signed: tuple[list[E.Envelope], RecordingSession],
) -> None:
    envs, rec = signed
    sheet = rec.seals[-1]  # written on the score sheet at the end of hand 2
    cut = envs[: rec.seals[1].seq]  # the second hand removed: ends at hand 1's last checkpoint
    assert L.verify(cut).ok and CP.check(cut).ok  # the file alone cannot tell
    with_seq = check_seal(cut, parse_seal(sheet.text, sheet.seq), CP.check(cut).vouched_until)
    assert not with_seq.holds
    assert f"the record ends at seq {cut[-1].seq}" in with_seq.text
    assert f"events {cut[-1].seq + 1}..{sheet.seq} are missing (cut)" in with_seq.text
    plain = check_seal(cut, parse_seal(sheet.text))
    assert not plain.holds and "none of its" in plain.text
    # cut between a hand's end and its checkpoint: the file itself shows it
    ended = next(e.seq for e in envs if type(e.event) is E.HandEnded and e.hand == 2)
    report = CP.check(envs[:ended])
    assert [p.rule for p in report.problems] == ["checkpoint_missing"]
    assert "hand 2 ended at seq" in str(report.problems[0])
    assert "the record was cut after that hand's end" in str(report.problems[0])


def test_a_payment_changed_and_resealed(signed: tuple[list[E.Envelope], RecordingSession]) -> None:
    envs, rec = signed
    k = _first(envs, E.PaymentRecorded)
    ev = envs[k].event
    assert type(ev) is E.PaymentRecorded
    forged = _rechained(envs, k, event=msgspec.structs.replace(ev, chips=ev.chips // 2))
    assert L.verify(forged).ok  # the hash chain is no help against the file's holder
    report = validate_envelopes(forged, file="forged.jsonl")
    rules = [f.rule for f in report.errors]
    assert not report.valid and "checkpoint_head" in rules
    bad = next(f for f in report.errors if f.rule == "checkpoint_head")
    assert "were changed and re-hashed after they were signed" in bad.reason
    # the seal written down after that hand no longer holds
    sheet = rec.seals[1]
    result = check_seal(forged, parse_seal(sheet.text, sheet.seq))
    assert not result.holds and f"its event at seq {sheet.seq}" in result.text
    # a forger re-signing with a key of their own must replace the recorder's key
    mine = SigningKey.generate("forger")
    resigned = [forged[0], *_resign(forged[1:], mine)]
    assert CP.check(resigned).ok
    assert CP.check(resigned).keys[0][1] != CP.check(envs).keys[0][1]
    assert not check_seal(resigned, parse_seal(sheet.text)).holds


def _resign(envs: list[E.Envelope], key: SigningKey) -> list[E.Envelope]:
    """Every key and checkpoint replaced by the forger's, the chain recomputed."""
    out: list[E.Envelope] = []
    prev = envs[0].prev
    for env in envs:
        ev = env.event
        if type(ev) is E.KeyAdded:
            ev = CP.key_added(key)
        elif type(ev) is E.CheckpointSigned:
            ev = CP.checkpoint(env.game_id, out[-1], key)
        new = L.seal([msgspec.structs.replace(env, event=ev)], prev=prev)[0]
        out.append(new)
        prev = new.hash
    return out


def test_a_bad_signature(signed: tuple[list[E.Envelope], RecordingSession]) -> None:
    envs, _ = signed
    k = len(envs) - 1  # the last checkpoint
    ev = envs[k].event
    assert type(ev) is E.CheckpointSigned
    sig = ("B" if ev.signature[0] != "B" else "C") + ev.signature[1:]
    forged = _rechained(envs, k, event=msgspec.structs.replace(ev, signature=sig))
    problems = CP.check(forged).problems
    assert [p.rule for p in problems] == ["checkpoint_signature"]
    assert problems[0].seq == envs[k].seq
    assert "does not verify with recorder key" in problems[0].reason
    assert "the checkpoint was changed or forged" in problems[0].reason
    # a checkpoint by a key the record never declared
    other = SigningKey.generate()
    forged = _rechained(envs, k, event=CP.checkpoint("g1", envs[k - 1], other))
    assert _rules(forged) == ["checkpoint_key"]
    # the first checkpoint changed: it and every later checkpoint are named
    j = _first(envs, E.CheckpointSigned)
    ev = envs[j].event
    assert type(ev) is E.CheckpointSigned
    forged = _rechained(envs, j, event=msgspec.structs.replace(ev, head_seq=ev.head_seq - 1))
    rules = _rules(forged)
    assert rules[:2] == ["checkpoint_head", "checkpoint_signature"]  # its own, then its head
    assert set(rules[2:]) == {"checkpoint_head"} and len(rules) == 5
    # the checkpoints of hand 2 removed, the seqs and the chain made good again
    h2 = [e for e in envs if not (type(e.event) is E.CheckpointSigned and e.hand == 2)]
    gone = L.seal([msgspec.structs.replace(e, seq=i) for i, e in enumerate(h2, 1)])
    assert L.verify(gone).ok
    problems = CP.check(gone).problems
    assert [p.rule for p in problems] == ["checkpoint_missing", "checkpoint_missing"]
    assert "hand 2 ended at seq" in problems[0].reason
    assert "the payments of hand 2 were all recorded by seq" in problems[1].reason
    # the tail cut after the hand end's checkpoint: its payments lost their checkpoint
    cut = envs[:-1]
    assert type(envs[-1].event) is E.CheckpointSigned
    problems = CP.check(cut).problems
    assert [p.rule for p in problems] == ["checkpoint_missing"]
    assert problems[0].seq == cut[-1].seq and "cut after them" in problems[0].reason


def test_a_countersignature_by_a_wrong_key(
    signed: tuple[list[E.Envelope], RecordingSession], tmp_path: Path
) -> None:
    ben, other = SigningKey.generate("Ben"), SigningKey.generate("someone")
    envs, _ = signed
    cps = [e for e in envs if type(e.event) is E.CheckpointSigned]
    first, last = cps[1].event, cps[-1].event
    assert type(first) is E.CheckpointSigned and type(last) is E.CheckpointSigned
    # signed by one key, carrying another's public key
    made = CP.countersign("g1", 1, last.head_seq, last.head, ben)
    swapped = msgspec.structs.replace(made, key=other.public.text)
    forged = L.seal([*envs, L.envelope("g1", envs[-1].seq + 1, 2, swapped, by="x")], prev=L.GENESIS)
    problems = CP.check(forged).problems
    assert [p.rule for p in problems] == ["countersignature_signature"]
    assert "the countersignature of seat 1 (Ben) does not verify with the key it carries" in (
        problems[0].reason
    )
    # Ben countersigned hand 1 with his key; "Ben" countersigns hand 2 with another
    n = envs[-1].seq
    honest = CP.countersign("g1", 1, first.head_seq, first.head, ben)
    impostor = CP.countersign("g1", 1, last.head_seq, last.head, other)
    forged = L.seal(
        [
            *envs,
            L.envelope("g1", n + 1, 2, honest, by="x"),
            L.envelope("g1", n + 2, 2, impostor, by="x"),
        ]
    )
    problems = CP.check(forged).problems
    assert [p.rule for p in problems] == ["countersignature_key"]
    assert f"countersigned at seq {n + 1} with key {ben.fingerprint}: a wrong key" in (
        problems[0].reason
    )


def test_validate_and_audit_report_signature_problems(
    signed: tuple[list[E.Envelope], RecordingSession], tmp_path: Path
) -> None:
    envs, _ = signed
    k = _first(envs, E.PaymentRecorded)
    ev = envs[k].event
    assert type(ev) is E.PaymentRecorded
    forged = _rechained(envs, k, event=msgspec.structs.replace(ev, chips=ev.chips + 100))
    path = tmp_path / "forged.jsonl"
    L.write_log(path, forged)
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1
    assert "[rule: checkpoint_head]" in res.stdout and "INVALID" in res.stdout
    res = runner.invoke(app, ["audit", str(path)])
    assert res.exit_code == 1
    assert "signatures  ✗" in res.stdout and "re-hashed after they were signed" in res.stdout
    assert "its signatures" in res.stderr
    report = validate_files([tmp_path / "g.jsonl"])
    assert report.valid and len(report.signed) == 1


# --- seals ---------------------------------------------------------------------------------


def test_seal_text_and_reading() -> None:
    head = "ab" * 32
    text = seal_text(head)
    assert len(text) == 12 and text.count("-") == 2
    q = parse_seal(text.lower().replace("-", " "))
    assert q.matches(head) and not q.matches("cd" * 32)
    assert parse_seal(text.replace("0", "o").replace("1", "l")).prefix == q.prefix
    assert parse_seal(head).head == head
    with pytest.raises(SealError, match="'U' is not a seal character"):
        parse_seal("K7Q2-M9XA-3U")
    with pytest.raises(SealError, match="has 9 characters; a seal has 10"):
        parse_seal("K7Q2-M9XA-3")
    q = parse_seal(f"gostop-seal:g1:42:{head}")
    assert (q.game_id, q.seq, q.head) == ("g1", 42, head)


_HONEST = [e for g in simulate(PRESETS["matgo"], 2, 1, 2, 7) for e in g]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_seal_holds_for_honest_continuations_and_fails_after_any_edit(data: Any) -> None:
    envs = _HONEST
    n = data.draw(st.integers(1, len(envs)), label="sealed at seq")
    sealed = seal_of(envs[:n])
    longer = data.draw(st.integers(n, len(envs)), label="continued to seq")
    for given_seq in (None, n):
        result = check_seal(envs[:longer], parse_seal(sealed.text, given_seq))
        assert result.holds and result.seq == n and result.following == longer - n
    k = data.draw(st.integers(0, n - 1), label="edited event (0-based)")
    stamp = data.draw(st.sampled_from(["2001-01-01T00:00:00.000Z", "2099-12-31T23:59:59.999Z"]))
    edited = _rechained(envs[:longer], k, recorded_at=stamp)
    if edited[k].recorded_at == envs[k].recorded_at:
        edited = _rechained(envs[:longer], k, by=envs[k].by + "!")
    for given_seq in (None, n):
        assert not check_seal(edited, parse_seal(sealed.text, given_seq)).holds
        assert not check_seal(edited, parse_seal(sealed.head, given_seq)).holds


def test_gostop_seal_and_verify(
    signed: tuple[list[E.Envelope], RecordingSession], tmp_path: Path
) -> None:
    envs, rec = signed
    log = str(tmp_path / "g.jsonl")
    res = runner.invoke(app, ["seal", log, "--no-qr"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith(
        f"seal {rec.seals[-1].text}  (game g1, hand 2, seq {envs[-1].seq})"
    )
    assert "4 valid checkpoint(s)" in res.stdout
    res = runner.invoke(app, ["seal", log, "--qr"])
    assert "█" in res.stdout
    sheet = rec.seals[1]
    res = runner.invoke(app, ["verify", log, "--seal", sheet.text])
    assert res.exit_code == 0, res.stderr
    assert f"the head at seq {sheet.seq} (hand 1)" in res.stdout
    assert f"{envs[-1].seq - sheet.seq} event(s) follow it" in res.stdout
    res = runner.invoke(app, ["verify", log, "--seal", sheet.uri])
    assert res.exit_code == 0
    res = runner.invoke(app, ["verify", log, "--seal", "0000-0000-00"])
    assert res.exit_code == 1 and "does not hold seal 0000-0000-00" in res.stderr
    res = runner.invoke(app, ["verify", log, "--seal", "K7Q2-M9XA-3U"])
    assert res.exit_code == 1 and "not a seal character" in res.stderr


# --- keys and the recorder ------------------------------------------------------------------


def test_key_files(tmp_path: Path) -> None:
    key = SigningKey.generate("Ann's phone")
    path = tmp_path / "sub" / "ann.key"
    write_key_file(path, key)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    back = read_key_file(path)
    assert back.fingerprint == key.fingerprint and back.holder == "Ann's phone"
    with pytest.raises(KeyFileError, match="never overwritten"):
        write_key_file(path, SigningKey.generate())
    (tmp_path / "bad.key").write_text("hello\n")
    with pytest.raises(KeyFileError, match="not a key file"):
        read_key_file(tmp_path / "bad.key")
    made, new = game_key("2026-05-01/x", "rec", tmp_path / "keys")
    again, new2 = game_key("2026-05-01/x", "rec", tmp_path / "keys")
    assert new and not new2 and again.fingerprint == made.fingerprint
    res = runner.invoke(app, ["keys", "new", "--out", str(tmp_path / "b.key"), "--holder", "Ben"])
    assert res.exit_code == 0 and "mode 0600" in res.stdout
    res = runner.invoke(app, ["keys", "show", str(tmp_path / "b.key")])
    assert res.exit_code == 0 and "holder      Ben" in res.stdout


def test_gostop_record_signs_with_a_key_file_or_not_at_all(tmp_path: Path) -> None:
    from record_helpers import script_for

    script = tmp_path / "hand.txt"
    script.write_text("\n".join(script_for(sim_payloads("matgo", 2, 3))) + "\n")
    key = SigningKey.generate("Ann")
    write_key_file(tmp_path / "ann.key", key)
    base = ["record", "--players", "Ann,Ben", "--script", str(script)]
    res = runner.invoke(
        app, [*base, "--log", str(tmp_path / "a.jsonl"), "--key", str(tmp_path / "ann.key")]
    )
    assert res.exit_code == 0, res.stderr
    assert f"signing each hand's end with key {key.fingerprint}" in res.stderr
    envs = list(L.read_log(tmp_path / "a.jsonl"))
    assert CP.check(envs).keys[0][1] == key.fingerprint
    assert f"seal {seal_of(envs).text}" in res.stdout
    res = runner.invoke(app, [*base, "--log", str(tmp_path / "b.jsonl"), "--no-sign"])
    assert res.exit_code == 0 and "signing" not in res.stderr
    assert not any(E.is_metadata(e.event) for e in L.read_log(tmp_path / "b.jsonl"))
    assert "seal " in res.stdout
    # without --key: a key made for the game in the key folder
    res = runner.invoke(app, [*base, "--log", str(tmp_path / "c.jsonl"), "--game-id", "c1"])
    assert res.exit_code == 0, res.stderr
    assert (Path(os.environ["GOSTOP_KEYS"]) / "c1.key").exists()
    assert "new key of this game" in res.stderr


def test_resume_after_a_crash_between_a_hand_end_and_its_checkpoint(
    tmp_path: Path, recorder_key: SigningKey
) -> None:
    path = tmp_path / "g.jsonl"
    _record(path, recorder_key, hands=1)
    lines = path.read_bytes().splitlines(keepends=True)
    envs = list(L.read_log(path))
    first_cp = _first(envs, E.CheckpointSigned)
    path.write_bytes(b"".join(lines[:first_cp]))  # the crash: the checkpoint never written
    assert "checkpoint_missing" in _rules(list(L.read_log(path)))
    with RecordingSession.resume(JsonlSink(path), "g1", signer=recorder_key):
        pass
    assert CP.check(list(L.read_log(path))).ok
