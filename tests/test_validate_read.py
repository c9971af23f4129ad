"""``gostop validate`` reads a log with the import's checked read (decode, stored form and
each line's own hash in one pass, :func:`gostop_records.log.iter_records`): the reading and
chain findings are those of decoding each line on its own and verifying the chain of the
envelopes read, wherever the damage is (a bad line in the middle of a chain, an event
changed, removed, inserted or reordered, a cut record, a line in another producer's form).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import Finding, LogError
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.validate import validate_files

READ_RULES = ("decode", "read", "hash_chain")


@pytest.fixture(scope="module")
def envs() -> list[E.Envelope]:
    return play_game(GameSpec(PRESETS["matgo"], 2, 1, 5))


def _lines(envs: list[E.Envelope]) -> list[bytes]:
    return [L.encode_json(e) + b"\n" for e in envs]


def _reference(path: Path, lines: list[bytes]) -> list[tuple[int | None, int | None, str, str]]:
    """The reading and chain findings of a one-game log, each line decoded on its own
    (:func:`gostop_records.log.decode_json_line`) and the chain of what was read checked by
    :func:`gostop_records.log.verify`: (line, seq, rule, reason)."""
    name = str(path)
    out: list[tuple[int | None, int | None, str, str]] = []
    read: list[tuple[int, E.Envelope]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            if not line.endswith(b"\n"):
                raise LogError("the last line is incomplete (no line end): an interrupted write?")
            read.append((n, L.decode_json_line(line.replace(b"\r\n", b"\n"), file=name, lineno=n)))
        except LogError as exc:
            what = f"field {exc.field}: {exc.reason}" if exc.field else exc.reason
            out.append((n, exc.seq, "decode", what))
    chain = L.verify([env for _, env in read])
    if not chain.ok:
        line = next(n for n, env in read if env.seq == chain.first_bad_seq)
        out.append((line, chain.first_bad_seq, "hash_chain", chain.reason))
    return sorted(out, key=lambda f: f[0] or 0)


def _found(path: Path) -> list[tuple[int | None, int | None, str, str]]:
    report = validate_files([path])
    return [(f.line, f.seq, f.rule, f.reason) for f in report.errors if f.rule in READ_RULES]


def _damaged(envs: list[E.Envelope]) -> dict[str, list[bytes]]:
    lines = _lines(envs)
    k = len(lines) // 2
    chips = next(i for i, e in enumerate(envs) if type(e.event) is E.PaymentRecorded)
    amount = envs[chips].event.chips
    other = json.loads(lines[k + 2])
    other["by"] = "someone else"  # a changed field written in another producer's key order
    return {
        "garbled line in the middle": [*lines[:k], b'{"game_id": "x", "seq": \n', *lines[k + 1 :]],
        "cut record in the middle": [*lines[:k], lines[k][:40] + b"\n", *lines[k + 1 :]],
        "cut last record": [*lines[:-1], lines[-1][:-30]],
        "removed": [*lines[:k], *lines[k + 1 :]],
        "inserted twice": [*lines[:k], lines[k], *lines[k:]],
        "reordered": [*lines[:k], lines[k + 1], lines[k], *lines[k + 2 :]],
        "moved to the end": [*lines[:k], *lines[k + 1 :], lines[k]],
        "changed": [
            *lines[:chips],
            lines[chips].replace(f'"chips":{amount}'.encode(), f'"chips":{amount + 1}'.encode()),
            *lines[chips + 1 :],
        ],
        "changed in another form": [
            *lines[: k + 2],
            json.dumps(dict(reversed(other.items()))).encode() + b"\n",
            *lines[k + 3 :],
        ],
        "blank and Windows lines": [
            b"\n",
            *(ln.replace(b"\n", b"\r\n") for ln in lines[:k]),
            b"   \n",
            *lines[k:],
        ],
        "bad line then a reorder": [
            *lines[:3],
            b"not json\n",
            *lines[4:k],
            lines[k + 1],
            lines[k],
            *lines[k + 2 :],
        ],
    }


@pytest.mark.parametrize(
    "damage",
    [
        "garbled line in the middle",
        "cut record in the middle",
        "cut last record",
        "removed",
        "inserted twice",
        "reordered",
        "moved to the end",
        "changed",
        "changed in another form",
        "blank and Windows lines",
        "bad line then a reorder",
    ],
)
def test_reading_and_chain_findings_are_those_of_each_line_read_alone(
    tmp_path: Path, envs: list[E.Envelope], damage: str
) -> None:
    lines = _damaged(envs)[damage]
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join(lines))
    expected = _reference(path, lines)
    assert _found(path) == expected
    if damage != "blank and Windows lines":
        assert expected  # every damage but the harmless one is found


def test_a_bad_line_in_the_middle_is_named_and_the_rest_read(
    tmp_path: Path, envs: list[E.Envelope]
) -> None:
    lines = _damaged(envs)["bad line then a reorder"]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"".join(lines))
    report = validate_files([path])
    gid = envs[0].game_id
    assert report.events == len(envs) - 1
    decode, chain = (f for f in report.errors if f.rule in READ_RULES)
    assert (decode.line, decode.rule) == (4, "decode")
    assert decode.reason.startswith("not valid JSON")
    # the first break of the chain: the gap the bad line leaves, not the reorder after it
    assert chain == Finding(
        file=str(path),
        line=5,
        game_id=gid,
        seq=5,
        rule="hash_chain",
        reason="seq 5 follows seq 3: 4 is missing",
    )


def test_a_reordered_event_is_named_where_the_order_breaks(
    tmp_path: Path, envs: list[E.Envelope]
) -> None:
    lines = _damaged(envs)["reordered"]
    path = tmp_path / "swapped.jsonl"
    path.write_bytes(b"".join(lines))
    k = len(envs) // 2
    [chain] = [f for f in validate_files([path]).errors if f.rule == "hash_chain"]
    assert (chain.line, chain.seq) == (k + 1, k + 2)
    assert chain.reason == f"seq {k + 2} follows seq {k}: {k + 1} is missing"


def test_a_changed_line_in_another_form_breaks_its_own_hash(
    tmp_path: Path, envs: list[E.Envelope]
) -> None:
    lines = _damaged(envs)["changed in another form"]
    path = tmp_path / "other.jsonl"
    path.write_bytes(b"".join(lines))
    k = len(envs) // 2
    [chain] = [f for f in validate_files([path]).errors if f.rule == "hash_chain"]
    assert (chain.line, chain.seq) == (k + 3, k + 3)
    assert chain.reason == f"seq {k + 3}: {L.HASH_MISMATCH}"


def test_a_changed_msgpack_record_is_named(tmp_path: Path, envs: list[E.Envelope]) -> None:
    i = next(i for i, e in enumerate(envs) if type(e.event) is E.PaymentRecorded)
    changed = list(envs)
    payment = changed[i].event
    changed[i] = changed[i].__class__(
        **{
            **{f: getattr(changed[i], f) for f in E.Envelope.__struct_fields__},
            "event": payment.__class__(
                **{
                    **{f: getattr(payment, f) for f in payment.__struct_fields__},
                    "chips": payment.chips + 1,
                }
            ),
        }
    )
    path = tmp_path / "changed.msgpack"
    L.write_log(path, changed)
    [chain] = validate_files([path]).errors
    assert (chain.line, chain.seq, chain.rule) == (i + 1, envs[i].seq, "hash_chain")
    assert chain.reason == f"seq {envs[i].seq}: {L.HASH_MISMATCH}"
