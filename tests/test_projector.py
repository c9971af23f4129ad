"""The projector: a log folds back into exactly the engine's state; strict mode names the seq,
the rule and both versions of the first wrong fact; lenient mode reports every issue and
keeps going; retractions, hidden information, unknown event types, seq and hand fields,
and the state after any seq."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from engine_helpers import AT, Scenario, disjoint_places

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log
from gostop_records.engine import GameState, apply_game, start_game
from gostop_records.errors import ProjectionError
from gostop_records.projector import Projector, project
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game

LAYOUT = ["01G", "02A", "03R", "04A", "04R", "06A", "07R", "08G"]

Entries = list[tuple[int | None, Any]]


def to_log(entries: Entries, game_id: str = "g") -> list[E.Envelope]:
    return log.seal(
        log.envelope(game_id, seq, hand, ev, by="test", at=AT, recorded_at=AT)
        for seq, (hand, ev) in enumerate(entries, 1)
    )


def base() -> Scenario:
    """matgo, one hand: a quiet turn, two pairs, a jjok that steals, a choice of two."""
    sc = Scenario("matgo", game_id="g")
    sc.deal(
        [["12A", "05A", "10J1"], ["01J1", "04J1"]],
        LAYOUT,
        ["11G", "02J1", "05J1", "09R", "09J1", "10A"],
    )
    sc.turn(0, "12A")  # seq 4, 5
    sc.turn(1, "01J1")  # seq 6, 7; captures 8, 9
    sc.turn(0, "05A")  # seq 10, 11; jjok 12, transfer 13
    sc.turn(1, "04J1", chosen="04A")  # seq 14, 15; capture 16
    return sc


def seq_of(entries: Entries, cls: type, nth: int = 0) -> int:
    found = [i for i, (_, ev) in enumerate(entries, 1) if type(ev) is cls]
    return found[nth]


def snapshot(g: GameState) -> dict[str, Any]:
    """Everything a game state shows: the table, results, ledgers, carry, dealer."""
    return {
        "hand": g.hand.to_dict() if g.hand is not None else None,
        "hand_no": g.hand_no,
        "carry": g.carry,
        "next_dealer": g.next_dealer,
        "finished": g.finished,
        "results": [
            (r.hand, r.dealer, r.outcome, r.winner, r.reason, r.carry, r.next_carry, r.dues)
            for r in g.results
        ],
        "ledger": g.ledger(),
        "recorded": g.recorded_ledger(),
        "payments": g.payments,
    }


def engine_state(envs: list[E.Envelope]) -> GameState:
    """The state the engine reaches from the inputs of a log alone."""
    first = envs[0].event
    assert isinstance(first, E.GameStarted)
    g = start_game(envs[0].game_id, first)
    for env in envs[1:]:
        if E.is_input(env.event):
            g, _ = apply_game(g, env.event)
    return g


def strict_error(entries: Entries) -> ProjectionError:
    with pytest.raises(ProjectionError) as exc:
        project(to_log(entries))
    return exc.value


# --- a clean log --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players"),
    [("cardavia", 2), ("gamerules", 2), ("gamerules", 3), ("matgo", 2), ("gostop3", 3)],
)
def test_simulated_game_projects_to_the_engine_state(preset: str, players: int) -> None:
    envs = play_game(GameSpec(PRESETS[preset], players, hands=3, seed=11, bots=("greedy",)))
    p = project(envs)
    assert p.ok and p.issues == []
    assert p.last_seq == len(envs) and p.last == envs[-1] and p.events == len(envs)
    assert p.game is not None
    assert snapshot(p.game) == snapshot(engine_state(envs))
    assert p.game.recorded_ledger() == p.game.ledger()


def test_a_scenario_log_projects_to_the_scenario_state() -> None:
    sc = base()
    p = project(sc.envelopes())
    assert p.game is not None and snapshot(p.game) == snapshot(sc.game)


# --- strict mode: the first wrong fact, with seq, rule and both versions ------------------


def test_changed_consequence_wrong_captured_cards() -> None:
    entries = base().entries
    seq = seq_of(entries, E.CardsCaptured)
    hand, right = entries[seq - 1]
    wrong = msgspec.structs.replace(right, cards=["01G", "01J2"])
    entries[seq - 1] = (hand, wrong)
    err = strict_error(entries)
    assert (err.seq, err.rule) == (seq, "derive_cards_captured")
    assert err.expected == right and err.recorded == wrong
    assert "01J1" in err.reason and "01J2" in err.reason


def test_captured_cards_in_another_order_are_the_same_fact() -> None:
    entries = base().entries
    seq = seq_of(entries, E.CardsCaptured)
    hand, right = entries[seq - 1]
    entries[seq - 1] = (hand, msgspec.structs.replace(right, cards=right.cards[::-1]))
    assert project(to_log(entries)).ok


def test_changed_consequence_wrong_transferred_card() -> None:
    entries = base().entries
    seq = seq_of(entries, E.JunkTransferred)
    hand, right = entries[seq - 1]
    assert right == E.JunkTransferred(from_seat=1, to_seat=0, card="01J1", reason="jjok")
    wrong = msgspec.structs.replace(right, card="02J1")
    entries[seq - 1] = (hand, wrong)
    err = strict_error(entries)
    assert (err.seq, err.rule) == (seq, "derive_junk_transferred")
    assert (err.expected, err.recorded) == (right, wrong)


def test_missing_consequence() -> None:
    entries = base().entries
    seq = seq_of(entries, E.JunkTransferred)
    _, dropped = entries.pop(seq - 1)
    err = strict_error(entries)
    # the next input arrives while the transfer is still due
    assert (err.seq, err.rule) == (seq, "consequence_missing")
    assert err.expected == dropped and type(err.recorded) is E.CardPlayed


def test_missing_consequence_at_the_end_of_the_log() -> None:
    entries = base().entries
    _, dropped = entries.pop()
    err = strict_error(entries)
    assert (err.seq, err.rule) == (None, "consequence_missing")
    assert err.expected == dropped


def test_extra_consequence() -> None:
    entries = base().entries
    seq = seq_of(entries, E.JunkTransferred)
    extra = E.JunkTransferred(from_seat=1, to_seat=0, card="02J1", reason="jjok")
    entries.insert(seq, (1, extra))
    err = strict_error(entries)
    assert (err.seq, err.rule) == (seq + 1, "unexpected_consequence")
    assert err.recorded == extra and err.expected is None


@pytest.mark.parametrize(
    ("which", "replacement", "rule", "reason"),
    [
        # a card the player does not hold
        (
            (E.CardPlayed, 2),
            E.CardPlayed(seat=0, card="04J1"),
            "card_in_hand",
            "seat 0 does not hold 04J1: it is in seat 1's hand",
        ),
        # the stock is known: the flip must be its top card
        (
            (E.CardFlipped, 2),
            E.CardFlipped(seat=0, card="10A"),
            "flip_is_stock_top",
            "the next stock card is 05J1, not 10A",
        ),
        # two layout cards match and no choice is recorded
        (
            (E.CardPlayed, 3),
            E.CardPlayed(seat=1, card="04J1"),
            "choice_required",
            "04J1 played matches 04A and 04R on the layout: say which one it takes",
        ),
    ],
)
def test_illegal_inputs(which: tuple[type, int], replacement: Any, rule: str, reason: str) -> None:
    entries = base().entries
    seq = seq_of(entries, *which)
    hand, original = entries[seq - 1]
    entries[seq - 1] = (hand, replacement)
    err = strict_error(entries)
    assert (err.seq, err.rule, err.reason) == (seq, rule, reason)
    assert err.recorded == replacement and original != replacement


def test_a_card_code_that_is_no_card_is_a_projection_error() -> None:
    """A payload built in code is not validated like a decoded log line: "ZZ" can reach the
    projector, which names it instead of letting the card parser's error escape."""
    entries = base().entries
    entries[3] = (1, E.CardPlayed(seat=0, card="ZZ"))
    err = strict_error(entries)
    assert (err.seq, err.rule) == (4, "card_code") and "'ZZ'" in err.reason
    p = project(to_log(entries), strict=False)
    assert [i.rule for i in p.issues] == ["card_code"]


