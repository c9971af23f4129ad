"""The /play table on the server: a whole CARDAVIA hand, the deal commitment, refusals, and
what the page is shown (never the computer's hand nor the stock)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gostop_records import cards as C
from gostop_records.play import PlayInputError
from gostop_records.validate import validate_envelopes
from gostop_records.web.play import NotYourTurn, PlayTable, commitment

CODE = re.compile(r"(?<![0-9A-Za-z])(\d\d[A-Z]\d?)(?![0-9A-Za-z])")


def _answer(t: PlayTable, pick: int = 0) -> None:
    """One answer of the player: option ``pick`` (modulo their number), the first choice,
    Stop, junk."""
    v = t.view()
    kind = v["step"]["kind"]
    if kind == "play":
        opt = v["options"][pick % len(v["options"])]
        if opt["kind"] == "card":
            t.act("play", opt["card"], opt["takes"][0] if opt["choose"] else None)
        else:
            t.act(opt["kind"], month=opt["month"] or None)
    elif kind == "flip":
        t.act("flip", chosen=v["flip"]["choices"][0])
    elif kind == "decide":
        t.act("stop")
    elif kind == "cup":
        t.act("cup", chosen="junk")
    else:
        raise AssertionError(f"nothing to answer at {kind}")


def _finish(t: PlayTable) -> None:
    for _ in range(200):
        if t.over:
            return
        _answer(t)
    raise AssertionError("the hand did not end")


def _hidden(t: PlayTable) -> set[str]:
    """The cards the player may not know now: the computers' hands (but the cards a shake
    showed) and the stock."""
    h = t.session.hand
    assert h is not None and h.stock is not None
    mask = 0
    for seat in range(1, h.players):
        held = h.hands[seat]
        for m in range(1, 13):
            if h.shaken_months[seat] & (1 << m):
                held &= ~C.MONTH_MASKS[m]
        mask |= held
    for i in h.stock[h.stock_pos :]:
        mask |= 1 << i
    return set(C.codes(mask))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_whole_hand_is_strictly_valid_and_its_commitment_verifies(seed: int) -> None:
    t = PlayTable("cardavia", "greedy", seed)
    first = t.view()
    assert "deck" not in first and all(s["hand"] is None for s in first["table"]["seats"][1:])
    _finish(t)
    v = t.view()
    assert commitment(v["deck"], v["salt"]) == v["commitment"] == first["commitment"]
    report = validate_envelopes(t.sink.envs)
    assert not report.errors, report.errors


def test_a_deal_made_void_at_once_is_committed_and_revealed_too() -> None:
    t = PlayTable("gamerules", "random", 36)  # four of a month face up: dealt again
    assert [d["hand"] for d in t.view()["commitments"]] == [1, 2]
    _finish(t)
    deals = t.view()["deals"]
    assert [d["hand"] for d in deals] == [1, 2]
    for d in deals:
        assert commitment(d["deck"], d["salt"]) == d["commitment"]
    assert t.view()["deck"] == deals[-1]["deck"]
    assert len({d["salt"] for d in deals}) == 2


@settings(max_examples=12, deadline=None)
@given(
    preset=st.sampled_from(["cardavia", "matgo", "gostop3"]),
    seed=st.integers(0, 10_000),
    picks=st.lists(st.integers(0, 20), min_size=30, max_size=30),
)
@example(preset="cardavia", seed=531, picks=[0] * 30)  # the first deal is void: dealt again
def test_the_page_is_never_shown_the_computers_cards_nor_the_stock(
    preset: str, seed: int, picks: list[int]
) -> None:
    t = PlayTable(preset, "random", seed)
    shown = 0
    for pick in picks:
        if t.over:
            break
        view = t.view()
        hand = view["table"]["hand"]
        frames = t.frames_since(shown)
        # a deal made void shows its own layout and the player's hand of that deal: judged
        # by its own table (no computer's hand, no stock), not by the cards of the new deal
        for frame in frames:
            if frame["table"]["hand"] != hand:
                assert all(seat["hand"] is None for seat in frame["table"]["seats"][1:])
                assert "stock" not in frame["table"]
        current = [f for f in frames if f["table"]["hand"] == hand]
        seen = json.dumps({"view": view, "frames": current})
        hidden = _hidden(t)
        if view["step"]["kind"] == "flip":  # the card the player turned, to choose its take
            hidden.discard(view["flip"]["card"])
        leaked = set(CODE.findall(seen)) & hidden
        assert not leaked, f"the page was shown {leaked}"
        shown = len(t.frames)
        _answer(t, pick)


@settings(max_examples=15, deadline=None)
@given(
    preset=st.sampled_from(["cardavia", "matgo", "gostop3", "gamerules"]),
    seed=st.integers(0, 10_000),
    picks=st.lists(st.integers(0, 50), min_size=120, max_size=120),
)
def test_any_answers_make_a_strictly_valid_hand_whose_deals_verify(
    preset: str, seed: int, picks: list[int]
) -> None:
    """Every kind of answer (cards, either take, shakes, bombs, flip-only, Go, Stop, the
    cup either way), picked at random, leaves a strictly valid log."""
    t = PlayTable(preset, "random", seed)
    promised = [c["commitment"] for c in t.view()["commitments"]]
    for pick in picks:
        if t.over:
            break
        v = t.view()
        kind = v["step"]["kind"]
        if kind == "play":
            opt = v["options"][pick % len(v["options"])]
            if opt["kind"] == "card":
                take = opt["takes"][pick % 2] if opt["choose"] else None
                t.act("play", opt["card"], take)
            else:
                t.act(opt["kind"], month=opt["month"] or None)
        elif kind == "flip":
            t.act("flip", chosen=v["flip"]["choices"][pick % 2])
        elif kind == "decide":
            t.act("go" if pick % 3 else "stop")
        else:
            t.act("cup", chosen=("animal", "junk")[pick % 2])
    _finish(t)
    assert not validate_envelopes(t.sink.envs).errors
    deals = t.view()["deals"]
    assert [d["commitment"] for d in deals][: len(promised)] == promised
    assert all(commitment(d["deck"], d["salt"]) == d["commitment"] for d in deals)


def test_a_refused_play_changes_nothing() -> None:
    t = PlayTable("cardavia", "greedy", 5)
    if t.view()["step"]["kind"] != "play":
        t = PlayTable("cardavia", "greedy", 6)
    assert t.view()["step"]["kind"] == "play"
    before = t.view()
    frames = len(t.frames)
    foreign = next(
        c
        for c in ("01G", "02G", "03G", "12G", "11G")
        if c not in before["table"]["seats"][0]["hand"]
    )
    with pytest.raises(PlayInputError, match="not in your hand"):
        t.act("play", foreign)
    with pytest.raises(NotYourTurn):
        t.act("stop")
    with pytest.raises(NotYourTurn, match="moved on"):
        t.act("play", before["table"]["seats"][0]["hand"][0], version=before["version"] - 1)
    assert t.view() == before and len(t.frames) == frames


def test_each_entry_is_one_frame_with_what_it_moved() -> None:
    t = PlayTable("cardavia", "greedy", 11)
    shown = len(t.frames)
    card = t.view()["options"][0]["card"]
    _answer(t)
    frames = t.frames_since(shown)
    assert frames[0]["seat"] == 0 and frames[0]["played"] == [card]
    assert frames[0]["lines"][0].startswith(f"you play {card}")
    flips = [f for f in frames if f["flipped"]]
    assert flips and all(len(f["flipped"]) == 1 for f in flips)
    for f in frames:
        for g in f["given"]:
            assert g["card"] in f["table"]["seats"][g["to"]]["pile"]["junk"]
        for code in f["captured"]:
            assert any(code in cards for s in f["table"]["seats"] for cards in s["pile"].values())
