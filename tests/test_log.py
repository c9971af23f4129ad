"""The log layer: canonical bytes, the hash chain, JSONL and msgpack, errors, versions."""

from __future__ import annotations

import hashlib
import json
import re
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gostop_records import events, log
from gostop_records.errors import LogError
from gostop_records.events import CardPlayed, Envelope, NoteAdded, UnknownEvent

AT = "2024-05-01T19:02:11.000Z"
MakeGame = Callable[..., list[Envelope]]


def _reference_canonical(d: dict[str, Any]) -> bytes:
    """The documented rule, written with the standard library."""
    body = {k: v for k, v in d.items() if k not in ("prev", "hash")}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _reference_hash(prev: str, d: dict[str, Any]) -> str:
    return hashlib.sha256(prev.encode() + _reference_canonical(d)).hexdigest()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _sealed_line(prev: str, d: dict[str, Any]) -> tuple[str, str]:
    """A line as another producer would write it: any key order, hash by the rule."""
    h = _reference_hash(prev, d)
    return json.dumps({**d, "prev": prev, "hash": h}), h


# --- canonical bytes and the chain -------------------------------------------------------


def test_canonical_bytes_follow_the_documented_rule(sample_log: list[Envelope]) -> None:
    for env in sample_log:
        d = log.envelope_to_dict(env)
        assert log.canonical_bytes(env) == _reference_canonical(d)
        assert b'"prev"' not in log.canonical_bytes(env)[-200:]


def test_canonical_bytes_with_payload_keys_named_hash_and_prev() -> None:
    # The pinned ruleset holds a "hash" key; an unknown payload may hold both.
    ev = UnknownEvent("odd", {"type": "odd", "hash": "", "prev": "", "z": [1, {"b": 2, "a": 1}]})
    env = log.envelope("g", 1, None, ev, by="t", at=AT, recorded_at=AT)
    assert log.canonical_bytes(env) == _reference_canonical(log.envelope_to_dict(env))
    typed = log.envelope(
        "g", 1, None, NoteAdded(text='"hash":"","prev":"",'), by="t", at=AT, recorded_at=AT
    )
    assert log.canonical_bytes(typed) == _reference_canonical(log.envelope_to_dict(typed))


def test_canonical_bytes_keep_unicode() -> None:
    note = NoteAdded(text="고스톱 · 흔들기")
    env = log.envelope("g", 1, 1, note, by="탁자", at=AT, recorded_at=AT)
    assert log.canonical_bytes(env) == _reference_canonical(log.envelope_to_dict(env))
    assert "고스톱".encode() in log.canonical_bytes(env)


def test_hash_chain_rule(sample_log: list[Envelope]) -> None:
    prev = log.GENESIS
    assert prev == "0" * 64
    for env in sample_log:
        assert env.prev == prev
        assert env.hash == _reference_hash(prev, log.envelope_to_dict(env))
        assert env.hash == log.compute_hash(prev, env)
        prev = env.hash


@given(st.text(max_size=80), st.binary(max_size=5000))
def test_digest_after_is_sha256_of_prev_then_the_bytes(prev: str, data: bytes) -> None:
    """Every digest starts from a copy of one shared empty hash object, which no digest
    feeds: the same bytes give the same hex digest whatever was hashed before, long inputs
    included (hashlib hashes those without the interpreter lock)."""
    assert log.digest_after(prev, data) == hashlib.sha256(prev.encode() + data).hexdigest()
    assert log.digest_after("", b"") == hashlib.sha256(b"").hexdigest()


def test_chain_streams_like_seal(sample_log: list[Envelope]) -> None:
    chain = log.Chain()
    unsealed = [msgspec.structs.replace(e, prev="", hash="") for e in sample_log]
    assert [chain.seal(e) for e in unsealed] == sample_log
    assert chain.count == len(sample_log) and chain.prev == sample_log[-1].hash
    # Continuing an existing log from its last hash.
    resumed = log.Chain(sample_log[2].hash)
    assert [resumed(e) for e in unsealed[3:]] == sample_log[3:]


def test_seal_starts_each_game_at_genesis(make_game: MakeGame) -> None:
    a, b = make_game("a"), make_game("b")
    mixed = log.seal(msgspec.structs.replace(e, prev="", hash="") for e in [*a, *b])
    assert mixed == [*a, *b]
    assert mixed[len(a)].prev == log.GENESIS


