"""The decision reviewer: grades on constructed positions, the information set it reads
(never a card the seat could not know), the JSON and HTML it writes, and ``gostop review``.

Budgets are tiny: a review's numbers are checked where they are exact (every world gives
the same chips) or only for their shape."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from engine_helpers import Scenario, small_deal
from gostop_cli.app import app
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import games
from gostop_records import log as L
from gostop_records.engine.game import apply_game, start_game
from gostop_records.review import (
    GameReview,
    decision_at,
    find_decisions,
    grade,
    judge,
    review_game,
)
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.web.review_page import review_page

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
runner = CliRunner()


def _sample(name: str) -> tuple[str, list[E.Envelope]]:
    return games.load_game(SAMPLES / name, None, None, exact=False)


# --- constructed positions -----------------------------------------------------------------


def _stop_is_right() -> Scenario:
    """Seat 0 reaches 7 (four brights without the rain, the three red ribbons) with one card
    left; seat 1 holds the rain bright and cannot reach 7 in its two turns, and seat 0 can
    gain a point only by taking two ribbons in its last turn. A Stop wins 7; a Go almost
    always ends in a nagari (0)."""
    sc = Scenario(small_deal("matgo", 3, 2), game_id="stop-is-right")
    sc.deal(
        [["05J1", "11J1", "04J2"], ["07J1", "10R", "09J1"]],
        ["11G", "02J1"],
        ["06J1", "12D", "04J1", "03J1"],
    )
    sc.preload(0, ["01G", "03G", "08G", "01R", "02R", "03R"])
    sc.preload(1, ["12G"])
    sc.turn(0, "05J1")
    sc.turn(1, "07J1")
    sc.turn(0, "11J1")
    assert sc.score(0) == 7 and sc.hand.turns_left(0) == 1
    return sc


def test_a_go_where_stop_is_clearly_right_is_graded_a_blunder() -> None:
    h = _stop_is_right().hand
    d = decision_at(h, E.GoCalled(seat=0, count=1, score=7), seq=30)
    assert d is not None and d.kind == "go_stop" and d.seat == 0
    r = judge(d, budget=6, seed=3)
    assert r.taken == "go" and r.best == "stop"
    assert r.loss.low > 0  # clear of the noise
    assert r.grade in ("mistake", "blunder")
    stop = next(o for o in r.options if o.label == "stop")
    assert stop.chips.mean == 7 and stop.best
    # the Stop itself is the best, clearly
    d = decision_at(h, E.StopCalled(seat=0, score=7), seq=30)
    assert d is not None
    assert judge(d, budget=6, seed=3).grade == "best"


def test_two_captures_worth_the_same_are_within_noise() -> None:
    """Seat 1's last card takes a ribbon or a junk of September; the hand ends in a nagari
    either way, so both options are worth exactly 0 chips."""
    sc = Scenario(small_deal("matgo", 1, 2), game_id="equal-captures")
    sc.deal([["05J1"], ["09J1"]], ["09R", "09J2"], ["06J1", "12D"])
    sc.turn(0, "05J1")
    sc.turn(1, "09J1", chosen="09R")
    found = find_decisions(sc.envelopes(), hand=1, seat=1, kinds=["capture"])
    assert len(found) == 1
    r = judge(found[0], budget=5, seed=0)
    assert r.kind == "capture" and r.taken == "play 09J1 09R"
    assert {o.chips.mean for o in r.options} == {0.0}
    assert r.loss.mean == 0
    assert r.grade == "within noise"


def test_a_record_that_never_saw_the_hands_reviews_the_capture_only() -> None:
    """A live record: the hands and the stock unknown. Of seat 0's play only the card is
    known, so the decision is where it went; the seat's other nine cards stay unknown."""
    from gostop_records import script

    envs = script.build(
        "game hidden ruleset=matgo players=2 by=test\nhand dealer=0 deck=no\n"
        "seat0: ?\nseat1: ?\nlayout: 09R 09J2 01G 02A 03R 04J1 06A 07R\nstock: ?\n"
        "0 play 09J1 choose 09R\n0 flip 11J1\n1 play 12R\n1 flip 10J1\n"
    )
    (d,) = find_decisions(envs)
    assert d.kind == "capture" and d.view is not None
    assert d.view.state.hand_unknown == [9, 10]
    assert d.view.state.hands[0] == C.mask_of(["09J1"])
    r = judge(d, budget=2)
    assert [o.label for o in r.options] == ["play 09J1 09R", "play 09J1 09J2"]


