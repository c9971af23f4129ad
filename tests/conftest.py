"""Shared fixtures: one realistic payload of every event type, and a sealed log of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gostop_records import events as E
from gostop_records import log
from gostop_records.events import (
    BombPlayed,
    BonusCardTaken,
    BrightsSold,
    CardFlipped,
    CardPlayed,
    CardsCaptured,
    CardsDealt,
    CheckpointSigned,
    ChipsCounted,
    CupAssigned,
    DealerDraw,
    DealerDrawn,
    DealVoided,
    EntryRetracted,
    Envelope,
    FlipOnlyPlayed,
    FourKept,
    FourOfAMonthShown,
    FourShown,
    GameStarted,
    GoCalled,
    HandEnded,
    HandStarted,
    JunkTransferred,
    KeyAdded,
    NoteAdded,
    PaymentCapped,
    PaymentDue,
    PaymentRecorded,
    Player,
    PpukMade,
    ResultCountersigned,
    SeatsSatOut,
    ShakeDeclined,
    Shaken,
    SittingEnded,
    StopCalled,
)
from gostop_records.rules import PRESETS

AT = "2024-05-01T19:02:11.000Z"


#: A shuffled matgo deck (48 cards and two bonus cards), ten codes a row.
DECK_ORDER = (
    "01G 02R 03J1 04A 05J2 06R 07J1 08A 09R 10J2",
    "01J1 02J1 03G 04J1 05A 06J1 07R 08J1 09J1 10A",
    "11G 12A 01R 02A 03R 04R 05R 06A 07A 08G",
    "09A 10R 11D 12D 12G 12R B2 B3 01J2 02J2",
    "03J2 04J2 05J1 06J2 07J2 08J2 09J2 10J1 11J1 11J2",
)


def make_sample_events() -> list[Any]:
    """One payload of each type, as a matgo hand would record them."""
    deck = [code for row in DECK_ORDER for code in row.split()]
    return [
        GameStarted(
            ruleset=PRESETS["matgo"].pinned(),
            players=[Player("p1", "North"), Player("p2", "South")],
            stake=100,
            venue="club room",
            notes="friday game",
        ),
        HandStarted(hand=1, dealer=0, order=[0, 1], deck=deck),
        CardsDealt(hands=[deck[:10], deck[10:20]], layout=deck[20:28], stock=deck[28:]),
        DealVoided(reason="layout_four", month=3),
        FourOfAMonthShown(shown=[FourShown(seat=1, month=5, cards=["05A", "05R", "05J1", "05J2"])]),
        Shaken(seat=0, month=8, cards=["08G", "08A", "08J1"]),
        BombPlayed(seat=1, month=10, cards=["10A", "10R", "10J1"]),
        CardPlayed(seat=0, card="01G", chosen="01J1"),
        FlipOnlyPlayed(seat=1),
        CardFlipped(seat=1, card="03R", chosen=None),
        BonusCardTaken(seat=0, card="B2", source="flip", replacement="07A"),
        CardsCaptured(seat=0, cards=["01G", "01J1"], source="hand", kind="pair"),
        PpukMade(seat=1, month=6, cards=["06A", "06R", "06J1"], count=1),
        JunkTransferred(from_seat=1, to_seat=0, card="11D", reason="jjok"),
        CupAssigned(seat=0, role="junk"),
        GoCalled(seat=0, count=1, score=7),
        StopCalled(seat=0, score=9, auto=False),
        HandEnded(outcome="stop", winner=0, reason="seat 0 stopped at 9", carry=1, next_carry=1),
        PaymentDue(payer=1, payee=0, points=20, chips=2000, reason="stop"),
        PaymentRecorded(payer=1, payee=0, chips=2400, note="paid with shaking doubled"),
        NoteAdded(text="dispute: 24 or 12?", about_seq=20),
        EntryRetracted(seq=8, reason="typo"),
        KeyAdded(key="A" * 43 + "=", holder="Ann's phone"),
        CheckpointSigned(
            head_seq=22, head="ab" * 32, key="ed25519:0000-0000-00", signature="B" * 86 + "=="
        ),
        ResultCountersigned(
            seat=1, head_seq=22, head="ab" * 32, key="C" * 43 + "=", signature="D" * 86 + "=="
        ),
        # the table around the hand: the draw, chips, seats sitting out, gwang-pali
        DealerDrawn(
            draws=[DealerDraw(seat=0, card="03G"), DealerDraw(seat=1, card="11J1")],
            night=True,
            dealer=0,
        ),
        ChipsCounted(chips=[5000, 3000]),
        SeatsSatOut(seats=[1], rule="turn_order"),
        BrightsSold(seat=1, cards=["01G", "08G"]),
        PaymentCapped(payer=1, payee=0, due=2000, paid=1500, cap="loser_holdings"),
        SittingEnded(seats=[1]),
        # a four kept in hand and played on (들고치기)
        FourKept(seat=1),
        # asked to shake once the card is chosen, declined
        ShakeDeclined(seat=0, month=8),
        # the night's settlement: closed, proposed, paid
        E.GameClosed(note="last train"),
        E.SettlementProposed(
            totals=[30, -30],
            paid=[0, 0],
            owed=[30, -30],
            transfers=[E.SettlementTransfer(payer=1, payee=0, chips=30)],
        ),
        E.SettlementPaid(payer=1, payee=0, chips=25, note="5 forgiven"),
        # the people record's events (a stream of their own in use; here for the codecs)
        E.PersonRenamed(person="p1", name="Ann Lee"),
        E.PersonsMerged(person="p2", into="p1"),
        E.PersonForgotten(person="p1"),
    ]


def make_log(game_id: str = "g1", events: list[Any] | None = None) -> list[Envelope]:
    """A sealed stream of one game: game-level events without a hand, the rest in hand 1."""
    evs = make_sample_events() if events is None else events
    return log.seal(
        log.envelope(
            game_id,
            i,
            None if isinstance(ev, GameStarted) else 1,
            ev,
            by="test",
            at=AT,
            recorded_at=AT,
        )
        for i, ev in enumerate(evs, 1)
    )


@pytest.fixture
def sample_events() -> list[Any]:
    return make_sample_events()


@pytest.fixture
def sample_log() -> list[Envelope]:
    return make_log()


@pytest.fixture
def make_game() -> Any:
    """The :func:`make_log` factory, for tests that need several games or other events."""
    return make_log


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for every browser test of the run (Playwright's sync API
    allows one instance at a time)."""
    from browser_support import ARGS, CHROMIUM
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _key_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recorder keys made per game go to a fresh folder, never the user's own."""
    monkeypatch.setenv("GOSTOP_KEYS", str(tmp_path_factory.mktemp("keys")))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "pure_python: reads the engine's source or internals; run on the pure-Python source "
        "(GOSTOP_PURE_PYTHON=1, which make test does after the suite)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import gostop_records

    if not gostop_records.compiled():
        return
    skip = pytest.mark.skip(reason="reads the source: make test runs it with GOSTOP_PURE_PYTHON=1")
    for item in items:
        if item.get_closest_marker("pure_python") is not None:
            item.add_marker(skip)