def test_envelope_and_now() -> None:
    stamp = log.now()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp)
    env = log.envelope("g", 4, 2, CardPlayed(seat=1, card="03G"), by="table")
    assert env.v == events.EVENT_VERSIONS["card_played"]
    assert (env.game_id, env.seq, env.hand, env.by) == ("g", 4, 2, "table")
    assert env.at == env.recorded_at and re.fullmatch(r".*\.\d{3}Z", env.at)
    assert env.prev == env.hash == ""


# --- reading and writing ---------------------------------------------------------------------


def test_jsonl_round_trip(tmp_path: Path, sample_log: list[Envelope]) -> None:
    path = tmp_path / "game.jsonl"
    assert log.write_jsonl(path, sample_log) == len(sample_log)
    assert list(log.iter_jsonl(path)) == sample_log
    assert list(log.read_log(path)) == sample_log
    assert log.verify_file(path).ok
    # One compact envelope per line, UTF-8, fields in declaration order, type first.
    first = json.loads(_lines(path)[1])
    assert list(first) == [
        "game_id",
        "seq",
        "hand",
        "at",
        "recorded_at",
        "by",
        "v",
        "event",
        "prev",
        "hash",
    ]
    assert next(iter(first["event"])) == "type"


def test_jsonl_to_file_objects(tmp_path: Path, sample_log: list[Envelope]) -> None:
    text_path, bin_path = tmp_path / "t.jsonl", tmp_path / "b.jsonl"
    with open(text_path, "w", encoding="utf-8") as f:
        log.write_jsonl(f, sample_log)
    with open(bin_path, "wb") as fb:
        log.write_jsonl(fb, sample_log)
    assert text_path.read_bytes() == bin_path.read_bytes()


def test_msgpack_round_trip(tmp_path: Path, sample_log: list[Envelope]) -> None:
    path = tmp_path / "game.msgpack"
    assert log.write_log(path, sample_log) == len(sample_log)
    assert list(log.iter_msgpack(path)) == sample_log
    assert list(log.read_log(path)) == sample_log
    assert log.verify_file(path).ok
    assert log.verify(log.read_log(path)).ok
    # The same hashes in both formats, and the file is a valid msgpack stream.
    data = path.read_bytes()
    assert data[0] == 0xCE


def test_jsonl_and_msgpack_convert_both_ways(tmp_path: Path, sample_log: list[Envelope]) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.mpk", tmp_path / "c.ndjson"
    log.write_log(a, sample_log)
    log.write_log(b, log.read_log(a))
    log.write_log(c, log.read_log(b))
    assert a.read_bytes() == c.read_bytes()


def test_unknown_suffix(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"unknown log format '\.txt'"):
        log.read_log(tmp_path / "game.txt")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LogError, match=r"absent\.jsonl: cannot read"):
        list(log.iter_jsonl(tmp_path / "absent.jsonl"))


def test_blank_lines_crlf_and_bom(tmp_path: Path, sample_log: list[Envelope]) -> None:
    lines = [log.encode_json(e).decode() for e in sample_log]
    text = "\ufeff" + lines[0] + "\r\n\r\n   \n" + "\r\n".join(lines[1:]) + "\r\n\n"
    path = tmp_path / "win.jsonl"
    path.write_text(text, encoding="utf-8", newline="")
    assert list(log.iter_jsonl(path)) == sample_log
    assert log.verify_file(path).ok


def test_log_writer_appends_durably(tmp_path: Path, sample_log: list[Envelope]) -> None:
    path = tmp_path / "live.jsonl"
    half = len(sample_log) // 2
    with log.LogWriter(path, fsync=True) as w:
        for env in sample_log[:half]:
            w.write(env)
            # Each entry is on disk as soon as it is written.
            assert path.read_bytes().count(b"\n") == w.count
    with log.LogWriter(path) as w:  # reopened later: appends
        w.write_many(sample_log[half:])
    assert list(log.read_log(path)) == sample_log
    mp = tmp_path / "live.msgpack"
    with log.LogWriter(mp, flush_each=False) as w:
        w.write_many(sample_log)
    assert list(log.read_log(mp)) == sample_log


def test_interrupted_write_is_refused_then_repaired(
    tmp_path: Path, sample_log: list[Envelope]
) -> None:
    path = tmp_path / "crash.jsonl"
    log.write_jsonl(path, sample_log[:5])
    complete = path.read_bytes()
    with open(path, "ab") as f:
        f.write(log.encode_json(sample_log[5])[:40])  # power lost mid-line
    with pytest.raises(LogError, match=r"line 6: not valid JSON"):
        list(log.iter_jsonl(path))
    with pytest.raises(LogError, match="incomplete line"):
        log.LogWriter(path)
    with log.LogWriter(path, repair=True) as w:
        assert w.repaired == 40
        w.write_many(sample_log[5:])
    assert path.read_bytes().startswith(complete)
    assert list(log.iter_jsonl(path)) == sample_log


