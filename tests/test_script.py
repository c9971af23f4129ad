"""Scripted games: a deal and inputs in, a complete log with every consequence derived."""

from __future__ import annotations

import re

import msgspec
import pytest

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records import script as scripted
from gostop_records.engine.table import table_for
from gostop_records.errors import ProjectionError
from gostop_records.projector import project
from gostop_records.rules import PRESETS
from gostop_records.script import ScriptError
from gostop_records.sim.dealer import deal
from gostop_records.sim.selfplay import GameSpec, play_game

JJOK = """
game g-jjok ruleset=matgo players=2 stake=10 names=North,South
hand dealer=0
seat0: 08G 07R 03G 02A ...
seat1: 12G 02J1 11J1 ...
layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1
stock: 01J1 10J2 07J1 09J1 04A 09J2 11J2 ...
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 07r        # card codes are case-insensitive
0 flip 07J1
1 play 02J1
1 flip 09J1
0 play 03G
0 flip 04A
1 play 11J1
1 flip 09J2
0 play 02A
0 flip            # the known stock top
0 stop
pay due
"""


def _types(envs: list[E.Envelope]) -> list[str]:
    return [e.type for e in envs]


def test_a_script_builds_a_log_that_validates_strictly() -> None:
    envs = scripted.build(JJOK)
    assert L.verify(envs).ok
    p = project(envs)
    assert p.ok and p.game is not None
    (result,) = p.game.results
    assert (result.outcome, result.winner) == ("stop", 0)
    assert result.dues == ((1, 0, 8, 80, "stop"),)  # 8 points at stake 10
    assert p.game.payments == ((1, 1, 0, 80),)
    kinds = [e.event.kind for e in envs if type(e.event) is E.CardsCaptured]
    assert "jjok" in kinds
    started = envs[0].event
    assert [pl.name for pl in started.players] == ["North", "South"]
    flips = [e.event.card for e in envs if type(e.event) is E.CardFlipped]
    assert flips[-1] == "11J2"  # "0 flip" took the stock top


def test_consequences_follow_their_input_and_share_its_time() -> None:
    envs = scripted.build(JJOK)
    assert _types(envs)[:7] == [
        "game_started",
        "hand_started",
        "cards_dealt",
        "card_played",
        "card_flipped",
        "cards_captured",
        "cards_captured",
    ]
    assert envs[5].at == envs[4].at != envs[3].at
    assert [e.hand for e in envs] == [None] + [1] * (len(envs) - 1)


def test_the_deal_is_completed_without_fours_and_recorded_as_a_dealable_deck() -> None:
    envs = scripted.build(JJOK)
    dealt = envs[2].event
    hand_started = envs[1].event
    assert [len(h) for h in dealt.hands] == [10, 10]
    assert dealt.hands[0][:4] == ["08G", "07R", "03G", "02A"]
    for h in dealt.hands:
        mask = C.mask_of(h)
        assert all((mask & C.MONTH_MASKS[m]).bit_count() < 4 for m in range(1, 13))
    # the stock starts with the flips in script order
    assert dealt.stock[:4] == ["01J1", "10J2", "07J1", "09J1"]
    # the recorded deck is one the seeded dealer turns into exactly this deal
    t = table_for(PRESETS["matgo"], 2)
    d = deal(t, [C.index(c) for c in hand_started.deck], hand_started.dealer)
    assert [[C.ALL_CARDS[i].code for i in h] for h in d.hands] == dealt.hands
    assert [C.ALL_CARDS[i].code for i in d.layout] == dealt.layout
    assert [C.ALL_CARDS[i].code for i in d.stock] == dealt.stock
    # and the same script gives the same bytes
    again = scripted.build(JJOK)
    assert [L.encode_json(e) for e in again] == [L.encode_json(e) for e in envs]