def test_grades_need_a_clear_loss() -> None:
    assert grade(6.0, 1.0) == "blunder"
    assert grade(3.0, 0.5) == "mistake"
    assert grade(1.0, 0.2) == "inaccuracy"
    assert grade(0.2, 0.1) == "negligible"
    assert grade(9.0, -0.1) == "within noise"
    assert grade(600.0, 100.0, stake=100) == "blunder"  # per point of stake
    assert grade(300.0, 100.0, stake=100) == "mistake"
    assert grade(0.0, 0.0, margin_low=2.0) == "best"
    assert grade(0.0, 0.0, margin_low=0.0) == "within noise"


def test_the_go_of_the_go_bak_sample_lost_clearly() -> None:
    gid, envs = _sample("go-bak.jsonl")
    r = review_game(gid, envs, hand=1, seat=0, budget=12, kinds=["go_stop"], luck=False)
    (d,) = r.hands[0].decisions
    assert (d.seq, d.taken, d.best) == (22, "go", "stop")
    assert d.loss.low > 0 and d.grade in ("mistake", "blunder")


def test_a_sale_of_brights_is_exact() -> None:
    _, envs = _sample("four-seats.jsonl")
    (d,) = find_decisions(envs, hand=1, kinds=["sell"])
    r = judge(d, budget=3)
    assert (r.seat, r.taken, r.samples) == (0, "sell 12G", 0)
    assert [o.chips.mean for o in r.options] == [150.0, 0.0]
    assert r.grade == "best"


def test_a_four_shown_or_kept_is_a_decision() -> None:
    sc = Scenario(small_deal("matgo", 4, 8, hand_four_keep=True), game_id="four-kept")
    sc.deal([["01J1"], ["05A", "05R", "05J1", "05J2"]], ["01G", "02A", "03R", "04J1", "06A",
             "07R", "08J1", "10A"], ["11G", "12A"])  # fmt: skip
    sc.input(E.FourKept(seat=1))
    (d,) = find_decisions(sc.envelopes(), kinds=["four"])
    r = judge(d, budget=2)
    assert (r.seat, r.taken) == (1, "keep the four")
    assert [o.label for o in r.options] == ["show the four of 05", "keep the four"]
    assert r.options[0].chips.low == r.options[0].chips.high  # shown: paid at once, exactly


def test_luck_adds_up_and_the_json_is_the_struct() -> None:
    gid, envs = _sample("go-bak.jsonl")
    r = review_game(gid, envs, budget=4, seed=2)
    for x in r.hands[0].luck:
        assert x.won == pytest.approx(x.deal.mean - x.lost + x.luck)
    assert [x.won for x in r.hands[0].luck] == [-16, 16]
    data = msgspec.json.encode(r)
    assert msgspec.json.decode(data, type=GameReview) == r


# --- the reviewer reads only what the seat knew ---------------------------------------------


def _rerecord(envs: list[E.Envelope], upto: int, dealt: E.CardsDealt) -> list[E.Envelope]:
    """The inputs of ``envs`` up to seq ``upto`` with another deal, each consequence derived
    again by the rules, sealed (the deck order left out: it would name the old deal)."""
    game = None
    entries: list[tuple[int | None, Any]] = []
    for env in envs:
        if env.seq > upto:
            break
        ev = env.event
        if not E.is_input(ev):
            continue
        if type(ev) is E.HandStarted:
            ev = msgspec.structs.replace(ev, deck=None)
        elif type(ev) is E.CardsDealt:
            ev = dealt
        if game is None:
            game, out = start_game(env.game_id, ev), []
        else:
            game, out = apply_game(game, ev)
        hand = game.hand_no or None
        entries.append((hand, ev))
        entries.extend((hand, d) for d in out)
    gid = envs[0].game_id
    at = envs[0].at
    return L.seal(
        L.envelope(gid, seq, hand, ev, by="test", at=at, recorded_at=at)
        for seq, (hand, ev) in enumerate(entries, 1)
    )


