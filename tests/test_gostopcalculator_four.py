"""GoStopCalculator's four-player payouts as public vectors (ZeroFriends/GoStopCalculator,
``CalculateFourPlayerMassTest`` and ``CalculateSellScoreUseCase``), under the ruleset file
``vectors/gostopcalculator_four.toml`` that states its settings.

Its round: one player sells 1-3 brights and sits out; the winner stops at 10 points after
0, 2 or 4 Gos; each of the two losers has any of pi-bak, gwang-bak, meong-bak and go-bak
(at most one go-bak); the winner may hold first-turn payments (첫뻑, 연뻑, 첫따닥). Every
case's accounts are its test's expected formula, translated; ours come from the engine: the
sale from ``apply_game`` on a four-seat hand, the Stop from ``settle`` on piles that give
the winner 10 points with the baks the case names, the first-turn payments from the
rulebook's amounts, summed on one ledger.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import apply_game, start_game
from gostop_records.engine import rulebook as RB
from gostop_records.engine.settlement import HandFacts, settle
from gostop_records.engine.table import Table, table_for
from gostop_records.rules import apply_overrides, load_ruleset_file
from gostop_records.sim.dealer import deal

RULES = load_ruleset_file(Path(__file__).parent / "vectors" / "gostopcalculator_four.toml")
STAKE = 100  # SCORE_PER_POINT
WINNER_SCORE = 10
FUCK_SCORE, SELL_SCORE = 500, 500
SELLER, WINNER, LOSERS = 3, 0, (1, 2)

PI, GWANG, MEONG, GO = "PeaBak", "LightBak", "MongBak", "GoBak"
BAKS = [PI, GWANG, MEONG, GO]
#: every subset of the four baks, in the order of its BASE_LOSER_COMBINATIONS (bit masks)
COMBOS = [[b for i, b in enumerate(BAKS) if mask & (1 << i)] for mask in range(16)]
WINNER_OPTIONS = [[], ["FirstFuck"], ["SecondFuck"], ["FirstDdadak"], ["FirstFuck", "FirstDdadak"]]

# The winner's pile: three brights (3), seven animals without the three birds (3) and 13
# junk units (4) = 10 points, scoring brights, animals and junk for every bak.
WINNER_PILE = [
    "01G", "03G", "08G",
    "02A", "04A", "05A", "06A", "07A", "10A", "12A",
    "01J1", "01J2", "02J1", "02J2", "03J1", "03J2", "04J1", "04J2",
    "05J1", "05J2", "06J1", "06J2", "07J1",
]  # fmt: skip
# Per loser: a bright against gwang-bak, an animal against meong-bak, junk units above the
# pi-bak line (5) or a single unit under it (a loser with none is exempt).
SPARE = {
    1: {
        "bright": ["11G"],
        "animal": ["08A"],
        "junk": ["07J2", "08J1", "08J2", "09J1", "09J2", "10J1"],
    },
    2: {"bright": ["12G"], "animal": ["09A"], "junk": ["10J2", "11J1", "11J2", "11D", "12D"]},
}


def loser_pile(seat: int, baks: list[str]) -> list[str]:
    spare = SPARE[seat]
    bright = [] if GWANG in baks else spare["bright"]
    animal = [] if MEONG in baks else spare["animal"]
    return [*bright, *animal, *(spare["junk"][:1] if PI in baks else spare["junk"])]


def sale_ledger(brights: int) -> list[int]:
    """The engine's ledger after the seller (seat 3) sells ``brights`` brights."""
    players = [E.Player(id=f"p{s}", name=f"P{s}") for s in range(4)]
    g = start_game("gsc", E.GameStarted(ruleset=RULES.pinned(), players=players, stake=STAKE))
    g, _ = apply_game(g, E.HandStarted(hand=1, dealer=0, order=[0, 1, 2]))
    hand = ["01G", "03G", "08G", "02J1", "04J1", "05J1", "06J1"]  # the seller's, under the stock
    rest = [i for i in range(48) if C.CODES[i] not in hand]
    rest = [rest[k] for s in range(5) for k in range(s, len(rest), 5)]
    d = deal(g.table, rest + [C.index(c) for c in hand], 0, [0, 1, 2])
    dealt = E.CardsDealt(
        hands=[[C.CODES[i] for i in h] for h in d.hands],
        layout=[C.CODES[i] for i in d.layout],
        stock=[C.CODES[i] for i in d.stock],
    )
    g, _ = apply_game(g, dealt)
    g, dues = apply_game(g, E.BrightsSold(seat=SELLER, cards=hand[:brights]))
    assert [(d.payer, d.payee, d.chips) for d in dues] == [
        (p, SELLER, SELL_SCORE * brights) for p in (0, 1, 2)
    ]
    return g.ledger()