def test_go_when_not_eligible() -> None:
    entries = base().entries
    seq = seq_of(entries, E.CardPlayed, 1)
    go = E.GoCalled(seat=1, count=1, score=0)
    entries.insert(seq - 1, (1, go))
    err = strict_error(entries)
    assert (err.seq, err.rule) == (seq, "turn_order")
    assert err.recorded == go
    assert err.reason == "Go is not expected now: seat 1 is to play a card"


def test_projection_error_carries_the_game_id() -> None:
    entries = base().entries
    entries[3] = (1, E.CardPlayed(seat=1, card="01J1"))
    err = strict_error(entries)
    assert err.game_id == "g" and str(err).startswith("seq 4: ")


# --- lenient mode -------------------------------------------------------------------------


FOUR_05 = ["05A", "05R", "05J1", "05J2"]
FOUR_09 = ["09A", "09R", "09J1", "09J2"]


def _two_void_hands() -> Scenario:
    """gamerules: both players are dealt a four, twice: each deal is void (G8, A25)."""
    from engine_helpers import small_deal

    sc = Scenario(small_deal("gamerules", hand=4, layout=2), game_id="g")
    for _ in range(2):
        sc.deal([FOUR_05, FOUR_09], ["01G", "02A"])
        sc.fours((0, 5), (1, 9))
    return sc


