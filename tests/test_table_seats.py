"""The table around the hand: 4 or 5 seats with three playing each hand, gwang-pali,
chips on the table and the first dealer by draw, through the engine, the CLI and the store.

Every setting here defaults to a value under which a table of two or three plays exactly as
before it existed (``rules.ADDED_FIELDS``), so the presets keep their hashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM
from gostop_cli.app import app
from hypothesis import given, settings
from hypothesis import strategies as st
from record_helpers import command_of
from service_helpers import KEY, Server, auth, service_client
from typer.testing import CliRunner

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records import notation, words
from gostop_records.engine import GameState, apply_game, start_game
from gostop_records.engine.rulebook import seats as SEATS
from gostop_records.engine.table import table_for
from gostop_records.errors import IllegalAction, RulesetError
from gostop_records.projector import project
from gostop_records.rules import ADDED_FIELDS, PRESETS, Ruleset, apply_overrides
from gostop_records.sim.dealer import deal
from gostop_records.sim.selfplay import GameSpec, play_game, play_payloads
from gostop_records.store import Store

runner = CliRunner()
NAMES = ["Ann", "Ben", "Cho", "Dan", "Eve"]


def rules(base: str = "gostop3", **fields: Any) -> Ruleset:
    return apply_overrides(PRESETS[base], {"name": f"{base}-test", **fields}, "test")


GWANG = rules(gwang_price=5)
CHOICE = rules(sit_out="choice", gwang_price=5)


def start(rs: Ruleset, n: int, stake: int = 1) -> GameState:
    players = [E.Player(id=f"p{s}", name=NAMES[s]) for s in range(n)]
    return start_game("g", E.GameStarted(ruleset=rs.pinned(), players=players, stake=stake))


def apply(g: GameState, ev: Any) -> tuple[GameState, list[Any]]:
    return apply_game(g, ev)


def refused(g: GameState, ev: Any, rule: str) -> str:
    with pytest.raises(IllegalAction) as exc:
        apply_game(g, ev)
    assert exc.value.rule == rule, str(exc.value)
    return str(exc.value)


def deck_with(bottom: list[str], seed: int = 7) -> list[int]:
    """gostop3's cards in a fixed order that deals no four of a month to the layout, with
    ``bottom`` as the last cards: at 4 seats the sitter's hand (see ``rulebook/seats.py``)."""
    cards = C.indices(table_for(PRESETS["gostop3"], 3).deck)
    rest = [i for i in cards if C.CODES[i] not in bottom]
    rest = rest[seed:] + rest[:seed]
    # months spread: take every 5th card round, so the layout is six different months
    spread = [rest[k] for s in range(5) for k in range(s, len(rest), 5)]
    return spread + [C.index(c) for c in bottom]


def deal_hand(
    g: GameState, dealer: int, order: list[int], deck: list[int], stock: bool = True
) -> tuple[GameState, list[Any]]:
    """hand_started and cards_dealt of the next hand; the consequences of both."""
    hs = E.HandStarted(
        hand=g.hand_no + 1,
        dealer=dealer,
        order=order,
        deck=[C.CODES[i] for i in deck] if stock else None,
    )
    g, out = apply(g, hs)
    d = deal(g.table, deck, dealer, order)
    cd = E.CardsDealt(
        hands=[[C.CODES[i] for i in h] for h in d.hands],
        layout=[C.CODES[i] for i in d.layout],
        stock=[C.CODES[i] for i in d.stock] if stock else None,
    )
    g, more = apply(g, cd)
    return g, out + more


SELLER_HAND = ["01G", "03G", "08G", "02J1", "04J1", "05J1", "06J1"]


# --- which seat counts a ruleset takes --------------------------------------------------


def test_seat_counts_and_the_watch_reading() -> None:
    assert PRESETS["gostop3"].seats() == (3, 4, 5)
    assert PRESETS["gamerules"].seats() == (2, 3, 4, 5)
    assert PRESETS["matgo"].seats() == (2,)
    assert table_for(PRESETS["gostop3"], 5).players == 5
    with pytest.raises(RulesetError, match="played by 2 players, not 4"):
        table_for(PRESETS["matgo"], 4)
    watch = rules("gamerules", sit_out="watch")
    assert watch.seats() == (2, 3)
    with pytest.raises(RulesetError, match="watch and join at the next deal"):
        table_for(watch, 4)


