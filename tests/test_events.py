"""Every event type survives JSON and msgpack unchanged, inside and outside an envelope."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gostop_records import events
from gostop_records.cards import ALL_CARDS
from gostop_records.events import (
    EVENT_TYPES,
    EVENT_VERSIONS,
    CardPlayed,
    CardsCaptured,
    Envelope,
    Event,
    StopCalled,
    UnknownEvent,
)

CODES = [c.code for c in ALL_CARDS]
card_codes = st.sampled_from(CODES)
seats = st.integers(min_value=0, max_value=2)


def test_samples_cover_every_type(sample_events: list[Any]) -> None:
    assert sorted(events.event_type(e) for e in sample_events) == sorted(EVENT_TYPES)
    assert set(EVENT_VERSIONS) == set(EVENT_TYPES)


def test_each_payload_round_trips_json_and_msgpack(sample_events: list[Any]) -> None:
    for ev in sample_events:
        data = msgspec.json.encode(ev)
        assert msgspec.json.decode(data, type=Event) == ev
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(ev), type=Event) == ev
        assert msgspec.json.decode(data)["type"] == events.event_type(ev)


def test_each_envelope_round_trips(sample_log: list[Envelope]) -> None:
    for env in sample_log:
        assert msgspec.json.decode(msgspec.json.encode(env), type=Envelope) == env
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(env), type=Envelope) == env
        assert env.type == events.event_type(env.event)


def test_payload_to_dict_puts_type_first(sample_events: list[Any]) -> None:
    for ev in sample_events:
        d = events.payload_to_dict(ev)
        assert next(iter(d)) == "type"
        assert msgspec.convert(d, Event) == ev


def test_unknown_event_keeps_its_payload() -> None:
    raw = {"type": "tile_played", "tile": "5p", "seat": 1}
    ev = UnknownEvent("tile_played", raw)
    assert events.event_type(ev) == "tile_played"
    assert events.payload_to_dict(ev) == raw
    assert not events.is_input(ev)


def test_inputs_and_consequences() -> None:
    assert events.is_input(CardPlayed(seat=0, card="01G"))
    assert not events.is_input(CardsCaptured(seat=0, cards=["01G"], source="hand", kind="pair"))
    assert events.is_input(StopCalled(seat=0, score=7))
    assert not events.is_input(StopCalled(seat=0, score=7, auto=True))
    assert "stop_called" in events.CONSEQUENCE_TYPES
    assert set(EVENT_TYPES) >= events.INPUT_TYPES


KINDS = (events.Input, events.Consequence, events.Metadata, events.PeopleEvent)


def test_every_payload_class_is_of_exactly_one_kind() -> None:
    for cls in events.EVENT_CLASSES:
        assert sum(issubclass(cls, k) for k in KINDS) == 1, cls


def test_kind_sets_are_read_from_the_classes() -> None:
    by_kind = {k: {t for t, c in EVENT_TYPES.items() if issubclass(c, k)} for k in KINDS}
    assert by_kind[events.Input] == events.INPUT_TYPES
    assert by_kind[events.Metadata] == events.METADATA_TYPES
    assert by_kind[events.PeopleEvent] == events.PEOPLE_TYPES
    # stop_called is an input class whose automatic calls are consequences
    assert by_kind[events.Consequence] | {"stop_called"} == events.CONSEQUENCE_TYPES
    assert set().union(*by_kind.values()) == set(EVENT_TYPES)
    assert events.is_metadata(events.KeyAdded(key="AAAA", holder="x"))
    assert not events.is_metadata(CardPlayed(seat=0, card="01G"))


def test_the_event_format_page_gives_each_type_its_kind() -> None:
    page = (Path(__file__).parents[1] / "docs" / "events.md").read_text(encoding="utf-8")
    found = re.findall(r"^\| `([a-z_]+)` \| ([a-z ,`]+?) \|", page, re.MULTILINE)
    rows = {t: kind for t, kind in found if t not in Envelope.__struct_fields__}
    names = {events.Input: "input", events.Consequence: "consequence"}
    names |= {events.Metadata: "metadata", events.PeopleEvent: "people"}
    want = {
        t: next(n for k, n in names.items() if issubclass(c, k)) for t, c in EVENT_TYPES.items()
    }
    want["stop_called"] = "input, or consequence when `auto`"
    assert rows == want


def test_kind_classes_add_nothing_to_the_bytes() -> None:
    ev = CardPlayed(seat=1, card="03R", chosen="03J1")
    want = b'{"type":"card_played","seat":1,"card":"03R","chosen":"03J1"}'
    assert msgspec.json.encode(ev) == want
    defs = msgspec.json.schema(Event)["$defs"]
    assert not {k.__name__ for k in KINDS} & set(defs)


def test_unknown_card_code_is_rejected() -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.card"):
        msgspec.json.decode(b'{"type":"card_played","seat":0,"card":"13G"}', type=Event)
    with pytest.raises(msgspec.ValidationError):  # codes are canonical upper case in logs
        msgspec.json.decode(b'{"type":"card_played","seat":0,"card":"01g"}', type=Event)


@given(seat=seats, card=card_codes, chosen=st.none() | card_codes)
def test_card_played_round_trips(seat: int, card: str, chosen: str | None) -> None:
    ev = CardPlayed(seat=seat, card=card, chosen=chosen)
    assert msgspec.json.decode(msgspec.json.encode(ev), type=Event) == ev
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(ev), type=Event) == ev


@given(
    seat=seats,
    cards=st.lists(card_codes, min_size=1, max_size=6),
    source=st.sampled_from(["hand", "flip", "hand_and_flip"]),
    kind=st.sampled_from(
        [
            "pair",
            "stack",
            "ppuk_taken",
            "own_ppuk",
            "ttadak",
            "jjok",
            "last_turn_three",
            "bomb",
            "bonus",
        ]
    ),
)
def test_cards_captured_round_trips(seat: int, cards: list[str], source: str, kind: str) -> None:
    ev = CardsCaptured(seat=seat, cards=cards, source=source, kind=kind)  # type: ignore[arg-type]
    env = Envelope(game_id="g", seq=3, hand=1, at="t", recorded_at="t", by="hyp", v=1, event=ev)
    assert msgspec.json.decode(msgspec.json.encode(env), type=Envelope) == env
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(env), type=Envelope) == env


@given(
    hands=st.lists(st.none() | st.lists(card_codes, max_size=10), min_size=2, max_size=3),
    layout=st.lists(card_codes, max_size=8),
)
def test_cards_dealt_with_unknown_hands_round_trips(
    hands: list[list[str] | None], layout: list[str]
) -> None:
    ev = events.CardsDealt(hands=hands, layout=layout)
    assert msgspec.json.decode(msgspec.json.encode(ev), type=Event) == ev
