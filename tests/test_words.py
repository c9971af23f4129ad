"""Events in words: every event type has its own sentence, in the third person and told to a
seat, names players by name and hides what the viewer may not see."""

from __future__ import annotations

from typing import Any

import pytest

from gostop_records import events as E
from gostop_records import words
from gostop_records.words import describe, recorded

PLAYERS = (E.Player(id="ann", name="Ann"), E.Player(id="ben", name="Ben"))


def test_every_event_type_has_a_sentence(sample_events: list[Any]) -> None:
    types = {E.event_type(ev) for ev in sample_events}
    assert types == set(E.EVENT_TYPES)  # the fixture holds one of each
    for ev in sample_events:
        t = E.event_type(ev)
        for viewer in (None, 0, 1):
            text = describe(ev, PLAYERS, viewer)
            assert text and text != t, (t, viewer)  # not the bare type name
            assert "does not know" not in text, t  # told as its own class, not as unknown
            assert "seat None" not in text and "{" not in text


def test_inputs_as_the_record_states_them(sample_events: list[Any]) -> None:
    for ev in sample_events:
        if E.is_input(ev) and type(ev) is not E.GameStarted:
            assert recorded(ev)


@pytest.mark.parametrize(
    ("ev", "third", "to_ann", "to_ben"),
    [
        (
            E.CardPlayed(seat=0, card="03G", chosen="03R"),
            "Ann plays 03G, taking 03R",
            "you play 03G, taking 03R",
            "Ann plays 03G, taking 03R",
        ),
        (
            E.JunkTransferred(from_seat=1, to_seat=0, card="01J1", reason="jjok"),
            "Ben gives Ann 01J1 (jjok)",
            "Ben gives you 01J1 (jjok)",
            "you give Ann 01J1 (jjok)",
        ),
        (
            E.BonusCardTaken(seat=1, card="B2", source="hand", replacement="05A"),
            "Ben takes bonus card B2 (from the hand); draws 05A",
            "Ben takes bonus card B2 (from the hand); draws a card",
            "you take bonus card B2 (from the hand); draw 05A",
        ),
        (
            E.GoCalled(seat=0, count=1, score=7),
            "Ann calls Go 1 at 7 points",
            "you call Go 1 at 7 points",
            "Ann calls Go 1 at 7 points",
        ),
    ],
)
def test_sentences(ev: Any, third: str, to_ann: str, to_ben: str) -> None:
    assert describe(ev, PLAYERS) == third
    assert describe(ev, PLAYERS, viewer=0) == to_ann
    assert describe(ev, PLAYERS, viewer=1) == to_ben


def test_marks_go_through_the_display() -> None:
    class Loud:
        def card(self, code: str) -> str:
            return f"<{code}>"

        def cards(self, codes: Any) -> str:
            return " ".join(self.card(c) for c in codes)

        def mark(self, text: str, role: str) -> str:
            return f"[{role}:{text}]"

    ev = E.PpukMade(seat=1, month=4, cards=["04A", "04J1", "04J2"], count=1)
    assert describe(ev, PLAYERS, marks=Loud()) == (
        "[ppuk:ppuk]: Ben leaves <04A> <04J1> <04J2> on the layout (ppuk 1 this hand)"
    )
    assert describe(E.StopCalled(seat=0, score=9), PLAYERS, marks=Loud()) == (
        "[call:Ann stops at 9 points]"
    )
    assert words.who(PLAYERS, 5) == "seat 5" and words.who(PLAYERS, None) == "nobody"
    assert words.seat_name(PLAYERS, 1) == "Ben (seat 1)"
