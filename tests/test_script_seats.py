"""Scripts of a table of four or five: chips at the start of a sitting, the draw
for the first dealer, who sits out, a sitter's hand under the stock and its sale of brights,
all in the table grammar's lines, built, replayed and read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records import script as scripted
from gostop_records.engine.rulebook import seats as SEATS
from gostop_records.projector import project
from gostop_records.rules import resolve
from gostop_records.script import ScriptError

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "four-seats.jsonl"
FOUR = resolve(ROOT / "samples" / "rulesets" / "four.toml")
runner = CliRunner()

HEAD = "game g ruleset=gostop3 players=4 stake=2 names=Ann,Ben,Cho,Dan\n"
TABLE = "chips 200 200 200 80\ndraw night 0 05A 1 03R 2 11J1 3 08A\n"
DEAL = """\
seat1: 11G 06A ...
seat2: 01G 08G ...
seat3: 05J2 ...
layout: 01J1 03J1 08J1 11J1 05J1 06J1
stock: auto
"""


def _build(body: str) -> list[E.Envelope]:
    return scripted.build(HEAD + body, rules=FOUR, where="t.txt")


def _events(envs: list[E.Envelope], t: type) -> list:  # type: ignore[type-arg]
    return [e.event for e in envs if type(e.event) is t]


def test_a_sitter_hand_lies_under_the_stock_and_its_sale_is_made_there() -> None:
    envs = _build(TABLE + "hand out=Ann\nseat0: 12G 03G ...\n" + DEAL + "0 sell 12G 03G\n")
    assert project(envs).ok
    assert _events(envs, E.ChipsCounted) == [E.ChipsCounted(chips=[200, 200, 200, 80])]
    (drawn,) = _events(envs, E.DealerDrawn)
    assert drawn.night and drawn.dealer == 1  # Ben drew March, the lowest month
    (started,) = _events(envs, E.HandStarted)
    assert (started.dealer, started.order) == (1, [1, 2, 3])
    assert _events(envs, E.SeatsSatOut) == [E.SeatsSatOut(seats=[0], rule="choice")]
    (dealt,) = _events(envs, E.CardsDealt)
    assert dealt.hands[0] is None and dealt.stock is not None
    block = SEATS.seller_block([C.index(c) for c in dealt.stock], [0], 0, 7)
    assert {"12G", "03G"} <= set(C.codes(sum(1 << i for i in block)))
    assert _events(envs, E.BrightsSold) == [E.BrightsSold(seat=0, cards=["12G", "03G"])]
    dues = [(d.payer, d.payee, d.points, d.chips) for d in _events(envs, E.PaymentDue)]
    assert dues == [(p, 0, 10, 20) for p in (1, 2, 3)]  # 2 brights x 5 points x stake 2
    # the deck recorded deals this very hand (the sitter's block included)
    assert started.deck is not None and started.deck[-7:] == dealt.stock[-7:]


def test_out_and_order_name_who_plays_and_the_winner_deals_next() -> None:
    first = _build(TABLE + "hand order=Ben,Cho,Dan\n" + DEAL)
    (started,) = _events(first, E.HandStarted)
    assert started.order == [1, 2, 3]
    # a sitter's line may be left out: its hand is filled under the stock
    envs = _build(TABLE + "hand out=0\n" + DEAL + "1 play 11G\n")
    assert project(envs).ok


def test_the_sample_is_read_back_as_the_same_script() -> None:
    envs = list(L.read_log(SAMPLE))
    text = scripted.script_of(envs)
    assert "chips 200 200 200 80" in text and "0 sell 12G" in text
    assert "hand dealer=1 order=1,2,3" in text and "draw night 0 05A" in text
    again = scripted.build(text, rules=FOUR)
    assert [e.event for e in again] == [e.event for e in envs]


def test_the_sample_audits_clean_with_the_shortfall_on_the_books() -> None:
    p = project(list(L.read_log(SAMPLE)))
    assert p.ok and p.game is not None
    assert p.game.shortfalls == ((1, 3, 2, 60, 30, "loser_holdings"),)
    assert p.game.holdings() == [350, 120, 210, 0]
    result = runner.invoke(app, ["audit", str(SAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    (hand,) = json.loads(result.stdout)["hands"]
    assert {p["status"] for p in hand["payments"]} == {"agreed"}


def test_the_terminal_proof_says_what_the_capped_loser_paid() -> None:
    """The proof shows the 60 chips the rules make due; the chips held capped it at 30."""
    result = runner.invoke(app, ["replay", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert "3 points x 2 = 6 points x stake 10 = 60 chips" in result.stdout
    tail = result.stdout.split("capped by the chips on the table:")[1]
    assert "capped at what the loser holds: Dan pays Cho 30 of 60 chips (short 30)" in tail


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (TABLE + "hand out=Ann\n" + DEAL.replace("seat2: 01G 08G ...\n", ""), "no line for seat2"),
        (TABLE + "hand out=Zed\n" + DEAL, "t.txt, line 4: 'Zed' is not a seat"),
        (TABLE + "hand dealer=0 out=Ann\n" + DEAL, "seat 1 deals hand 1"),
        (
            TABLE + "hand out=Ann\nseat0: 12G\n" + DEAL,
            "seat 0 sits out and its line lists 1 of the 7",
        ),
        (
            TABLE + "hand out=Ann\nseat0: 12G ...\n" + DEAL + "0 sell 01G\n",
            "01G not in seat 0's hand",
        ),
        (TABLE + "hand out=Ann\nseat0: 12G ...\n" + DEAL + "1 sell 12G\n", "seat 1 plays"),
        ("chips 200 200\n", "2 counts for 4 seats"),
        ("chips 200 200 200 80\nhand\n" + DEAL, "record dealer_drawn first"),
        ("draw night 0 05A 1 05R\n", "line 2"),
    ],
)
def test_a_script_the_table_refuses_names_the_line_and_the_reason(body: str, why: str) -> None:
    with pytest.raises(ScriptError) as exc:
        _build(body)
    assert why in str(exc.value)


def test_the_audit_of_a_hand_in_progress_lists_the_sale_as_paid_so_far() -> None:
    """Cut after the sale (seq 10): the hand is in progress, its dues so far are the sale."""
    from gostop_records.audit import audit_game

    envs = list(L.read_log(SAMPLE))[:10]
    (hand,) = audit_game(envs).hands
    got = [(i.payer, i.payee, i.points, i.chips, i.reason) for i in hand.instants]
    assert got == [(p, 0, 5, 50, "gwang_pali") for p in (1, 2, 3)]
