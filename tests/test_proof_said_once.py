"""The payout proof is worded once: the terminal (``replay``, ``audit``), the pages' script
(``static/proof.js``, drawing the replayer's and the player's proofs) and the audit page (drawn
on the server) say the same items, amounts and reasons, the proof's own lines."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import msgspec
import pytest
from browser_support import CHROMIUM, Guarded
from gostop_cli.app import app
from typer.testing import CliRunner

from gostop_records import log as L
from gostop_records.engine.proof import Proof
from gostop_records.proof_view import proof_html, proof_json, proof_text, stop_summary
from gostop_records.replay import timeline
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import GameSpec, play_game
from gostop_records.web import replay_data as R
from gostop_records.web.browse_pages import audit_page


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A three-hand matgo game with its proofs, written as a log and as a replayer page."""
    folder = tmp_path_factory.mktemp("proof")
    envs = play_game(GameSpec(PRESETS["matgo"], 2, 3, seed=3))
    log = folder / "game.jsonl"
    with open(log, "wb") as f:
        L.write_jsonl(f, envs)
    html = folder / "game.html"
    done = CliRunner().invoke(app, ["replay", str(log), "--html", str(html)])
    assert done.exit_code == 0, done.output
    tl = timeline(envs[0].game_id, envs)
    final = tl.states[-1]
    assert final is not None
    proofs = {r.hand: p for r in final.results if (p := r.proof()) is not None}
    assert proofs, "the game has a hand won by a Stop"
    names = [p.name for p in final.players]
    return {"envs": envs, "log": log, "html": html, "proofs": proofs, "names": names}


class _Items(HTMLParser):
    """The proof items of an HTML fragment: (kind, text, amount) of each ``data-kind``."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[tuple[str, str, int | None]] = []
        self._open: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        kind = a.get("data-kind")
        if kind is not None:
            amount = a.get("data-amount")
            self.items.append((kind, "", int(amount) if amount is not None else None))
        self._open.append(kind is not None)

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1]:
            kind, text, amount = self.items[-1]
            self.items[-1] = (kind, text + data, amount)


def _items(html: str) -> list[tuple[str, str, int | None]]:
    parser = _Items()
    parser.feed(html)
    return parser.items


def _said(proof: Proof, names: list[str]) -> list[tuple[str, str, int | None]]:
    return [(ln.kind, ln.text, ln.amount) for ln in proof.lines(names)]


def test_the_proof_prints_itself_as_the_terminal_does(game: dict[str, Any]) -> None:
    for proof in game["proofs"].values():
        assert str(proof) == "\n".join(proof_text(proof))
        text = proof_text(proof, game["names"])
        assert text[0].startswith(f"payout proof: {game['names'][proof.winner]} wins with ")
        for lp in proof.losers:
            assert any(f" = {lp.chips} chips" in line for line in text)
            for f in lp.factors:
                assert any(f.condition in line and f.name in line for line in text)


def test_the_replay_command_prints_each_line_the_pages_get(game: dict[str, Any]) -> None:
    data = R.build(game["envs"][0].game_id, game["envs"])
    for hand in data["hands"]:
        proof = game["proofs"].get(hand["hand"])
        if proof is None:
            continue
        lines = hand["proof"]["lines"]
        assert lines == msgspec.to_builtins(proof.lines(game["names"]))
        end = game["envs"][hand["end"]].seq
        done = CliRunner().invoke(app, ["replay", str(game["log"]), "--at", str(end)])
        assert done.exit_code == 0, done.output
        printed = done.output.splitlines()
        for line in lines:
            assert "  " * line["depth"] + line["text"] in printed, line


def test_the_audit_page_and_the_audit_command_say_the_same(game: dict[str, Any]) -> None:
    envs = game["envs"]
    page = audit_page(envs[0].game_id, envs)
    done = CliRunner().invoke(app, ["audit", str(game["log"])])
    printed = done.output.splitlines()
    shown = _items(page)
    labels = [f"seat {s} ({n})" for s, n in enumerate(game["names"])]
    for proof in game["proofs"].values():
        said = _said(proof, labels)
        assert all(item in shown for item in said)
        for line in proof.lines(labels):
            assert "  " + str(line) in printed, line
        # the server's HTML is made of the same lines
        assert _items(proof_html(proof, labels)) == said


pytestmark_browser = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
)


@pytest.fixture()
def page(browser: Any) -> Any:
    g = Guarded(browser, ("file:", "data:"), viewport={"width": 1280, "height": 800})
    yield g.page()
    g.close()


@pytestmark_browser
def test_the_pages_script_draws_what_the_server_and_terminal_say(
    page: Any, game: dict[str, Any]
) -> None:
    page.goto(game["html"].as_uri())
    page.wait_for_selector("body.ready")
    for proof in game["proofs"].values():
        data = proof_json(proof, game["names"])
        drawn = page.evaluate("(p) => GostopProof.html(p)", data)
        assert drawn == proof_html(proof, game["names"])
        assert _items(drawn) == _said(proof, game["names"])
        summary = page.evaluate("(p) => GostopProof.summary(p)", data)
        assert summary == stop_summary(proof, game["names"])


@pytestmark_browser
def test_the_replayer_shows_the_lines_the_terminal_prints(page: Any, game: dict[str, Any]) -> None:
    data = R.build(game["envs"][0].game_id, game["envs"])
    hand = next(h for h in data["hands"] if h["hand"] in game["proofs"])
    end = game["envs"][hand["end"]].seq
    page.goto(game["html"].as_uri() + f"#seq={end}")
    page.wait_for_selector("body.ready")
    shown = page.eval_on_selector_all(
        "#proof [data-kind]",
        """els => els.map((e) => [e.dataset.kind, e.firstChild.textContent,
                               e.dataset.amount === undefined ? null : +e.dataset.amount])""",
    )
    done = CliRunner().invoke(app, ["replay", str(game["log"]), "--at", str(end)])
    printed = [line.strip() for line in done.output.splitlines()]
    proof = game["proofs"][hand["hand"]]
    assert [tuple(x) for x in shown] == _said(proof, game["names"])
    assert all(text in printed for _, text, _ in shown)


def test_a_page_is_given_the_proof_by_one_function(game: dict[str, Any]) -> None:
    from gostop_records.views import proof_dict

    proof = next(iter(game["proofs"].values()))
    assert proof_dict(proof, game["names"]) == proof_json(proof, game["names"])