def test_the_new_fields_are_neutral_for_every_preset() -> None:
    for name in ("sit_out", "gwang_price", "chip_limit", "end_when_broke", "first_dealer"):
        assert name in ADDED_FIELDS
    for rs in PRESETS.values():
        assert "gwang_price" not in rs.pinned() and "sit_out" not in rs.pinned()
    assert GWANG.pinned()["gwang_price"] == 5
    assert GWANG.content_hash != PRESETS["gostop3"].content_hash
    assert Ruleset.from_pinned(GWANG.pinned()) == GWANG


# --- who sits out -----------------------------------------------------------------------


def test_turn_order_the_dealer_and_the_next_two_play() -> None:
    g = start(PRESETS["gostop3"], 5)
    msg = refused(g, E.HandStarted(hand=1, dealer=3, order=[3, 4, 1]), "turn_order")
    assert "order [3, 4, 0]" in msg
    refused(g, E.HandStarted(hand=1, dealer=3, order=[3, 4, 0, 1, 2]), "turn_order")
    g, out = apply(g, E.HandStarted(hand=1, dealer=3, order=[3, 4, 0]))
    assert out == [E.SeatsSatOut(seats=[1, 2], rule="turn_order")]
    assert g.sat_out == (1, 2)


def test_choice_any_two_sit_out_but_the_dealer_plays_and_play_goes_round() -> None:
    g = start(CHOICE, 5)
    refused(g, E.HandStarted(hand=1, dealer=1, order=[2, 3, 4]), "turn_order")
    refused(g, E.HandStarted(hand=1, dealer=1, order=[1, 4, 3]), "turn_order")
    refused(g, E.HandStarted(hand=1, dealer=1, order=[1, 3]), "turn_order")
    g, out = apply(g, E.HandStarted(hand=1, dealer=1, order=[1, 3, 4]))
    assert out == [E.SeatsSatOut(seats=[2, 0], rule="choice")]


def test_three_seats_record_no_sitting_out() -> None:
    g = start(PRESETS["gostop3"], 3)
    refused(g, E.HandStarted(hand=1, dealer=0, order=[0, 1]), "turn_order")
    _, out = apply(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]))
    assert out == []


def test_a_seat_sitting_out_holds_no_cards_and_makes_no_move() -> None:
    g = start(PRESETS["gostop3"], 4)
    g, _ = apply(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]))
    deck = [C.CODES[i] for i in deck_with(SELLER_HAND)]
    hands: list[list[str] | None] = [deck[0:7], deck[7:14], deck[14:21], deck[21:28]]
    cd = E.CardsDealt(hands=hands, layout=deck[28:34])
    assert "seat 3 sits out hand 1" in refused(g, cd, "sat_out")
    g, _ = apply(g, E.CardsDealt(hands=[*hands[:3], None], layout=deck[28:34]))
    assert g.hand is not None and g.hand.stock_count == g.table.deck_size - 21 - 6
    refused(g, E.CardPlayed(seat=3, card=deck[0]), "sat_out")


# --- the services' table rules at 4 seats -------------------------------------------------


def test_a_four_on_the_layout_won_by_the_dealer_is_paid_by_the_players_of_the_hand() -> None:
    g = start(rules(layout_four="dealer_wins", hand_four_points=7), 4)
    g, _ = apply(g, E.HandStarted(hand=1, dealer=1, order=[1, 2, 3]))
    deck = [C.CODES[i] for i in deck_with(["01G", "01R", "01J1", "01J2"])]
    rest = [c for c in deck if not c.startswith("01")]
    hands = [None, rest[0:7], rest[7:14], rest[14:21]]
    layout = ["01G", "01R", "01J1", "01J2", *rest[21:23]]
    g, out = apply(g, E.CardsDealt(hands=hands, layout=layout))
    ended = [e for e in out if type(e) is E.HandEnded]
    assert ended and ended[0].winner == 1 and ended[0].reason == "layout_four"
    dues = [(e.payer, e.payee, e.points) for e in out if type(e) is E.PaymentDue]
    assert dues == [(2, 1, 7), (3, 1, 7)]  # seat 0 sits out and owes nothing


def test_a_bonus_played_from_the_hand_steals_at_once_from_the_players_of_the_hand() -> None:
    g = start(rules(bonus_steal_at_once=True), 4)
    g, _ = apply(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]))
    c = [C.CODES[i] for i in deck_with(["B2"]) if C.CODES[i] != "B2"]
    hands = [["B2", *c[0:6]], c[6:13], c[13:20], None]
    g, _ = apply(g, E.CardsDealt(hands=hands, layout=c[20:26], stock=c[26:]))
    h = g.hand
    assert h is not None
    junk = [C.bit(c) for c in ("02J1", "02J2", "04J1", "04J2", "06J1", "06J2")]
    for seat, k in ((1, 0), (2, 2), (3, 4)):  # seat 3 sits out: its pile is not the play's
        taken = junk[k] | junk[k + 1]
        for s in range(4):
            h.hands[s] &= ~taken
        h.layout &= ~taken
        h.piles[seat] |= taken
    g, out = apply(g, E.CardPlayed(seat=0, card="B2"))
    steals = [(e.from_seat, e.to_seat, e.reason) for e in out if type(e) is E.JunkTransferred]
    assert sorted(steals) == [(1, 0, "bonus"), (2, 0, "bonus")]


