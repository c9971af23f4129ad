"""What the terminal says, as a person reads it: names rather than seats, the September cup
with its reason, a flip that stays, a stock with bonus cards, a tiny simulation's time."""

from __future__ import annotations

import re
from pathlib import Path

from gostop_cli.app import app
from gostop_cli.render import render_seat_view
from pty_support import Terminal
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import words
from gostop_records.projector import project

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_a_card_elsewhere_is_told_with_the_players_names(tmp_path: Path) -> None:
    term = Terminal(
        "record", "--players", "Ann,Ben", "--log", str(tmp_path / "g.jsonl"), "--no-sign"
    )
    term.expect(r"deal> $")
    term.send(
        "deal layout 01G 01R 02A 02R 03G 03R 04A 04R hand 0 05A 05R 05J1 06A 06R 06J1 07A "
        "07R 07J1 08G hand 1 09A 09R 09J1 10A 10R 10J1 11G 11D 11J1 12G\r"
    )
    term.expect(r"Ann to play> $")
    term.send("play 09A\r")
    term.expect(r"refused: Ann does not hold 09A: it is in Ben's hand")
    term.send("quit\r")
    assert term.wait() == 0


def test_play_matgo_says_where_the_bonus_cards_are_and_which_flips_stay(tmp_path: Path) -> None:
    term = Terminal(
        "play", "-r", "matgo", "--seed", "5", "--log", str(tmp_path / "p.jsonl"), cols=120
    )
    term.expect(r"Dealt: 10 cards each, 8 face up, 22 in the stock \(the deck's 2 bonus cards")
    term.expect(r"stock   22 cards, face down \(the deck's 2 bonus cards make 50\)")
    term.expect(r"your card> $")
    term.send("1\r")
    flip = term.expect(r"Computer flips (\w+): it stays on the layout\n")
    term.expect(r"your card> $")
    term.send("quit\r")
    term.wait()
    # the flipped card is on the layout after that turn: told right
    assert re.search(rf"layout .*{flip.group(1)}", term.shown[term.shown.index(flip.group(0)) :])


def test_the_cup_in_a_pile_says_why_it_counts_so() -> None:
    envs = list(L.read_log(SAMPLES / "cup-animal-meong-tta.jsonl"))
    cut = next(e.seq for e in envs if isinstance(e.event, E.CupAssigned))
    game = project(envs, strict=False, until_seq=cut).game
    assert game is not None
    seat = next(e.event.seat for e in envs if isinstance(e.event, E.CupAssigned))
    text = render_seat_view(game, 1 - seat)
    line = next(ln for ln in text.splitlines() if "cup as" in ln)
    assert re.search(r"cup as (animal|junk) \(.+\)", line), line


def test_rates_of_tiny_and_long_runs(tmp_path: Path) -> None:
    assert words.rate_words(20, "hand", 0.025) == "in 25 ms"
    assert words.rate_words(1, "hand", 0.0) == "in 0 ms"
    assert words.rate_words(2000, "hand", 2.5) == "in 2.5 s (800 hands/s)"
    assert words.rate_words(20000, "hand", 2.0) == "in 2.0 s (10,000 hands/s)"
    res = CliRunner().invoke(
        app, ["simulate", "--hands", "2", "--seed", "1", "--out", str(tmp_path)]
    )
    assert res.exit_code == 0, res.stderr
    assert re.search(
        r"2 hand\(s\), \d+ event\(s\) in (\d+ ms|\d+\.\d s \([\d,]+ hands/s\)):", res.stdout
    )
