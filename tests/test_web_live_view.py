"""The live table as a viewer gets it: sentences with names written by the server's one
narrator, a finished hand's result, and never a card the table has not seen (a hand the
recorder knows stays hidden until the hand ends), neither in the view nor in its stream;
the page in a real browser at 360x640 asks only for those."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_support import CHROMIUM, guarded_contexts
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, auth

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}
#: A matgo hand (seed 2) recorded with every card known: both hands and the stock.
SIM = sim_payloads("matgo", 2, 2)
KNOWN = script_for(SIM)
CODE = re.compile(r"\b(?:0[1-9]|1[0-2])(?:G|R|A|D|J1|J2|J)\b|\bB[23][BC]?\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webview") / "store.duckdb") as s:
        yield s


def _game(server: Server) -> tuple[str, str]:
    r = server.http.post(
        "/api/games", json={"players": ["Ann", "Ben"], "ruleset": "matgo"}, headers=auth(KEY)
    )
    assert r.status_code == 201, r.text
    return r.json()["game_id"], r.json()["recorder_token"]


def _post(server: Server, gid: str, token: str, line: str) -> None:
    v = server.http.get(f"/api/games/{gid}/now", headers=auth(token)).json()["version"]
    r = server.http.post(
        f"/api/games/{gid}/entries",
        json={"entry": line, "expected_version": v},
        headers=auth(token),
    )
    assert r.status_code == 201, r.text


def _unseen(server: Server, gid: str) -> set[str]:
    """The cards the recorder knows that the table has not seen: in a hand or the stock."""
    now = server.http.get(f"/api/games/{gid}/now").json()
    h = now["table"]["hand"]
    held = {c for s in h["seats"] for c in s["hand_known"]}
    seen = {c for m in h["layout"] for c in m["cards"]}
    seen |= {c for s in h["seats"] for cards in s["pile"].values() for c in cards}
    return held - seen


def _watched(server: Server, gid: str, after_lines: int = 2) -> str:
    """The first messages of the live table's stream."""
    out = ""
    with (
        httpx.Client(base_url=server.url, timeout=5) as c,
        c.stream("GET", f"/games/{gid}/watch") as r,
    ):
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            out += line + "\n"
            if line.startswith("data:"):
                after_lines -= 1
                if not after_lines:
                    break
    return out


def test_a_known_hand_stays_hidden_from_viewers_until_it_ends(server: Server) -> None:
    gid, token = _game(server)
    deal = KNOWN[0]
    assert " hand 0" in deal and " stock " in deal, "the deal names every card"
    for line in KNOWN[:5]:
        _post(server, gid, token, line)
    hidden = _unseen(server, gid)
    assert len(hidden) > 10
    body = server.http.get(f"/games/{gid}/view").text
    view = server.http.get(f"/games/{gid}/view").json()
    assert not hidden & set(CODE.findall(body)), hidden & set(CODE.findall(body))
    assert all(s["hand_known"] == [] and s["hand"] is None for s in view["table"]["hand"]["seats"])
    assert view["table"]["hand"]["stock_next"] is None and "event" not in view["table"]
    stream = _watched(server, gid, 1)
    assert "data: " in stream and not set(CODE.findall(stream))
    # sentences with names, from the narrator
    assert view["sentence"].startswith("Hand 1: Ann to play") or view["sentence"].startswith(
        "Hand 1: Ben to play"
    )
    texts = [r["text"] for r in view["recent"]]
    assert any(t.startswith("Ann plays") or t.startswith("Ben plays") for t in texts), texts
    assert not any("hands known" in t for t in texts)
    # once the hand has ended, what was left in the hands may be shown
    for line in KNOWN[5:]:
        _post(server, gid, token, line)
    view = server.http.get(f"/games/{gid}/view").json()
    assert view["result_words"] and view["result_words"].startswith("hand over:")
    assert "Hand 1 is over." in view["sentence"] and "Standing:" in view["sentence"]
    assert "Next: hand 2" in view["sentence"]
    assert "Hand 2: the deal" not in view["sentence"]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_the_live_page_speaks_with_names_and_shows_the_result(browser: Any, server: Server) -> None:
    gid, token = _game(server)
    for line in KNOWN[:3]:
        _post(server, gid, token, line)
    hidden = _unseen(server, gid)
    asked: list[str] = []
    views: list[Any] = []
    for make in guarded_contexts(browser, server.url):
        ctx = make(viewport=PHONE)
        page = ctx.page()
        page.on("request", lambda r: asked.append(r.url))

        page.on("response", lambda r: views.append(r) if r.url.endswith("/view") else None)
        page.goto(f"{server.url}/games/{gid}")
        page.wait_for_selector("body.ready")
        first = views[0].text()
        prompt = page.inner_text("#prompt")
        assert re.match(r"Hand 1: (Ann|Ben) to (play|flip)", prompt), prompt
        recent = page.inner_text("#recent")
        assert "Ann" in recent or "Ben" in recent
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "live-hidden-hand-phone.png"), full_page=True)
        assert page.locator(".seat .hand").count() == 0, "no hand drawn while it is played"
        for line in KNOWN[3:]:
            _post(server, gid, token, line)
        last = server.http.get(f"/games/{gid}/view").json()["version"]
        page.wait_for_function("(v) => +document.body.dataset.version >= v", arg=last)
        page.wait_for_function(
            "() => document.querySelector('#prompt').textContent.includes('is over')"
        )
        assert "Hand 1 is over." in page.inner_text("#prompt")
        assert "hand over:" in page.inner_text(".felt .result")
        page.screenshot(path=str(ARTIFACTS / "live-hand-over-phone.png"), full_page=True)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert not hidden & set(CODE.findall(first))
    api = [u for u in asked if "/api/" in u]
    assert api == [], f"the live table asks the recorder's API: {api}"
    assert any(u.endswith(f"/games/{gid}/watch") for u in asked)
