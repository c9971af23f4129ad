"""The table notation both ways: every legal input written as a line parses back to itself,
and a line outside the grammar is refused with the reason."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gostop_records import events as E
from gostop_records import notation
from gostop_records.engine.actions import legal_actions
from gostop_records.engine.game import GameState, apply_game, start_game
from gostop_records.errors import CardCodeError, IllegalAction
from gostop_records.notation import NotationError, UnknownCommand, parse, text
from gostop_records.recorder import JsonlSink, RecordingSession
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_payloads

GAMES = [("matgo", 2), ("cardavia", 2), ("gamerules", 3), ("gostop3", 3), ("gamerules", 2)]


@functools.lru_cache(maxsize=64)
def _walk(preset: str, players: int, seed: int) -> list[tuple[GameState, Any]]:
    """(state before, input) of every input of a simulated game."""
    payloads = [p for _, p in play_payloads(GameSpec(PRESETS[preset], players, 2, seed))]
    g = start_game("g", payloads[0])
    out = []
    for p in payloads[1:]:
        if E.is_input(p):
            out.append((g, p))
            g, _ = apply_game(g, p)
    return out


def _round_trips(g: GameState, p: Any) -> None:
    for with_seat in (False, True):
        line = text(p, seat=with_seat)
        assert parse(line, g) == [p], line
        assert parse(line.lower(), g) == [p], line


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10_000))
def test_every_input_of_a_game_round_trips(game: tuple[str, int], seed: int) -> None:
    seen = set()
    for g, p in _walk(*game, seed):
        if type(p) is E.HandStarted and g.hand_no:
            # a later hand's dealer is the rules' (the winner deals): the line names it
            assert parse(text(p), g) == [p]
            continue
        _round_trips(g, p)
        seen.add(type(p))
    assert E.CardsDealt in seen  # a deal can end the hand at once (four of a month)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10_000), data=st.data())
def test_every_legal_action_round_trips(game: tuple[str, int], seed: int, data: Any) -> None:
    walk = _walk(*game, seed)
    for g, _ in data.draw(st.lists(st.sampled_from(walk), min_size=1, max_size=8)):
        h = g.hand
        for a in legal_actions(h) if h is not None else []:
            _round_trips(g, a)


def _matgo(seed: int = 3) -> tuple[GameState, list[tuple[GameState, Any]]]:
    walk = _walk("matgo", 2, seed)
    return walk[0][0], walk


def _state(pred: Any, seed: int = 3) -> GameState:
    return next(g for g, p in _walk("matgo", 2, seed) if pred(g, p))


def test_recorder_forms_and_seats_by_name() -> None:
    g = _state(lambda g, p: type(p) is E.CardPlayed)
    h = g.hand
    assert h is not None
    card = next(a for a in legal_actions(h) if type(a) is E.CardPlayed)
    for line in (card.card.lower(), f"play {card.card}", f"p {card.card}", f"0 play {card.card}"):
        got = parse(line, g)
        assert [type(x) for x in got] == [E.CardPlayed] and got[0].card == card.card
    pid = g.players[h.turn_seat].id
    assert parse(f"pay {g.players[1].id}->{g.players[0].id} 24 cash", g) == [
        E.PaymentRecorded(payer=1, payee=0, chips=24, note="cash")
    ]
    assert parse(f"pay {pid} 1 5", g)[0].payer == h.turn_seat
    assert parse(f"{pid} play {card.card}", g)[0].seat == h.turn_seat
    assert parse("note @2 the flip fell", g) == [E.NoteAdded(text="the flip fell", about_seq=2)]
    assert parse("undo typo", g, undo_target=7) == [E.EntryRetracted(seq=7, reason="typo")]
    assert parse("retract @5", g) == [E.EntryRetracted(seq=5)]


def test_deal_starts_the_hand_when_needed() -> None:
    g0, walk = _matgo()
    started = next(p for _, p in walk if type(p) is E.HandStarted)
    dealt = next(p for _, p in walk if type(p) is E.CardsDealt)
    line = text(dealt) + f" dealer {started.dealer}"
    assert parse(line, g0) == [
        E.HandStarted(hand=1, dealer=started.dealer, order=started.order),
        dealt,
    ]


@pytest.mark.parametrize(
    ("line", "error", "reason"),
    [
        ("", NotationError, "empty input"),
        ("frobnicate", UnknownCommand, "unknown command 'frobnicate'"),
        ("play 13X", CardCodeError, "unknown card code '13X'"),
        ("shake 14", NotationError, "a month is 01..12, not '14'"),
        ("cup maybe", NotationError, "the cup counts as animal or junk, not 'maybe'"),
        ("pay Ann", NotationError, "pay PAYER->PAYEE CHIPS [NOTE]"),
        ("pay 0->7 3", NotationError, "there is no seat 7 (seats 0..1)"),
        ("pay 0->1 lots", NotationError, "'lots' is not a number of chips"),
        ("deal 01G", NotationError, "start with `layout`"),
        ("deal stock", NotationError, "the deal needs the face-up layout"),
        ("four 0", NotationError, "four takes a seat and a month for each four"),
        ("go", IllegalAction, "nobody may say Go or Stop now"),
        ("undo", IllegalAction, "there is no entry to undo"),
        ("note", IllegalAction, "a note needs some text"),
        ("play 03G 03R 03J1", NotationError, "play takes a card and"),
    ],
)
def test_bad_lines_name_the_reason(line: str, error: type, reason: str) -> None:
    g = _state(lambda g, p: type(p) is E.CardPlayed)
    with pytest.raises(error) as exc:
        parse(line, g)
    assert reason in str(exc.value)


def test_consequences_have_no_line() -> None:
    with pytest.raises(NotationError, match="not a table input"):
        text(E.CardsCaptured(seat=0, cards=["01G", "01J1"], source="hand", kind="pair"))


def test_every_table_input_has_a_line_and_nothing_else_has(sample_events: list[Any]) -> None:
    for ev in sample_events:
        if E.is_input(ev) and type(ev) is not E.GameStarted:
            assert text(ev), ev
        else:
            with pytest.raises(NotationError, match="not a table input"):
                text(ev)
    with pytest.raises(NotationError, match="stop_called is not a table input"):
        text(E.StopCalled(seat=0, score=7, auto=True))


def test_the_recorder_enters_lines_all_or_nothing(tmp_path: Path) -> None:
    walk = _walk("matgo", 2, 5)
    path = tmp_path / "g.jsonl"
    with RecordingSession.start(JsonlSink(path), ["Ann", "Ben"], "matgo", game_id="g") as rec:
        for _g, p in walk[:6]:
            if type(p) is E.HandStarted:
                continue
            line = text(p) + (f" dealer {walk[0][1].dealer}" if type(p) is E.CardsDealt else "")
            rec.enter(line)
        before = path.read_bytes()
        for bad in ("play 13X", "frobnicate", "go", "deal layout 01G"):
            with pytest.raises((NotationError, CardCodeError, IllegalAction)):
                rec.enter(bad)
        assert path.read_bytes() == before
        (entry,) = rec.enter("undo wrong")
        assert entry.retracted is not None
        assert notation.text(entry.input.event) == f"undo @{entry.retracted.seq} wrong"


_WORDS = [*notation.VERBS, "layout", "hand", "stock", "bonus", "dealer", "deck", "choose"]
_WORDS += ["draw", "due", "animal", "junk", "?", "->", "@3", "0", "1", "2", "7", "05", "13"]
_WORDS += ["03G", "03r", "b2", "11d", "13X", "Ann", "p1", ":", ",", "-5", "x"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    words=st.lists(st.sampled_from(_WORDS) | st.text(max_size=6), max_size=8),
    at=st.integers(0, 30),
)
def test_any_line_is_read_or_refused_with_a_reason(words: list[str], at: int) -> None:
    """Whatever a program sends, the answer is payloads or a typed error, never a crash."""
    walk = _walk("matgo", 2, 7)
    g = walk[min(at, len(walk) - 1)][0]
    line = " ".join(words)
    try:
        got = parse(line, g, undo_target=at or None)
    except (NotationError, CardCodeError, IllegalAction) as exc:
        assert str(exc)
    else:
        assert all(E.is_input(p) for p in got)


def test_the_bare_answer_of_the_cup_prompt() -> None:

    for word in ("animal", "Junk"):
        ln = notation.read(word)
        assert ln.verb == "cup" and ln.args == (word,)
    assert notation.read("1 animal").seat == "1"


def test_a_word_that_starts_like_a_card_is_told_how_cards_are_written() -> None:

    with pytest.raises(notation.NotationError) as exc:
        notation.read("8x")
    assert "'8x' is not a card code" in str(exc.value) and "e.g. 03R" in str(exc.value)
    with pytest.raises(notation.UnknownCommand):
        notation.read("frobnicate")


def test_you_are_told_in_the_second_person() -> None:
    from gostop_records import words

    players = [E.Player(id="p1", name="You"), E.Player(id="p2", name="Ben")]
    assert words.describe(E.CardPlayed(seat=0, card="03J1"), players) == "You play 03J1"
    assert words.describe(E.CardPlayed(seat=1, card="03J1"), players) == "Ben plays 03J1"
    assert words.describe(E.CardFlipped(seat=0, card="08G"), players).startswith("You flip 08G")


def test_a_superscript_digit_is_no_seat_number() -> None:
    """ "¹" is a digit to str.isdigit but no number int() reads: refused, not a traceback."""
    players = (E.Player(id="a", name="Ann"), E.Player(id="b", name="Ben"))
    with pytest.raises(NotationError, match="is not a seat"):
        notation.seat_of("¹", players)