def test_msgpack_truncation_is_reported_and_repaired(
    tmp_path: Path, sample_log: list[Envelope]
) -> None:
    path = tmp_path / "crash.msgpack"
    log.write_msgpack(path, sample_log)
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    with pytest.raises(LogError, match=rf"line {len(sample_log)}: truncated record"):
        list(log.iter_msgpack(path))
    assert log.repair_tail(path) > 0
    assert list(log.iter_msgpack(path)) == sample_log[:-1]
    path.write_bytes(b"\x93\x01\x02\x03")  # msgpack, but not our framing
    with pytest.raises(LogError, match="not a msgpack log frame"):
        list(log.iter_msgpack(path))


def _big_log(n: int) -> Iterator[Envelope]:
    chain = log.Chain()
    for i in range(1, n + 1):
        ev = (
            CardPlayed(seat=i % 2, card="01G", chosen="01J1")
            if i % 2
            else NoteAdded(text=f"entry {i}", about_seq=i - 1)
        )
        yield chain.seal(log.envelope("big", i, 1, ev, by="sim", at=AT, recorded_at=AT))


def test_streaming_read_of_a_big_file_in_constant_memory(tmp_path: Path) -> None:
    n = 40_000
    path = tmp_path / "big.jsonl"
    with log.LogWriter(path, flush_each=False) as w:
        w.write_many(_big_log(n))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        count, last = 0, 0
        for env in log.iter_jsonl(path):
            count += 1
            assert env.seq == last + 1
            last = env.seq
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == n
    assert peak < size / 10, (peak, size)
    result = log.verify_file(path)
    assert result.ok and result.count == n


# --- tampering -------------------------------------------------------------------------------


@pytest.fixture
def log_file(tmp_path: Path, sample_log: list[Envelope]) -> Path:
    path = tmp_path / "game.jsonl"
    log.write_jsonl(path, sample_log)
    return path


def _both(path: Path) -> tuple[log.VerifyResult, log.VerifyResult]:
    return log.verify_file(path), log.verify(log.iter_jsonl(path))


def test_changed_byte_in_payload(log_file: Path) -> None:
    lines = _lines(log_file)
    assert '"card":"01G"' in lines[7]  # seq 8: card_played
    lines[7] = lines[7].replace('"card":"01G"', '"card":"03G"')
    by_file, by_env = _both(_write_lines(log_file, lines))
    for result in (by_file, by_env):
        assert not result.ok
        assert result.first_bad_seq == 8
        assert "hash does not match" in result.reason
        assert result.game_id == "g1"
        assert result.count == 7
    assert by_file.line == 8


def test_changed_byte_the_typed_decode_would_hide(log_file: Path) -> None:
    lines = _lines(log_file)
    lines[4] = lines[4].replace(
        '"type":"four_of_a_month_shown"', '"type":"four_of_a_month_shown","extra":1'
    )
    path = _write_lines(log_file, lines)
    assert log.verify_file(path).first_bad_seq == 5
    assert log.verify(log.iter_jsonl(path)).first_bad_seq == 5  # exact read keeps it
    lines[4] = lines[4].replace('"at":"2024', '"at":"2025')
    assert log.verify_file(_write_lines(log_file, lines)).first_bad_seq == 5


def test_removed_event(log_file: Path) -> None:
    lines = _lines(log_file)
    del lines[5]  # seq 6
    for result in _both(_write_lines(log_file, lines)):
        assert not result.ok and result.first_bad_seq == 7
        assert result.reason == "seq 7 follows seq 5: 6 is missing"


def test_seq_gap(log_file: Path) -> None:
    lines = _lines(log_file)
    del lines[9:12]  # seq 10, 11, 12
    by_file, by_env = _both(_write_lines(log_file, lines))
    assert by_file.reason == by_env.reason == "seq 13 follows seq 9: 10..12 are missing"
    assert by_file.line == 10


def test_duplicated_event(log_file: Path) -> None:
    lines = _lines(log_file)
    lines.insert(4, lines[3])  # seq 4 twice
    for result in _both(_write_lines(log_file, lines)):
        assert result.first_bad_seq == 4
        assert result.reason == "seq 4 follows seq 4: duplicate"