# --- gwang-pali ---------------------------------------------------------------------------


def _sale_table(rs: Ruleset = GWANG, stake: int = 100) -> GameState:
    g = start(rs, 4, stake)
    g, _ = deal_hand(g, 0, [0, 1, 2], deck_with(SELLER_HAND))
    return g


def test_a_sale_is_a_ledger_line_from_each_player_of_the_hand() -> None:
    g = _sale_table()
    g, out = apply(g, E.BrightsSold(seat=3, cards=["01G", "08G"]))
    # GoStopCalculator's CalculateSellScoreUseCase: price x brights from every buyer
    assert out == [
        E.PaymentDue(payer=p, payee=3, points=10, chips=1000, reason="gwang_pali")
        for p in (0, 1, 2)
    ]
    assert g.ledger() == [-1000, -1000, -1000, 3000]
    assert [d[1:] for d in g.pending_dues()] == [(p, 3, 10, 1000, "gwang_pali") for p in (0, 1, 2)]
    proof = words.sale_proof(g.players, 3, ["01G", "08G"], 5, 100, [0, 1, 2])
    assert "2 x 5 = 10 points x stake 100 = 1000 chips from each of Ann, Ben, Cho" in proof


@pytest.mark.parametrize(
    ("rs", "ev", "why"),
    [
        (PRESETS["gostop3"], E.BrightsSold(seat=3, cards=["01G"]), "gwang_price = 0"),
        (GWANG, E.BrightsSold(seat=1, cards=["01G"]), "seat 1 plays this hand"),
        (GWANG, E.BrightsSold(seat=3, cards=["02J1"]), "02J1 is not a bright"),
        (GWANG, E.BrightsSold(seat=3, cards=["01G", "01G"]), "listed twice"),
        (GWANG, E.BrightsSold(seat=3, cards=["11G"]), "not in seat 3's hand"),
        (GWANG, E.BrightsSold(seat=3, cards=[]), "lists the brights sold"),
    ],
)
def test_a_sale_the_rules_refuse(rs: Ruleset, ev: E.BrightsSold, why: str) -> None:
    g = _sale_table(rs)
    assert why in refused(g, ev, "gwang_pali")


def test_a_sale_comes_once_after_the_deal_and_before_the_first_play() -> None:
    g = start(GWANG, 4)
    g, _ = apply(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]))
    refused(g, E.BrightsSold(seat=3, cards=["01G"]), "gwang_pali")  # before the deal
    g = _sale_table()
    g2, _ = apply(g, E.BrightsSold(seat=3, cards=["01G"]))
    assert "has sold" in refused(g2, E.BrightsSold(seat=3, cards=["03G"]), "gwang_pali")
    h = g.hand
    assert h is not None
    card = C.codes(h.hands[0])[0]
    g3, _ = apply(g, E.CardPlayed(seat=0, card=card))
    refused(g3, E.BrightsSold(seat=3, cards=["01G"]), "gwang_pali")


def test_the_entries_now_offer_a_sale_while_it_may_be_made() -> None:
    g = start(GWANG, 4)
    assert "sell Dan" not in notation.lines_now(g)
    g = _sale_table()
    assert g.sellers() == [3]
    assert "sell Dan" in notation.lines_now(g)
    assert notation.complete(notation.lines_now(g), "sell ", "D") == ["Dan"]
    sold, _ = apply(g, E.BrightsSold(seat=3, cards=["01G"]))
    assert sold.sellers() == [] and "sell Dan" not in notation.lines_now(sold)
    h = g.hand
    assert h is not None
    played, _ = apply(g, E.CardPlayed(seat=0, card=C.codes(h.hands[0])[0]))
    assert played.sellers() == [] and "sell Dan" not in notation.lines_now(played)
    assert _sale_table(PRESETS["gostop3"]).sellers() == []


