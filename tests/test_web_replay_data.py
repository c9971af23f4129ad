"""The replayer's data: the projector's table at every seq, stored as patches, with the events
in words, the turns, and each hand's proof beside its recorded payments."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gostop_records import log as L
from gostop_records.replay import timeline
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.web import replay_data as R
from gostop_records.web.pages import replay_page

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _game(path: Path) -> tuple[str, list[Any]]:
    envs = list(L.read_log(path))
    return envs[0].game_id, envs


def _frames(data: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, p in enumerate(data["frames"]):
        out.append(p if i == 0 else R.patch(out[-1], p))
    return out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "=", "~"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "=", "~"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_a_patch_turns_the_old_value_into_the_new(old: Any, new: Any) -> None:
    p = R.diff(old, new)
    assert R.patch(old, p) == new
    # and survives the trip through JSON that the page makes
    assert R.patch(json.loads(json.dumps(old)), json.loads(json.dumps(p))) == new


@pytest.mark.parametrize(
    "name", ["disputed-payment.jsonl", "nagari-carry.jsonl", "three-players.jsonl", "bomb.jsonl"]
)
def test_every_frame_is_the_replay_table_at_its_seq(name: str) -> None:
    gid, envs = _game(SAMPLES / name)
    data = R.build(gid, envs)
    tl = timeline(gid, envs)
    frames = _frames(data)
    assert len(frames) == len(tl.envelopes) == len(data["events"])
    for i, f in enumerate(frames):
        assert f == R.frame_of(tl.state_dict(i))
        assert f["seq"] == tl.envelopes[i].seq == data["events"][i][0]


def test_frames_as_patches_are_much_smaller_than_snapshots() -> None:
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 10, seed=7, bots=("greedy", "random")))
    data = R.build(envs[0].game_id, envs)
    snapshots = len(json.dumps(_frames(data), separators=(",", ":")))
    patches = len(json.dumps(data["frames"], separators=(",", ":")))
    assert patches * 4 < snapshots


def test_events_are_in_words_with_their_turns() -> None:
    gid, envs = _game(SAMPLES / "jjok.jsonl")
    data = R.build(gid, envs)
    fields = data["event_fields"]
    events = [dict(zip(fields, e, strict=True)) for e in data["events"]]
    assert events[0]["type"] == "game_started" and events[0]["turn"] is None
    steal = next(e for e in events if e["type"] == "junk_transferred")
    assert "jjok" in steal["text"] and steal["cards"]
    # a turn opens at the card played and runs through its flip and consequences
    played = [e for e in events if e["type"] == "card_played"]
    flipped = [e for e in events if e["type"] == "card_flipped"]
    assert [e["turn"] for e in played] == list(range(1, len(played) + 1))
    assert [e["turn"] for e in flipped] == [e["turn"] for e in played][: len(flipped)]
    # a turn ends where the next one opens, or where the hand ends
    for i in data["turn_ends"]:
        nxt = events[i + 1] if i + 1 < len(events) else None
        assert nxt is None or nxt["turn"] != events[i]["turn"] or nxt["hand"] != events[i]["hand"]


def test_a_disputed_payment_is_shown_beside_what_is_due() -> None:
    gid, envs = _game(SAMPLES / "disputed-payment.jsonl")
    data = R.build(gid, envs)
    (hand,) = data["hands"]
    assert hand["proof"]["losers"][0]["chips"] == 1600
    (pay,) = hand["payments"]
    assert (pay["chips"], pay["computed"], pay["status"]) == (800, 1600, "differs")
    assert "shake" in pay["explanations"][0]
    assert hand["end"] == len(envs) - 1


def test_the_page_holds_the_seal_and_no_outside_reference() -> None:
    gid, envs = _game(SAMPLES / "disputed-payment.jsonl")
    page = replay_page(gid, envs)
    assert R.seal_text(envs[-1].hash) in page
    assert "default-src 'none'" in html.unescape(page)  # the policy, as the browser reads it
    for marker in ("<script src", "<link", "@import", "url(http"):
        assert marker not in page
    # the data cannot close its script element early
    body = page.split('<script type="application/json" id="replay-data">', 1)[1]
    data = json.loads(body.split("</script>", 1)[0])
    assert data["game_id"] == gid and data["head"] == envs[-1].hash


def test_the_page_of_a_stored_game(tmp_path: Path) -> None:
    from gostop_records.errors import GameNotFound
    from gostop_records.store import Store
    from gostop_records.web.pages import replay_page_for

    gid, envs = _game(SAMPLES / "disputed-payment.jsonl")
    with Store(tmp_path / "s.duckdb") as store:
        store.import_paths([SAMPLES / "disputed-payment.jsonl"])
        assert replay_page_for(store, gid) == replay_page(gid, envs)
        with pytest.raises(GameNotFound, match="no-such-game"):
            replay_page_for(store, "no-such-game")


def test_the_seal_is_the_short_form_where_the_seal_module_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys
    import types

    head = "ab" * 32
    fake = types.ModuleType("gostop_records.integrity.seals")
    fake.seal_text = lambda h: f"SEAL-{h[:4]}"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gostop_records.integrity.seals", fake)
    assert R.seal_text(head) == "SEAL-abab"
    gid, envs = _game(SAMPLES / "disputed-payment.jsonl")
    page = replay_page(gid, envs)
    assert f">SEAL-{envs[-1].hash[:4]}</b>" in page and f"head {envs[-1].hash}" in page