def test_lenient_mode_reports_every_issue_and_checks_the_next_hand_again() -> None:
    entries = _two_void_hands().entries
    # hand 1: an illegal input; a wrong consequence later in hand 1 is kept, not checked
    shown1 = seq_of(entries, E.FourOfAMonthShown, 0)
    entries[shown1 - 1] = (1, E.CardPlayed(seat=0, card="05A"))
    end1 = seq_of(entries, E.HandEnded, 0)
    entries[end1 - 1] = (1, E.HandEnded(outcome="stop", winner=1, reason="made up"))
    # hand 2: a changed consequence is reported again
    void2 = seq_of(entries, E.DealVoided, 1)
    hand, right = entries[void2 - 1]
    assert right == E.DealVoided(reason="hand_fours")
    entries[void2 - 1] = (hand, E.DealVoided(reason="layout_four", month=5))
    envs = to_log(entries)
    p = project(envs, strict=False)
    assert [(i.seq, i.rule, i.hand) for i in p.issues] == [
        (shown1, "hand_four_shown", 1),
        (void2, "derive_deal_voided", 2),
    ]
    assert not p.ok and p.last_seq == len(envs)
    assert p.game is not None
    assert [r.outcome for r in p.game.results] == ["unchecked", "void"]
    with pytest.raises(ProjectionError) as exc:
        project(envs)
    assert exc.value.seq == shown1


def test_lenient_mode_keeps_every_consequence_issue() -> None:
    entries = base().entries
    for cls in (E.CardsCaptured, E.JunkTransferred):
        seq = seq_of(entries, cls)
        hand, right = entries[seq - 1]
        entries[seq - 1] = (
            hand,
            msgspec.structs.replace(right, seat=0)
            if cls is E.CardsCaptured
            else msgspec.structs.replace(right, card="02J1"),
        )
    p = project(to_log(entries), strict=False)
    assert [i.rule for i in p.issues] == ["derive_cards_captured", "derive_junk_transferred"]
    assert all(i.severity == "violation" and i.expected != i.recorded for i in p.issues)


# --- entry_retracted ----------------------------------------------------------------------


