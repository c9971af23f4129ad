"""A night at the table on a 360x640 phone, in Chromium against ``gostop serve``: a game of
matgo started from the games page (its QR code) with Ben named to deal first, three hands
entered by taps, a stray tap caught before it is recorded, each hand's proof on the payment
and its seal on the confirmation, one hand paid and two tallied, then the night closed and
settled with one transfer paid differently, with its reason. The record is strictly valid and
holds the same events as the same night typed into ``gostop record --script``. A second
browser context watches the live table: sentences with names, the totals, no card the table
has not seen. Every page is checked to fit the screen; each step is kept as a screenshot in
tests/artifacts/night/ (ignored by git)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from gostop_cli.app import app
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, comparable
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.integrity.seals import seal_text
from gostop_records.validate import validate_files

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "night"
PHONE = {"width": 360, "height": 640}
NAMES = ["Ann", "Ben"]
#: Three hands of matgo, each won by a Stop, Ben dealing first, no shake, bomb or cup: Ben
#: pays Ann 14 and 22, Ann pays Ben 7.
SEED = 8
#: Hand 1 is paid at the table; hands 2 and 3 are tallied, so the night owes Ann 15 from
#: Ben, and the table settles it at 12.
PAID_HAND = 1
SETTLED = (12, "three chips forgiven")
#: The night's totals after hands 1 and 2, as the live table says them.
STANDING = {1: "Ann +14, Ben -14", 2: "Ann +36, Ben -36"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("night") / "store.duckdb") as s:
        yield s


class Steps:
    """Screenshots numbered in the order taken, each page checked to fit the phone."""

    def __init__(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for old in ARTIFACTS.glob("*.png"):
            old.unlink()
        self.n = 0

    def shot(self, page: Any, name: str, full: bool = False) -> None:
        fits(page)
        self.n += 1
        path = ARTIFACTS / f"{self.n:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=full, animations="disabled")


def fits(page: Any) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide on a 360 px phone"


def version(page: Any) -> int:
    return int(page.evaluate("() => +document.body.dataset.version || 0"))


def settled(page: Any, after: int) -> int:
    page.wait_for_function(
        "(v) => +document.body.dataset.version > v && !document.querySelector('#pending li')",
        arg=after,
        timeout=10_000,
    )
    return version(page)


def envelopes(server: Server, gid: str) -> list[E.Envelope]:
    text = server.http.get(f"/api/games/{gid}/events").text
    return [L.decode_json_line(ln) for ln in text.splitlines()]


def words(locator: Any) -> str:
    return " ".join(locator.inner_text().split())


def cards_of(line: str) -> set[str]:
    return {w for w in line.split() if w[:2].isdigit() and len(w) >= 3}


def start_the_game(page: Any, server: Server, steps: Steps) -> str:
    """The games page: two players, matgo, Ben deals first; the recorder's link (QR)."""
    page.goto(server.url + "/")
    page.wait_for_selector("body.ready")
    page.fill("#players", ", ".join(NAMES))
    page.select_option("#preset", "matgo")
    page.select_option("#first-dealer", "1")
    page.fill("#server-key", KEY)
    steps.shot(page, "new-game-form")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#created .qr svg")
    page.locator("#created").scroll_into_view_if_needed()
    steps.shot(page, "new-game-qr-code")
    return str(page.get_attribute("#record-link", "href"))