def test_inserted_event(log_file: Path, sample_log: list[Envelope]) -> None:
    # A new event slipped in as seq 6 with a correct hash; the rest renumbered.
    forged = log.Chain(sample_log[4].hash).seal(
        log.envelope("g1", 6, 1, NoteAdded(text="I paid"), by="x", at=AT, recorded_at=AT)
    )
    tail = [msgspec.structs.replace(e, seq=e.seq + 1) for e in sample_log[5:]]
    log.write_jsonl(log_file, [*sample_log[:5], forged, *tail])
    for result in _both(log_file):
        assert result.first_bad_seq == 7
        assert "seq 7: prev is not the hash of seq 6" in result.reason
    # Without a forged hash it breaks at once.
    naive = msgspec.structs.replace(forged, hash="f" * 64)
    log.write_jsonl(log_file, [*sample_log[:5], naive, *tail])
    assert log.verify_file(log_file).first_bad_seq == 6


def test_swapped_events(log_file: Path, sample_log: list[Envelope]) -> None:
    lines = _lines(log_file)
    lines[5], lines[6] = lines[6], lines[5]  # seq 6 and 7
    for result in _both(_write_lines(log_file, lines)):
        assert result.first_bad_seq == 7
        assert result.reason == "seq 7 follows seq 5: 6 is missing"
    # Swapped with their seq numbers kept in place: the chain breaks instead.
    a, b = sample_log[5], sample_log[6]
    swapped = [
        *sample_log[:5],
        msgspec.structs.replace(b, seq=6),
        msgspec.structs.replace(a, seq=7),
        *sample_log[7:],
    ]
    result = log.verify(swapped)
    assert result.first_bad_seq == 6 and not result.ok


def test_changed_prev_and_genesis(sample_log: list[Envelope]) -> None:
    bad = [msgspec.structs.replace(sample_log[0], prev="1" * 64), *sample_log[1:]]
    assert log.verify(bad).reason == "seq 1: prev is not the genesis value (64 zeros)"
    late = log.verify(sample_log[2:])
    assert late.first_bad_seq == 3 and "starts at seq 3" in late.reason


def test_out_of_order(sample_log: list[Envelope]) -> None:
    result = log.verify([*sample_log[:5], sample_log[2]])
    assert result.reason == "seq 3 follows seq 5: out of order"


def test_verify_result_when_ok(sample_log: list[Envelope]) -> None:
    result = log.verify(sample_log)
    assert result and result.ok and result.first_bad_seq is None
    assert result.count == len(sample_log) and result.game_id == "g1" and result.games == 1


def test_unsealed_line(tmp_path: Path) -> None:
    env = log.envelope("g", 1, None, NoteAdded(text="x"), by="t", at=AT, recorded_at=AT)
    path = tmp_path / "raw.jsonl"
    log.write_jsonl(path, [env])
    result = log.verify_file(path)
    assert not result.ok and result.line == 1 and "not sealed" in result.reason


def test_verify_file_reports_a_non_json_line(log_file: Path) -> None:
    lines = _lines(log_file)
    lines[2] = lines[2][:-3]
    result = log.verify_file(_write_lines(log_file, lines))
    assert not result.ok and result.line == 3 and result.reason.startswith("not valid JSON")


# --- several games in one file ----------------------------------------------------------------


def test_several_games(tmp_path: Path, make_game: MakeGame) -> None:
    a, b = make_game("a"), make_game("b")
    path = tmp_path / "two.jsonl"
    log.write_jsonl(path, [*a, *b])
    games = list(log.iter_games(log.read_log(path)))
    assert [(g, len(envs)) for g, envs in games] == [("a", len(a)), ("b", len(b))]
    assert log.verify_file(path).games == 2
    assert [r.game_id for r in log.verify_games([*a, *b])] == ["a", "b"]
    lines = _lines(path)
    assert '"month":3' in lines[len(a) + 3]  # game b, seq 4: deal_voided
    lines[len(a) + 3] = lines[len(a) + 3].replace('"month":3', '"month":4')
    result = log.verify_file(_write_lines(path, lines))
    assert (result.game_id, result.first_bad_seq, result.line) == ("b", 4, len(a) + 4)
    results = list(log.verify_games(log.read_log(path)))
    assert [r.ok for r in results] == [True, False]


# --- malformed lines -------------------------------------------------------------------------


def _bad_line(log_file: Path, index: int, edit: Callable[[str], str]) -> LogError:
    lines = _lines(log_file)
    lines[index] = edit(lines[index])
    _write_lines(log_file, lines)
    with pytest.raises(LogError) as info:
        list(log.iter_jsonl(log_file))
    return info.value