def test_retraction_undoes_the_latest_input() -> None:
    sc = Scenario("matgo", game_id="g")
    sc.deal([["12A", "05A"], []], LAYOUT, ["11G"])
    sc.play(0, "12A")
    retracted = sc.retract()
    sc.turn(0, "05A")
    p = project(sc.envelopes())
    assert p.ok and p.game is not None
    assert snapshot(p.game) == snapshot(sc.game)
    assert "12A" in p.game.hand.to_dict()["seats"][0]["hand"]  # type: ignore[union-attr]
    assert retracted == 4


def test_retraction_of_a_flip_undoes_its_consequences() -> None:
    sc = Scenario("matgo", game_id="g")
    sc.deal([["01J1"], []], LAYOUT, ["02J1"])
    sc.turn(0, "01J1")
    sc.retract()
    assert sc.game.hand is not None and sc.game.hand.piles[0] == 0
    p = project(sc.envelopes())
    assert p.ok and p.game is not None and p.game.hand is not None
    assert p.game.hand.piles[0] == 0 and p.game.hand.phase.name == "FLIP"


def test_retraction_of_an_older_input_is_refused() -> None:
    sc = Scenario("matgo", game_id="g")
    sc.deal([["12A", "05A"], ["09A"]], LAYOUT, ["11G", "10J1"])
    sc.turn(0, "12A")
    entries = [*sc.entries, (1, E.EntryRetracted(seq=4))]  # the play; the flip came later
    err = strict_error(entries)
    assert err.rule == "retract_latest" and err.seq == len(entries)
    assert "seq 5" in err.reason


def test_lenient_retraction_of_a_refused_entry_resumes_the_checks() -> None:
    """A typo the rules refuse, corrected at once: the refusal is reported, the retraction
    is accepted, and the rest of the hand is checked again."""
    sc = Scenario("matgo", game_id="g")
    sc.deal([["12A", "05A"], ["01J1"]], LAYOUT, ["11G", "10J1"])
    entries = list(sc.entries)
    entries.append((1, E.CardPlayed(seat=0, card="04J1")))  # not in seat 0's hand
    entries.append((1, E.EntryRetracted(seq=len(entries), reason="typo")))
    sc.turn(0, "12A")
    sc.turn(1, "01J1")
    entries += sc.entries[3:]
    p = project(to_log(entries), strict=False)
    assert [(i.seq, i.rule) for i in p.issues] == [(4, "card_in_hand")]
    assert p.game is not None and snapshot(p.game) == snapshot(sc.game)
    # the checks are on again: a wrong capture after the retraction is reported
    cap = seq_of(entries, E.CardsCaptured)
    hand, right = entries[cap - 1]
    entries[cap - 1] = (hand, msgspec.structs.replace(right, seat=0))
    p = project(to_log(entries), strict=False)
    assert [(i.seq, i.rule) for i in p.issues] == [
        (4, "card_in_hand"),
        (cap, "derive_cards_captured"),
    ]


# --- hidden information -------------------------------------------------------------------


def _hidden(envs: list[E.Envelope]) -> Entries:
    """A log as a recorder who sees only the layout and the plays would keep it."""
    out: Entries = []
    for env in envs:
        ev = env.event
        if type(ev) is E.HandStarted:
            ev = msgspec.structs.replace(ev, deck=None)
        elif type(ev) is E.CardsDealt:
            ev = msgspec.structs.replace(ev, hands=[None] * len(ev.hands), stock=None)
        out.append((env.hand, ev))
    return out


def _cardavia_game() -> list[E.Envelope]:
    return play_game(GameSpec(PRESETS["cardavia"], 2, hands=1, seed=5, bots=("greedy",)))


