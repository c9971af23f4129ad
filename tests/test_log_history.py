"""Logs written by the oldest versions, read by this one.

Every payload type has been at ``v`` 1 since the first commit (``events.EVENT_VERSIONS``)
and no upcaster was ever registered (``log.UPCASTERS``): the format has only gained event
types, seats 3 and 4 and new values of ``payment_due.reason``; no field was renamed,
removed or added to a payload or to the envelope. Schema version 8 of the store dropped
``events.prev`` from the stored row, not from the log: a log line still carries ``prev``.
So an old log needs no upcasting, and these tests hold the format to that with logs the
oldest code wrote (``tests/fixtures/logs/``, see its README): each reads with nothing upcast
and nothing kept in a stored form, every line is the bytes this version would write for it,
every chain verifies, every game replays under the rules without an issue, and
``gostop validate`` and ``gostop replay`` accept them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from store_support import ROOT, gostop

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.log.codec import ReadReport, encode_json, encode_msgpack
from gostop_records.projector import project
from gostop_records.store import Store

LOGS = ROOT / "tests" / "fixtures" / "logs"
FILES = sorted([*LOGS.glob("*.jsonl"), *LOGS.glob("*.msgpack")])


def test_the_fixtures_are_there() -> None:
    assert [p.name for p in FILES] == [
        "record-af6def1.jsonl",
        "selfplay-6581942.jsonl",
        "selfplay-6581942.msgpack",
    ]


def test_no_payload_has_changed_version_yet() -> None:
    """The day a payload changes shape, its ``v`` goes up with an upcaster from the old one;
    that change then brings a log of the old ``v`` here, read through its upcaster."""
    assert set(E.EVENT_VERSIONS.values()) == {1}
    assert L.UPCASTERS == {}
    for (etype, v), _ in L.UPCASTERS.items():  # every step of every bump, when there is one
        assert all((etype, step) in L.UPCASTERS for step in range(1, v + 1))


def _games(envs: list[E.Envelope]) -> dict[str, list[E.Envelope]]:
    out: dict[str, list[E.Envelope]] = {}
    for env in envs:
        out.setdefault(env.game_id, []).append(env)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_an_oldest_log_reads_as_written_and_replays(path: Path) -> None:
    report = ReadReport()
    envs = list(L.read_log(path, report=report))
    assert report.upcast == {} and report.unknown == {} and report.sparse == 0
    assert all(env.v == 1 for env in envs)
    # every record is the bytes this version writes for the envelope it reads
    raw = path.read_bytes()
    if path.suffix == ".jsonl":
        assert [encode_json(e) for e in envs] == raw.splitlines()
    else:
        assert b"".join(encode_msgpack(e) for e in envs) == raw
    result = L.verify(envs)
    assert result.ok, result.reason
    for gid, game in _games(envs).items():
        projection = project(game)
        assert projection.issues == [], (gid, projection.issues[:3])
        assert projection.game is not None and projection.game.results, gid


def test_validate_and_replay_accept_the_oldest_logs() -> None:
    done = gostop("validate", *map(str, FILES))
    assert done.returncode == 0, done.stdout + done.stderr
    for path in FILES:
        first = next(iter(L.read_log(path)))
        done = gostop("replay", str(path), "--game", first.game_id, "--json")
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        assert json.loads(done.stdout)


def test_the_oldest_logs_import_into_a_store_that_verifies(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as st:
        first = st.import_paths([LOGS / "record-af6def1.jsonl", LOGS / "selfplay-6581942.jsonl"])
        assert first.ok and (first.imported, first.events) == (6, 78 + 323)
        # the msgpack log holds the same games, sealed alike: nothing more to store
        again = st.import_paths([LOGS / "selfplay-6581942.msgpack"])
        assert again.ok and (again.skipped, again.events) == (5, 0)
        report = st.verify()
        assert report.ok, report.problems()
