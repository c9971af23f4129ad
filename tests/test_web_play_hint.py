"""/play's levels, its hint (the review of the decision in front of the player, from what
the player's seat knows) and the review of a finished hand, over HTTP. The hint is bounded
in time; the figures are checked for their shape only (a loaded machine plays few worlds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import service_client
from test_review_web import wait_for_review
from test_web_play_routes import play_out, start

from gostop_records.review.hint import hint
from gostop_records.sim.bots import GreedyBot, RandomBot
from gostop_records.sim.dealer import SplitMix64
from gostop_records.sim.roster import LEVELS, make_bot
from gostop_records.sim.strong import StrongBot
from gostop_records.web.play import PlayTable


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[Any]:
    with service_client(tmp_path / "s.duckdb") as c:
        yield c


def test_the_levels_are_bots_at_budgets() -> None:
    assert list(LEVELS) == ["beginner", "casual", "club", "strong", "expert", "master"]
    rng = SplitMix64(1)
    assert type(make_bot("beginner", rng)) is RandomBot
    assert type(make_bot("casual", rng)) is GreedyBot
    budgets = []
    for name in ("club", "strong", "expert"):
        bot = make_bot(name, rng)
        assert type(bot) is StrongBot
        budgets.append(bot.rollouts)
    assert budgets == sorted(budgets) and budgets[1] == StrongBot(rng).rollouts


def test_the_page_offers_the_levels_and_a_level_plays(client: Any) -> None:
    page = client.get("/play").text
    for name, lv in LEVELS.items():
        assert f'value="{name}"' in page and lv.about in page
    out = start(client, bot="club", seed=5)
    assert out["view"]["bot"] == "club"
    r = client.post("/api/play", json={"bot": "grandmaster"})
    assert r.status_code == 400 and "levels are beginner" in r.text


def test_the_hint_reviews_the_decision_in_front_of_the_player(client: Any) -> None:
    out = start(client, bot="casual", seed=11)
    view = out["view"]
    assert view["step"] == {"kind": "play", "human": True, "seat": 0}
    r = client.get(f"/api/play/{out['id']}/hint")
    assert r.status_code == 200, r.text
    h = r.json()["hint"]
    assert h["version"] == view["version"] and h["kind"] in ("play", "capture")
    assert h["worlds"] >= 2 and h["options"]
    means = [o["chips"] for o in h["options"]]
    assert means == sorted(means, reverse=True) and h["options"][0]["best"]
    assert all(o["low"] <= o["chips"] <= o["high"] for o in h["options"])
    assert all(o["chips_text"].endswith("chips") and o["text"] for o in h["options"])
    # every card of the hand is among the options (plays that change nothing counted once)
    played = {o["label"].split()[1] for o in h["options"] if o["label"].startswith("play ")}
    mine = set(view["table"]["seats"][0]["hand"])
    assert played <= mine and "deals of the" in h["summary"]
    # asking changes nothing in the game
    assert client.get(f"/api/play/{out['id']}").json()["view"]["version"] == view["version"]
    # no hint when the game waits for no decision of the player's, nor for an unknown hand
    done = play_out(client, out)
    assert client.get(f"/api/play/{done['id']}/hint").status_code == 409
    assert client.get("/api/play/nope/hint").status_code == 404


def test_a_finished_hand_links_to_its_review(client: Any) -> None:
    out = play_out(client, start(client, bot="casual", seed=11))
    view = out["view"]
    link = view["review"]
    assert link == f"/play/{out['id']}/review/{view['hand_no']}"
    r = wait_for_review(client, link)
    assert r.status_code == 200 and f"<title>Review of {view['game_id']}</title>" in r.text
    assert client.get(f"/play/{out['id']}/review/9").status_code == 409


def test_the_hint_reads_only_the_seats_view() -> None:
    """Two tables that differ only in the cards the player cannot see give the same hint."""
    t = PlayTable("cardavia", "casual", seed=11)
    h = t.session.hand
    assert h is not None
    a = hint(h, 0, seconds=60, max_worlds=3)
    other = h.copy()
    # swap a card of the computer's hand with one of the stock: the player cannot tell
    theirs = other.hands[1] & -other.hands[1]
    stock = other.stock[other.stock_pos :] if other.stock else []
    if not stock:
        pytest.skip("no stock to swap with")
    j = stock[0]
    other.hands = other.hands[:]
    other.hands[1] = other.hands[1] ^ theirs | 1 << j
    k = other.stock.index(j)
    other.stock = [*other.stock[:k], theirs.bit_length() - 1, *other.stock[k + 1 :]]
    b = hint(other, 0, seconds=60, max_worlds=3)
    assert a is not None and b is not None
    assert [(o.label, o.chips) for o in a.options] == [(o.label, o.chips) for o in b.options]


def test_the_hint_at_a_go_or_stop_puts_the_sure_stop_first() -> None:
    from test_review import _stop_is_right

    h = _stop_is_right().hand
    found = hint(h, 0, seconds=60, max_worlds=4)
    assert found is not None and found.kind == "go_stop" and found.worlds == 4
    stop, go = found.options
    assert stop.label == "stop" and stop.best and stop.chips.mean == stop.chips.low == 7
    assert go.label == "go" and go.chips.mean < 7
