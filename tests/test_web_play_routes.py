"""``/play`` and ``/api/play`` on the service, over HTTP: a whole hand stored as a strictly
valid game whose payout is the audit's, the deal commitment, the computer's cards never
shown, and every bad input a 4xx with its reason that changes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import service_client

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.validate import validate_envelopes
from gostop_records.web.play import commitment


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[Any]:
    with service_client(tmp_path / "s.duckdb") as c:
        yield c


def start(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/api/play", json=body)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def answer_for(view: dict[str, Any]) -> dict[str, Any]:
    """The first thing the player may do: the first option, the first choice, Stop, junk."""
    kind = view["step"]["kind"]
    if kind == "play":
        o = view["options"][0]
        if o["kind"] == "card":
            return {
                "kind": "play",
                "card": o["card"],
                "chosen": o["takes"][0] if o["choose"] else None,
            }
        return {"kind": o["kind"], "month": o["month"] or None}
    if kind == "flip":
        return {"kind": "flip", "chosen": view["flip"]["choices"][0]}
    if kind == "decide":
        return {"kind": "stop"}
    if kind == "cup":
        return {"kind": "cup", "chosen": "junk"}
    raise AssertionError(f"nothing to answer at {kind}")


def play_out(client: Any, out: dict[str, Any]) -> dict[str, Any]:
    hand_id = out["id"]
    for _ in range(200):
        view = out["view"]
        if view["step"]["kind"] in ("over", "hand_over"):
            return out
        assert view["step"]["human"], view["step"]
        body = {k: v for k, v in answer_for(view).items() if v is not None}
        r = client.post(f"/api/play/{hand_id}", json={**body, "version": view["version"]})
        assert r.status_code == 200, r.text
        out = r.json()
    raise AssertionError("the hand did not end")


def stored_events(client: Any, game_id: str) -> list[Any]:
    r = client.get(f"/api/games/{game_id}/events")
    assert r.status_code == 200, r.text
    return [L.decode_json_line(line) for line in r.content.splitlines() if line.strip()]


@pytest.mark.parametrize("seed", [11, 12])
def test_a_whole_cardavia_hand_is_stored_valid_and_paid_as_the_audit_says(
    client: Any, seed: int
) -> None:
    out = start(client, bot="greedy", seed=seed)
    first = out["view"]
    assert first["ruleset"] == "cardavia" and first["bot"] == "greedy"
    assert first["players"] == ["You", "Computer"]
    promised = first["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", promised)
    assert "deck" not in first and "salt" not in first
    end = play_out(client, out)["view"]
    assert end["stored"] is True
    assert commitment(end["deck"], end["salt"]) == promised
    gid = end["game_id"]
    envs = stored_events(client, gid)
    report = validate_envelopes(envs)
    assert not report.errors and report.games == 1
    decks = [e.event.deck for e in envs if isinstance(e.event, E.HandStarted)]
    assert decks == [end["deck"]]  # the deck revealed is the deck played
    audit = client.get(f"/api/games/{gid}/audit").json()
    hand = audit["hands"][0]
    assert hand["ok"]
    paid = {(p["payer"], p["payee"]): p["chips"] for p in hand["payments"]}
    due = {(p["payer"], p["payee"]): p["computed"] for p in hand["payments"]}
    assert paid == due
    if end["proof"] is not None:
        assert {
            (lp["loser"], end["proof"]["winner"]): lp["pays_chips"] for lp in end["proof"]["losers"]
        } == due
    assert client.get(end["replay"]).status_code == 200
    # asking again changes nothing and stores nothing twice
    again = client.get(f"/api/play/{out['id']}").json()["view"]
    assert again["version"] == end["version"] and again["stored"] is True


def test_a_three_player_preset_seats_two_computers(client: Any) -> None:
    out = start(client, ruleset="gostop3", bot="random", seed=4)
    view = out["view"]
    assert view["players"] == ["You", "Computer 1", "Computer 2"]
    seats = view["table"]["seats"]
    assert seats[0]["hand"] and seats[1]["hand"] is None and seats[2]["hand"] is None
    end = play_out(client, out)["view"]
    assert end["stored"]
    assert not validate_envelopes(stored_events(client, end["game_id"])).errors


def test_the_default_is_cardavia_against_the_strong_bot_first_player_at_random(
    client: Any,
) -> None:
    out = start(client)
    assert out["view"]["ruleset"] == "cardavia" and out["view"]["bot"] == "strong"
    firsts = {start(client, bot="random")["view"]["table"]["dealer"] for _ in range(24)}
    assert firsts == {0, 1}


def test_frames_tell_the_computer_turn_step_by_step(client: Any) -> None:
    out = start(client, bot="greedy", seed=11)
    hand_id = out["id"]
    view = out["view"]
    body = {k: v for k, v in answer_for(view).items() if v is not None}
    r = client.post(f"/api/play/{hand_id}", json=body).json()
    frames = r["frames"]
    assert frames[0]["seat"] == 0 and frames[0]["played"] == [body["card"]]
    assert [f["index"] for f in frames] == list(range(frames[0]["index"], frames[-1]["index"] + 1))
    theirs = [f for f in frames if f["seat"] == 1]
    assert any(f["played"] for f in theirs) and any(f["flipped"] for f in theirs)
    for f in frames:
        assert all(s["hand"] is None for s in f["table"]["seats"][1:]) or f is frames[-1]
    since = client.get(f"/api/play/{hand_id}", params={"since": frames[-1]["index"]}).json()
    assert [f["index"] for f in since["frames"]] == [frames[-1]["index"]]


@pytest.mark.parametrize(("seed", "kind", "month"), [(1, "shake", 10), (17, "bomb", 8)])
def test_a_shake_and_a_bomb_are_answers_too(client: Any, seed: int, kind: str, month: int) -> None:
    out = start(client, ruleset="matgo", bot="random", seed=seed)
    hand_id = out["id"]
    (opt,) = [o for o in out["view"]["options"] if o["kind"] == kind]
    assert opt["month"] == month and len(opt["cards"]) >= 3
    r = client.post(f"/api/play/{hand_id}", json={"kind": kind, "month": month})
    assert r.status_code == 200, r.text
    out = r.json()
    mine = out["frames"][0]
    assert mine["seat"] == 0 and sorted(mine["played"]) == sorted(opt["cards"])
    if kind == "bomb":  # a bomb leaves turns with no card to play: flip-only is offered
        kinds = {o["kind"] for o in out["view"]["options"]}
        assert "flip_only" in kinds
        r = client.post(f"/api/play/{hand_id}", json={"kind": "flip_only"})
        assert r.status_code == 200, r.text
        assert "a flip-only turn" in r.json()["frames"][0]["lines"][0]
        out = r.json()
    end = play_out(client, out)["view"]
    assert end["stored"]
    assert not validate_envelopes(stored_events(client, end["game_id"])).errors


def refusal(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["reason"], body
    return str(body["reason"])


def test_bad_answers_are_refused_with_a_reason_and_change_nothing(client: Any) -> None:
    out = start(client, bot="greedy", seed=11)
    hand_id = out["id"]
    before = client.get(f"/api/play/{hand_id}").json()["view"]
    assert before["step"] == {"kind": "play", "human": True, "seat": 0}
    mine = before["table"]["seats"][0]["hand"]
    on_layout = before["table"]["layout"][0]["cards"][0]
    url = f"/api/play/{hand_id}"
    assert "not in your hand" in refusal(
        client.post(url, json={"kind": "play", "card": on_layout}), 422
    )
    assert "not a card code" in refusal(client.post(url, json={"kind": "play", "card": "zz"}), 422)
    assert "which card" in refusal(client.post(url, json={"kind": "play"}), 422)
    assert "waits for your play" in refusal(client.post(url, json={"kind": "go"}), 409)
    assert "moved on" in refusal(
        client.post(url, json={"kind": "play", "card": mine[0], "version": 1}), 409
    )
    assert "unknown answer" in refusal(client.post(url, json={"kind": "dance"}), 422)
    assert "bomb" in refusal(client.post(url, json={"kind": "bomb", "month": 1}), 422)
    refusal(client.post(url, json={"kind": "play", "card": mine[0], "extra": 1}), 400)
    refusal(client.post(url, content=b"{not json"), 400)
    assert "no hand in play" in refusal(client.get("/api/play/nope"), 404)
    assert "no hand in play" in refusal(client.post("/api/play/nope", json={"kind": "stop"}), 404)
    assert "no hand in play" in refusal(client.get("/api/play/nope/hint"), 404)
    # the pages of a hand refuse in HTML
    for page in (
        client.get("/play/nope/review/1"),
        client.post("/play/nope/rewind", data={"hand": 1, "seq": 5}),
    ):
        assert page.status_code == 404 and "no hand in play" in page.text
        assert page.headers["content-type"].startswith("text/html")
    after = client.get(f"/api/play/{hand_id}").json()["view"]
    assert after == before


def test_a_finished_hand_takes_no_more_answers(client: Any) -> None:
    end = play_out(client, start(client, bot="random", seed=2))
    hand_id = end["id"]
    assert "over" in refusal(client.post(f"/api/play/{hand_id}", json={"kind": "stop"}), 409)


def test_bad_settings_are_refused(client: Any) -> None:
    assert "unknown bot" in refusal(client.post("/api/play", json={"bot": "perfect"}), 400)
    assert "unknown ruleset" in refusal(client.post("/api/play", json={"ruleset": "poker"}), 400)
    refusal(client.post("/api/play", json={"ruleset": "matgo", "players": 3}), 400)
    refusal(client.post("/api/play", json={"seed": -1}), 400)
    r = client.get("/play", params={"bot": "perfect"})
    assert r.status_code == 400 and "unknown bot" in r.text


def test_the_page_says_which_bot_and_offers_every_preset(client: Any) -> None:
    from gostop_records.rules import PRESETS

    r = client.get("/play", params={"bot": "greedy", "ruleset": "matgo"})
    assert r.status_code == 200
    html = r.text
    assert 'you against the <b id="bot-name">greedy</b> bot' in html
    for name in PRESETS:
        assert f'<option value="{name}"' in html
    assert '<option value="matgo" title' in html and 'matgo" title=' in html
    assert "http://" not in html.replace("http://www.w3.org", "")
    assert "https://" not in html
    assert 'href="/play"' in client.get("/").text  # the games page links to it


def test_a_matgo_game_plays_on_hand_by_hand_as_one_stored_game(client: Any) -> None:
    out = start(client, ruleset="matgo", bot="greedy", seed=5)
    hand_id = out["id"]
    gid = out["view"]["game_id"]
    assert out["view"]["multi_hand"] is True
    first = play_out(client, out)["view"]
    assert first["step"]["kind"] == "hand_over" and first["next_hand"] is True
    assert first["stored"] is True
    after_one = stored_events(client, gid)
    assert not validate_envelopes(after_one).errors
    # a stale "next" is refused and changes nothing
    stale = client.post(f"/api/play/{hand_id}", json={"kind": "next", "version": 1})
    assert "moved on" in refusal(stale, 409)
    r = client.post(f"/api/play/{hand_id}", json={"kind": "next", "version": first["version"]})
    assert r.status_code == 200, r.text
    nxt = r.json()
    second_view = nxt["view"]
    assert second_view["game_id"] == gid  # the same game, not a new one
    assert second_view["hand_no"] > first["hand_no"]
    # a fresh commitment for the new deal, the first one kept
    assert len(second_view["commitments"]) > len(first["commitments"])
    assert second_view["commitment"] != first["commitment"]
    assert second_view["deals_from"] == second_view["hand_no"] and second_view["log_from"] > 0
    assert "deck" not in second_view or second_view["step"]["kind"] in ("over", "hand_over")
    # "next" during a hand is refused
    if second_view["step"]["kind"] not in ("over", "hand_over"):
        assert "still in play" in refusal(
            client.post(f"/api/play/{hand_id}", json={"kind": "next"}), 409
        )
    second = play_out(client, nxt)["view"]
    assert second["stored"] is True and second["game_id"] == gid
    envs = stored_events(client, gid)
    report = validate_envelopes(envs)
    assert not report.errors and report.games == 1
    assert {e.game_id for e in envs} == {gid}
    assert envs[: len(after_one)] == after_one  # the stored game grew, nothing rewritten
    starts = [e.event for e in envs if isinstance(e.event, E.HandStarted)]
    assert [h.hand for h in starts] == list(range(1, len(starts) + 1))
    assert len(starts) >= 2
    # every deal played is a deal revealed, its commitment verified
    assert [d["deck"] for d in second["deals"]] == [list(h.deck) for h in starts]
    for d in second["deals"]:
        assert commitment(d["deck"], d["salt"]) == d["commitment"]
    # the dealer of hand 2 is the engine's: the winner of hand 1, its dealer after a nagari
    r1 = first["result"]
    dealer1 = starts[0].dealer
    assert starts[1].dealer == (r1["winner"] if r1["winner"] is not None else dealer1)
    # the ledger is the net of every payment of the game
    assert sum(second["ledger"]) == 0 and second["hands_played"] >= 2
    games = client.get("/api/games", params={"ruleset": "matgo"}).json()
    assert games["total"] == 1 and games["games"][0]["game_id"] == gid  # no duplicate game
    assert client.get(second["replay"]).status_code == 200


def test_a_cardavia_hand_has_no_next_hand(client: Any) -> None:
    out = play_out(client, start(client, bot="random", seed=2))
    end = out["view"]
    assert end["step"]["kind"] == "over" and end["next_hand"] is False
    assert end["multi_hand"] is False
    r = client.post(f"/api/play/{out['id']}", json={"kind": "next"})
    assert "game is over" in refusal(r, 409)
    assert client.get(f"/api/play/{out['id']}").json()["view"]["version"] == end["version"]