@pytest.mark.parametrize(("preset", "players"), [("matgo", 2), ("gostop3", 3)])
def test_deck_of_inverts_the_dealer_with_bonus_cards_face_up(preset: str, players: int) -> None:
    t = table_for(PRESETS[preset], players)
    found = 0
    for seed in range(60):
        log = play_game(GameSpec(PRESETS[preset], players, hands=1, seed=seed))
        dealt = next(e.event for e in log if type(e.event) is E.CardsDealt)
        dealer = next(e.event.dealer for e in log if type(e.event) is E.HandStarted)
        deck = scripted.deck_of(
            t, dealer, dealt.hands, dealt.layout, dealt.stock, dealt.bonus_to_pile
        )
        assert deck is not None
        d = deal(t, [C.index(c) for c in deck], dealer)
        assert [[C.ALL_CARDS[i].code for i in h] for h in d.hands] == dealt.hands
        assert [C.ALL_CARDS[i].code for i in d.layout] == dealt.layout
        assert [C.ALL_CARDS[i].code for i in d.stock] == dealt.stock
        assert [C.ALL_CARDS[i].code for i in d.bonus_to_pile] == dealt.bonus_to_pile
        found += bool(dealt.bonus_to_pile)
    assert found  # some deals had bonus cards face up


@pytest.mark.parametrize(
    ("preset", "players"),
    [("gamerules", 2), ("gamerules", 3), ("matgo", 2), ("cardavia", 2), ("gostop3", 3)],
)
def test_script_of_a_simulated_game_builds_the_same_game(preset: str, players: int) -> None:
    for seed in range(4):
        log = play_game(GameSpec(PRESETS[preset], players, 3, seed, ("greedy", "random")))
        text = scripted.script_of(log)
        again = scripted.build(text)
        assert [msgspec.json.encode(e.event) for e in again] == [
            msgspec.json.encode(e.event) for e in log
        ]
        assert again[0].game_id == log[0].game_id


def test_a_live_record_with_hidden_hands_and_stock() -> None:
    text = JJOK
    for known, hidden in (
        ("seat0: 08G 07R 03G 02A ...", "seat0: ?"),
        ("seat1: 12G 02J1 11J1 ...", "seat1: ?"),
        ("stock: 01J1 10J2 07J1 09J1 04A 09J2 11J2 ...", "stock: ?"),
        ("0 flip            # the known stock top", "0 flip 11J2"),
    ):
        text = text.replace(known, hidden)
    envs = scripted.build(text)
    dealt = envs[2].event
    assert dealt.hands == [None, None] and dealt.stock is None
    assert envs[1].event.deck is None
    p = project(envs)
    assert p.ok and p.game is not None and p.game.results[0].winner == 0
    with pytest.raises(ScriptError, match="name the card turned"):
        scripted.build(text.replace("0 flip 11J2", "0 flip"))


def test_an_illegal_input_names_the_line_and_the_rule() -> None:
    bad = JJOK.replace("1 play 02J1", "1 play 03G")  # 03G is in seat 0's hand
    with pytest.raises(ScriptError) as exc:
        scripted.build(bad, where="bad.txt")
    msg = str(exc.value)
    assert "bad.txt, line 14: '1 play 03G'" in msg
    assert "seat 1 does not hold 03G" in msg and "[rule: card_in_hand]" in msg


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hand dealer=0\n", "starts with a game line"),
        ("game x players=2\n", "ruleset=NAME is required"),
        ("game x ruleset=matgo\nhand dealer=0\nseat0: ...\nlayout: 01G\n", "no line for seat1"),
        (
            "game x ruleset=matgo\nhand dealer=0\nseat0: 01G ...\nseat1: 01G ...\nlayout: 02J1\n",
            "01G is placed twice",
        ),
        (
            "game x ruleset=matgo\nhand dealer=0\nseat0: ...\nseat1: ...\n"
            "layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1\n0 dance\n",
            "unknown input 'dance'",
        ),
        (
            "game x ruleset=matgo\nhand dealer=0\nseat0: ...\nseat1: ...\n"
            "layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1\n0 play 13X\n",
            "unknown card code",
        ),
        (
            "game x ruleset=matgo\nhand dealer=0\nseat0: ...\nseat1: ...\n"
            "layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1\n0 shake 14\n",
            "a month is 01..12",
        ),
        ("game x ruleset=matgo wind=east\n", "line 1: unknown game attribute(s) wind"),
        (
            "game x ruleset=matgo\nhand dealer=0\nseat0: ?\nseat1: ...\n"
            "layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1\nstock: auto\n",
            "needs every hand known",
        ),
    ],
)
def test_script_errors_are_clear(text: str, message: str) -> None:
    with pytest.raises(ScriptError, match=re.escape(message)):
        scripted.build(text)