def test_with_the_stock_unknown_a_sold_bright_must_not_be_dealt_to_the_play() -> None:
    g = start(GWANG, 4)
    g, _ = deal_hand(g, 0, [0, 1, 2], deck_with(SELLER_HAND), stock=False)
    h = g.hand
    assert h is not None
    dealt = C.codes((h.hands[0] | h.hands[1] | h.hands[2] | h.layout) & C.BRIGHTS)
    assert dealt, "the deal gives the play a bright"
    assert "dealt to the play" in refused(g, E.BrightsSold(seat=3, cards=dealt[:1]), "gwang_pali")
    g, out = apply(g, E.BrightsSold(seat=3, cards=["01G", "03G", "08G"]))
    assert {d.points for d in out} == {15}


def _hand_rows(game: list[E.Envelope]) -> dict[int, list[Any]]:
    by: dict[int, list[Any]] = {}
    for env in game:
        if env.hand is not None:
            by.setdefault(env.hand, []).append(env.event)
    return by


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([4, 5]),
    mode=st.sampled_from(["turn_order", "choice"]),
)
def test_simulated_tables_of_four_and_five_replay_strictly(seed: int, n: int, mode: str) -> None:
    rs = rules(sit_out=mode, gwang_price=3)
    game = play_game(GameSpec(rs, n, hands=4, seed=seed, stake=10))
    p = project(game)
    assert p.ok, p.issues
    g = p.game
    assert g is not None and sum(g.ledger()) == 0
    for events in _hand_rows(game).values():
        started = next(e for e in events if type(e) is E.HandStarted)
        (out,) = [e for e in events if type(e) is E.SeatsSatOut]
        assert len(started.order) == 3 and started.dealer in started.order
        assert sorted([*started.order, *out.seats]) == list(range(n))
        sold = {e.seat: e.cards for e in events if type(e) is E.BrightsSold}
        for e in events:
            seat = getattr(e, "seat", None)
            assert seat is None or seat in started.order or type(e) is E.BrightsSold
            if type(e) is E.PaymentDue and e.reason == "gwang_pali":
                assert e.payer in started.order and e.payee in out.seats
                assert e.points == 3 * len(sold[e.payee]) and e.chips == 10 * e.points
            elif type(e) is E.PaymentDue:
                assert e.payer in started.order and e.payee in started.order


# --- chips on the table -------------------------------------------------------------------


def _replayed(rs: Ruleset, chips: list[int], seed: int = 4, hands: int = 8) -> list[Any]:
    """A simulated game's inputs under ``rs``, chips counted first; the payments recorded and
    the consequences are the engine's again (chips change no play)."""
    spec = GameSpec(PRESETS["gostop3"], 3, hands, seed, stake=1)
    inputs = [p for _, p in play_payloads(spec) if E.is_input(p)]
    players = [E.Player(id=f"p{s}", name=NAMES[s]) for s in range(3)]
    g = start_game("c", E.GameStarted(ruleset=rs.pinned(), players=players, stake=3))
    log = [E.ChipsCounted(chips=chips)]
    g, _ = apply(g, log[0])
    for ev in inputs[1:]:
        if type(ev) is E.PaymentRecorded:
            continue
        if type(ev) is E.HandStarted and g.finished:
            assert g.broke
            refused(g, ev, "end_when_broke")
            break
        g, out = apply(g, ev)
        log += [ev, *out]
    return [g, log]


def test_a_loser_pays_no_more_than_they_hold_and_the_shortfall_is_recorded() -> None:
    rs = rules(chip_limit="holdings")
    g, log = _replayed(rs, [30, 30, 30])
    capped = [e for e in log if type(e) is E.PaymentCapped]
    assert capped, "some loser ran short"
    assert all(e.cap == "loser_holdings" and e.paid < e.due for e in capped)
    held = g.holdings()
    assert held is not None and min(held) >= 0 and sum(held) == 90
    # the ledger holds what was paid, the shortfall is what the dues said beyond it
    due = sum(e.chips for e in log if type(e) is E.PaymentDue)
    assert sum(r[3] for res in g.results for r in res.dues) == due - sum(
        e.due - e.paid for e in capped
    )
    free = _replayed(rules(), [30, 30, 30])[0]
    assert free.holdings() is not None and min(free.holdings() or [0]) < 0


def test_limited_liability_caps_a_winner_at_their_own_chips() -> None:
    rs = rules(chip_limit="limited_liability")
    g, log = _replayed(rs, [5, 200, 200])
    capped = [e for e in log if type(e) is E.PaymentCapped]
    assert any(e.cap == "winner_holdings" for e in capped)
    assert min(g.holdings() or [-1]) >= 0


