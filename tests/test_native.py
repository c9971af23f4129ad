"""The compiled build of the hot modules (``make native``) and the pure-Python source give the
same results: every preset at every seat count, and logs the rules refuse.

Each build replays the same log in its own process (``GOSTOP_PURE_PYTHON=1`` forces the
source); the suite itself runs on whichever build is installed, so CI, which builds the
native modules before the tests, tests both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import gostop_records
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate

#: Replays a log strictly and leniently and prints everything a replay reports, as JSON.
_REPLAY = """
import json, sys
import msgspec
import gostop_records
from gostop_records import log as L
from gostop_records.errors import GostopError
from gostop_records.projector import project

def hand(r):
    proof = r.proof()
    return [r.hand, r.dealer, r.outcome, r.winner, r.reason, r.carry, r.next_carry,
            [list(d) for d in r.dues], None if proof is None else msgspec.to_builtins(proof)]

out = {"compiled": gostop_records.compiled(), "games": []}
for gid, game in L.iter_games(L.iter_jsonl(sys.argv[1], exact=False)):
    try:
        strict = project(game, strict=True)
        refused = None
    except GostopError as exc:
        strict, refused = None, str(exc)
    p = project(game, strict=False)
    g = p.game
    out["games"].append({
        "game": gid,
        "refused": refused,
        "strict_events": None if strict is None else strict.events,
        "issues": [[i.seq, i.rule, i.reason, i.severity, i.hand] for i in p.issues],
        "hands": [] if g is None else [hand(r) for r in g.results],
        "carry": None if g is None else g.carry,
        "payments": None if g is None else [list(x) for x in g.payments],
        "retracted": p.retracted,
    })
print(json.dumps(out, sort_keys=True))
"""


def _child(code: str, log: Path, pure: bool) -> dict:
    """What ``code`` prints as JSON, run on ``log`` in a fresh interpreter of either build."""
    env = {k: v for k, v in os.environ.items() if k != "GOSTOP_PURE_PYTHON"}
    if pure:
        env["GOSTOP_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", code, str(log)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def _tampered(lines: list[bytes]) -> list[bytes]:
    """The same game with recorded facts the rules refuse: a capture of the wrong kind and a
    payment of the wrong amount (each on the first line that has one)."""
    out = []
    kind = points = False
    for line in lines:
        if not kind and b'"kind":"pair"' in line:
            line, kind = line.replace(b'"kind":"pair"', b'"kind":"stack"'), True
        elif not points and b'"type":"payment_due"' in line:
            line, points = line.replace(b'"points":', b'"points":9', 1), True
        out.append(line)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every preset at every seat count, two games of two hands, and tampered copies."""
    enc = msgspec.json.Encoder()
    path = tmp_path_factory.mktemp("native") / "corpus.jsonl"
    with open(path, "wb") as f:
        for k, (_name, rules) in enumerate(sorted(PRESETS.items())):
            for seats in rules.seats():
                for n, log in enumerate(simulate(rules, seats, 2, 2, seed=97 * k + seats)):
                    lines = [enc.encode(env) + b"\n" for env in log]
                    f.writelines(lines)
                    if n == 0:
                        bad = _tampered(lines)
                        gid = log[0].game_id.encode()
                        f.writelines(x.replace(gid, gid + b"-tampered") for x in bad)
    return path


@pytest.fixture(scope="module")
def replays(corpus: Path) -> tuple[dict, dict]:
    return _child(_REPLAY, corpus, pure=True), _child(_REPLAY, corpus, pure=False)


def test_pure_python_switch_loads_source_only(replays: tuple[dict, dict]) -> None:
    assert replays[0]["compiled"] is False


def test_compiled_and_pure_python_replay_alike(replays: tuple[dict, dict]) -> None:
    pure, native = replays
    if not native["compiled"]:
        # CI builds with a compiler at hand: there a missing build is a failure, not a skip
        assert os.environ.get("GOSTOP_REQUIRE_NATIVE") != "1", "the native build failed"
        pytest.skip("no compiled build (make native): the package runs as pure Python")
    assert native["games"] == pure["games"]
    # the corpus holds what it should: every game, hands settled with proofs, refusals
    games = pure["games"]
    seat_counts = sum(len(rules.seats()) for rules in PRESETS.values())
    assert len(games) == 3 * seat_counts
    assert any(h[8] is not None for g in games for h in g["hands"])
    refused = [g for g in games if g["refused"]]
    assert len(refused) == seat_counts
    assert all(g["game"].endswith("-tampered") and g["issues"] for g in refused)


#: Reads a log as an import does (the checked read, runs of one game, each with its first
#: wrong hash), replays each run leniently and derives its projection rows; prints them.
_ROWS = """
import json, sys
import gostop_records
from gostop_records.store.projections import derive, empty_rows
from gostop_records.store.game_runs import Problem, Run, RunReader, replay

runs, rows = [], empty_rows()
for i, (events, bad) in enumerate(RunReader(sys.argv[1])):
    runs.append([events[0].game_id, [e.seq for e in events], bad])
    c = replay(Run(sys.argv[1], i, events, bad), events, 0, False)
    if not isinstance(c, Problem):
        derive(c.full, c.game, c.issues, rows=rows, retracted=c.retracted)
print(json.dumps({"compiled": gostop_records.compiled(), "runs": runs, "rows": rows}))
"""


def test_compiled_and_pure_python_import_rows_alike(corpus: Path) -> None:
    """The import's checked read and projection rows (``log/checked``, ``store/projections``,
    compiled in the native build) give the same runs, wrong hashes and rows as the source."""
    out = {pure: _child(_ROWS, corpus, pure) for pure in (True, False)}
    assert out[True]["compiled"] is False
    if not out[False]["compiled"]:
        assert os.environ.get("GOSTOP_REQUIRE_NATIVE") != "1", "the native build failed"
        pytest.skip("no compiled build (make native): the package runs as pure Python")
    assert out[False]["runs"] == out[True]["runs"]
    assert out[False]["rows"] == out[True]["rows"]
    # the tampered copies' first changed line fails its hash; every table gets rows
    assert any(bad is not None for _, _, bad in out[True]["runs"])
    assert all(out[True]["rows"][name] for name in ("games", "turns", "captures", "payouts"))


def test_this_process_runs_the_installed_build() -> None:
    """The suite runs on the compiled build when there is a fresh one."""
    from gostop_records.engine import turn

    built = list(Path(gostop_records.__file__).parent.glob("_native__mypyc*"))
    fresh = built and not gostop_records._stale()
    pure = os.environ.get("GOSTOP_PURE_PYTHON") == "1"
    assert gostop_records.compiled() is bool(fresh and not pure)
    assert turn.__file__ is not None