def test_not_json(log_file: Path) -> None:
    err = _bad_line(log_file, 2, lambda s: s[:-10])
    assert (err.file, err.line, err.field) == (str(log_file), 3, None)
    assert err.reason.startswith("not valid JSON: ")
    assert str(err).startswith(f"{log_file}, line 3: not valid JSON")


def test_wrong_field_type(log_file: Path) -> None:
    err = _bad_line(log_file, 3, lambda s: s.replace('"hand":1', '"hand":"one"'))
    assert (err.line, err.field, err.seq) == (4, "hand", 4)
    assert "expected int | null, got str" in err.reason


def test_unknown_card_code_names_file_line_seq_field(log_file: Path) -> None:
    err = _bad_line(log_file, 7, lambda s: s.replace('"card":"01G"', '"card":"13G"'))
    assert (err.file, err.line, err.seq, err.field) == (str(log_file), 8, 8, "event.card")
    assert err.reason == "unknown card code '13G'"
    assert str(err) == f"{log_file}, line 8, seq 8, field event.card: unknown card code '13G'"


def test_unknown_card_in_a_list(log_file: Path) -> None:
    err = _bad_line(
        log_file, 11, lambda s: s.replace('"cards":["01G","01J1"]', '"cards":["01G","1J1"]')
    )
    assert (err.seq, err.field, err.reason) == (12, "event.cards[1]", "unknown card code '1J1'")


def test_bad_literal_lists_allowed_values(log_file: Path) -> None:
    err = _bad_line(log_file, 11, lambda s: s.replace('"kind":"pair"', '"kind":"steal"'))
    assert err.field == "event.kind"
    assert err.reason.startswith("invalid value 'steal'; allowed: ")
    assert "ttadak" in err.reason and "jjok" in err.reason


def test_missing_field(log_file: Path) -> None:
    err = _bad_line(log_file, 7, lambda s: s.replace('"card":"01G",', ""))
    assert (err.field, err.reason) == ("event.card", "missing required field")
    err = _bad_line(log_file, 6, lambda s: s.replace('"by":"test",', ""))
    assert (err.field, err.reason) == ("by", "missing required field")


def test_line_that_is_not_an_object(log_file: Path) -> None:
    err = _bad_line(log_file, 0, lambda s: "[1, 2]")
    assert err.line == 1 and "JSON object" in err.reason
    err = _bad_line(log_file, 0, lambda s: '{"game_id": "g1", "seq": 1, "event": 5}')
    assert err.field == "event"


def test_newer_version_is_refused(log_file: Path) -> None:
    err = _bad_line(log_file, 7, lambda s: s.replace('"v":1', '"v":4'))
    assert (err.line, err.seq, err.field) == (8, 8, "v")
    assert "written by a newer version" in err.reason


def test_msgpack_errors_name_the_record(tmp_path: Path, sample_log: list[Envelope]) -> None:
    d = log.envelope_to_dict(sample_log[7])
    d["event"]["card"] = "13G"
    body = msgspec.msgpack.encode(d)
    path = tmp_path / "bad.msgpack"
    path.write_bytes(
        log.encode_msgpack(sample_log[0]) + b"\xce" + len(body).to_bytes(4, "big") + body
    )
    with pytest.raises(LogError) as info:
        list(log.iter_msgpack(path))
    assert (info.value.line, info.value.seq, info.value.field) == (2, 8, "event.card")
    assert info.value.reason == "unknown card code '13G'"


# --- other producers, unknown types, upcasting ----------------------------------------------


def test_another_producers_log_verifies_and_copies_exactly(tmp_path: Path) -> None:
    # Keys in another order, spaces, and optional fields left out (chosen, about_seq).
    d1 = {
        "v": 1,
        "seq": 1,
        "game_id": "x",
        "hand": None,
        "at": AT,
        "recorded_at": AT,
        "by": "other",
        "event": {"text": "start", "type": "note_added"},
    }
    line1, h1 = _sealed_line(log.GENESIS, d1)
    d2 = {
        "game_id": "x",
        "seq": 2,
        "hand": 1,
        "at": AT,
        "recorded_at": AT,
        "by": "other",
        "v": 1,
        "event": {"type": "card_played", "seat": 0, "card": "05A"},
    }
    line2, _ = _sealed_line(h1, d2)
    path = _write_lines(tmp_path / "other.jsonl", [line1, line2])
    assert log.verify_file(path).ok
    report = log.ReadReport()
    envs = list(log.iter_jsonl(path, report=report))
    assert envs[1].event == CardPlayed(seat=0, card="05A", chosen=None)
    assert report.sparse == 2
    assert log.verify(envs).ok
    copy = tmp_path / "copy.msgpack"
    log.write_log(copy, envs)
    assert log.verify_file(copy).ok
    # Skipping the exactness check is only for logs this module wrote.
    assert not log.verify(log.iter_jsonl(path, exact=False)).ok