def test_the_sitting_ends_when_a_player_has_nothing_left() -> None:
    rs = rules(chip_limit="holdings", end_when_broke=True)
    g, log = _replayed(rs, [12, 12, 12], hands=20)
    (ended,) = [e for e in log if type(e) is E.SittingEnded]
    assert ended.seats and all((g.holdings() or [])[s] == 0 for s in ended.seats)
    assert g.finished and g.waiting().kind in ("over", "pay")


@pytest.mark.parametrize(
    ("limit", "start", "due", "balances", "cap"),
    [
        # p2p-gostop settle.json M2-cap-loser-balance: 57,600 due, the loser holds 20,000
        ("holdings", [100_000, 20_000], 57_600, [120_000, 0], "loser_holdings"),
        # M2-limited-liability: the winner holds 5,000, 7 points x 1,000 due
        ("limited_liability", [5_000, 100_000], 7_000, [10_000, 95_000], "winner_holdings"),
        # M2-no-cap-needed: without limited liability the winner's balance does not matter
        ("holdings", [100, 100_000], 7_000, [7_100, 93_000], None),
    ],
)
def test_p2p_settle_caps(
    limit: str, start: list[int], due: int, balances: list[int], cap: str | None
) -> None:
    held = list(start)
    dues, capped = SEATS.cap_dues(rules(chip_limit=limit), [(1, 0, 7, due, "stop")], held, start)
    paid = balances[0] - start[0]
    assert held == balances and dues == [(1, 0, 7, paid, "stop")]
    assert capped == ([] if cap is None else [(1, 0, due, paid, cap)])


def test_chips_are_counted_once_before_the_first_hand() -> None:
    rs = rules(chip_limit="holdings")
    g = start(rs, 3)
    assert g.table_entries() == ["chips"] and "chips" in notation.lines_now(g)
    assert "chips_counted" in refused(
        g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]), "chips_counted"
    )
    refused(g, E.ChipsCounted(chips=[1, 2]), "chips_counted")
    g, _ = apply(g, E.ChipsCounted(chips=[1, 2, 3]))
    refused(g, E.ChipsCounted(chips=[1, 2, 3]), "chips_counted")
    assert g.holdings() == [1, 2, 3]


# --- the first dealer by draw (밤일낮장) ------------------------------------------------------


def test_by_night_the_lowest_month_deals_by_day_the_highest() -> None:
    draws = [(0, "05A"), (1, "02A"), (2, "11G")]
    assert SEATS.dealer_by_draw(draws, night=True) == (1, [])
    assert SEATS.dealer_by_draw(draws, night=False) == (2, [])
    assert SEATS.dealer_by_draw([(0, "03G"), (1, "03R"), (2, "07A")], True) == (None, [0, 1])
    with pytest.raises(ValueError, match="bonus card"):
        SEATS.dealer_by_draw([(0, "B2"), (1, "03R")], True)


def _draw(*pairs: tuple[int, str], night: bool = True, dealer: int | None) -> E.DealerDrawn:
    return E.DealerDrawn(
        draws=[E.DealerDraw(seat=s, card=c) for s, c in pairs], night=night, dealer=dealer
    )


def test_the_drawn_dealer_deals_the_first_hand() -> None:
    g = start(rules(first_dealer="draw"), 3)
    assert {"draw night", "draw day"} <= set(notation.lines_now(g))
    assert g.table_entries() == ["draw"]
    assert "record dealer_drawn" in refused(
        g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]), "dealer_draw"
    )
    refused(g, _draw((0, "03G"), (1, "07A"), dealer=0), "dealer_draw")  # seat 2 drew nothing
    refused(g, _draw((0, "03G"), (1, "07A"), (2, "01G"), dealer=0), "dealer_draw")
    g, _ = apply(g, _draw((0, "03G"), (1, "07A"), (2, "03R"), dealer=None))
    assert g.draw_tied == (0, 2)
    refused(g, _draw((0, "05A"), (1, "06A"), dealer=0), "dealer_draw")  # seat 1 did not tie
    g, _ = apply(g, _draw((0, "05A"), (2, "06A"), night=False, dealer=2))
    assert g.next_dealer == 2 and "draw day" not in notation.lines_now(g)
    refused(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]), "dealer")
    apply(g, E.HandStarted(hand=1, dealer=2, order=[2, 0, 1]))
    lot = start(PRESETS["gostop3"], 3)
    assert "by lot" in refused(
        lot, _draw((0, "03G"), (1, "07A"), (2, "01G"), dealer=2), "dealer_draw"
    )


# --- the CLI and the store -----------------------------------------------------------------


