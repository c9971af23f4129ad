"""The library's services that every front end calls: validate, load a game, replay to a
point, write a log atomically, the table and the proof as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.errors import GameChoiceError, GameNotFound, GostopError
from gostop_records.games import load_game, log_games
from gostop_records.replay import timeline
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.store import Store
from gostop_records.validate import Report, validate_envelopes, validate_files
from gostop_records.views import game_dict


def _game(seed: int, hands: int = 1) -> list[E.Envelope]:
    return play_game(GameSpec(PRESETS["matgo"], 2, hands, seed))


def _broken(envs: list[E.Envelope]) -> list[E.Envelope]:
    """The log with a payment changed and sealed again: a rules problem, not a chain one."""
    i = next(k for k, e in enumerate(envs) if type(e.event) is E.PaymentDue)
    out = list(envs)
    ev = out[i].event
    out[i] = msgspec.structs.replace(out[i], event=msgspec.structs.replace(ev, chips=ev.chips + 1))
    return L.seal(out)


# --- validate ------------------------------------------------------------------------------


def test_validate_a_folder_names_each_bad_file(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    L.write_jsonl(folder / "good.jsonl", _game(1))
    bad = _broken(_game(2))
    L.write_jsonl(folder / "sub" / "bad.jsonl", bad)
    lines = (folder / "sub" / "bad.jsonl").read_bytes().splitlines(keepends=True)
    lines[2] = b"{not json\n"
    (folder / "sub" / "torn.jsonl").write_bytes(b"".join(lines))
    report = validate_files([folder])
    assert isinstance(report, Report)
    assert report.files == 3 and report.games == 3 and not report.valid
    by_file = {Path(f.file).name for f in report.errors}
    assert by_file == {"bad.jsonl", "torn.jsonl"}
    torn = [f for f in report.errors if f.file.endswith("torn.jsonl")]
    assert torn[0].line == 3 and torn[0].rule == "decode"
    payment = next(f for f in report.errors if f.file.endswith("bad.jsonl"))
    assert payment.game_id == bad[0].game_id and payment.seq is not None and payment.line
    assert str(payment).startswith(f"{payment.file}:{payment.line}: game {payment.game_id}")
    data = report.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["errors"][0]["severity"] == "error" and set(data["errors"][0]) == {
        "file",
        "line",
        "game_id",
        "seq",
        "rule",
        "reason",
        "severity",
    }


def test_validate_envelopes_in_memory() -> None:
    envs = _game(3)
    assert validate_envelopes(envs).valid
    report = validate_envelopes(_broken(envs))
    assert not report.valid and report.games == 1 and report.events == len(envs)
    (f,) = report.errors
    assert f.file is None and f.line == f.seq  # place in the sequence given, from 1
    assert str(f).startswith(f"line {f.line}: game {f.game_id} seq {f.seq}:")
    lenient = validate_envelopes(_broken(envs), lenient=True)
    assert [x.seq for x in lenient.errors] == [f.seq]


def test_iter_records_goes_on_past_bad_lines(tmp_path: Path) -> None:
    envs = _game(4)
    path = tmp_path / "g.jsonl"
    L.write_jsonl(path, envs)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = b"[]\n"
    lines[-1] = lines[-1].rstrip(b"\n")
    path.write_bytes(b"".join(lines))
    got = list(L.iter_records(path))
    assert len(got) == len(envs)
    assert all(ok for _, r, ok in got if not isinstance(r, GostopError))  # hashes hold
    errors = [(n, r) for n, r, _ in got if isinstance(r, GostopError)]
    assert [n for n, _ in errors] == [2, len(envs)]
    assert "incomplete" in str(errors[1][1])


# --- load_game -----------------------------------------------------------------------------


def test_load_game_from_a_log(tmp_path: Path) -> None:
    a, b = _game(5), _game(6)
    path = tmp_path / "two.jsonl"
    L.write_jsonl(path, a + b)
    assert list(log_games(path)) == [a[0].game_id, b[0].game_id]
    gid, envs = load_game(path, game=b[0].game_id)
    assert gid == b[0].game_id and envs == b
    with pytest.raises(GameChoiceError) as choice:
        load_game(path)
    assert choice.value.games == (a[0].game_id, b[0].game_id)
    assert "holds 2 games: pick one" in str(choice.value)
    with pytest.raises(GameNotFound, match="there is no game 'nope'"):
        load_game(path, game="nope")
    one = tmp_path / "one.jsonl"
    L.write_jsonl(one, a)
    assert load_game(one) == (a[0].game_id, a)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(GameNotFound, match="holds no events"):
        load_game(empty)


def test_load_game_from_the_store(tmp_path: Path) -> None:
    envs = _game(7)
    db = tmp_path / "s.duckdb"
    with Store(db) as store:
        store.import_envelopes(envs, source="test")
        gid, got = load_game(store=store, game=envs[0].game_id)
        assert gid == envs[0].game_id and [e.hash for e in got] == [e.hash for e in envs]
        with pytest.raises(GameNotFound, match="there is no game 'nope' in the store"):
            load_game(store=store, game="nope")
    gid, got = load_game(db=db, game=envs[0].game_id)
    assert [e.seq for e in got] == [e.seq for e in envs]
    with pytest.raises(GameChoiceError):
        load_game(db=db)
    with pytest.raises(GameChoiceError):
        load_game(tmp_path / "x.jsonl", db=db, game="g")


# --- replay to a point ---------------------------------------------------------------------


def test_timeline_states_and_json() -> None:
    envs = _game(8, hands=2)
    tl = timeline(envs[0].game_id, envs)
    assert len(tl.states) == len(envs) and not tl.issues
    hand2 = tl.hand_range(2)
    assert envs[hand2.start].hand == 2 and envs[hand2.stop - 1].hand == 2
    i = tl.index_of_seq(10)
    d = tl.state_dict(i)
    assert d["seq"] == 10 and d == game_dict(tl.states[i], envs[i]) | {"seq": 10, "issues": []}
    assert json.loads(json.dumps(d)) == d
    end = tl.state_dict(len(envs) - 1)
    assert end["proof"] is not None and end["proof"]["winner"] == end["results"][-1]["winner"]
    with pytest.raises(GostopError, match="has no seq 9999"):
        tl.index_of_seq(9999)
    with pytest.raises(GostopError, match="has no hand 5"):
        tl.hand_range(5)


def test_timeline_keeps_the_issues_of_a_wrong_record() -> None:
    envs = _broken(_game(9))
    tl = timeline(envs[0].game_id, envs)
    assert len(tl.envelopes) == len(envs)
    (issue,) = [x for x in tl.issues if x.severity == "violation"]
    before = tl.state_dict(tl.index_of_seq(issue.seq) - 1)["issues"]
    after = tl.state_dict(tl.index_of_seq(issue.seq))["issues"]
    assert before == [] and after[0]["seq"] == issue.seq


# --- atomic writes -------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".jsonl", ".msgpack"])
def test_write_atomic(tmp_path: Path, suffix: str) -> None:
    envs = _game(10)
    path = tmp_path / f"g{suffix}"
    assert L.write_atomic(path, envs) == len(envs)
    assert list(L.read_log(path)) == envs
    assert not list(tmp_path.glob("*.part"))

    def interrupted() -> object:
        yield from envs[:5]
        raise RuntimeError("the producer failed")

    again = tmp_path / f"h{suffix}"
    with pytest.raises(RuntimeError):
        L.write_atomic(again, interrupted())  # type: ignore[arg-type]
    assert not again.exists() and not list(tmp_path.glob("*.part"))
    with pytest.raises(RuntimeError):
        L.write_atomic(path, interrupted())  # type: ignore[arg-type]
    assert list(L.read_log(path)) == envs  # the old file stays whole


# --- one report type, one chain check ------------------------------------------------------


def _tamperings(envs: list[E.Envelope]) -> dict[str, list[E.Envelope]]:
    changed = list(envs)
    changed[5] = msgspec.structs.replace(changed[5], by="someone else")
    swapped = list(envs)
    swapped[4], swapped[5] = swapped[5], swapped[4]
    return {
        "changed": changed,
        "removed": envs[:4] + envs[5:],
        "duplicated": envs[:5] + envs[4:],
        "swapped": swapped,
        "genesis": [msgspec.structs.replace(envs[0], prev="1" * 64), *envs[1:]],
    }


@pytest.mark.parametrize("how", ["changed", "removed", "duplicated", "swapped", "genesis"])
def test_one_chain_check_for_the_log_and_the_store(tmp_path: Path, how: str) -> None:
    from gostop_records.store.game_runs import check_links, first_bad_hash

    run = _tamperings(_game(11))[how]
    verified = L.verify(run)
    assert not verified.ok
    assert L.chain_break(run) == (verified.first_bad_seq, verified.reason)
    assert check_links(run, first_bad_hash(run)) == (verified.first_bad_seq, verified.reason)
    path = tmp_path / "t.jsonl"
    L.write_jsonl(path, run)
    from_file = L.verify_file(path)
    assert (from_file.first_bad_seq, from_file.reason) == (verified.first_bad_seq, verified.reason)


def test_problems_and_issues_are_findings_said_one_way() -> None:
    from gostop_records.errors import Finding
    from gostop_records.projector import project
    from gostop_records.store.game_runs import Problem

    p = Problem(
        file="a.jsonl",
        line=9,
        game_id="g1",
        seq=7,
        rule="hash_chain",
        reason="seq 7: prev is not the hash of seq 6",
    )
    assert isinstance(p, Finding)
    assert str(p) == "a.jsonl:9: game g1 seq 7: prev is not the hash of seq 6 [rule: hash_chain]"
    envs = _broken(_game(12))
    (issue,) = project(envs, strict=False).issues
    assert issue.severity == "violation" and str(issue).startswith(f"seq {issue.seq}: ")
    g = issue.at("x.jsonl", 4, envs[0].game_id)
    assert g.severity == "error" and g.rule == issue.rule and g.seq == issue.seq
    assert str(g).startswith(f"x.jsonl:4: game {envs[0].game_id} seq {issue.seq}: ")
    assert str(g).endswith(f" [rule: {issue.rule}]")


def test_the_command_line_holds_no_service_of_its_own() -> None:
    """cli/ parses, calls the library and renders: it runs no fold of its own, decodes,
    encodes or seals no log line and checks no chain (those are the library's services,
    shared with the HTTP service)."""
    import ast

    cli = Path(__file__).resolve().parents[1] / "cli"
    primitives = {
        "encode_json",
        "encode_msgpack",
        "decode_json_line",
        "json_records",
        "iter_jsonl",
        "iter_msgpack",
        "read_log",
        "verify",
        "Chain",
        "seal",
    }
    for path in sorted(cli.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module != "gostop_records.projector", path.name
                if node.module == "gostop_records.log":
                    assert not {a.name for a in node.names} & primitives, path.name
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "L"
            ):
                assert node.attr not in primitives, f"{path.name}: L.{node.attr}"