def test_unknown_event_types_are_kept_reported_and_round_trip(
    tmp_path: Path, sample_log: list[Envelope]
) -> None:
    alien = {"type": "tile_discarded", "seat": 1, "tile": {"suit": "bamboo", "rank": 5}}
    envs = list(sample_log[:3])
    chain = log.Chain(envs[-1].hash)
    envs.append(
        chain.seal(
            log.envelope(
                "g1",
                4,
                1,
                UnknownEvent("tile_discarded", alien),
                by="future",
                at=AT,
                recorded_at=AT,
            )
        )
    )
    envs.append(chain.seal(msgspec.structs.replace(sample_log[3], seq=5)))
    path = tmp_path / "future.jsonl"
    log.write_jsonl(path, envs)
    report = log.ReadReport()
    back = list(log.iter_jsonl(path, report=report))
    assert len(back) == 5
    assert back[3].event == UnknownEvent("tile_discarded", alien)
    assert back[3].type == "tile_discarded"
    assert report.unknown == {"tile_discarded": 1}
    assert report.unknown_at == [(4, 4, "tile_discarded")]
    assert report.count == 5
    assert "unknown type 'tile_discarded' kept as read (line 4)" in report.describe()[0]
    assert log.verify(back).ok and log.verify_file(path).ok
    # Written back, the payload is exactly what was read.
    again = tmp_path / "again.jsonl"
    log.write_jsonl(again, back)
    assert again.read_bytes() == path.read_bytes()
    assert json.loads(_lines(again)[3])["event"] == alien
    mp = tmp_path / "again.msgpack"
    log.write_log(mp, back)
    assert list(log.read_log(mp)) == back and log.verify_file(mp).ok


def test_unknown_type_with_bad_envelope_fields(log_file: Path) -> None:
    err = _bad_line(
        log_file,
        2,
        lambda s: s.replace('"cards_dealt"', '"cards_shown"').replace('"seq":3', '"seq":0'),
    )
    assert err.field == "seq" and err.line == 3