def _script(payloads: list[Any]) -> list[str]:
    """Record lines for the inputs of a simulated game at 4-5 seats: the deal names who
    sits out, a sale is a ``sell`` line."""
    lines, started = [], None
    for ev in payloads:
        t = type(ev)
        if t is E.HandStarted:
            started = ev
        elif t is E.CardsDealt and started is not None:
            out = [s for s in range(len(ev.hands)) if s not in started.order]
            line = command_of(ev, started.dealer)
            lines.append(f"{line} out {' '.join(map(str, out))}")
            started = None
        elif t is E.BrightsSold:
            lines.append(f"sell {ev.seat} {' '.join(ev.cards)}")
        elif t is E.ChipsCounted:
            lines.append("chips " + " ".join(map(str, ev.chips)))
        elif (line := command_of(ev)) is not None:
            lines.append(line)
    return lines


@pytest.mark.parametrize("n", [4, 5])
def test_record_cli_takes_four_and_five_seats(tmp_path: Path, n: int) -> None:
    rs_file = tmp_path / "choice.toml"
    rs_file.write_text('base = "gostop3"\nsit_out = "choice"\ngwang_price = 5\n')
    spec = GameSpec(rules(sit_out="choice", gwang_price=5), n, hands=3, seed=11)
    sim = [p for _, p in play_payloads(spec)]
    script = tmp_path / "game.txt"
    script.write_text("\n".join([*_script(sim), "quit"]) + "\n")
    log = tmp_path / "game.jsonl"
    players = ",".join(NAMES[:n])
    result = runner.invoke(
        app,
        [
            "record",
            "--log",
            str(log),
            "--players",
            players,
            "--ruleset",
            str(rs_file),
            "--game-id",
            "g",
            "--script",
            str(script),
        ],
    )
    assert result.exit_code == 0, result.output
    recorded = [env.event for env in L.read_log(log) if not E.is_metadata(env.event)]
    want = [e for e in sim if not (type(e) is E.HandStarted or type(e) is E.GameStarted)]
    got = [e for e in recorded if not (type(e) is E.HandStarted or type(e) is E.GameStarted)]
    assert got == want
    assert project(L.read_log(log)).ok