def _holds_four(codes: list[str]) -> bool:
    m = C.mask_of(codes)
    return any(m & C.MONTH_MASKS[k] == C.MONTH_MASKS[k] for k in range(1, 13))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 5), data=st.data())
def test_permuting_the_unseen_cards_changes_nothing_the_review_reads(
    seed: int, data: st.DataObject
) -> None:
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 1, seed))
    found = find_decisions(envs, hand=1)
    d = found[data.draw(st.integers(0, len(found) - 1), label="decision")]
    assert d.view is not None
    unseen = d.view.state.unknown_pool()
    dealt = next(e.event for e in envs if type(e.event) is E.CardsDealt)
    # every place of the deal that holds a card the seat has not seen: the other hands, the
    # stock below what was turned
    places = [(s, k) for s, h in enumerate(dealt.hands) if s != d.seat for k in range(len(h))]
    places += [(-1, k) for k in range(len(dealt.stock))]

    def card(p: tuple[int, int]) -> str:
        return dealt.stock[p[1]] if p[0] < 0 else dealt.hands[p[0]][p[1]]

    places = [p for p in places if unseen >> C.index(card(p)) & 1]
    moved = data.draw(st.permutations([card(p) for p in places]), label="unseen cards")
    hands = [list(h) for h in dealt.hands]
    stock = list(dealt.stock)
    for (s, k), c in zip(places, moved, strict=True):
        if s < 0:
            stock[k] = c
        else:
            hands[s][k] = c
    assume(not any(_holds_four(h) for s, h in enumerate(hands) if s != d.seat))
    other = _rerecord(envs, d.seq, msgspec.structs.replace(dealt, hands=hands, stock=stock))
    new_deal = next(e.event for e in other if type(e.event) is E.CardsDealt)
    assert (new_deal == dealt) == (moved == [card(p) for p in places])  # the record changed
    twin = next(x for x in find_decisions(other, hand=1) if (x.seq, x.kind) == (d.seq, d.kind))
    assert twin.view is not None
    assert twin.view.key() == d.view.key()  # the information set passed to the rollouts
    assert twin.options == d.options and twin.taken == d.taken
    assert judge(twin, budget=2, seed=seed) == judge(d, budget=2, seed=seed)


# --- the page and the command -----------------------------------------------------------------


_NETWORK = re.compile(r"https?://|//[a-z]|\bsrc=|\bhref=(?![\"']#)|@import|url\((?!#)", re.I)


class NETWORK:
    """What would make a page ask the network: an address (but the SVG namespace, which is
    a name), a source, a link or a url() that is no fragment of the page."""

    @staticmethod
    def search(page: str) -> re.Match[str] | None:
        return _NETWORK.search(page.replace('xmlns="http://www.w3.org/2000/svg"', ""))


def _page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def test_the_html_page_makes_no_request() -> None:
    gid, envs = _sample("go-bak.jsonl")
    page = review_page(review_game(gid, envs, budget=3, luck=False), envs)
    data = _page_data(page)
    go = next(d for d in data["review"]["decisions"] if d["seq"] == 22)
    assert (go["taken"], go["best"], go["kind_text"]) == ("go", "stop", "go/stop")
    assert data["review"]["rewind"] is None  # a file offers no replay of a decision
    assert data["start"] in {d["seq"] - 1 for d in data["review"]["decisions"]}
    assert "<title>Review of sample-go-bak</title>" in page and 'id="review-marks"' in page
    assert not NETWORK.search(page)
    assert "default-src &#39;none&#39;" in page and "connect-src" not in page


def _run(*args: str) -> Any:
    return runner.invoke(app, ["review", *args])


