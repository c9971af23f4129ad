"""``gostop record``: whole games from scripts, refusals, undo, questions, kill and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest
from gostop_cli.app import app
from record_helpers import script_for, sim_payloads
from typer.testing import CliRunner, Result

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.engine.state import Phase
from gostop_records.integrity import checkpoints as CP
from gostop_records.projector import project
from gostop_records.validate import validate_files

runner = CliRunner()
PRESET_GAMES = [
    pytest.param("cardavia", 2, 5, id="cardavia"),
    pytest.param("gamerules", 2, 7, id="gamerules-2p"),
    pytest.param("gamerules", 3, 2, id="gamerules-3p"),
    pytest.param("matgo", 2, 3, id="matgo"),
    pytest.param("gostop3", 3, 4, id="gostop3"),
]
NAMES = ["Ann", "Ben", "Cho"]


def record(
    log: Path, *extra: str, input: str | None = None, players: int = 2, ruleset: str = "matgo"
) -> Result:
    args = ["record", "--log", str(log), *extra]
    if "--resume" not in extra:
        args += ["--players", ",".join(NAMES[:players]), "--ruleset", ruleset, "--game-id", "g1"]
    return runner.invoke(app, args, input=input)


def payloads(path: Path) -> list[dict[str, Any]]:
    """Event payloads in order, without what differs between recordings (times, hashes,
    keys and signatures, the person ids minted for the players)."""
    out = []
    for env in L.read_log(path):
        if E.is_metadata(env.event):
            continue
        d = E.payload_to_dict(env.event)
        if d["type"] == "hand_started":
            d["deck"] = None
        if d["type"] == "game_started":  # each recording mints its own person ids
            d["players"] = [{"id": "", "name": p["name"]} for p in d["players"]]
        out.append(d)
    return out


def sim_dicts(sim: list[Any]) -> list[dict[str, Any]]:
    out = []
    for p in sim:
        d = E.payload_to_dict(p)
        if d["type"] == "hand_started":
            d["deck"] = None
        out.append(d)
    return out


def write_script(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("preset", "players", "seed"), PRESET_GAMES)
def test_a_complete_hand_per_preset(tmp_path: Path, preset: str, players: int, seed: int) -> None:
    sim = sim_payloads(preset, players, seed)
    script = write_script(tmp_path / "hand.txt", script_for(sim))
    log = tmp_path / "g.jsonl"
    res = record(log, "--script", str(script), players=players, ruleset=preset)
    assert res.exit_code == 0, res.stderr
    assert res.stderr.count("error") == 0
    report = validate_files([log])
    assert report.valid and report.games == 1, [str(f) for f in report.errors]
    assert payloads(log)[1:] == sim_dicts(sim)[1:]
    game = project(list(L.read_log(log))).game
    assert game is not None and game.results and game.hand is not None
    assert game.hand.phase is Phase.ENDED
    # the outcome is shown as it happens
    assert "hand over:" in res.stdout
    assert "\x1b[" not in res.stdout  # no colour when stdout is not a terminal


def test_refused_lines_write_nothing_and_the_script_goes_on(tmp_path: Path) -> None:
    sim = sim_payloads("gostop3", 3, 4)
    lines = script_for(sim)
    ref = tmp_path / "ref.jsonl"
    assert record(ref, input="\n".join(lines) + "\n", players=3, ruleset="gostop3").exit_code == 0
    bad = ["play 13X", "flip 01G", "frobnicate now", "pay Ann->Zed 3", "go", "play 08G"]
    mixed = [lines[0], lines[1], *bad, *lines[2:]]
    log = tmp_path / "g.jsonl"
    res = record(
        log, "--script", str(write_script(tmp_path / "s.txt", mixed)), players=3, ruleset="gostop3"
    )
    assert res.exit_code == 1
    err = res.stderr
    assert "line 3: play 13X: unknown card code '13X'" in err
    top = next(p for p in sim if type(p) is E.CardsDealt).stock[0]
    assert f"line 4: flip 01G: the next stock card is {top}, not 01G" in err
    assert "[rule: flip_is_stock_top]" in err
    assert "line 5: frobnicate now: unknown command 'frobnicate'" in err
    assert "line 6: pay Ann->Zed 3: 'Zed' is not a seat" in err
    assert "line 7: go: nobody may say Go or Stop now" in err
    assert "line 8: play 08G: a played card is not expected now" in err
    assert "[rule: turn_order]" in err
    assert "6 line(s) refused" in err
    assert payloads(log) == payloads(ref)
    assert validate_files([log]).valid


def test_undo_in_a_script(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    lines = script_for(sim)
    ref = tmp_path / "ref.jsonl"
    assert record(ref, input="\n".join(lines) + "\n").exit_code == 0
    # after the deal, a wrong but legal card is entered, then undone
    wrong = "play 08J2" if lines[1] != "play 08J2" else "play 07R"
    script = [lines[0], wrong, "undo wrong card", *lines[1:]]
    log = tmp_path / "g.jsonl"
    res = record(log, "--no-sign", input="\n".join(script) + "\n")
    assert res.exit_code == 0, res.stderr
    assert "undo: the entry at seq 4 is retracted (wrong card)" in res.stdout
    got = payloads(log)
    assert got[3] == {"type": "card_played", "seat": 0, "card": wrong.split()[1], "chosen": None}
    assert got[4] == {"type": "entry_retracted", "seq": 4, "reason": "wrong card"}
    assert got[:3] + got[5:] == payloads(ref)
    assert validate_files([log]).valid
    a = project(list(L.read_log(log))).game
    b = project(list(L.read_log(ref))).game
    assert a is not None and b is not None and a.hand is not None and b.hand is not None
    assert a.hand.to_dict() == b.hand.to_dict()


def test_two_matching_cards_ask_on_the_next_line(tmp_path: Path) -> None:
    sims = (sim_payloads("matgo", 2, seed) for seed in range(40))
    sim = next(s for s in sims if any(type(p) is E.CardPlayed and p.chosen for p in s))
    lines = script_for(sim)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("play ") and len(ln.split()) == 3)
    _, card, take = lines[k].split()
    asked = [*lines[:k], f"{card.lower()}", "9Z", f"{card}", take.lower(), *lines[k + 1 :]]
    log = tmp_path / "g.jsonl"
    res = record(log, input="\n".join(asked) + "\n")
    # the bare card is played; "9Z" is not one of the two cards: that entry is refused
    assert res.exit_code == 1
    assert f"{card} matches" in res.stderr and "'9Z' is not one of" in res.stderr
    assert payloads(log)[1:] == sim_dicts(sim)[1:]


def test_guided_deal(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    deal = next(p for p in sim if type(p) is E.CardsDealt)
    started = next(p for p in sim if type(p) is E.HandStarted)
    answers = ["deal", str(started.dealer), " ".join(deal.layout), "?", "", "", ""]
    log = tmp_path / "g.jsonl"
    res = record(log, input="\n".join(answers) + "\n")
    assert res.exit_code == 0, res.stderr
    got = payloads(log)
    assert got[2] == {
        "type": "cards_dealt",
        "hands": [None, None],
        "layout": deal.layout,
        "stock": None,
        "bonus_to_pile": [],
    }


def test_names_notes_and_payments(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    due = [d for d in sim if type(d) is E.PaymentDue]
    assert len(due) == 1 and (due[0].payer, due[0].payee) == (1, 0)
    # the short payment is the event after the whole game but its one payment_recorded
    pay_seq = sum(1 for p in sim if type(p) is not E.PaymentRecorded) + 1
    lines = [ln for ln in script_for(sim) if not ln.startswith("pay ")]
    lines += [
        "pay ben->ANN 10 paid short, disputed",
        f"note @{pay_seq} they agreed on 10",
        "show",
        "log 2",
        "proof",
        "help",
    ]
    log = tmp_path / "g.jsonl"
    res = record(log, input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.stderr
    got = payloads(log)
    assert got[-2] == {
        "type": "payment_recorded",
        "payer": 1,
        "payee": 0,
        "chips": 10,
        "note": "paid short, disputed",
    }
    assert got[-1] == {"type": "note_added", "text": "they agreed on 10", "about_seq": pay_seq}
    assert len(got) == pay_seq + 1
    out = res.stdout
    assert f"payments due: Ben->Ann {due[0].chips}" in out
    stop = next(p for p in sim if type(p) is E.StopCalled)
    assert f"payout proof: Ann wins with {stop.score} points" in out
    assert "pay PAYER->PAYEE N [NOTE]" in out  # help
    c = due[0].chips
    assert f"ledger  Ann +{c} due / +10 paid | Ben -{c} due / -10 paid" in out  # show


def test_pay_accepts_the_amounts_due(tmp_path: Path) -> None:
    sim = sim_payloads("gostop3", 3, 4)
    lines = [ln for ln in script_for(sim) if not ln.startswith("pay ")] + ["pay"]
    log = tmp_path / "g.jsonl"
    res = record(log, input="\n".join(lines) + "\n", players=3, ruleset="gostop3")
    assert res.exit_code == 0, res.stderr
    assert sum(type(p) is E.PaymentRecorded for p in sim) == 2  # both losers pay
    assert payloads(log)[1:] == sim_dicts(sim)[1:]


def test_usage_and_rejections(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    res = runner.invoke(app, ["record", "--log", str(log)])
    assert res.exit_code == 2 and "--players" in res.stderr
    res = runner.invoke(app, ["record", "--log", str(log), "--db", "x.duckdb", "--players", "A,B"])
    assert res.exit_code == 2
    res = runner.invoke(app, ["record", "--log", str(log), "--resume", "nope"])
    assert res.exit_code == 1 and "no such log file" in res.stderr
    assert record(log, input="quit\n").exit_code == 0
    res = runner.invoke(app, ["record", "--log", str(log), "--resume", "nope"])
    assert res.exit_code == 1 and "there is no game 'nope'" in res.stderr
    res = record(log, input="quit\n")
    assert res.exit_code == 1 and "already exists" in res.stderr
    res = runner.invoke(
        app, ["record", "--log", str(log), "--players", "A,B,C,D,E,F", "--game-id", "x"]
    )
    assert res.exit_code == 1 and "is played by 3 players, not 6" in res.stderr
    res = runner.invoke(app, ["record", "--help"])
    assert res.exit_code == 0 and "pay PAYER->PAYEE" in res.stdout


def _count_events_after(tmp_path: Path, lines: list[str]) -> int:
    log = tmp_path / "partial.jsonl"
    assert record(log, input="\n".join(lines) + "\n").exit_code == 0
    return len(log.read_bytes().splitlines())


def test_killed_mid_hand_and_resumed(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    lines = script_for(sim)
    ref = tmp_path / "ref.jsonl"
    assert record(ref, input="\n".join(lines) + "\n").exit_code == 0
    n = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("play ")) + 1
    want = _count_events_after(tmp_path, lines[:n])

    log = tmp_path / "g.jsonl"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    cmd = [
        sys.executable,
        "-m",
        "gostop_cli.app",
        "record",
        "--players",
        "Ann,Ben",
        "--ruleset",
        "matgo",
        "--log",
        str(log),
        "--game-id",
        "g1",
    ]
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    guard = threading.Timer(60, proc.kill)  # never hang the suite if the child misbehaves
    guard.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for line in lines[:n]:
            proc.stdin.write(line + "\n")
        proc.stdin.flush()
        # the seq of the last event is printed only after it is on disk
        for out in proc.stdout:
            if out.strip().startswith(f"{want} "):
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        guard.cancel()
    assert proc.returncode == -signal.SIGKILL
    assert len(log.read_bytes().splitlines()) == want
    state = project(list(L.read_log(log))).game
    assert state is not None and state.hand is not None and state.hand.phase is Phase.FLIP

    # a write torn by a crash: half of the next line, never acknowledged
    ref_lines = ref.read_bytes().splitlines(keepends=True)
    with open(log, "ab") as f:
        f.write(ref_lines[want][:50])
    res = record(log, "--resume", "g1", input="\n".join(lines[n:]) + "\n")
    assert res.exit_code == 0, res.stderr
    assert "cut off an incomplete last record (50 bytes)" in res.stderr
    assert "resumed game g1" in res.stdout
    assert payloads(log) == payloads(ref)
    assert validate_files([log]).valid


def test_recording_into_the_store(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    lines = script_for(sim)
    db = tmp_path / "g.duckdb"
    base = ["record", "--db", str(db)]
    res = runner.invoke(
        app, [*base, "--players", "Ann,Ben", "--game-id", "g1"], input="\n".join(lines[:12]) + "\n"
    )
    assert res.exit_code == 0, res.stderr
    assert f"--resume g1 --db {db}" in res.stderr
    res = runner.invoke(app, [*base, "--resume", "g1"], input="\n".join(lines[12:]) + "\n")
    assert res.exit_code == 0, res.stderr
    res = runner.invoke(app, ["replay", "--db", str(db), "--game", "g1", "--json"])
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    # and the recorder's key, the checkpoints of the hand's end and of its payment
    assert data["seq"] == len(sim) + 3 and data["hand"]["outcome"] == "stop"
    from gostop_records.store import Store

    with Store(db, read_only=True) as store:
        envs = store.events("g1")
        assert store.verify().ok
    signed = CP.check(envs)
    assert signed.ok and len(signed.keys) == 1  # the resumed session kept the game's key
    stored = [E.payload_to_dict(e.event) for e in envs if not E.is_metadata(e.event)]
    for d in stored:
        if d["type"] == "hand_started":
            d["deck"] = None
    assert stored[1:] == sim_dicts(sim)[1:]


def test_the_interactive_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gostop_cli.common import LineReader
    from gostop_cli.record_session import Session
    from gostop_cli.render import Painter

    from gostop_records.recorder import JsonlSink, RecordingSession

    rec = RecordingSession.start(JsonlSink(tmp_path / "g.jsonl"), ["Ann", "Ben"], "matgo")
    layout = "01G 01J1 02A 03G 04A 05A 06A 07A"
    answers = iter(
        [f"deal layout {layout}", "play 01R", "12G", "", "play 13Z", "play 01R", "2", "show"]
    )
    prompts: list[str] = []

    def fake_input(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    out: list[str] = []
    err: list[str] = []
    loop = Session(rec, LineReader(None, True), out=out.append, err=err.append, paint=Painter())
    loop.greet(resumed=False)
    loop.run()
    assert prompts[0] == "[hand 1] deal> "
    assert prompts[1] == "[hand 1] Ann to play> "
    question = "01R matches 01G and 01J1 on the layout: which does it take? [01G/01J1] "
    assert prompts[2] == question and prompts[3] == question  # asked again after "12G"
    assert err[0] == "refused: '12G' is not one of 01G/01J1"
    assert err[1] == "refused: 01R: no layout card chosen, the entry is cancelled"
    assert err[2].startswith("refused: unknown card code '13Z'")
    assert prompts[-2] == "[hand 1] Ann to flip> "  # after the second play, the 2nd choice
    assert rec.envelopes[-1].event == E.CardPlayed(seat=0, card="01R", chosen="01J1")
    assert "type help for the commands; Tab completes them and the cards playable now" in out
    assert any(line.startswith("> Ann (seat 0)") for line in "\n".join(out).splitlines())
    rec.close()


def test_colour_only_when_asked() -> None:
    from gostop_cli.render import Painter, render_game

    sim = sim_payloads("matgo", 2, 3)
    envs = L.seal(
        L.envelope("g", i, None if i == 1 else 1, p, by="t") for i, p in enumerate(sim[:3], 1)
    )
    game = project(envs).game
    assert game is not None
    assert "\x1b[" in render_game(game, paint=Painter(True))
    plain = render_game(game, paint=Painter(False))
    assert "\x1b[" not in plain and "layout  " in plain


SPECIALS = [
    pytest.param(20, id="bomb-and-flip-only"),
    pytest.param(27, id="four-of-a-month"),
    pytest.param(0, id="go-shake-cup"),
    pytest.param(1, id="bonus-at-the-deal"),
    pytest.param(53, id="deal-voided"),
]


@pytest.mark.parametrize("seed", SPECIALS)
@pytest.mark.parametrize("hidden", [False, True], ids=["known", "hidden"])
def test_every_kind_of_entry(tmp_path: Path, seed: int, hidden: bool) -> None:
    sim = sim_payloads("matgo", 2, seed)
    log = tmp_path / "g.jsonl"
    script = write_script(tmp_path / "s.txt", script_for(sim, hidden=hidden))
    res = record(log, "--script", str(script))
    assert res.exit_code == 0, res.stderr
    assert validate_files([log]).valid
    got = payloads(log)
    inputs = [d for d in sim_dicts(sim) if E.is_input(msgspec.convert(d, E.Event))]
    recorded = [d for d in got if E.is_input(msgspec.convert(d, E.Event))]
    if not hidden:
        assert got[1:] == sim_dicts(sim)[1:]
    else:  # the same entries; the deal leaves the hands and the stock unknown
        deal = next(i for i, d in enumerate(inputs) if d["type"] == "cards_dealt")
        assert recorded[deal]["hands"] == [None, None] and recorded[deal]["stock"] is None
        assert recorded[deal]["layout"] == inputs[deal]["layout"]
        assert recorded[1:deal] + recorded[deal + 1 :] == inputs[1:deal] + inputs[deal + 1 :]


def test_a_typo_of_a_card_is_told_as_such(tmp_path: Path) -> None:
    sim = sim_payloads("matgo", 2, 3)
    lines = script_for(sim)
    log = tmp_path / "g.jsonl"
    res = record(log, "--script", str(write_script(tmp_path / "s.txt", [lines[0], "8x"])))
    assert res.exit_code == 1
    assert "line 2: 8x: '8x' is not a card code" in res.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--db", "s.duckdb", "--log", "t.jsonl"], "give --db or --log, not both"),
        (["--log", "t.jsonl", "--key", "k.key", "--no-sign"], "give --key or --no-sign, not both"),
    ],
)
def test_options_that_exclude_each_other_are_refused_before_anything_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["record", "--players", "Ann,Ben", *args], input="quit\n")
    assert res.exit_code == 2
    assert words in " ".join(res.output.split())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--players", "Ann"], "is played by 2 players, not 1"),
        (["--players", "Ann,Ben", "--ruleset", "nosuch"], "unknown ruleset 'nosuch'"),
        (["--players", "Ann,Ben", "--game-id", " "], "the game id is empty"),
    ],
)
def test_a_game_refused_at_its_start_makes_no_key_and_no_file(
    tmp_path: Path, args: list[str], words: str
) -> None:
    keys, log = tmp_path / "keys", tmp_path / "friday.jsonl"
    res = runner.invoke(
        app, ["record", "--log", str(log), *args], input="quit\n", env={"GOSTOP_KEYS": str(keys)}
    )
    assert res.exit_code == 1
    assert words in res.stderr
    assert not log.exists()
    assert not keys.exists() or list(keys.iterdir()) == []
    # the same command with the mistake mended records at once, into a new file
    res = runner.invoke(
        app,
        ["record", "--log", str(log), "--players", "Ann,Ben"],
        input="quit\n",
        env={"GOSTOP_KEYS": str(keys)},
    )
    assert res.exit_code == 0
    assert len(list(keys.iterdir())) == 1 and log.exists()