def test_record_cli_shows_who_sits_out_and_the_chips_held(tmp_path: Path) -> None:
    deck = [C.CODES[i] for i in deck_with(SELLER_HAND)]
    d = deal(table_for(GWANG, 4), [C.index(c) for c in deck], 0, [0, 1, 2])
    hands = " ".join(f"hand {s} {' '.join(C.CODES[i] for i in d.hands[s])}" for s in range(3))
    rs_file = tmp_path / "gwang.toml"
    rs_file.write_text('base = "gostop3"\ngwang_price = 5\n')
    script = tmp_path / "s.txt"
    script.write_text(
        "chips 100 100 100 40\n"
        f"deal layout {' '.join(C.CODES[i] for i in d.layout)} {hands}\n"
        "sell Dan 01G 08G\nshow\nquit\n"
    )
    result = runner.invoke(
        app,
        [
            "record",
            "--log",
            str(tmp_path / "g.jsonl"),
            "--players",
            "Ann,Ben,Cho,Dan",
            "--ruleset",
            str(rs_file),
            "--game-id",
            "g",
            "--script",
            str(script),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Dan (seat 3)  sits out this hand; sold 01G 08G" in result.output
    assert "2 x 5 = 10 points x stake 1 = 10 chips from each of Ann, Ben, Cho" in result.output
    assert "chips   Ann 90 | Ben 90 | Cho 90 | Dan 70" in result.output
    assert "sitting out this hand (in turn order from the dealer): Dan" in result.output


def test_simulate_cli_takes_five_players(tmp_path: Path) -> None:
    out = tmp_path / "sims"
    result = runner.invoke(
        app,
        [
            "simulate",
            "--ruleset",
            "gostop3",
            "--players",
            "5",
            "--games",
            "2",
            "--hands",
            "3",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    logs = sorted(out.glob("*.jsonl"))
    assert len(logs) == 2 and all(project(L.read_log(p)).ok for p in logs)
    bad = runner.invoke(
        app, ["simulate", "--ruleset", "matgo", "--players", "4", "--out", str(out)]
    )
    assert bad.exit_code == 2 and "played by 2 players, not 4" in bad.output


def _envelopes(game_id: str, events: list[Any]) -> list[E.Envelope]:
    """A sealed log of payloads, each event in the hand started last (game-level ones in
    none)."""
    out, hand = [], None
    for seq, ev in enumerate(events, 1):
        if type(ev) is E.HandStarted:
            hand = ev.hand
        at = "2026-01-01T00:00:00.000Z"
        out.append(L.envelope(game_id, seq, hand, ev, by="test", at=at, recorded_at=at))
    return L.seal(out)


def test_the_store_keeps_who_sat_out_what_was_sold_and_the_chips(tmp_path: Path) -> None:
    games = [play_game(GameSpec(rules(gwang_price=5), 5, hands=4, seed=s)) for s in (1, 2)]
    with Store(tmp_path / "s.duckdb") as s:
        report = s.import_envelopes([env for game in games for env in game])
        assert report.ok, report.summary()
        q = s.conn.execute
        assert q("SELECT count(*) FROM sitting_out").fetchone() == (2 * 2 * 4,)
        played = "SELECT count(*) FROM seats WHERE hands_played + hands_sat_out <> 4"
        assert q(played).fetchone() == (0,)
        sold = q("SELECT sum(sale_chips) FROM sitting_out WHERE sale_points IS NOT NULL")
        sold_chips = sold.fetchone()
        paid = q("SELECT sum(chips) FROM payouts WHERE reason LIKE '%gwang_pali%'").fetchone()
        assert sold_chips == paid and paid[0] > 0
        scores = "SELECT count(*) FROM scores WHERE game_id = ?"
        assert q(scores, [games[0][0].game_id]).fetchone() == (3 * 4,)
        # the player views: a hand sat out is a row (its chips the sale) but no hand played
        rows = q(
            "SELECT player_id, count(*) FILTER (WHERE NOT sat_out), sum(chips), "
            "count(*) FILTER (WHERE sat_out AND won) FROM v_player_hands GROUP BY 1 ORDER BY 1"
        ).fetchall()
        stats = q("SELECT player_id, hands, chips FROM v_player_stats ORDER BY 1").fetchall()
        assert [r[:3] for r in rows] == stats and all(r[3] == 0 for r in rows)
        per_seat = q("SELECT sum(hands_played), sum(hands_sat_out) FROM seats").fetchone()
        assert per_seat == (
            sum(r[1] for r in rows),
            q("SELECT count(*) FROM sitting_out").fetchone()[0],
        )
    rs = rules(chip_limit="holdings")
    g, log = _replayed(rs, [30, 30, 30])
    players = [E.Player(id=f"p{s}", name=NAMES[s]) for s in range(3)]
    started = E.GameStarted(ruleset=rs.pinned(), players=players, stake=3)
    with Store(tmp_path / "c.duckdb") as s:
        report = s.import_envelopes(_envelopes("chips", [started, *log]))
        assert report.ok, report.summary()
        rows = s.conn.execute("SELECT seat, chips_counted, chips_held FROM seats ORDER BY seat")
        assert rows.fetchall() == [(k, 30, c) for k, c in enumerate(g.holdings() or [])]
        caps = [e for e in log if type(e) is E.PaymentCapped]
        got = s.conn.execute("SELECT count(*), sum(shortfall) FROM capped_payments").fetchone()
        assert got == (len(caps), sum(e.due - e.paid for e in caps))


def test_a_version_3_store_gains_the_tables_and_their_rows(tmp_path: Path) -> None:
    path = tmp_path / "v3.duckdb"
    game = play_game(GameSpec(rules(gwang_price=5), 4, hands=2, seed=3))
    with Store(path) as s:
        assert s.import_envelopes(game).ok
        for table in ("sitting_out", "capped_payments", "seats"):
            s.conn.execute(f"DROP TABLE {table}")
        s.conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    with Store(path) as s:
        assert s.conn.execute("SELECT count(*) FROM seats").fetchone() == (4,)
        assert s.conn.execute("SELECT count(*) FROM sitting_out").fetchone() == (2,)
        assert s.verify().ok


def test_the_service_takes_four_seats_and_a_sale(tmp_path: Path) -> None:
    deck = deck_with(SELLER_HAND)
    d = deal(table_for(GWANG, 4), deck, 0, [0, 1, 2])
    layout = " ".join(C.CODES[i] for i in d.layout)
    with service_client(tmp_path / "s.duckdb") as c:
        body = {"players": NAMES[:4], "ruleset": {"base": "gostop3", "gwang_price": 5}}
        r = c.post("/api/games", json=body, headers=auth(KEY))
        assert r.status_code == 201, r.text
        game = r.json()
        six = {"players": [*NAMES, "Fay"], "ruleset": "gostop3"}
        assert c.post("/api/games", json=six, headers=auth(KEY)).status_code == 400
        url = f"/api/games/{game['game_id']}/entries"
        token = auth(game["recorder_token"])
        version = game["version"]
        for line in (f"deal layout {layout}", "sell Dan 01G 08G"):
            r = c.post(url, json={"entry": line, "expected_version": version}, headers=token)
            assert r.status_code == 201, r.text
            version = r.json()["version"]
        types = [e["event"]["type"] for e in r.json()["events"]]
        assert types == ["brights_sold", "payment_due", "payment_due", "payment_due"]
        r = c.post(url, json={"entry": "Dan play 02J1", "expected_version": version}, headers=token)
        assert r.status_code in (400, 409, 422) and "sits out" in r.text


def test_simulated_sittings_count_chips_and_end_when_a_player_is_broke(tmp_path: Path) -> None:
    rs = rules(gwang_price=3, chip_limit="limited_liability", end_when_broke=True)
    for seed in range(3):
        spec = GameSpec(rs, 4, hands=40, seed=seed, chips=40)
        assert spec.id().endswith(f"-c40-{seed}")
        p = project(play_game(spec))
        assert p.ok, p.issues
        g = p.game
        assert g is not None and g.broke and g.finished and len(g.results) < 40
        held = g.holdings()
        assert held is not None and min(held) == 0 and sum(held) == 160
        # every payment recorded is what the chips let through: nothing is left unpaid
        assert g.pending_dues() == [] and g.recorded_ledger() == g.ledger()
    # a ruleset that limits payments by chips has them counted even when not given
    assert GameSpec(rules(chip_limit="holdings"), 3, stake=2).counted_chips() == 100
    out = tmp_path / "sims"
    result = runner.invoke(
        app,
        [
            "simulate",
            "--players",
            "3",
            "--ruleset",
            "gostop3",
            "--chips",
            "30",
            "--games",
            "1",
            "--hands",
            "2",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    (log,) = out.glob("*.jsonl")
    assert [e.event for e in L.read_log(log)][1] == E.ChipsCounted(chips=[30, 30, 30])


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_the_live_table_says_who_sits_out(tmp_path: Path, browser: Any) -> None:
    with Server(tmp_path / "s.duckdb") as server:
        body = {"players": NAMES[:4], "ruleset": {"base": "gostop3", "gwang_price": 5}}
        game = server.http.post("/api/games", json=body, headers=auth(KEY)).json()
        v = game["version"]
        r = server.http.post(
            f"/api/games/{game['game_id']}/entries",
            json={"entry": "deal layout 01J1 02J1 03J1 04J1 05J1 06J1", "expected_version": v},
            headers=auth(game["recorder_token"]),
        )
        assert r.status_code == 201, r.text
        page = browser.new_page()
        try:
            page.goto(f"{server.url}/games/{game['game_id']}")
            held = page.locator("section.seat[data-seat='3'] .held")
            held.wait_for()
            assert held.inner_text() == "sits out this hand"
            assert page.locator("section.seat[data-seat='0'] .held").inner_text() == "7 in hand"
        finally:
            page.close()


def test_the_audit_explains_a_disputed_sale_by_the_price(tmp_path: Path) -> None:
    """A seller paid double: the audit computes the sale and names gwang_price = 10."""
    spec = next(
        s
        for s in (GameSpec(GWANG, 4, hands=1, seed=k) for k in range(30))
        if any(type(p) is E.BrightsSold for _, p in play_payloads(s))
    )
    payloads = list(play_payloads(spec))
    (sale,) = [p for _, p in payloads if type(p) is E.BrightsSold]
    changed, out = False, []
    for _, p in payloads:
        if type(p) is E.PaymentRecorded and p.payee == sale.seat and not changed:
            p, changed = E.PaymentRecorded(payer=p.payer, payee=p.payee, chips=p.chips * 2), True
        out.append(p)
    log = tmp_path / "sale.jsonl"
    L.write_log(log, _envelopes("sale", out))
    result = runner.invoke(app, ["audit", str(log), "--json"])
    assert result.exit_code == 1
    (hand,) = json.loads(result.stdout)["hands"]
    (differs,) = [p for p in hand["payments"] if p["status"] == "differs"]
    assert differs["payee"] == sale.seat and differs["computed"] == 5 * len(sale.cards)
    first = differs["explanations"][0]["changes"]
    assert first == [
        {
            "setting": "gwang_price",
            "value": 10,
            "pinned": 5,
            "text": "gwang-pali at 10 points a bright from each player of the hand",
            "pinned_text": "gwang-pali at 5 points a bright from each player of the hand "
            "(gwang_price = 5)",
        }
    ]
