"""``gostop replay``: the table at chosen points of a log, the end of a hand, stepping."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from gostop_cli.app import app
from pty_support import Terminal
from typer.testing import CliRunner, Result

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.projector import project
from gostop_records.replay import timeline
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game

runner = CliRunner()


def replay(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, ["replay", *args], input=input)


@pytest.fixture
def game_log(tmp_path: Path) -> tuple[Path, list[E.Envelope]]:
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 2, 3))
    path = tmp_path / "g.jsonl"
    L.write_log(path, envs)
    return path, envs


def _json_at(path: Path, seq: int) -> dict[str, Any]:
    res = replay(str(path), "--at", str(seq), "--json")
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def _seat(data: dict[str, Any], seat: int) -> dict[str, Any]:
    return data["hand"]["seats"][seat]


def _pile(seat: dict[str, Any]) -> set[str]:
    return {c for kind in seat["pile"].values() for c in kind}


def test_after_the_deal(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    deal_env = next(e for e in envs if type(e.event) is E.CardsDealt)
    deal = deal_env.event
    data = _json_at(path, deal_env.seq)
    hand = data["hand"]
    on_layout = {c for m in hand["layout"] for c in m["cards"]}
    assert on_layout == set(deal.layout)
    assert hand["stock_count"] == len(deal.stock)
    assert hand["stock_next"] == deal.stock[0]
    for s in range(2):
        assert set(_seat(data, s)["hand"]) == set(deal.hands[s])
        assert _seat(data, s)["score"] == 0 and _pile(_seat(data, s)) == set()
    assert data["event"]["seq"] == deal_env.seq
    assert [p["name"] for p in data["players"]] == ["Player 1", "Player 2"]


def test_after_captures_and_at_the_stop(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    cap = [e for e in envs if type(e.event) is E.CardsCaptured and e.hand == 1][3]
    data = _json_at(path, cap.seq)
    seat = _seat(data, cap.event.seat)
    assert set(cap.event.cards) <= _pile(seat)
    assert not set(cap.event.cards) & {c for m in data["hand"]["layout"] for c in m["cards"]}
    # the same table as the projector's at that point
    game = project(envs, until_seq=cap.seq).game
    assert game is not None and game.hand is not None
    want = game.hand.to_dict()
    for s in want["seats"]:
        s["name"] = f"Player {s['seat'] + 1}"
    assert {k: v for k, v in data["hand"].items() if k not in ("decider", "played")} == want

    stop = next(e for e in envs if type(e.event) is E.StopCalled and e.hand == 1)
    data = _json_at(path, stop.seq + 1)  # hand_ended
    assert data["hand"]["outcome"] == "stop"
    assert data["hand"]["winner"] == stop.event.seat
    assert _seat(data, stop.event.seat)["score"] == stop.event.score
    due = next(e.event for e in envs if type(e.event) is E.PaymentDue and e.hand == 1)
    assert data["proof"]["dues"][0]["chips"] == due.chips


def test_text_at_a_point(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    ppuk = next((e for e in envs if type(e.event) is E.PpukMade), None)
    target = ppuk or envs[10]
    res = replay(str(path), "--at", str(target.seq))
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert f"-- seq {target.seq} of {envs[-1].seq}, hand {target.hand} --" in out
    assert f"event   seq {target.seq}: " in out
    assert "layout  " in out and "Player 1 (seat 0)" in out and "stock   " in out
    if ppuk is not None:
        assert f"ppuk of Player {ppuk.event.seat + 1}" in out
        assert " ".join(ppuk.event.cards) in out


def test_hand_alone_shows_its_end(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    last_of_1 = max(e.seq for e in envs if e.hand == 1)
    res = replay(str(path), "--hand", "1", "--json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["seq"] == last_of_1 and data["hand"]["phase"] == "ended"
    res = replay(str(path), "--json")
    assert json.loads(res.stdout)["seq"] == envs[-1].seq


def test_bad_points_are_refused(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, _ = game_log
    res = replay(str(path), "--at", "9999")
    assert res.exit_code == 1 and "has no seq 9999" in res.stderr
    res = replay(str(path), "--hand", "2", "--at", "3")
    assert res.exit_code == 1 and "seq 3 is not in hand 2" in res.stderr
    res = replay(str(path), "--hand", "7")
    assert res.exit_code == 1 and "has no hand 7" in res.stderr
    assert replay().exit_code == 2
    assert replay(str(path), "--step", "--json").exit_code == 2


def test_step_forward_and_back(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    first = min(e.seq for e in envs if e.hand == 2)
    res = replay(str(path), "--hand", "2", "--step", input="n\n\np\nx\n" + f"{first + 9}\nq\n")
    assert res.exit_code == 0, res.stderr
    heads = [ln.split(" of ")[0] for ln in res.stdout.splitlines() if ln.startswith("-- seq ")]
    seqs = [int(h.removeprefix("-- seq ")) for h in heads]
    assert seqs == [first, first + 1, first + 2, first + 1, first + 9]
    assert "unknown key 'x'" in res.stdout and "t next turn" in res.stdout


def test_step_stays_within_the_hand(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    last = max(e.seq for e in envs if e.hand == 1)
    res = replay(str(path), "--hand", "1", "--at", str(last), "--step", input="n\n1\n")
    assert res.exit_code == 0
    assert "at the last event" in res.stdout
    assert "seq 1 is outside" in res.stdout


def test_a_log_of_several_games(tmp_path: Path) -> None:
    a = play_game(GameSpec(PRESETS["matgo"], 2, 1, 1))
    b = play_game(GameSpec(PRESETS["gostop3"], 3, 1, 2))
    path = tmp_path / "two.jsonl"
    L.write_log(path, [*a, *b])
    res = replay(str(path))
    said = " ".join(res.stderr.replace("│", " ").split())
    assert res.exit_code == 2 and "holds 2 games: pick one" in said
    res = replay(str(path), "--game", b[0].game_id, "--at", "3", "--json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["game_id"] == b[0].game_id and len(data["hand"]["seats"]) == 3


def test_a_log_that_breaks_the_rules_still_replays(tmp_path: Path) -> None:
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 1, 3))
    k = next(i for i, e in enumerate(envs) if type(e.event) is E.CardsCaptured)
    ev = envs[k].event
    other = next(c for c in C.codes(C.MONTH_MASKS[12]) if c not in ev.cards)
    bad = msgspec.structs.replace(ev, cards=[ev.cards[0], other])
    envs[k] = msgspec.structs.replace(envs[k], event=bad)
    path = tmp_path / "bad.jsonl"
    L.write_log(path, L.seal(envs))
    res = replay(str(path), "--at", str(envs[k].seq + 3))
    assert res.exit_code == 0
    assert f"seq {envs[k].seq}: the log records cards_captured" in res.stderr


def _seqs(out: str) -> list[int]:
    return [int(m) for m in re.findall(r"^-- seq (\d+) of", out, re.M)]


def test_step_by_turn_and_hand_in_lines(game_log: tuple[Path, list[E.Envelope]]) -> None:
    path, envs = game_log
    tl = timeline(envs[0].game_id, envs)
    ends = tl.turn_ends()
    h1 = tl.hand_range(1)
    h2 = tl.hand_range(2)
    res = replay(str(path), "--step", input="t\nt\nb\ne\n]\ne\n[\ns\n?\nq\n")
    assert res.exit_code == 0, res.stderr
    seq = [e.seq for e in tl.envelopes]
    first_ends = [k for k in ends if k > 0]
    assert _seqs(res.stdout) == [
        seq[0],
        seq[first_ends[0]],
        seq[first_ends[1]],
        seq[first_ends[0]],
        seq[h1.stop - 1],
        seq[h2.start],
        seq[h2.stop - 1],
        seq[h1.start],
        seq[h1.start],
    ]
    assert "the start / the end of this hand" in res.stdout  # ? shows the keys in full
    # a turn is a play with its flip and what they caused: never ends on a play itself
    for k in ends:
        assert E.event_type(tl.envelopes[k].event) not in ("card_played", "shaken")


def test_step_at_a_terminal_keys_alone_or_with_enter(
    game_log: tuple[Path, list[E.Envelope]],
) -> None:
    path, envs = game_log
    first = min(e.seq for e in envs if e.hand == 2)
    term = Terminal("replay", str(path), "--hand", "2", "--step")
    term.expect(rf"-- seq {first} of")
    term.expect("t next turn, b back a turn")  # the key hint is on the screen
    term.send("n")
    term.expect(rf"-- seq {first + 1} of")
    term.send("n\r")  # Enter after a key does not move again
    term.expect(rf"-- seq {first + 2} of")
    term.send("p\r")
    term.expect(rf"-- seq {first + 1} of")
    term.send("\r")  # Enter alone: next
    term.expect(rf"-- seq {first + 2} of")
    term.send(f"{first + 9}\r")  # a seq, typed and entered
    term.expect(rf"-- seq {first + 9} of")
    term.send("e")
    last = max(e.seq for e in envs if e.hand == 2)
    term.expect(rf"-- seq {last} of")
    term.send("q")
    assert term.wait() == 0
    assert "-- seq" not in term.text  # nothing moved after q