def test_the_command_prints_a_review(tmp_path: Path) -> None:
    log = str(SAMPLES / "go-bak.jsonl")
    res = _run(log, "--hand", "1", "--budget", "4", "--seed", "1")
    assert res.exit_code == 0, res.output
    assert "seq   22  seat 0  go/stop   took 'go', best 'stop'" in res.stdout
    assert "luck and skill" in res.stdout
    assert "review: 2/2 decisions" in res.stderr  # progress, on stderr only

    page = tmp_path / "review.html"
    res = _run(log, "--seat", "1", "--budget", "3", "--json", "--html", str(page), "--no-luck")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["game_id"] == "sample-go-bak" and data["seat"] == 1
    (d,) = data["hands"][0]["decisions"]
    assert (d["seq"], d["kind"], d["taken"], d["grade"]) == (32, "go_stop", "stop", "best")
    assert msgspec.json.decode(res.stdout, type=GameReview).budget == 3
    text = page.read_text()
    assert text.startswith("<!doctype html>") and not NETWORK.search(text)
    (d,) = _page_data(text)["review"]["decisions"]
    assert (d["seq"], d["seat"], d["kind"], d["grade"]) == (32, 1, "go_stop", "best")


def test_the_command_refuses_what_it_cannot_review() -> None:
    log = str(SAMPLES / "go-bak.jsonl")
    assert _run(log, "--kind", "nonsense").exit_code == 2
    assert _run(log, "--policy", "psychic").exit_code == 2
    assert _run(log, "--budget", "1").exit_code == 2  # one world measures no spread
    res = _run(log, "--hand", "7")
    assert res.exit_code == 1 and "no hand 7" in res.output
    res = _run(log, "--seat", "2")
    assert res.exit_code == 1 and "seats 0 to 1, not 2" in res.output


def test_a_stored_review_is_kept_in_its_own_tables_and_served(tmp_path: Path) -> None:
    from litestar.testing import TestClient

    from gostop_records.service.app import ServiceConfig, create_app
    from gostop_records.store import Store

    db = tmp_path / "club.duckdb"
    with Store(db) as store:
        assert store.import_paths([SAMPLES / "go-bak.jsonl", SAMPLES / "cup-junk.jsonl"]).ok
    args = ["--db", str(db), "--game", "sample-go-bak", "--budget", "3", "--store"]
    res = _run(*args)
    assert res.exit_code == 0, res.output
    assert "stored the review of game sample-go-bak" in res.stderr
    assert _run(*args, "--seat", "1").exit_code == 0  # replaces seat 1's rows only
    with Store(db) as store:
        rows = store.conn.execute(
            "SELECT seq, seat, kind, taken, best FROM reviews ORDER BY seq"
        ).fetchall()
        assert rows == [(22, 0, "go_stop", "go", "stop"), (32, 1, "go_stop", "stop", "stop")]
        luck = store.conn.execute("SELECT seat, won FROM review_luck ORDER BY seat").fetchall()
        assert luck == [(0, -16), (1, 16)]
        assert store.verify().ok  # the store's own checks do not see the review's tables
    with TestClient(create_app(ServiceConfig(db=str(db)))) as client:
        r = client.get("/games/sample-go-bak/review")
        assert r.status_code == 200 and not NETWORK.search(r.text)
        got = [(d["seq"], d["seat"], d["taken"]) for d in _page_data(r.text)["review"]["decisions"]]
        assert got == [(22, 0, "go"), (32, 1, "stop")]
    assert _run(str(SAMPLES / "go-bak.jsonl"), "--store").exit_code == 2


def test_the_command_reads_a_game_from_a_server(tmp_path: Path) -> None:
    from service_helpers import KEY, Server, auth

    sample = SAMPLES / "go-bak.jsonl"
    args = ["--seat", "1", "--budget", "2", "--no-luck", "--json"]
    with Server(tmp_path / "s.duckdb") as server:
        r = server.http.post("/api/import", content=sample.read_bytes(), headers=auth(KEY))
        assert r.status_code == 200, r.text
        remote = _run("--server", server.url, "--game", "sample-go-bak", *args)
    assert remote.exit_code == 0, remote.output
    assert json.loads(remote.stdout) == json.loads(_run(str(sample), *args).stdout)


def test_the_strong_bot_can_be_the_rollout_policy() -> None:
    h = _stop_is_right().hand
    d = decision_at(h, E.GoCalled(seat=0, count=1, score=7), seq=30)
    assert d is not None
    r = judge(d, budget=2, seed=1, policy="strong")
    assert r.best == "stop" and r.loss.mean > 0
