"""The seeded simulator: dealer, bots, self-play determinism and validity for every preset."""

from __future__ import annotations

from collections import Counter

import pytest

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records import script as scripted
from gostop_records.engine.actions import legal_actions
from gostop_records.engine.state import HandState
from gostop_records.engine.table import table_for
from gostop_records.errors import GostopError, RulesetError
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.sim.bots import GreedyBot
from gostop_records.sim.dealer import SplitMix64, deal, shuffled_deck
from gostop_records.sim.roster import BOTS, make_bot
from gostop_records.sim.selfplay import (
    GameSpec,
    game_start,
    play_game,
    play_payloads,
    simulate,
)
from gostop_records.sim.summary import RunSummary

#: Every preset with every player count it is played with.
COMBOS = [("gamerules", 2), ("gamerules", 3), ("matgo", 2), ("cardavia", 2), ("gostop3", 3)]


def _bytes(envs: list[E.Envelope]) -> bytes:
    return b"".join(L.encode_json(e) + b"\n" for e in envs)


# --- the dealer ------------------------------------------------------------------------------


def test_splitmix64_matches_the_reference_sequence() -> None:
    # The published outputs of SplitMix64 (Steele, Lea, Flood 2014) for seeds 0 and 1234567.
    r = SplitMix64(0)
    assert [r.next64() for _ in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    r = SplitMix64(1234567)
    assert [r.next64() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_below_stays_in_range_and_covers_it() -> None:
    r = SplitMix64("range")
    seen = Counter(r.below(7) for _ in range(7000))
    assert set(seen) == set(range(7))
    assert min(seen.values()) > 800  # roughly uniform: 1000 expected each
    with pytest.raises(ValueError):
        r.below(0)


def test_string_seeds_are_stable_and_distinct() -> None:
    a, b, c = SplitMix64("7/x"), SplitMix64("7/x"), SplitMix64("7/y")
    assert a.state == b.state != c.state


@pytest.mark.parametrize(("preset", "players"), COMBOS)
def test_shuffle_is_a_permutation_and_the_deal_has_the_ruleset_shape(
    preset: str, players: int
) -> None:
    t = table_for(PRESETS[preset], players)
    deck = shuffled_deck(t, SplitMix64("deal"))
    assert sorted(deck) == list(C.indices(t.deck))
    assert deck == shuffled_deck(t, SplitMix64("deal"))
    d = deal(t, deck, dealer=1)
    assert [len(h) for h in d.hands] == [t.hand_size] * players
    assert len(d.layout) == t.layout_size
    assert not any(i >= 48 for i in d.layout)  # bonus cards dealt face up were replaced
    cards = [i for h in d.hands for i in h] + d.layout + d.stock + d.bonus_to_pile
    assert sorted(cards) == sorted(deck)


def test_bonus_cards_dealt_face_up_go_to_the_pile_and_are_replaced_from_the_stock_top() -> None:
    t = table_for(PRESETS["matgo"], 2)
    rest = [i for i in range(48) if i not in (0, 1)]
    b2, b3 = C.index("B2"), C.index("B3")
    # 2 players: 5 + 5 to the hands, then 4 to the layout (B2 first), 5 + 5, 4 (B3 last)
    deck = [*rest[:10], b2, *rest[10:13], *rest[13:23], *rest[23:26], b3, 0, 1, *rest[26:]]
    d = deal(t, deck, dealer=0)
    assert d.bonus_to_pile == [b2, b3]
    assert d.layout[0] == 0 and d.layout[-1] == 1  # the first two stock cards replaced them
    assert d.stock == rest[26:]


# --- self-play -------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), COMBOS)
def test_same_seed_same_bytes_and_other_seeds_differ(preset: str, players: int) -> None:
    spec = GameSpec(PRESETS[preset], players, hands=2, seed=5, bots=("greedy", "random"))
    a, b = _bytes(play_game(spec)), _bytes(play_game(spec))
    assert a == b
    other = GameSpec(PRESETS[preset], players, hands=2, seed=6, bots=("greedy", "random"))
    assert _bytes(play_game(other)) != a


@pytest.mark.parametrize(("preset", "players"), COMBOS)
@pytest.mark.parametrize("bots", [("greedy",), ("random",), ("random", "greedy")])
def test_every_simulated_log_validates_strictly(
    preset: str, players: int, bots: tuple[str, ...]
) -> None:
    for log in simulate(PRESETS[preset], players, games=3, hands=3, seed=40, bots=bots):
        chain = L.verify(log)
        assert chain.ok, chain.reason
        p = project(log)
        assert p.ok and not p.issues
        assert p.game is not None and not p.game.in_hand
        # every payment due is recorded as paid, so the ledgers agree
        assert p.game.ledger() == p.game.recorded_ledger()


def test_simulate_runs_games_on_consecutive_seeds() -> None:
    logs = list(simulate(PRESETS["matgo"], 2, games=3, hands=1, seed=10, bots=("random",)))
    assert [log[0].game_id for log in logs] == [
        "sim-matgo-2p-random-random-10",
        "sim-matgo-2p-random-random-11",
        "sim-matgo-2p-random-random-12",
    ]
    specs = list(GameSpec(PRESETS["matgo"], 2, 1, 10, ("random",)).run(3))
    assert [s.seed for s in specs] == [10, 11, 12]
    # a game's bytes depend on its seed alone, not on its place in the run
    assert [_bytes(play_game(s, game_start(s.seed))) for s in specs] == [_bytes(g) for g in logs]
    later = next(simulate(PRESETS["matgo"], 2, games=1, hands=1, seed=11, bots=("random",)))
    assert _bytes(later) == _bytes(logs[1])


def test_game_ids_name_non_default_bots_and_stakes() -> None:
    rules = PRESETS["gostop3"]
    assert GameSpec(rules, 3, seed=4).id() == "sim-gostop3-3p-4"
    assert GameSpec(rules, 3, seed=4, bots=("greedy", "greedy")).id() == "sim-gostop3-3p-4"
    assert GameSpec(rules, 3, seed=4, bots=("greedy", "random")).id() == (
        "sim-gostop3-3p-greedy-random-greedy-4"
    )
    assert GameSpec(rules, 3, seed=4, stake=100).id() == "sim-gostop3-3p-x100-4"
    assert GameSpec(rules, 3, seed=4, game_id="mine").id() == "mine"


def test_deals_do_not_depend_on_the_bots_or_the_game_id() -> None:
    """Two bot line-ups meet the same deals on the same seed: a fair comparison."""

    def decks(spec: GameSpec) -> list[list[str] | None]:
        return [p.deck for _, p in play_payloads(spec) if type(p) is E.HandStarted]

    rules = PRESETS["matgo"]
    a = decks(GameSpec(rules, 2, hands=1, seed=9, bots=("greedy",)))
    b = decks(GameSpec(rules, 2, hands=1, seed=9, bots=("random",), game_id="x", stake=50))
    assert a == b and a[0] is not None


def test_single_hand_ruleset_plays_one_hand() -> None:
    log = play_game(GameSpec(PRESETS["cardavia"], 2, hands=5, seed=2))
    ended = [e.event for e in log if type(e.event) is E.HandEnded]
    assert [h.outcome for h in ended if h.outcome != "void"] == [ended[-1].outcome]
    assert ended[-1].outcome != "void"


def test_wrong_player_count_is_refused() -> None:
    with pytest.raises(RulesetError, match="played by 2 players, not 3"):
        play_game(GameSpec(PRESETS["matgo"], 3))


# --- the bots --------------------------------------------------------------------------------


def test_make_bot_names_the_bots_on_a_typo() -> None:
    assert set(BOTS) == {"random", "greedy", "strong", "deep"}
    with pytest.raises(GostopError, match="unknown bot 'greedyy': bots are random, greedy, strong"):
        make_bot("greedyy", SplitMix64(0))


def _net_chips(preset: str, players: int, bots: tuple[str, ...], games: int) -> Counter[str]:
    summary = RunSummary(GameSpec(PRESETS[preset], players, bots=bots).seat_bots())
    for log in simulate(PRESETS[preset], players, games, 3, 100, bots):
        for env in log:
            summary.add(env)
    return summary.net


@pytest.mark.parametrize(("preset", "players"), COMBOS)
def test_greedy_wins_chips_from_random(preset: str, players: int) -> None:
    bots = ("greedy", "random", "random")[:players]
    net = _net_chips(preset, players, bots, games=20)
    assert net["greedy"] > 0 > net["random"]


@pytest.mark.parametrize(("preset", "players"), COMBOS)
def test_bots_use_every_special_input_of_the_ruleset(preset: str, players: int) -> None:
    """Over a few games, the bots shake, bomb, take flip-only turns, play bonus cards and
    decide the cup wherever the ruleset has them."""
    rules = PRESETS[preset]
    seen: Counter[str] = Counter()
    for bots in (("greedy",), ("random",)):
        for log in simulate(rules, players, 12, 3, 1, bots):
            for env in log:
                seen[env.type] += 1
                if type(env.event) is E.CardPlayed and env.event.card.startswith("B"):
                    seen["bonus_played"] += 1
    expected = {
        "shaken": rules.shaking.value != "none",
        "bomb_played": rules.bombs,
        "flip_only_played": rules.bombs,
        "bonus_played": bool(rules.bonus_cards),
        "cup_assigned": rules.cup_mode.value == "player_choice",
        "go_called": True,
        "ppuk_made": True,
    }
    for kind, present in expected.items():
        assert (seen[kind] > 0) == present, (kind, seen[kind])


def _hand(script: str) -> HandState:
    p = project(scripted.build(script), strict=True)
    assert p.game is not None and p.game.hand is not None
    return p.game.hand


def _greedy(h: HandState) -> object:
    return GreedyBot(SplitMix64(0)).choose(h, legal_actions(h))


def test_greedy_takes_the_capture_that_completes_a_set() -> None:
    # 02A and 04A are in seat 0's pile: 08A completes godori (+5 points), worth more than
    # the bright 01G that completes nothing
    h = _hand("""
game t ruleset=matgo players=2
hand dealer=0
seat0: 02A 08J1 01J1 ...
seat1: 11J1 ...
layout: 02J1 04J1 08A 01G 05J1 06J1 07J1 10J1
stock: auto
0 play 02A
0 flip 04A
1 play 11J1
1 flip 09J1
""")
    choice = _greedy(h)
    assert type(choice) is E.CardPlayed and choice.card == "08J1"


def test_greedy_bombs_and_takes_a_stack() -> None:
    bomb = _greedy(
        _hand("""
game t ruleset=matgo players=2
hand dealer=0
seat0: 03R 03J1 03J2 05A ...
seat1: ...
layout: 03G 05J1 06J1 07J1 08J1 09J1 10J1 11J1
stock: auto
""")
    )
    assert type(bomb) is E.BombPlayed and bomb.month == 3
    stack = _greedy(
        _hand("""
game t ruleset=matgo players=2
hand dealer=0
seat0: 06A 05A 01J1 02J1 03J1 04J1 07A 08A 12A 11D
seat1: ...
layout: 06J1 06J2 06R 05J1 01G 09J1 10J1 11J1
stock: auto
""")
    )
    assert stack == E.CardPlayed(seat=0, card="06A", chosen=None)


_EIGHT_POINTS = """
game t ruleset=matgo players=2
hand dealer=0
seat0: 08G 06A 03G ...
seat1: 12G 07J1 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 06A
0 flip 04A
1 play 07J1
1 flip 09J1
0 play 03G
0 flip 02A
"""


def test_greedy_goes_when_safe_and_stops_when_an_opponent_is_close() -> None:
    h = _hand(_EIGHT_POINTS)
    assert h.decider == 0 and h.score_of(0) == 8 and h.score_of(1) < 5
    assert type(_greedy(h)) is E.GoCalled
    near = h.copy()
    near.piles[1] = C.mask_of(["04R", "05R", "07R", "06R", "09R", "10R"])  # 8 points
    assert type(_greedy(near)) is E.StopCalled
    gone_twice = h.copy()
    gone_twice.go_count[0] = 2
    gone_twice.go_score[0] = 7
    assert type(_greedy(gone_twice)) is E.StopCalled


def test_greedy_gives_the_cup_the_role_that_scores_more() -> None:
    # 8 junk units in the pile: the cup as double junk makes 10 units, 1 point
    h = _hand("""
game t ruleset=matgo players=2
hand dealer=0
seat0: 01J2 03J1 09A ...
seat1: 11J1 12G ...
layout: 01J1 03J2 04J1 05J1 06J1 09J1 10J1 12A
stock: 04J2 11J2 05J2 06J2 10J2 ...
0 play 01J2
0 flip 04J2
1 play 11J1
1 flip 11J2
0 play 03J1
0 flip 05J2
1 play 12G
1 flip 06J2
0 play 09A
0 flip 10J2
""")
    assert h.decider == 0 and h.phase.name == "CUP"
    assert _greedy(h) == E.CupAssigned(seat=0, role="junk")


def test_a_game_with_fewer_hands_is_a_prefix_of_the_longer_game() -> None:
    spec = GameSpec(PRESETS["gamerules"], 3, hands=2, seed=5, bots=("greedy", "random"))
    short = _bytes(play_game(spec))
    longer = _bytes(play_game(GameSpec(PRESETS["gamerules"], 3, 4, 5, ("greedy", "random"))))
    assert longer.startswith(short) and len(longer) > len(short)
