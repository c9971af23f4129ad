"""The /play table on the server: a whole CARDAVIA hand, the deal commitment, refusals."""

from __future__ import annotations

import pytest

from gostop_records.play import PlayInputError
from gostop_records.validate import validate_envelopes
from gostop_records.web.play import PlayTable, commitment


def _finish(t: PlayTable) -> None:
    for _ in range(200):
        v = t.view()
        step = v["step"]
        if step["kind"] in ("over", "hand_over"):
            return
        if step["kind"] == "play":
            opt = v["options"][0]
            kind = "play" if opt["kind"] == "card" else opt["kind"]
            t.act(kind, opt["card"], opt["takes"][0] if opt["choose"] else None)
        elif step["kind"] == "flip":
            try:
                t.act("flip")
            except PlayInputError:
                _, choices = t.session.flip_pending()
                t.act("flip", chosen=choices[0])
        elif step["kind"] == "decide":
            t.act("stop")
        elif step["kind"] == "cup":
            t.act("cup", chosen="junk")
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_whole_hand_is_strictly_valid_and_its_commitment_verifies(seed: int) -> None:
    t = PlayTable("cardavia", "greedy", seed)
    assert "deck" not in t.view() and all(s["hand"] is None for s in t.view()["seats"][1:])
    _finish(t)
    v = t.view()
    assert commitment(v["deck"], v["salt"]) == v["commitment"] == t.commitment
    report = validate_envelopes(t.sink.envs)
    assert not report.errors, report.errors


def test_a_refused_play_changes_nothing() -> None:
    t = PlayTable("cardavia", "greedy", 5)
    if t.view()["step"]["kind"] != "play":
        t = PlayTable("cardavia", "greedy", 6)
    assert t.view()["step"]["kind"] == "play"
    before = t.view()
    foreign = next(
        c for c in ("01G", "02G", "03G", "12G", "11G") if c not in before["seats"][0]["hand"]
    )
    with pytest.raises(PlayInputError):
        t.act("play", foreign)
    assert t.view() == before