class Night:
    """The recorder and the live table through the night; counts the taps of each turn."""

    def __init__(self, rec: Any, live: Any, server: Server, gid: str, steps: Steps) -> None:
        self.rec, self.live, self.server, self.gid, self.steps = rec, live, server, gid, steps
        self.turn_taps: list[tuple[str, int]] = []  # (the turn's cards, taps) of plain turns
        self.seen: set[str] = set()  # every card the table has seen so far
        self.shown: set[str] = set()  # the steps screenshotted already (one each)

    def once(self, name: str, full: bool = False) -> None:
        if name not in self.shown:
            self.shown.add(name)
            self.steps.shot(self.rec, name, full)

    def tap(self, selector: str) -> None:
        self.rec.click(selector)

    def card(self, verb: str, ev: Any) -> int:
        """Tap the card played or flipped (and the card it takes, when asked); the taps."""
        self.rec.click(f"#picker button[data-verb='{verb}'][data-code='{ev.card}']")
        taps = 1
        if ev.chosen and self.rec.locator("#choice").count():
            self.once("choice-sheet")
            self.rec.click(f"#choice button[data-choose='{ev.chosen}']")
            taps += 1
        return taps

    def stray_tap(self, flip: Any) -> None:
        """The second click of a double click lands on the flip picker drawn under the
        finger: the recorder asks, and Cancel records nothing."""
        before = version(self.rec)
        made = len(envelopes(self.server, self.gid))
        self.rec.dispatch_event(
            f"#picker button[data-verb='flip'][data-code='{flip.card}']", "click", {"detail": 2}
        )
        self.rec.wait_for_selector("#confirm:not([hidden])")
        assert f"flip {flip.card}" in self.rec.inner_text("#confirm")
        assert "right after the last one" in self.rec.inner_text("#confirm")
        self.steps.shot(self.rec, "stray-tap-asked")
        self.rec.click("#confirm-no")
        assert self.rec.is_hidden("#confirm")
        assert version(self.rec) == before and len(envelopes(self.server, self.gid)) == made
        assert self.rec.get_attribute("body", "data-step") == "flip"

    def deal(self, ev: E.CardsDealt, hand: int) -> None:
        if hand == 1:
            # Ben, named when the game was started, is marked and named by the prompt
            pressed = "#first-dealer button[data-first-dealer='1']"
            assert self.rec.get_attribute(pressed, "aria-pressed") == "true"
            assert "(dealer Ben)" in self.rec.inner_text("#prompt")
        for code in [*ev.bonus_to_pile, *ev.layout]:
            self.rec.click(f"#picker button[data-deal][data-code='{code}']")
        self.once(f"hand-{hand}-deal-picked")
        self.rec.click("#deal-record")
        self.seen |= set(ev.layout) | set(ev.bonus_to_pile)

    def check_live(self, name: str) -> None:
        """The live table: the narrator's sentences with names, no notation, and no card
        the table has not seen (its view holds no hand and no stock)."""
        live = self.live
        live.wait_for_function(
            "(v) => +document.body.dataset.version >= v", arg=version(self.rec), timeout=10_000
        )
        recent = live.inner_text("#recent")
        assert "Ann" in recent or "Ben" in recent, recent
        assert not any(ln.split()[1:2] in (["play"], ["flip"]) for ln in recent.splitlines())
        faces = set(
            live.eval_on_selector_all("svg[data-code]", "els => els.map(e => e.dataset.code)")
        )
        assert faces <= self.seen, faces - self.seen
        view = self.server.http.get(f"/games/{self.gid}/view").json()
        h = view["table"]["hand"]
        if h is not None and h["phase"] != "ended":
            assert h["stock_next"] is None
            assert all(s["hand"] is None and not s["hand_known"] for s in h["seats"])
        fits(live)
        self.steps.n += 1
        live.screenshot(path=str(ARTIFACTS / f"{self.steps.n:02d}-live-{name}.png"))


def test_a_night_of_three_hands_by_taps_equals_the_script(browser: Any, server: Server) -> None:
    steps = Steps()
    payloads = sim_payloads("matgo", 2, SEED, hands=3)
    for make in guarded_contexts(browser, server.url):
        rec = make(viewport=PHONE, has_touch=True, is_mobile=True).page()
        link = start_the_game(rec, server, steps)
        gid = link.split("/games/")[1].split("/record")[0]
        rec.goto(link)
        rec.wait_for_selector("body.ready")
        steps.shot(rec, "recorder-first-deal")
        live = make(viewport=PHONE, has_touch=True, is_mobile=True).page()
        live.goto(f"{server.url}/games/{gid}")
        live.wait_for_selector("body.ready")
        night = Night(rec, live, server, gid, steps)
        _enter_the_night(night, payloads)
        _settle(night)
        _look_at_the_audit(night)
        break
    log = ARTIFACTS / "night.jsonl"
    log.write_bytes(server.http.get(f"/api/games/{gid}/events").content)
    _same_as_the_script(payloads, gid, log)
    # a plain turn (a card played, a card flipped, no choice) is still two taps
    plain = [taps for _turn, taps in night.turn_taps]
    assert len(plain) > 20 and set(plain) == {2}, night.turn_taps