def test_hidden_hands_and_stock_project_and_conserve_the_cards() -> None:
    envs = _cardavia_game()
    hidden = to_log(_hidden(envs))
    pr = Projector()
    for env in hidden:
        pr.feed(env)
        h = pr.game.hand if pr.game is not None else None
        if h is not None and h.phase.name != "DEAL":
            assert h.card_total() == 48
            assert disjoint_places(h)
        ev = env.event
        if type(ev) in (E.CardPlayed, E.CardFlipped):
            assert h is not None and h.seen & C.mask_of([ev.card])  # revealed
    p = pr.finish()
    full = project(envs)
    assert p.ok and p.game is not None and full.game is not None
    assert p.game.hand is not None and full.game.hand is not None
    assert p.game.hand.piles == full.game.hand.piles
    assert p.game.hand.layout == full.game.hand.layout
    assert p.game.ledger() == full.game.ledger()
    # cards_dealt said nothing about the hands: only the plays revealed them
    dealt = next(ev for _, ev in _hidden(envs) if type(ev) is E.CardsDealt)
    assert dealt.hands == [None, None] and dealt.stock is None


def test_a_card_revealed_twice_is_refused() -> None:
    entries = _hidden(_cardavia_game())
    first_play = seq_of(entries, E.CardPlayed, 0)
    card = entries[first_play - 1][1].card
    second_flip = seq_of(entries, E.CardFlipped, 1)
    hand, flip = entries[second_flip - 1]
    entries[second_flip - 1] = (hand, msgspec.structs.replace(flip, card=card, chosen=None))
    err = strict_error(entries)
    assert (err.seq, err.rule) == (second_flip, "card_in_stock")
    assert card in err.reason


# --- unknown types, seq and hand fields, the state at any seq -----------------------------


def test_unknown_event_types_are_kept_as_warnings() -> None:
    entries = base().entries
    entries.insert(5, (1, E.UnknownEvent(type="table_photo", payload={"url": "x"})))
    p = project(to_log(entries))  # strict mode: a warning does not stop the fold
    assert p.ok
    assert [(i.seq, i.rule, i.severity) for i in p.issues] == [(6, "unknown_event_type", "warning")]


def test_a_seq_gap_or_repeat_is_rejected() -> None:
    envs = base().envelopes()
    for broken in (envs[:5] + envs[6:], envs[:5] + envs[4:]):
        for strict in (True, False):
            with pytest.raises(ProjectionError) as exc:
                project(broken, strict=strict)
            assert exc.value.rule == "seq_dense"
    with pytest.raises(ProjectionError) as exc:
        project(envs[:5] + envs[6:])
    assert exc.value.seq == 7 and "6 is missing" in exc.value.reason


@pytest.mark.parametrize("cls", [E.CardPlayed, E.CardsCaptured])
def test_a_wrong_hand_field_is_rejected(cls: type) -> None:
    """Inputs and consequences alike carry the hand they belong to."""
    entries = base().entries
    seq = seq_of(entries, cls)
    entries[seq - 1] = (2, entries[seq - 1][1])
    err = strict_error(entries)
    assert (err.seq, err.rule) == (seq, "hand_field")


def test_a_game_level_event_before_any_hand_has_no_hand() -> None:
    entries = base().entries
    entries[0] = (1, entries[0][1])
    assert strict_error(entries).rule == "hand_field"


def test_the_state_after_any_seq() -> None:
    sc = base()
    envs = sc.envelopes()
    pr = Projector()
    for env in envs:
        pr.feed(env)
        at = project(envs, until_seq=env.seq)
        assert at.last_seq == env.seq and at.last == env
        assert at.game is not None and pr.game is not None
        assert snapshot(at.game) == snapshot(pr.game)
    after_deal = project(envs, until_seq=3).game
    assert after_deal is not None and after_deal.hand is not None
    assert after_deal.hand.to_dict()["phase"] == "play" and after_deal.hand.piles == [0, 0]
    # a cut inside a turn is not an error: the rest is simply not read yet
    mid = project(envs, until_seq=seq_of(sc.entries, E.CardFlipped, 1))
    assert mid.ok and mid.game is not None and mid.game.hand is not None
    assert mid.game.hand.piles[1] != 0
