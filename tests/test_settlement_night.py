"""The night's settlement (정산): a game closed with ``settle`` gets each seat's total over
all its hands, the transfers that square them (at most n-1), and what was paid, checked
against the proposal; nothing is played after the close. The grammar, the recorder, the
CLI script, the store's ``v_settlements``, the audit and the HTTP service each see it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import CHROMIUM, guarded_contexts
from gostop_cli.app import app
from hypothesis import given
from hypothesis import strategies as st
from record_helpers import script_for, sim_payloads
from service_helpers import KEY, Server, auth, new_game, service_client
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import words
from gostop_records.audit.core import audit_game
from gostop_records.audit.model import AGREED, DIFFERS
from gostop_records.audit.render import render_audit
from gostop_records.engine.game import apply_game
from gostop_records.engine.night import (
    GAME_CLOSED,
    SETTLEMENT_NOTE,
    SETTLEMENT_ORDER,
    transfers,
)
from gostop_records.errors import IllegalAction
from gostop_records.integrity import checkpoints as CP
from gostop_records.notation import lines_now
from gostop_records.projector import project
from gostop_records.recorder import JsonlSink, RecordingSession
from gostop_records.store import Store
from gostop_records.validate import validate_files

NAMES = ["Ann", "Ben", "Cho"]
#: Three hands of gostop3 (seed 7) as a table that tallies: no payment during the night.
NIGHT = [
    ln for ln in script_for(sim_payloads("gostop3", 3, 7, hands=3)) if not ln.startswith("pay")
]


def _session(path: Path) -> RecordingSession:
    return RecordingSession.start(JsonlSink(path), NAMES, "gostop3", game_id="night")


def _night(path: Path) -> RecordingSession:
    s = _session(path)
    for line in NIGHT:
        s.enter(line)
    assert len(s.game.results) == 3 and not s.game.in_hand
    return s


def _proposed(s: RecordingSession) -> E.SettlementProposed:
    ev = next(e.event for e in reversed(s.envelopes) if type(e.event) is E.SettlementProposed)
    assert isinstance(ev, E.SettlementProposed)
    return ev


def test_totals_over_three_hands_are_the_sum_of_the_hands_payouts(tmp_path: Path) -> None:
    with _night(tmp_path / "g.jsonl") as s:
        results = s.game.results
        (entry,) = s.enter("settle")
        assert type(entry.input.event) is E.GameClosed
        (proposed,) = (c.event for c in entry.consequences)
        assert type(proposed) is E.SettlementProposed
    want = [0, 0, 0]
    for r in results:
        proof = r.proof()
        dues = proof.dues if proof is not None else ()
        # no chips counted: no caps, the dues are the proof's
        assert [(d.payer, d.payee, d.chips) for d in dues] == [
            (p, q, c) for p, q, _pts, c, why in r.dues if why == "stop"
        ]
        for payer, payee, _pts, chips, _why in r.dues:
            want[payer] -= chips
            want[payee] += chips
    assert any(want), "the night moved chips"
    assert proposed.totals == want
    assert proposed.paid == [0, 0, 0] and proposed.owed == want
    bal = list(want)
    for t in proposed.transfers:
        bal[t.payer] += t.chips
        bal[t.payee] -= t.chips
    assert bal == [0, 0, 0] and len(proposed.transfers) <= 2


def test_payments_during_the_night_are_taken_off_what_is_owed(tmp_path: Path) -> None:
    with _night(tmp_path / "g.jsonl") as s:
        net = s.game.ledger()
        debtor = net.index(min(net))
        creditor = net.index(max(net))
        s.enter(f"pay {debtor}->{creditor} 1 paid a chip on the way")
        s.enter("settle")
        proposed = _proposed(s)
    assert proposed.totals == net
    assert proposed.paid[debtor] == -1 and proposed.paid[creditor] == 1
    assert proposed.owed == [t - p for t, p in zip(proposed.totals, proposed.paid, strict=True)]
    assert sum(t.chips for t in proposed.transfers) == sum(o for o in proposed.owed if o > 0)


@given(st.lists(st.integers(min_value=-500, max_value=500), min_size=1, max_size=5))
def test_the_transfers_square_every_seat_in_at_most_n_minus_1(nets: list[int]) -> None:
    nets = [*nets, -sum(nets)]  # random nets that sum to zero
    out = transfers(nets)
    assert len(out) <= max(len(nets) - 1, 0)
    bal = list(nets)
    for payer, payee, chips in out:
        assert chips > 0 and payer != payee
        assert nets[payer] < 0 < nets[payee], "debtors pay creditors, never the other way"
        bal[payer] += chips
        bal[payee] -= chips
    assert bal == [0] * len(nets)


def _fewest(nets: list[int]) -> int:
    """The fewest transfers, by another road: seats that are not square, less the most
    groups they split into that square among themselves (over bitmasks)."""
    seats = [v for v in nets if v]
    n = len(seats)
    sums = [sum(v for i, v in enumerate(seats) if m >> i & 1) for m in range(1 << n)]
    groups = [0] * (1 << n)
    for m in range(1, 1 << n):
        groups[m] = max(
            (groups[m ^ sub] + 1 for sub in range(1, m + 1) if sub & m == sub and not sums[sub]),
            default=-(10**9),
        )
    return n - groups[(1 << n) - 1] if n else 0


@given(st.lists(st.integers(min_value=-60, max_value=60), min_size=1, max_size=4))
def test_the_transfers_are_the_fewest_that_square_the_night(nets: list[int]) -> None:
    nets = [*nets, -sum(nets)]
    assert len(transfers(nets)) == _fewest(nets)


def test_the_largest_debtor_pays_the_largest_creditor_within_a_group() -> None:
    assert transfers([460, -340, -120]) == [(1, 0, 340), (2, 0, 120)]
    # two pairs that square apart: two transfers, where one chain of payments took three
    assert transfers([10, 20, -10, -20]) == [(2, 0, 10), (3, 1, 20)]
    assert transfers([0, 0]) == []
    with pytest.raises(ValueError):
        transfers([1, 0])


def test_a_differing_transfer_needs_a_note_and_the_audit_flags_it(tmp_path: Path) -> None:
    with _night(tmp_path / "g.jsonl") as s:
        s.enter("settle")
        proposed = _proposed(s)
        t = proposed.transfers[0]
        before = s.last_seq
        with pytest.raises(IllegalAction) as exc:
            s.enter(f"settle pay {t.payer}->{t.payee} {t.chips - 1}")
        assert exc.value.rule == SETTLEMENT_NOTE == "settlement_note"
        assert "needs a note" in exc.value.reason
        assert s.last_seq == before, "nothing is written"
        # a transfer the proposal does not name needs a note too
        with pytest.raises(IllegalAction) as exc:
            s.enter(f"settle pay {t.payee}->{t.payer} 1")
        assert exc.value.rule == SETTLEMENT_NOTE
        s.enter(f"settle pay {t.payer}->{t.payee} {t.chips - 1} one chip forgiven")
        rest = proposed.transfers[1:]
        if rest:
            s.enter("settle pay")  # the open ones, as proposed
        assert s.game.waiting().kind == "closed"
        envs = list(s.envelopes)
        # sealed at the close and again once the settlement is paid
        assert s.seals[-1].seq == s.last_seq
    text = [words.describe(e.event, envs[0].event.players) for e in envs[-4:]]
    assert any(f"{NAMES[t.payer]} pays {NAMES[t.payee]} {t.chips - 1}" in x for x in text)
    audit = audit_game(envs)
    st_ = audit.settlement
    assert st_ is not None and not audit.ok
    (bad,) = st_.disagreements
    assert (bad.payer, bad.payee, bad.proposed, bad.chips) == (
        t.payer,
        t.payee,
        t.chips,
        t.chips - 1,
    )
    assert bad.status == DIFFERS and bad.difference == -1 and bad.note == "one chip forgiven"
    assert all(c.status == AGREED for c in st_.transfers if c is not bad)
    # the totals itemised by hand, from the hands' dues
    for seat in st_.seats:
        assert seat.total == sum(c for _h, c in seat.by_hand)
        assert {h for h, _ in seat.by_hand} <= {1, 2, 3}
    out = render_audit(audit)
    assert "The night's settlement" in out and "differs by -1 chips" in out
    assert "the table noted: one chip forgiven" in out
    assert "1 paid transfer(s) of the settlement differ from the proposal" in out


def test_a_closed_game_refuses_a_play_and_a_hand(tmp_path: Path) -> None:
    with _night(tmp_path / "g.jsonl") as s:
        s.enter("settle")
        g = s.game
        for payload in (
            E.HandStarted(hand=4, dealer=g.next_dealer or 0, order=[0, 1, 2]),
            E.CardPlayed(seat=0, card="01G"),
            E.PaymentRecorded(payer=0, payee=1, chips=1, note="late"),
            E.GameClosed(),
        ):
            with pytest.raises(IllegalAction) as exc:
                apply_game(g, payload)
            assert exc.value.rule == GAME_CLOSED
        with pytest.raises(IllegalAction) as exc:
            s.enter("hand")
        assert exc.value.rule == GAME_CLOSED
        s.enter("note a good night")  # notes still go in
        s.undo()  # and the close can be undone like any entry
        s.undo()
        assert not s.game.closed
        assert "settle" in lines_now(s.game)


def test_the_night_is_closed_between_hands_and_paid_after(tmp_path: Path) -> None:
    with _session(tmp_path / "g.jsonl") as s:
        with pytest.raises(IllegalAction) as exc:
            s.enter("settle")
        assert exc.value.rule == SETTLEMENT_ORDER  # no hand has ended
        for line in NIGHT[:3]:
            s.enter(line)
        with pytest.raises(IllegalAction) as exc:
            s.enter("settle")
        assert exc.value.rule == SETTLEMENT_ORDER and "in progress" in exc.value.reason
        with pytest.raises(IllegalAction) as exc:
            apply_game(s.game, E.SettlementPaid(payer=0, payee=1, chips=3))
        assert exc.value.rule == SETTLEMENT_ORDER


def test_record_script_of_a_night_ending_with_settle_is_strictly_valid(tmp_path: Path) -> None:
    script = tmp_path / "night.txt"
    script.write_text("\n".join([*NIGHT, "settle", "settle pay"]) + "\n")
    log = tmp_path / "g.jsonl"
    args = ["record", "--log", str(log), "--script", str(script)]
    args += ["--players", ",".join(NAMES), "--ruleset", "gostop3", "--game-id", "g1"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.stderr
    assert "settlement:" in res.stdout and " pays " in res.stdout
    report = validate_files([log])
    assert report.valid and report.games == 1, [str(f) for f in report.errors]
    envs = list(L.read_log(log))
    types = [e.type for e in envs]
    assert "game_closed" in types and "settlement_proposed" in types
    assert types.count("settlement_paid") == len(_from(envs).transfers)
    game = project(envs).game
    assert game is not None and game.waiting().kind == "closed"
    # signed like a hand's end: a checkpoint after the settlement, and after its payments
    at = types.index("settlement_proposed")
    assert types[at + 1] == "checkpoint_signed"
    assert types[-1] == "checkpoint_signed" and types[-2] == "settlement_paid"
    assert not [p for p in CP.check(envs).problems if p.rule == "checkpoint_missing"]
    # a record cut after the settlement's last payment lost that checkpoint: it is caught
    cut = [p for p in CP.check(envs[:-1]).problems if p.rule == "checkpoint_missing"]
    assert [p.seq for p in cut] == [envs[-2].seq]
    cut = [p for p in CP.check(envs[: at + 1]).problems if p.rule == "checkpoint_missing"]
    assert [p.seq for p in cut] == [envs[at].seq]


def _from(envs: list[E.Envelope]) -> E.SettlementProposed:
    ev = next(e.event for e in envs if type(e.event) is E.SettlementProposed)
    assert isinstance(ev, E.SettlementProposed)
    return ev


def test_the_store_view_after_an_import(tmp_path: Path) -> None:
    with _night(tmp_path / "g.jsonl") as s:
        s.enter("settle")
        proposed = _proposed(s)
        t = proposed.transfers[0]
        s.enter(f"settle pay {t.payer}->{t.payee} {t.chips - 2} two short")
        envs = list(s.envelopes)
    with Store(tmp_path / "s.duckdb") as st_:
        assert st_.import_envelopes(envs).imported == 1
        rows = st_.query(
            "SELECT seat, player_name, total, paid_during_night, paid_in_settlement, paid, owed "
            "FROM v_settlements WHERE game_id = 'night' ORDER BY seat"
        ).rows
    assert [r[0] for r in rows] == [0, 1, 2]
    assert [r[1] for r in rows] == NAMES
    assert [r[2] for r in rows] == proposed.totals
    paid = [0, 0, 0]
    paid[t.payer] -= t.chips - 2
    paid[t.payee] += t.chips - 2
    assert [r[4] for r in rows] == paid
    assert [r[6] for r in rows] == [o - p for o, p in zip(proposed.owed, paid, strict=True)]
    assert sum(r[6] for r in rows) == 0


def _post(client: Any, gid: str, token: str, line: str) -> Any:
    v = client.get(f"/api/games/{gid}/now").json()["version"]
    return client.post(
        f"/api/games/{gid}/entries",
        json={"entry": line, "expected_version": v},
        headers=auth(token),
    )


def test_the_api_accepts_the_lines_and_now_shows_the_step(tmp_path: Path) -> None:
    with service_client(tmp_path / "s.duckdb") as client:
        g = new_game(client, players=3, ruleset="gostop3")
        gid, token = g["game_id"], g["recorder_token"]
        for line in NIGHT:
            r = _post(client, gid, token, line)
            assert r.status_code == 201, (line, r.text)
        now = client.get(f"/api/games/{gid}/now").json()
        step = now["settlement"]
        assert step is not None and step["closed"] is False
        assert "settle" in [a["line"] for a in now["actions"]]
        assert sum(step["totals"]) == 0 and step["open"] == step["transfers"]
        r = _post(client, gid, token, "settle")
        assert r.status_code == 201, r.text
        now = client.get(f"/api/games/{gid}/now").json()
        assert now["waiting"]["kind"] == "settle"
        step = now["settlement"]
        assert step["closed"] is True and step["open"]
        assert "settle pay" in [a["line"] for a in now["actions"]]
        first = step["open"][0]
        r = _post(client, gid, token, f"settle pay {first['payer']}->{first['payee']} 1")
        assert r.status_code == 422, r.text
        assert r.json()["rule"] == "settlement_note"
        r = _post(client, gid, token, "settle pay")
        assert r.status_code == 201, r.text
        now = client.get(f"/api/games/{gid}/now").json()
        assert now["waiting"]["kind"] == "closed" and not now["settlement"]["open"]
        r = _post(client, gid, token, "hand")
        assert r.status_code == 422 and r.json()["rule"] == "game_closed"


# --- the web recorder's settlement panel, in a real browser -------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with Server(tmp_path_factory.mktemp("settle") / "store.duckdb") as s:
        yield s


ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def _page_version(page: Any) -> int:
    return int(page.evaluate("() => +document.body.dataset.version || 0"))


def _settled(page: Any, after: int) -> int:
    page.wait_for_function(
        "(v) => +document.body.dataset.version > v && !document.querySelector('#pending li')",
        arg=after,
        timeout=10_000,
    )
    return _page_version(page)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_the_web_recorder_closes_the_night_and_records_the_settlement(
    browser: Any, server: Server
) -> None:
    r = server.http.post(
        "/api/games", json={"players": NAMES, "ruleset": "gostop3"}, headers=auth(KEY)
    )
    assert r.status_code == 201, r.text
    gid, token = r.json()["game_id"], r.json()["recorder_token"]
    for line in NIGHT:
        v = server.http.get(f"/api/games/{gid}/now").json()["version"]
        r = server.http.post(
            f"/api/games/{gid}/entries",
            json={"entry": line, "expected_version": v},
            headers=auth(token),
        )
        assert r.status_code == 201, (line, r.text)
    for make in guarded_contexts(browser, server.url):
        page = make().page()
        page.goto(f"{server.url}/games/{gid}/record#token={token}")
        page.wait_for_selector("body.ready")
        panel = page.inner_text("#settle")
        assert "The night so far" in panel and "Closing it now proposes" in panel
        v = _page_version(page)
        page.click("#settle-close")
        page.click("#confirm-yes")
        v = _settled(page, v)
        assert page.get_attribute("body", "data-waiting") == "settle"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "recorder-settle.png"), full_page=True)
        open_ = server.http.get(f"/api/games/{gid}/now").json()["settlement"]["open"]
        field = page.locator("#settle-0")
        assert field.input_value() == str(open_[0]["chips"])
        field.fill(str(open_[0]["chips"] - 1))
        assert page.is_visible("#settle-why-0")
        page.click("#settle-record")
        assert "needs a reason" in page.inner_text("#message")
        page.fill("#settle-why-0", "one chip forgiven")
        page.click("#settle-record")
        v = _settled(page, v)
        page.wait_for_function("() => document.body.dataset.waiting === 'closed'")
        assert "closed and settled" in page.inner_text("#settle")
        break
    envs = [
        L.decode_json_line(ln)
        for ln in server.http.get(f"/api/games/{gid}/events").text.splitlines()
    ]
    paid = [e.event for e in envs if type(e.event) is E.SettlementPaid]
    assert paid[0].chips == open_[0]["chips"] - 1 and paid[0].note == "one chip forgiven"
    assert len(paid) == len(open_)
    audit = audit_game(envs)
    assert audit.settlement is not None and len(audit.settlement.disagreements) == 1
