"""Reviews on the server, over HTTP: a game nobody reviewed is reviewed in the background
(the page says so, with the progress, until the review is ready) and kept in the store; a
player's page tells the luck from the skill over the reviewed hands ("not reviewed yet"
before); a hand of ``/play`` is reviewed in the replayer and a decision of the player's
played again from the same position."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browse_support import query
from litestar.testing import TestClient
from service_helpers import run_async
from test_review import _page_data
from test_web_play_routes import play_out, start

from gostop_records.review import find_decisions
from gostop_records.service.app import ServiceConfig, create_app
from gostop_records.store import Store

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
NOTICE = 'class="server-notice"'


def wait_for_review(client: Any, url: str, looks: int = 600) -> Any:
    """Look at a review's address until it is no longer being computed (each look while it
    is must say so, with the progress); the answer then."""
    for _ in range(looks):
        r = client.get(url)
        if r.status_code != 202:
            return r
        assert "is being computed" in r.text and "http-equiv='refresh'" in r.text
        assert re.search(r"<progress max='\d+' value='\d+'>", r.text)
        time.sleep(0.5)
    raise AssertionError(f"{url} was still being computed after {looks} looks")


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient[Any]]:
    db = tmp_path_factory.mktemp("reviews") / "club.duckdb"
    with Store(db) as store:
        assert store.import_paths([SAMPLES / "go-bak.jsonl", SAMPLES / "go-1.jsonl"]).ok
    with TestClient(create_app(ServiceConfig(db=str(db)))) as client:
        yield client


def _figures(page: str) -> dict[str, str]:
    return dict(re.findall(r'data-luck="(\w+)">([^<]*)<', page))


def test_a_game_is_reviewed_in_the_background_kept_and_counted_for_its_players(
    club: TestClient[Any],
) -> None:
    before = club.get("/players/p1")
    assert before.status_code == 200
    assert "Not reviewed yet" in before.text and 'data-reviewed="0"' in before.text
    first = club.get("/games/sample-go-bak/review")
    assert first.status_code == 202 and "sample-go-bak is being computed" in first.text
    r = wait_for_review(club, "/games/sample-go-bak/review")
    assert r.status_code == 200, r.text
    review = _page_data(r.text)["review"]
    go = next(d for d in review["decisions"] if d["seq"] == 22)
    assert (go["seat"], go["taken"], go["best"]) == (0, "go", "stop")
    # kept: the tables hold it, and the page reads it from there (same numbers)
    rows = query(club, "SELECT seq, kind, taken FROM reviews WHERE game_id = 'sample-go-bak'")
    assert sorted(tuple(x) for x in rows) == sorted(
        (d["seq"], d["kind"], d["taken"]) for d in review["decisions"]
    )
    again = club.get("/games/sample-go-bak/review")
    assert again.status_code == 200 and _page_data(again.text)["review"] == review
    # the luck line of seat 0's player: its row of review_luck, beside the hands it played
    (won, deal, lost), *_ = query(
        club,
        "SELECT won, deal, lost FROM review_luck WHERE game_id = 'sample-go-bak' AND seat = 0",
    )
    page = club.get("/players/p1").text
    assert 'data-reviewed="1"' in page and "Over 1 reviewed hand of 2" in page
    fig = _figures(page)
    assert fig["won"] == f"{won:+d}" == "-16"
    assert fig["deal"] == f"{deal:+.1f}" and fig["lost"] == f"{lost:.1f}"
    assert fig["rest"] == f"{won - deal + lost:+.1f}"
    assert "Not reviewed yet" not in page


def test_an_unknown_game_has_no_review(club: TestClient[Any]) -> None:
    r = club.get("/games/no-such-game/review")
    assert r.status_code == 404


# --- /play: the review of a hand, and a decision played again -----------------------------


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient[Any]]:
    with TestClient(create_app(ServiceConfig(db=str(tmp_path / "s.duckdb")))) as c:
        yield c


def test_a_decision_of_a_play_hand_is_played_again_from_the_same_position(
    client: TestClient[Any],
) -> None:
    out = play_out(client, start(client, bot="casual", seed=11))
    view = out["view"]
    r = wait_for_review(client, view["review"])
    assert r.status_code == 200, r.text
    data = _page_data(r.text)
    review = data["review"]
    assert review["rewind"] == {"url": f"/play/{out['id']}/rewind", "seat": 0}
    mine = [d for d in review["decisions"] if d["seat"] == 0]
    assert mine and {d["kind"] for d in review["decisions"]} >= {"play"}  # every kind
    d = mine[-1]
    # the same decision, found in the stored log: the table the player stood at
    events = client.get(f"/api/games/{view['game_id']}/events")
    assert events.status_code == 200
    r = client.post(
        f"/play/{out['id']}/rewind",
        data={"hand": str(d["hand"]), "seq": str(d["seq"])},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    where = r.headers["location"]
    assert where.startswith("/play?ruleset=cardavia&bot=casual#hand=")
    new_id = where.split("#hand=")[1]
    again = client.get(f"/api/play/{new_id}").json()["view"]
    assert again["practice"] == {"game_id": view["game_id"], "hand": d["hand"], "seq": d["seq"]}
    assert again["step"]["human"] and again["version"] == d["seq"] - 1
    # every entry before the decision as it was; the player's move is theirs to make again
    assert again["log"] == view["log"][: len(again["log"])]
    # play on to the end: a practice hand is not stored
    done = play_out(client, {"id": new_id, "view": again})
    assert done["view"]["stored"] is False and done["view"]["practice"] is not None
    assert client.get(f"/api/games/{done['view']['game_id']}/events").status_code == 404


def test_a_rewind_to_no_decision_of_the_players_is_refused(client: TestClient[Any]) -> None:
    out = play_out(client, start(client, bot="casual", seed=12))
    hand_id = out["id"]
    url = f"/play/{hand_id}/rewind"
    assert client.post(url, data={"hand": "1", "seq": "1"}).status_code == 422
    assert client.post(url, data={"hand": "9", "seq": "30"}).status_code == 409
    assert client.post(url, data={"hand": "one", "seq": "x"}).status_code == 400
    assert client.post("/play/nope/rewind", data={"hand": "1", "seq": "2"}).status_code == 404
    # a seq where the computer decided is no decision of the player's
    from gostop_records import log as L

    raw = client.get(f"/api/games/{out['view']['game_id']}/events").content
    envs = [L.decode_json_line(x) for x in raw.splitlines() if x.strip()]
    theirs = [x for x in find_decisions(envs, 1) if x.seat != 0]
    assert theirs
    r = client.post(url, data={"hand": "1", "seq": str(theirs[0].seq)}, follow_redirects=False)
    assert r.status_code == 422 and "no decision of yours" in r.text


# --- the reviewer's queue ------------------------------------------------------------------


def test_the_reviewer_runs_one_job_a_key_refuses_beyond_its_limit_and_says_why_one_failed() -> None:
    import asyncio

    from gostop_records import games
    from gostop_records.web.review_jobs import ReviewBusy, ReviewJobs

    gid, envs = games.load_game(SAMPLES / "go-bak.jsonl", None, None, exact=False)

    async def run() -> None:
        jobs = ReviewJobs(limit=2)
        kept: list[Any] = []

        async def keep(review: Any) -> None:
            kept.append(review)

        ok = jobs.submit("a", gid, envs, {"budget": 3, "luck": False, "kinds": ["go_stop"]}, keep)
        assert jobs.submit("a", gid, envs, {"budget": 3}) is ok  # the same key: the same job
        bad = jobs.submit("b", gid, envs, {"budget": 1})  # one world measures no spread
        with pytest.raises(ReviewBusy, match="2 reviews to compute already"):
            jobs.submit("c", gid, envs, {"budget": 3})
        for _ in range(600):
            if ok.state in ("done", "failed") and bad.state in ("done", "failed"):
                break
            await asyncio.sleep(0.1)
        assert ok.state == "done" and ok.result is not None and kept == [ok.result]
        assert ok.done == ok.total == 2  # its progress: both decisions judged
        assert [d.seq for h in ok.result.hands for d in h.decisions] == [22, 32]
        assert bad.state == "failed" and "a budget of 1" in (bad.error or "")
        jobs.forget("b")
        assert jobs.get("b") is None
        again = jobs.submit("b", gid, envs, {"budget": 2, "luck": False})  # asked again: anew
        assert again is not bad
        await jobs.close()

    run_async(run)  # (Playwright may hold an event loop on this thread)


def test_a_game_that_went_on_after_its_review_is_said_so_and_reviewed_again(
    tmp_path: Path,
) -> None:
    """A stored review covers the game as it was: once more events come, its page still
    shows it, says up to which event it goes, and has the game reviewed again, which then
    covers every event."""
    lines = (SAMPLES / "go-1.jsonl").read_bytes().splitlines(keepends=True)
    db = tmp_path / "club.duckdb"
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:20]))
    with Store(db) as store:
        assert store.import_paths([cut]).ok
    with TestClient(create_app(ServiceConfig(db=str(db), key="k"))) as c:
        url = "/games/sample-go-1/review"
        first = wait_for_review(c, url)
        assert first.status_code == 200 and NOTICE not in first.text
        assert _page_data(first.text)["review"]
        kept = query(c, "SELECT DISTINCT through_seq FROM reviews WHERE game_id = 'sample-go-1'")
        assert kept == [[20]]
        r = c.post("/api/import", content=b"".join(lines), headers={"Authorization": "Bearer k"})
        assert r.status_code == 200 and r.json()["extended"] == 1, r.text
        stale = c.get(url)
        assert stale.status_code == 200
        assert "covers the game up to event 20; it went on to event 30" in stale.text
        for _ in range(600):  # until the review of the whole game is kept
            done = c.get(url)
            if NOTICE not in done.text:
                break
            time.sleep(0.5)
        assert done.status_code == 200 and NOTICE not in done.text
        kept = query(c, "SELECT DISTINCT through_seq FROM reviews WHERE game_id = 'sample-go-1'")
        assert kept == [[30]]