def _enter_the_night(night: Night, payloads: list[Any]) -> None:
    rec = night.rec
    hand = 0
    turn: list[Any] = []  # the inputs of the turn in progress
    turn_taps = 0
    strayed = False
    for i, ev in enumerate(payloads):
        t = type(ev)
        if not E.is_input(ev) or t in (E.GameStarted, E.HandStarted):
            continue
        v = version(rec)
        if t is E.CardsDealt:
            hand += 1
            night.deal(ev, hand)
        elif t is E.CardPlayed:
            turn, turn_taps = [ev], 0
            if hand == 1 and i < 40:
                night.once("play-step")
            turn_taps += night.card("play", ev)
            night.seen.add(ev.card)
        elif t is E.CardFlipped:
            if not strayed and len(turn) == 1 and not ev.chosen and not turn[0].chosen:
                settled(rec, v - 1)
                night.once("flip-step-with-toast")
                night.stray_tap(ev)
                strayed = True
                night.card("flip", ev)  # the turn with the stray tap is not counted
                turn = []
            elif turn:
                turn_taps += night.card("flip", ev)
                turn.append(ev)
                key = " ; ".join(f"{type(x).__name__} {x.card}" for x in turn[:2])
                if len(turn) == 2 and not ev.chosen and not turn[0].chosen:
                    night.turn_taps.append((key, turn_taps))
                elif len(turn) > 2 and night.turn_taps and night.turn_taps[-1][0] == key:
                    night.turn_taps.pop()  # a bonus card flipped: a second flip, not plain
            else:
                night.card("flip", ev)
            night.seen.add(ev.card)
        elif t is E.GoCalled:
            rec.wait_for_selector("#decide")
            night.once("go-or-stop-sheet")
            rec.click("#controls button.go")
        elif t is E.StopCalled:
            rec.wait_for_selector("#decide")
            rec.click("#controls button.stop")
            settled(rec, v)
            _the_payment(night, hand)
            continue
        elif t is E.PaymentRecorded:
            continue  # the payment screen recorded it (or the table tallied)
        else:
            raise AssertionError(f"no taps for {ev!r}")
        settled(rec, v)
        if t is E.CardFlipped and hand == 2 and "live-mid" not in night.shown:
            night.shown.add("live-mid")
            night.check_live("hand-2-in-play")


def _the_payment(night: Night, hand: int) -> None:
    """The payment screen: the hand's result and proof beside the dues; then paid (hand 1)
    or tallied (the others), and the confirmation with the seal, the audit and the totals."""
    rec = night.rec
    rec.wait_for_selector("#pay")
    pay = words(rec.locator("#pay"))
    assert pay.startswith(f"Hand {hand}:")
    assert "Ben pays Ann" in pay or "Ann pays Ben" in pay
    proof = rec.locator("#pay details.proof")
    assert proof.get_attribute("open") is not None
    assert "wins with" in words(proof) and "x stake 1 =" in words(proof)
    night.steps.shot(rec, f"hand-{hand}-payment-with-proof")
    v = version(rec)
    if hand == PAID_HAND:
        rec.click("#pay-record")
        settled(rec, v)
    else:
        rec.click("#pay-tally")
        rec.wait_for_selector("#confirm:not([hidden])")
        rec.click("#confirm-yes")
        if hand == 2:  # the table changes its mind, then tallies after all
            rec.click("#untally")
            rec.wait_for_selector("#pay")
            assert rec.get_attribute("body", "data-step") == "pay"
            rec.click("#pay-tally")
            rec.click("#confirm-yes")
    rec.wait_for_selector("#hand-end")
    end = words(rec.locator("#hand-end"))
    assert end.startswith(f"Hand {hand} is recorded.")
    assert ("Its payments are recorded." if hand == PAID_HAND else "Tallied:") in end
    # the seal is the record's at the seq it names, as gostop seal would print it
    code = rec.inner_text("#seal")
    seq = int(end.split(" · seq ")[1].split()[0])
    env = next(e for e in envelopes(night.server, night.gid) if e.seq == seq)
    assert seal_text(env.hash) == code and type(env.event) is E.CheckpointSigned
    assert rec.get_attribute("#hand-audit", "href").endswith(f"/audit#hand-{hand}")
    assert rec.locator("#hand-end details.proof").count() == 1
    # the night's totals so far, after the confirmation
    assert "The night so far" in rec.inner_text("#settle")
    night.steps.shot(rec, f"hand-{hand}-confirmation-seal")
    if hand == 3:
        return
    assert f"Hand {hand + 1}: the deal" in rec.inner_text("#prompt")
    night.check_live(f"after-hand-{hand}")
    live = words(night.live.locator("#prompt"))
    assert f"Hand {hand} is over." in live, live
    # the night's totals, paid or tallied: Ben lost 14 in hand 1 and 22 in hand 2
    assert f"Standing: {STANDING[hand]} chips." in live, live