@pytest.fixture
def note_v2(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pretend note_added v1 called its text ``note``; v2 (the current shape) says ``text``."""

    def v1_to_v2(payload: dict[str, Any]) -> dict[str, Any]:
        payload["text"] = payload.pop("note")
        return payload

    monkeypatch.setitem(events.EVENT_VERSIONS, "note_added", 2)
    monkeypatch.setitem(log.UPCASTERS, ("note_added", 1), v1_to_v2)


def _v1_note_log(tmp_path: Path) -> Path:
    d1 = {
        "game_id": "u",
        "seq": 1,
        "hand": None,
        "at": AT,
        "recorded_at": AT,
        "by": "2019",
        "v": 1,
        "event": {"type": "note_added", "note": "old shape", "about_seq": None},
    }
    line1, h1 = _sealed_line(log.GENESIS, d1)
    d2 = {
        "game_id": "u",
        "seq": 2,
        "hand": 1,
        "at": AT,
        "recorded_at": AT,
        "by": "2019",
        "v": 1,
        "event": {"type": "card_played", "seat": 1, "card": "12G", "chosen": None},
    }
    line2, _ = _sealed_line(h1, d2)
    return _write_lines(tmp_path / "old.jsonl", [line1, line2])


@pytest.mark.usefixtures("note_v2")
def test_upcasting(tmp_path: Path) -> None:
    path = _v1_note_log(tmp_path)
    report = log.ReadReport()
    envs = list(log.iter_jsonl(path, report=report))
    assert envs[0].event == NoteAdded(text="old shape")
    assert envs[0].v == 2
    assert report.upcast == {"note_added": 1}
    assert "1 note_added event(s) upcast to v2" in report.describe()
    # The hash covers the stored (v1) form, so the upcast event still verifies.
    assert log.verify(envs).ok
    assert log.verify_file(path).ok
    assert log.stored_bytes(envs[0]) is not None
    # A copy keeps the stored form; reading the copy upcasts again.
    for copy in (tmp_path / "copy.jsonl", tmp_path / "copy.msgpack"):
        log.write_log(copy, envs)
        assert log.verify_file(copy).ok
        assert list(log.read_log(copy)) == envs
    assert json.loads(_lines(tmp_path / "copy.jsonl")[0])["event"]["note"] == "old shape"
    # A chain continued after an upcast event uses its stored form.
    resealed = log.seal(msgspec.structs.replace(e, prev="", hash="") for e in envs)
    assert [e.hash for e in resealed] != [e.hash for e in envs]
    assert log.seal(envs) == envs


@pytest.mark.usefixtures("note_v2")
def test_upcasting_in_several_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def v2_to_v3(payload: dict[str, Any]) -> dict[str, Any]:
        return {**payload, "text": payload["text"].upper()}

    monkeypatch.setitem(events.EVENT_VERSIONS, "note_added", 3)
    monkeypatch.setitem(log.UPCASTERS, ("note_added", 2), v2_to_v3)
    envs = list(log.iter_jsonl(_v1_note_log(tmp_path)))
    assert envs[0].event == NoteAdded(text="OLD SHAPE") and envs[0].v == 3
    assert log.verify(envs).ok


@pytest.mark.usefixtures("note_v2")
def test_missing_upcaster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(log.UPCASTERS, ("note_added", 1))
    with pytest.raises(LogError, match=r"line 1, seq 1, field v: no upcaster for note_added"):
        list(log.iter_jsonl(_v1_note_log(tmp_path)))


def test_report_limits_what_it_keeps() -> None:
    report = log.ReadReport(limit=2)
    for i in range(5):
        report.add_unknown(i, i, "x")
    assert report.unknown == {"x": 5} and len(report.unknown_at) == 2


# --- reading with the hash check (the bulk import's path) ---------------------------------


def _verdicts(path: Path) -> list[tuple[int, bool]]:
    return [(env.seq, ok) for env, ok in log.read_checked(path)]


def test_read_checked_flags_exactly_the_events_whose_hash_fails(log_file: Path) -> None:
    n = len(_lines(log_file))
    assert _verdicts(log_file) == [(seq, True) for seq in range(1, n + 1)]
    lines = _lines(log_file)
    lines[7] = lines[7].replace('"card":"01G"', '"card":"03G"')  # seq 8 changed
    lines[4] = lines[4].replace(  # seq 5: a member the typed decode would drop
        '"type":"four_of_a_month_shown"', '"type":"four_of_a_month_shown","extra":1'
    )
    path = _write_lines(log_file, lines)
    assert [seq for seq, ok in _verdicts(path) if not ok] == [5, 8]
    copy = path.with_suffix(".msgpack")
    log.write_log(copy, log.iter_jsonl(path))
    assert [seq for seq, ok in _verdicts(copy) if not ok] == [5, 8]


def test_read_checked_accepts_another_producers_log(tmp_path: Path) -> None:
    d1 = {"game_id": "x", "seq": 1, "hand": None, "at": AT, "recorded_at": AT, "by": "o", "v": 1}
    line1, h1 = _sealed_line(log.GENESIS, {**d1, "event": {"text": "a", "type": "note_added"}})
    d2 = {**d1, "seq": 2, "hand": 1, "event": {"type": "card_played", "seat": 0, "card": "05A"}}
    line2, _ = _sealed_line(h1, d2)
    path = _write_lines(tmp_path / "other.jsonl", [line1, line2])
    assert _verdicts(path) == [(1, True), (2, True)]


def test_read_checked_reads_a_span_of_whole_lines(log_file: Path) -> None:
    data = log_file.read_bytes()
    start = data.index(b"\n", len(data) // 3) + 1
    end = data.index(b"\n", 2 * len(data) // 3) + 1
    whole = list(log.read_checked(log_file))
    part = list(log.read_checked(log_file, span=(start, end)))
    first = data[:start].count(b"\n")
    assert part == whole[first : first + len(part)]
    assert len(part) == data[start:end].count(b"\n")
    bad = data[:start] + b'{"game_id":\n' + data[start:]
    log_file.write_bytes(bad)
    with pytest.raises(LogError) as exc:
        list(log.read_checked(log_file, span=(start, end)))
    assert exc.value.line == 1  # counted from the span's first line


def _loop_and_general(read: Callable[[log.ReadReport | None], Iterable[Any]]) -> tuple[Any, Any]:
    """What a reader makes of a file in its one loop (no report) and by the general path (a
    report forces it): everything it yields, or the error's text."""

    def run(report: log.ReadReport | None) -> Any:
        try:
            return list(read(report))
        except LogError as exc:
            return str(exc)

    return run(None), run(log.ReadReport())


def _both_readers(path: Path) -> tuple[Any, Any]:
    """The replay reader (exact off: envelopes) by its one loop and by the general path."""
    return _loop_and_general(lambda report: log.iter_jsonl(path, exact=False, report=report))


def test_the_replay_reader_equals_the_general_path_on_every_odd_line(
    tmp_path: Path, sample_log: list[Envelope]
) -> None:
    lines = [log.encode_json(e).decode() for e in sample_log]
    odd = tmp_path / "odd.jsonl"
    odd.write_text(
        "\ufeff" + lines[0] + "\r\n\r\n   \n" + "\r\n".join(lines[1:]) + "\r\n\n",
        encoding="utf-8",
        newline="",
    )
    fast, general = _both_readers(odd)
    assert fast == general == sample_log
    alien = log.envelope(
        "g1", 2, 1, UnknownEvent("tile_discarded", {"type": "tile_discarded", "n": 1}), by="x"
    )
    future = tmp_path / "future.jsonl"
    log.write_jsonl(future, [sample_log[0], log.Chain(sample_log[0].hash).seal(alien)])
    fast, general = _both_readers(future)
    assert fast == general and fast[1].event == alien.event
    for k, (before, after) in enumerate(
        [('"card":"01G"', '"card":"13G"'), ('"hand":1', '"hand":"one"'), ("{", "{{")]
    ):
        bad = tmp_path / f"bad{k}.jsonl"
        text = list(lines)
        i = next(j for j, line in enumerate(text) if before in line)
        text[i] = text[i].replace(before, after, 1)
        bad.write_text("\n".join(text) + "\n", encoding="utf-8")
        fast, general = _both_readers(bad)
        assert isinstance(fast, str) and fast == general and f"line {i + 1}" in fast


@pytest.mark.usefixtures("note_v2")
def test_the_replay_reader_upcasts_as_the_general_path(tmp_path: Path) -> None:
    fast, general = _both_readers(_v1_note_log(tmp_path))
    assert fast == general and fast[0].v == 2


def _both_checked(path: Path, span: tuple[int, int] | None = None) -> tuple[Any, Any]:
    """The import's checked read ((envelope, hash ok) pairs) by its one loop and by the
    general path."""
    return _loop_and_general(lambda report: log.read_checked(path, report=report, span=span))


def test_the_checked_read_equals_the_general_path_on_every_odd_line(
    tmp_path: Path, sample_log: list[Envelope]
) -> None:
    lines = [log.encode_json(e).decode() for e in sample_log]
    odd = tmp_path / "odd.jsonl"
    odd.write_text(
        "\ufeff"
        + lines[0]
        + "\r\n\r\n   \n"
        + lines[1]
        + "\r\n"
        # a space after a colon (a stored form), members in another order, a member the
        # typed decode drops, a changed payload, and a last line without its line end
        + lines[2].replace('"seq":3,', '"seq": 3,')
        + "\n"
        + lines[3].replace('{"game_id":"g1","seq":4,', '{"seq":4,"game_id":"g1",')
        + "\n"
        + lines[4].replace('"type":"four_of_a_month_shown"', '"type":"four_of_a_month_shown","x":1')
        + "\n"
        + "\n".join(lines[5:7])
        + "\n"
        + lines[7].replace('"card":"01G"', '"card":"03G"')
        + "\n"
        + "\n".join(lines[8:]),
        encoding="utf-8",
        newline="",
    )
    fast, general = _both_checked(odd)
    assert fast == general
    assert [env.seq for env, ok in fast if not ok] == [5, 8]
    data = odd.read_bytes()
    start = data.index(b"\n", len(data) // 3) + 1
    end = data.index(b"\n", 2 * len(data) // 3) + 1
    fast, general = _both_checked(odd, (start, end))
    assert fast == general and len(fast) == data[start:end].count(b"\n")
    for k, (before, after) in enumerate(
        [('"card":"01G"', '"card":"13G"'), ('"hand":1', '"hand":"one"'), ("{", "{{")]
    ):
        bad = tmp_path / f"bad{k}.jsonl"
        text = list(lines)
        i = next(j for j, line in enumerate(text) if before in line)
        text[i] = text[i].replace(before, after, 1)
        bad.write_text("\n".join(text) + "\n", encoding="utf-8")
        fast, general = _both_checked(bad)
        assert isinstance(fast, str) and fast == general and f"line {i + 1}" in fast