SALES = {k: sale_ledger(k) for k in (1, 2, 3)}
TABLE = table_for(RULES, 3, STAKE)


def engine_accounts(
    seller_score: int,
    go: int,
    baks: tuple[list[str], list[str]],
    options: list[str],
    table: Table = TABLE,
) -> list[int]:
    net = list(SALES[seller_score])
    piles = [WINNER_PILE, loser_pile(1, baks[0]), loser_pile(2, baks[1])]
    went = [go, int(GO in baks[0]), int(GO in baks[1])]
    facts = HandFacts(
        winner=WINNER,
        piles=tuple(C.mask_of(p) for p in piles),
        cup_role=None,
        go_count=tuple(went),
        go_order=(0, *went[1:]),
        shakes=(0, 0, 0),
        bombs=(0, 0, 0),
    )
    proof = settle(table, facts)
    assert proof.score.total == WINNER_SCORE
    lines = [(d.payer, d.payee, d.chips) for d in proof.dues]
    amounts = {
        "FirstFuck": RB.FIRST_PPUK.points(RULES, 1),
        "SecondFuck": RB.FIRST_PPUK.points(RULES, 2),
        "FirstDdadak": RB.FIRST_TTADAK.points(RULES),
    }
    lines += [(lo, WINNER, amounts[o] * STAKE) for o in options for lo in LOSERS]
    for payer, payee, chips in lines:
        net[payer] -= chips
        net[payee] += chips
    return net


# --- the expected accounts, as CalculateFourPlayerMassTest computes them ------------------


def calculate_go_score(score: int, go: int) -> int:
    """GoPoints.kt: 0 Go S; 1-2 Go S+n; 3+ Go (S+n) * 2^(n-2)."""
    if go >= 3:
        return (score + go) * 2 ** (go - 2)
    return score + go


def expected_accounts(
    seller_score: int, go: int, baks: tuple[list[str], list[str]], options: list[str]
) -> list[int]:
    seller_income = SELL_SCORE * seller_score * (len(baks) + 1)
    winner_score = calculate_go_score(WINNER_SCORE, go)
    base = [winner_score * STAKE * (1 << len(b)) for b in baks]
    go_index = next((i for i, b in enumerate(baks) if GO in b), -1)
    if go_index >= 0:
        losers = [-sum(base) if i == go_index else 0 for i in range(len(baks))]
    else:
        losers = [-a for a in base]
    per_opponent = sum(
        {"FirstFuck": FUCK_SCORE, "SecondFuck": FUCK_SCORE * 2, "FirstDdadak": STAKE * 3}[o]
        for o in options
    )
    winner = sum(base) + per_opponent * len(baks) - SELL_SCORE * seller_score
    losers = [x - per_opponent - SELL_SCORE * seller_score for x in losers]
    return [winner, *losers, seller_income]


def scenarios() -> list[tuple[int, int, tuple[list[str], list[str]], list[str]]]:
    """generateScenarios(): sellers 1-3 brights, two losers (at most one go-bak), five winner
    options, 0, 2 or 4 Gos."""
    out = []
    for score in (1, 2, 3):
        for first, second in itertools.product(COMBOS, COMBOS):
            if (GO in first) + (GO in second) <= 1:
                for opts in WINNER_OPTIONS:
                    for go in (0, 2, 4):
                        out.append((score, go, (first, second), opts))
    return out


def test_every_four_player_case_pays_as_gostopcalculator() -> None:
    cases = scenarios()
    assert len(cases) == 3 * (16 * 16 - 8 * 8) * 5 * 3 == 8640
    wrong = [c for c in cases if engine_accounts(*c) != expected_accounts(*c)]
    assert not wrong, f"{len(wrong)} of {len(cases)} cases differ, first {wrong[0]}"


@pytest.mark.parametrize("brights", [1, 2, 3])
def test_the_seller_takes_price_times_brights_from_each_player(brights: int) -> None:
    # CalculateSellScoreUseCase: the seller receives sell price x brights from every buyer
    assert SALES[brights] == [-500 * brights] * 3 + [1500 * brights]


def test_a_go_bak_loser_doubles_and_pays_for_both() -> None:
    """The rule the vectors need beyond dokbak: go_bak = double_pays_for_all."""
    case = (1, 0, ([GO], []), [])
    # base amounts 10*100*2 and 10*100; the go-bak loser pays both
    assert engine_accounts(*case) == [3000 - 500, -3000 - 500, -500, 1500]
    # plain dokbak moves the shares without doubling the go-bak loser's own
    plain = table_for(apply_overrides(RULES, {"go_bak": "pays_for_all"}, "test"), 3, STAKE)
    assert engine_accounts(*case, table=plain) == [2000 - 500, -2000 - 500, -500, 1500]