def _settle(night: Night) -> None:
    """Close the night; the one transfer proposed (Ben pays Ann 15) is paid at 12, with
    the reason; the live table says the night is closed."""
    rec = night.rec
    panel = words(rec.locator("#settle"))
    assert "Ann +29" in panel and "Ben -29" in panel and "Ben pays Ann 15" in panel, panel
    v = version(rec)
    rec.click("#settle-close")
    rec.wait_for_selector("#confirm:not([hidden])")
    night.steps.shot(rec, "close-the-night-asked")
    rec.click("#confirm-yes")
    v = settled(rec, v)
    assert rec.get_attribute("body", "data-waiting") == "settle"
    assert rec.input_value("#settle-0") == "15"
    chips, why = SETTLED
    rec.fill("#settle-0", str(chips))
    rec.fill("#settle-why-0", why)
    rec.locator("#settle").scroll_into_view_if_needed()
    night.steps.shot(rec, "settlement-differing-transfer")
    rec.click("#settle-record")
    settled(rec, v)
    rec.wait_for_function("() => document.body.dataset.waiting === 'closed'")
    done = words(rec.locator("#settle"))
    assert "closed and settled" in done and f"Ben paid Ann {chips} ({why})" in done, done
    code = rec.inner_text("#seal")
    last = envelopes(night.server, night.gid)[-1]
    assert type(last.event) is E.CheckpointSigned and seal_text(last.hash) == code
    night.steps.shot(rec, "night-closed-and-settled")
    recent = rec.inner_text("#recent")
    assert "Ben" in recent and "settle pay" not in recent, recent
    night.live.wait_for_function("() => document.body.dataset.waiting === 'closed'")
    said = words(night.live.locator("#prompt"))
    assert said.startswith(
        f"The night is closed after hand 3: the settlement is paid (Ben pays Ann {chips})."
    )
    assert "Standing: Ann +29, Ben -29 chips." in said, said
    night.check_live("night-closed")


def _look_at_the_audit(night: Night) -> None:
    page = night.live
    page.goto(f"{night.server.url}/games/{night.gid}/audit")
    page.wait_for_selector("#settlement")
    verdict = page.inner_text("#verdict")
    assert verdict == "1 transfer(s) of the night's settlement differ from the proposal."
    transfers = words(page.locator("#settlement-transfers"))
    # proposed, paid, status, difference, and the table's reason
    assert "Ben seat 1 → Ann seat 0 15 12 differs -3 seq " in transfers, transfers
    assert transfers.endswith("the table noted: three chips forgiven")
    night.steps.shot(page, "audit-of-the-night", full=True)


def _same_as_the_script(payloads: list[Any], gid: str, log: Path) -> None:
    """The record (``log``, as the server answers it) is strictly valid and holds the
    events ``gostop record --script`` makes of the same night (signatures and clocks
    aside)."""
    envs = list(L.read_log(log))
    report = validate_files([log])
    assert report.valid and report.games == 1, [str(x) for x in report.errors]
    lines: list[str] = []
    hand = 0
    for line in script_for(payloads, hidden=True):
        if line.startswith("deal"):
            hand += 1
        if line.startswith("pay"):
            if hand == PAID_HAND and "pay" not in lines:
                lines.append("pay")
            continue
        lines.append(line)
    chips, why = SETTLED
    lines += ["settle", f"settle pay 1->0 {chips} {why}"]
    script = log.with_name("night.txt")
    script.write_text("\n".join(lines) + "\n")
    typed = log.with_name("typed.jsonl")
    typed.unlink(missing_ok=True)
    args = ["record", "--log", str(typed), "--script", str(script), "--no-sign"]
    args += ["--players", ",".join(NAMES), "--ruleset", "matgo", "--game-id", gid]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output

    def dicts(es: list[E.Envelope]) -> list[dict[str, Any]]:
        out = comparable([E.payload_to_dict(e.event) for e in es])
        return [d for d in out if d["type"] != "game_started"]

    assert dicts(envs) == dicts(list(L.read_log(typed)))
