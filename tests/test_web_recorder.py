"""The web recorder and the live table in a real browser (headless Chromium through
Playwright) against ``gostop serve``: a whole matgo hand recorded by taps equals the same
hand recorded with ``gostop record --script``; the live table follows each entry within a
second; entries made offline are sent once, in order, when the network is back; a second
recorder is told what the first recorded. Phone-size screenshots go to tests/artifacts/."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from gostop_cli.app import app
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, auth
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.notation import text
from gostop_records.validate import validate_files

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PHONE = {"width": 360, "height": 640}
#: A matgo hand (seed 5) with a two-card choice on its first play, a Go and then a Stop.
SEED = 5
PAID = "20"
WHY = "rounded down between friends"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("webrec") / "store.duckdb") as s:
        yield s


@pytest.fixture()
def contexts(browser: Any, server: Server) -> Iterator[Any]:
    yield from guarded_contexts(browser, server.url)


def hidden_lines() -> list[str]:
    """The hand as a live table records it: the layout dealt, the hands and stock unseen."""
    return script_for(sim_payloads("matgo", 2, SEED), hidden=True)


def version(page: Any) -> int:
    return int(page.evaluate("() => +document.body.dataset.version || 0"))


def settled(page: Any, after: int, timeout: float = 10_000) -> int:
    """Wait until the page has no entry waiting and shows a version past ``after``."""
    page.wait_for_function(
        "(v) => +document.body.dataset.version > v && !document.querySelector('#pending li')",
        arg=after,
        timeout=timeout,
    )
    return version(page)


def tap_line(page: Any, line: str) -> bool:
    """Enter one line of the recorder's grammar by tapping, as a person would; whether a
    choice between two layout cards was asked (two cards of a kind are not a choice)."""
    words = line.split()
    verb = words[0]
    if verb == "deal":
        if page.locator("#first-dealer").count():  # the first deal names its dealer
            page.click("#first-dealer button[data-first-dealer='0']")
        for code in words[words.index("layout") + 1 :]:
            page.click(f"#picker button[data-code='{code}']")
        page.click("#deal-record")
    elif verb in ("play", "flip"):
        page.click(f"#picker button[data-verb='{verb}'][data-code='{words[1]}']")
        if page.locator("#choice").count():
            assert len(words) > 2, f"{line}: a choice was asked"
            page.click(f"#choice button[data-choose='{words[2]}']")
            return True
    elif verb == "go":
        page.click("#controls button.go")
    elif verb == "stop":
        page.click("#controls button.stop")
    else:
        raise AssertionError(f"no taps for {line!r}")
    return False


def start_game(server: Server) -> tuple[str, str]:
    r = server.http.post(
        "/api/games", json={"players": ["Ann", "Ben"], "ruleset": "matgo"}, headers=auth(KEY)
    )
    assert r.status_code == 201, r.text
    body = r.json()
    return body["game_id"], body["recorder_token"]


def post(server: Server, gid: str, token: str, line: str) -> int:
    v = server.http.get(f"/api/games/{gid}/now").json()["version"]
    r = server.http.post(
        f"/api/games/{gid}/entries",
        json={"entry": line, "expected_version": v},
        headers=auth(token),
    )
    assert r.status_code == 201, r.text
    return int(r.json()["version"])


def inputs_after(server: Server, gid: str, seq: int) -> list[str]:
    lines = server.http.get(f"/api/games/{gid}/events", params={"after": seq}).text.splitlines()
    envs = [L.decode_json_line(ln) for ln in lines]
    return [text(e.event) for e in envs if E.is_input(e.event)]


def payloads(envs: list[E.Envelope]) -> list[dict[str, Any]]:
    out = []
    for env in envs:
        d = E.payload_to_dict(env.event)
        if d["type"] == "hand_started":
            d["deck"] = None
        if d["type"] in ("game_started", "key_added", "checkpoint_signed"):
            continue  # the signing events: made with other keys
        out.append(d)
    return out


def test_a_whole_hand_by_taps_equals_the_scripted_recording(
    contexts: Any, server: Server, tmp_path: Path
) -> None:
    lines = hidden_lines()
    assert lines[-1].startswith("pay ")
    due = lines[-1]
    payer_payee = due.split()[1]
    paid = f"pay {payer_payee} {PAID} {WHY}"
    assert due != f"pay {payer_payee} {PAID}", "the test pays a different amount"
    ARTIFACTS.mkdir(exist_ok=True)

    # the games page starts the game and gives the recorder link with its QR code
    rec_ctx = contexts(viewport=PHONE, has_touch=True, is_mobile=True)
    home = rec_ctx.page()
    home.goto(server.url + "/")
    home.wait_for_selector("body.ready")
    home.fill("#players", "Ann, Ben")
    home.select_option("#preset", "matgo")
    home.fill("#server-key", KEY)
    home.click("#new-game button[type=submit]")
    home.wait_for_selector("#created .qr svg")
    link = home.get_attribute("#record-link", "href")
    assert "/record#token=" in link
    gid = link.split("/games/")[1].split("/record")[0]
    home.screenshot(path=str(ARTIFACTS / "games-phone.png"), full_page=True)

    live_ctx = contexts(viewport=PHONE)
    live = live_ctx.page()
    live.goto(f"{server.url}/games/{gid}")
    live.wait_for_selector("body.ready")

    rec = rec_ctx.page()
    rec.goto(link)
    rec.wait_for_selector("body.ready")
    assert "token" not in rec.url, "the token leaves the address once stored"
    v = version(rec)
    saw_choice = False
    for i, line in enumerate(lines[:-1]):
        if line == "stop":
            # what a Stop pays now is shown before it is called
            assert "A Stop pays now" in rec.inner_text("#controls")
            rec.screenshot(path=str(ARTIFACTS / "recorder-decide-phone.png"))
        saw_choice |= tap_line(rec, line)
        v = settled(rec, v)
        # the live table shows the entry within a second
        start = time.monotonic()
        live.wait_for_function("(v) => +document.body.dataset.version >= v", arg=v, timeout=1000)
        assert time.monotonic() - start < 1.0
        if i == 6:
            rec.screenshot(path=str(ARTIFACTS / "recorder-phone.png"), full_page=True)
            live.screenshot(path=str(ARTIFACTS / "live-phone.png"), full_page=True)
    assert saw_choice

    # the payment defaults to what is due; a different amount asks for its reason
    assert rec.get_attribute("body", "data-waiting") == "pay"
    rec.screenshot(path=str(ARTIFACTS / "recorder-pay-phone.png"), full_page=True)
    field = rec.locator("#pay-0")
    assert field.input_value() == due.split()[2]
    field.fill(PAID)
    assert rec.is_visible("#why-0")
    rec.click("#pay-record")
    assert "needs a reason" in rec.inner_text("#message")
    rec.fill("#why-0", WHY)
    rec.click("#pay-record")
    v = settled(rec, v)
    live.wait_for_function("(v) => +document.body.dataset.version >= v", arg=v, timeout=1000)
    assert rec.get_attribute("body", "data-waiting") == "deal"
    live.set_viewport_size({"width": 1280, "height": 800})
    live.screenshot(path=str(ARTIFACTS / "live-desktop.png"), full_page=True)

    # the same hand through gostop record --script
    script = tmp_path / "hand.txt"
    script.write_text("\n".join([*lines[:-1], paid]) + "\n", encoding="utf-8")
    cli_log = tmp_path / "cli.jsonl"
    args = ["record", "--log", str(cli_log), "--players", "Ann,Ben", "--ruleset", "matgo"]
    res = CliRunner().invoke(app, [*args, "--script", str(script)])
    assert res.exit_code == 0, res.output
    web_log = tmp_path / "web.jsonl"
    web_log.write_bytes(server.http.get(f"/api/games/{gid}/events").content)
    assert payloads(list(L.read_log(web_log))) == payloads(list(L.read_log(cli_log)))
    report = validate_files([web_log])
    assert report.valid and report.games == 1, [str(f) for f in report.errors]
    last_pay = [e.event for e in L.read_log(web_log) if type(e.event) is E.PaymentRecorded]
    assert [(p.chips, p.note) for p in last_pay] == [(int(PAID), WHY)]


def test_entries_made_offline_are_sent_once_in_order(contexts: Any, server: Server) -> None:
    lines = hidden_lines()
    gid, token = start_game(server)
    # the deal and the first turn through the API; then three plain entries on the page
    for line in lines[:3]:
        post(server, gid, token, line)
    k = next(
        i
        for i in range(3, len(lines) - 3)
        if [ln.split()[0] for ln in lines[i : i + 3]] == ["play", "flip", "play"]
        and all(len(ln.split()) == 2 and "B" not in ln for ln in lines[i : i + 3])
    )
    for line in lines[3:k]:
        base = post(server, gid, token, line)
    ctx = contexts(viewport=PHONE)
    page = ctx.page()
    page.goto(f"{server.url}/games/{gid}/record#token={token}")
    page.wait_for_selector("body.ready")
    assert version(page) == base
    watch_ctx = contexts(viewport=PHONE)
    watch = watch_ctx.page()
    watch.goto(f"{server.url}/games/{gid}")
    watch.wait_for_selector("body.ready")
    # the live table loses the network too, and reconnects by itself
    watch_ctx.ctx.set_offline(True)
    ctx.ctx.set_offline(True)
    three = lines[k : k + 3]
    for n, line in enumerate(three, 1):
        if n == 2:  # by keys alone: the card button takes the focus and Enter
            code = line.split()[1]
            page.focus(f"#picker button[data-code='{code}']")
            page.keyboard.press("Enter")
        else:
            tap_line(page, line)
        page.wait_for_function(
            "(n) => document.querySelectorAll('#pending li').length === n", arg=n
        )
    assert "offline" in page.inner_text("#net")
    assert inputs_after(server, gid, base) == []
    ctx.ctx.set_offline(False)
    done = settled(page, base, timeout=15_000)
    assert inputs_after(server, gid, base) == three
    page.reload()
    page.wait_for_selector("body.ready")
    assert page.locator("#pending li").count() == 0
    assert inputs_after(server, gid, base) == three
    watch_ctx.ctx.set_offline(False)
    watch.wait_for_function("(v) => +document.body.dataset.version >= v", arg=done, timeout=8000)
    assert watch.inner_text("#net") == "live"

    # an entry made offline on a page closed before the network is back is sent by the
    # next page that opens the recorder on this device
    nxt = lines[k + 3]
    assert nxt.split()[0] == "flip" and len(nxt.split()) == 2, nxt
    ctx.ctx.set_offline(True)
    tap_line(page, nxt)
    page.wait_for_selector("#pending li")
    page.close()
    ctx.ctx.set_offline(False)
    again = ctx.page()
    again.goto(f"{server.url}/games/{gid}/record")
    again.wait_for_selector("body.ready")
    settled(again, done)
    assert inputs_after(server, gid, base) == [*three, nxt]


def test_two_recorders_one_wins_the_other_is_shown_the_change(
    contexts: Any, server: Server
) -> None:
    lines = hidden_lines()
    gid, token = start_game(server)
    for line in lines[:1]:
        base = post(server, gid, token, line)
    a_ctx, b_ctx = contexts(viewport=PHONE), contexts(viewport=PHONE)
    a, b = a_ctx.page(), b_ctx.page()
    for pg in (a, b):
        pg.goto(f"{server.url}/games/{gid}/record#token={token}")
        pg.wait_for_selector("body.ready")
    first = lines[1]
    tap_line(a, first)
    settled(a, base)
    # b still shows the table before a's entry and enters another card
    other = next(c for c in ("01G", "01R", "03G", "11G") if c not in first)
    b.click(f"#picker button[data-verb='play'][data-code='{other}']")
    b.wait_for_selector("#message.conflict")
    msg = b.inner_text("#message")
    assert "Another device recorded first" in msg
    assert first in msg and f"play {other}" in msg
    assert inputs_after(server, gid, base) == [first]
    # b now shows the table as it stands: the flip is expected
    assert b.get_attribute("body", "data-waiting") == "flip"
    b.screenshot(path=str(ARTIFACTS / "recorder-conflict-phone.png"), full_page=True)
    # b goes on: a note, then undo twice; the button names what it retracts each time
    b.click("#dismiss")
    at = version(b)
    b.fill("#note-text", "Ben dropped a card")
    b.press("#note-text", "Enter")
    at = settled(b, at)
    assert b.inner_text("#undo") == "Undo: note Ben dropped a card"
    b.click("#undo")
    b.click("#confirm-yes")  # an undo is asked before it is sent
    at = settled(b, at)
    assert b.get_attribute("body", "data-waiting") == "flip"
    assert b.inner_text("#undo") == f"Undo: {first}"
    b.click("#undo")
    b.click("#confirm-yes")  # an undo is asked before it is sent
    settled(b, at)
    assert b.get_attribute("body", "data-waiting") == "play"
    made = inputs_after(server, gid, base)
    assert made[:2] == [first, "note Ben dropped a card"] and len(made) == 4
    assert all(m.startswith("undo @") for m in made[2:])