def test_shake_bomb_flip_only_cup_and_bonus_lines() -> None:
    text = """
game g ruleset=matgo players=2
hand dealer=0
seat0: 03R 03J1 03J2 07A 07R 07J1 09A B2 ...
seat1: 12G 06J2 ...
layout: 03G 01G 06J1 09J1 10J1 11J1 12A 02J1
stock: auto
0 bomb 03
0 flip 01J1
1 play 12G
1 flip 10J2
0 shake 07
0 play 07A
0 flip 08J1
1 play 06J2
1 flip 05J1
0 play B2 draw 04J1
0 play 09A
0 flip 04J2
0 cup animal
1 play 10A
1 flip 11J2
0 flip-only
0 flip B3
0 flip 05J2
"""
    envs = scripted.build(text)
    types = _types(envs)
    for t in ("bomb_played", "shaken", "bonus_card_taken", "cup_assigned", "flip_only_played"):
        assert t in types
    bomb = next(e.event for e in envs if type(e.event) is E.BombPlayed)
    assert bomb.cards == ["03R", "03J1", "03J2"]
    shake = next(e.event for e in envs if type(e.event) is E.Shaken)
    assert shake.cards == ["07A", "07R", "07J1"]
    assert project(envs).ok
    explicit = text.replace("stock: auto", "stock: 01J1 10J2 08J1 05J1 04J1 ...")
    with pytest.raises(ScriptError, match="the card drawn is 04J1, not 05A"):
        scripted.build(explicit.replace("draw 04J1", "draw 05A"))


def test_retract_undoes_the_latest_input() -> None:
    text = JJOK.replace("1 play 12G\n", "1 play 12R\nretract typo\n1 play 12G\n").replace(
        "seat1: 12G 02J1 11J1 ...", "seat1: 12G 12R 02J1 11J1 ..."
    )
    envs = scripted.build(text)
    played = next(e for e in envs if type(e.event) is E.CardPlayed and e.event.card == "12R")
    retract = envs[played.seq]  # the next envelope
    assert retract.event == E.EntryRetracted(seq=played.seq, reason="typo")
    p = project(envs)
    assert p.ok and p.game is not None and p.game.results[0].winner == 0


def test_fours_notes_and_explicit_payments() -> None:
    text = """
game g ruleset=gamerules players=3
hand dealer=0
seat0: ...
seat1: 05A 05R 05J1 05J2 ...
seat2: ...
layout: 01G 02R 03J1 08A 10J2 12A
stock: auto
fours
note @4 seat 1 showed May
pay 0->1 5
pay 2->1 3 short by two
"""
    envs = scripted.build(text)
    shown = envs[3].event
    assert shown == E.FourOfAMonthShown(
        shown=[E.FourShown(seat=1, month=5, cards=["05A", "05R", "05J1", "05J2"])]
    )
    notes = [e.event for e in envs if type(e.event) is E.NoteAdded]
    assert notes == [E.NoteAdded(text="seat 1 showed May", about_seq=4)]
    pays = [e.event for e in envs if type(e.event) is E.PaymentRecorded]
    assert pays[1] == E.PaymentRecorded(payer=2, payee=1, chips=3, note="short by two")
    p = project(envs)
    assert p.game is not None
    assert p.game.ledger() != p.game.recorded_ledger()  # 5 due from seat 2, 3 paid


def test_amend_reseals_so_only_the_rules_object() -> None:
    envs = scripted.build(JJOK)
    k = next(e.seq for e in envs if type(e.event) is E.CardPlayed and e.event.card == "02J1")
    seat0_card = next(e.event.hands[0][-1] for e in envs if type(e.event) is E.CardsDealt)
    changed = scripted.amend(envs, k, E.CardPlayed(seat=1, card=seat0_card))
    assert L.verify(changed).ok
    with pytest.raises(ProjectionError) as exc:
        project(changed)
    assert (exc.value.seq, exc.value.rule) == (k, "card_in_hand")
    lenient = project(changed, strict=False)
    # the rules object to the play; the payment that follows it answers no due of the hand
    # as the rules now play it out (payment_note): a rules objection too, not the seal's
    assert [(i.seq, i.rule) for i in lenient.issues] == [
        (k, "card_in_hand"),
        (envs[-1].seq, "payment_note"),
    ]
    with pytest.raises(ScriptError, match="no event with seq 999"):
        scripted.amend(envs, 999, E.NoteAdded(text="x"))
