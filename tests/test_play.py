"""``gostop play``: games against the computer from scripted answers, valid logs, audits that
agree, refused answers, determinism and plain output."""

from __future__ import annotations

import os
import pty
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gostop_cli.app import app
from gostop_cli.play_cmd import PlayLoop
from gostop_cli.render import Painter, render_seat_view
from typer.testing import CliRunner

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import log as L
from gostop_records.audit import AGREED, audit_game
from gostop_records.play import HUMAN, PlayInputError, PlaySession
from gostop_records.projector import project
from gostop_records.recorder import JsonlSink
from gostop_records.rules import PRESETS

runner = CliRunner()
ANSI = re.compile(r"\x1b\[")
REPO = Path(__file__).resolve().parent.parent


# --- answering by reading the prompts ---------------------------------------------------------


class Scripted:
    """Answers each prompt by reading it: the first listed card, the first layout card, Stop,
    the cup as an animal, and ``more_hands`` more hands. Every prompt and answer is kept, so
    the same answers can be piped to the command."""

    def __init__(self, more_hands: int = 0) -> None:
        self.more_hands = more_hands
        self.prompts: list[str] = []
        self.answers: list[str] = []

    def answer(self, prompt: str) -> str:
        if prompt.endswith("your card> ") or prompt.endswith("takes which> "):
            return "1"
        if prompt == "go or stop> ":
            return "stop"
        if prompt.startswith("cup"):
            return "animal"
        if prompt.startswith("another hand"):
            self.more_hands -= 1
            return "y" if self.more_hands >= 0 else "n"
        raise AssertionError(f"unexpected prompt {prompt!r}")

    def read(self, prompt: str) -> str | None:
        a = self.answer(prompt)
        self.prompts.append(prompt)
        self.answers.append(a)
        return a

    def stdin(self) -> str:
        return "".join(a + "\n" for a in self.answers)


class RandomAnswers:
    """Any listed option, either layout card, Go or Stop, either cup role, sometimes an answer
    to refuse, and two more hands."""

    def __init__(self, ps: PlaySession, seed: int) -> None:
        self.ps = ps
        self.rng = random.Random(seed)
        self.hands = 2

    def read(self, prompt: str) -> str | None:
        rng = self.rng
        if prompt.endswith("your card> "):
            if rng.random() < 0.1:
                return rng.choice(["zz", "99", "bomb 5", "shake 3", "fo", "show"])
            return str(rng.randint(1, len(self.ps.options())))
        if prompt.endswith("takes which> "):
            return rng.choice(["1", "2"])
        if prompt == "go or stop> ":
            return rng.choice(["go", "stop"])
        if prompt.startswith("cup"):
            return rng.choice(["animal", "junk"])
        self.hands -= 1
        return "y" if self.hands > 0 else "n"


def play_in_process(
    path: Path,
    ruleset: str,
    seed: int,
    reader: Any,
    *,
    players: int | None = None,
    bot: str = "greedy",
) -> tuple[PlaySession, str, list[str], list[str]]:
    """A whole game through the loop of ``gostop play``, answers from ``reader``."""
    sink = JsonlSink(path, fsync=False)
    ps = PlaySession.start(sink, ruleset, players=players, seed=seed, bot=bot)
    out: list[str] = []
    err: list[str] = []
    how = PlayLoop(ps, reader, out=out.append, err=err.append, paint=Painter()).run()
    ps.close()
    return ps, how, out, err


def payloads(envs: list[E.Envelope]) -> list[dict[str, Any]]:
    return [E.payload_to_dict(e.event) for e in envs]


def check_log(envs: list[E.Envelope]) -> None:
    """Strictly valid, chained, and every recorded payment is what the audit computes."""
    assert L.verify(envs).ok
    proj = project(envs, strict=True)
    assert proj.ok and proj.game is not None
    audit = audit_game(envs)
    assert audit.ok, audit.to_dict()
    game = proj.game
    for result in game.results:
        hand = next(h for h in audit.hands if h.hand == result.hand)
        paid = [(a, b, c) for n, a, b, c in game.payments if n == result.hand]
        due = [(a, b, c) for a, b, _pts, c, _why in result.dues if c > 0]
        assert sorted(paid) == sorted(due)
        assert all(p.status == AGREED for p in hand.payments)
        assert sorted((p.payer, p.payee, p.chips) for p in hand.payments) == sorted(paid)
        proof = result.proof()
        if proof is not None:
            for a, b, c in paid:
                if b == proof.winner:
                    assert proof.chips_from(a) == c == hand.proof.chips_from(a)


def invoke_play(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, ["play", *args], input=stdin, env=env)


# --- whole games ------------------------------------------------------------------------------


def test_cardavia_hands_driven_through_the_library(tmp_path: Path) -> None:
    """The session alone: first card, first layout card, Stop; the deal fully recorded."""
    stopped = 0
    for seed in range(6):
        sink = JsonlSink(tmp_path / f"g{seed}.jsonl", fsync=False)
        ps = PlaySession.start(sink, "cardavia", seed=seed)
        stop_chips: dict[int, int] | None = None
        while True:
            step = ps.next_step()
            if step.kind == "over":
                break
            if step.kind == "deal":
                ps.deal()
            elif step.kind == "fours":
                ps.show_fours()
            elif step.kind == "pay":
                ps.pay()
            elif not step.human:
                entry = ps.bot_step()
                assert entry.input.event.seat == step.seat != HUMAN
            elif step.kind == "play":
                opt = ps.options()[0]
                ps.play(opt, opt.takes[0] if opt.choose else None)
            elif step.kind == "flip":
                _card, choices = ps.flip_pending()
                ps.flip(choices[0] if choices else None)
            else:
                assert step.kind == "decide"
                proof = ps.stop_value()
                stop_chips = {lp.loser: lp.pays_chips for lp in proof.losers}
                ps.stop()
        envs = list(L.read_log(tmp_path / f"g{seed}.jsonl"))
        check_log(envs)
        started = next(e.event for e in envs if e.type == "hand_started")
        dealt = next(e.event for e in envs if e.type == "cards_dealt")
        assert len(started.deck) == 48 and sorted(started.deck) == sorted(C.codes(C.STANDARD_DECK))
        assert [len(h) for h in dealt.hands] == [10, 10] and len(dealt.layout) == 8
        assert len(dealt.stock) == 20
        r = ps.result()
        assert r is not None and ps.game.finished
        if stop_chips is not None and r.winner == HUMAN:
            stopped += 1
            paid = {e.event.payer: e.event.chips for e in envs if e.type == "payment_recorded"}
            assert paid == {k: v for k, v in stop_chips.items() if v}
        ps.close()
    assert stopped, "no seed had the human stop: the stop-value check never ran"


def test_cardavia_game_piped_to_the_command(tmp_path: Path) -> None:
    reader = Scripted()
    ps, how, _, _ = play_in_process(tmp_path / "lib.jsonl", "cardavia", 11, reader)
    assert how == "over"
    log = tmp_path / "cli.jsonl"
    res = invoke_play("--seed", "11", "--log", str(log), stdin=reader.stdin())
    assert res.exit_code == 0, res.output
    envs = list(L.read_log(log))
    check_log(envs)
    # the command and the library meet the same deal and the same computer
    assert payloads(envs) == payloads(ps.envelopes)
    text = res.stdout
    assert "seed 11" in text and str(log) in text and envs[0].game_id in text
    assert "your card> 1" in text  # a piped answer is echoed after its prompt
    r = ps.result()
    assert r is not None
    if r.outcome == "stop":
        assert "payout proof" in text
    for cmd in (["replay", str(log)], ["audit", str(log)], ["validate", str(log)]):
        assert runner.invoke(app, cmd).exit_code == 0, cmd


def test_matgo_two_hands_piped_with_dealer_rotation(tmp_path: Path) -> None:
    reader = Scripted(more_hands=1)
    ps, how, _, _ = play_in_process(tmp_path / "lib.jsonl", "matgo", 5, reader)
    assert how == "done"
    log = tmp_path / "cli.jsonl"
    res = invoke_play("-r", "matgo", "--seed", "5", "--log", str(log), stdin=reader.stdin())
    assert res.exit_code == 0, res.output
    envs = list(L.read_log(log))
    check_log(envs)
    assert payloads(envs) == payloads(ps.envelopes)
    starts = [e.event for e in envs if e.type == "hand_started"]
    results = ps.game.results
    assert len(results) >= 2 and len(starts) == len(results)
    for before, nxt in zip(results, starts[1:], strict=False):
        want = before.winner if before.winner is not None else before.dealer
        assert nxt.dealer == want
        assert nxt.deck is not None and len(nxt.deck) == 50
    assert "another hand? [y/N]> y" in res.stdout
    assert "another hand? [y/N]> n" in res.stdout


def test_gostop3_against_two_computers(tmp_path: Path) -> None:
    reader = Scripted(more_hands=1)
    ps, how, _, _ = play_in_process(tmp_path / "lib.jsonl", "gostop3", 2, reader, players=3)
    assert how == "done"
    assert [p.name for p in ps.players] == ["You", "Computer 1", "Computer 2"]
    log = tmp_path / "cli.jsonl"
    res = invoke_play("--players", "3", "--seed", "2", "--log", str(log), stdin=reader.stdin())
    assert res.exit_code == 0, res.output
    envs = list(L.read_log(log))
    check_log(envs)
    assert payloads(envs) == payloads(ps.envelopes)
    seats = {e.event.seat for e in envs if e.type == "card_played"}
    assert seats == {0, 1, 2}


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [("cardavia", 2), ("matgo", 2), ("gamerules", 2), ("gamerules", 3), ("gostop3", 3)],
)
def test_random_answers_always_leave_a_valid_log(
    tmp_path: Path, ruleset: str, players: int
) -> None:
    """Any card, either layout card, Go or Stop, either cup role, refused junk in between:
    every game's log is strictly valid and its payments agree with the audit."""
    for seed in range(4):
        sink = JsonlSink(tmp_path / f"{ruleset}{players}-{seed}.jsonl", fsync=False)
        ps = PlaySession.start(sink, ruleset, players=players, seed=seed, bot="random")
        out: list[str] = []
        answers = RandomAnswers(ps, seed)
        how = PlayLoop(ps, answers, out=out.append, err=out.append, paint=Painter()).run()
        assert how in ("over", "done")
        check_log(list(ps.envelopes))
        ps.close()


# --- refused answers --------------------------------------------------------------------------


def _seed_with_a_card_prompt(tmp_path: Path) -> tuple[int, Scripted, PlaySession]:
    for seed in range(20):
        reader = Scripted()
        ps, _, _, _ = play_in_process(tmp_path / f"probe{seed}.jsonl", "cardavia", seed, reader)
        if reader.prompts and reader.prompts[0] == "your card> ":
            return seed, reader, ps
    raise AssertionError("no seed starts with a card prompt")


def test_refused_answers_are_asked_again_and_write_nothing(tmp_path: Path) -> None:
    seed, reader, ps = _seed_with_a_card_prompt(tmp_path)
    dealt = next(e.event for e in ps.envelopes if e.type == "cards_dealt")
    hidden = dealt.stock[-1]  # deep in the stock: never flipped before the first prompt
    bad = ["zz", "99", hidden.lower(), "bomb 05", "flip-only", "3r 01g 02g"]
    log = tmp_path / "cli.jsonl"
    res = invoke_play(
        "--seed",
        str(seed),
        "--log",
        str(log),
        stdin="".join(b + "\n" for b in bad) + reader.stdin(),
    )
    assert res.exit_code == 0, res.output
    # nothing was written for the refused answers: the log is the clean game's
    assert payloads(list(L.read_log(log))) == payloads(ps.envelopes)
    refusals = [ln for ln in res.stderr.splitlines() if ln.startswith("refused: ")]
    assert len(refusals) == len(bad)
    assert "'zz' is not a card code" in refusals[0]
    assert "no number 99 in the list" in refusals[1]
    assert f"{hidden} is not in your hand" in refusals[2]
    assert "stock" not in refusals[2] and "Computer" not in refusals[2]  # hidden places
    assert "no bombs" in refusals[3]
    assert "no flip-only turn" in refusals[4]
    # each refusal is followed by the same question again
    assert res.stdout.count("your card> ") == reader.prompts.count("your card> ") + len(bad)


def test_an_impossible_choice_is_refused_at_each_prompt(tmp_path: Path) -> None:
    """At the layout-card choice and at Go or Stop, a wrong answer is refused, asked again,
    and writes no event."""

    class Stubborn(Scripted):
        def __init__(self) -> None:
            super().__init__()
            self.ps: PlaySession | None = None
            self.pending: dict[str, list[str]] = {}
            self.checked: set[str] = set()
            self.count = 0

        def read(self, prompt: str) -> str | None:
            assert self.ps is not None
            kind = "choice" if prompt.endswith("takes which> ") else prompt
            if kind in self.pending:
                if self.pending[kind]:
                    # asked again: nothing was written since the wrong answer
                    assert len(self.ps.envelopes) == self.count
                    return self.pending[kind].pop()
                self.checked.add(kind)
                del self.pending[kind]
            elif kind == "choice" and "choice" not in self.checked:
                self.pending[kind] = ["3", "12D" if "12D" not in prompt else "01G"]
            elif kind == "go or stop> " and kind not in self.checked:
                self.pending[kind] = ["maybe"]
            if self.pending.get(kind):
                self.count = len(self.ps.envelopes)
                return self.pending[kind].pop()
            return super().read(prompt)

    found: set[str] = set()
    for seed in range(30):
        reader = Stubborn()
        sink = JsonlSink(tmp_path / f"s{seed}.jsonl", fsync=False)
        ps = PlaySession.start(sink, "cardavia", seed=seed)
        reader.ps = ps
        err: list[str] = []
        PlayLoop(ps, reader, out=lambda _s: None, err=err.append, paint=Painter()).run()
        check_log(list(ps.envelopes))
        if "choice" in reader.checked:
            assert any("is not one of them" in e for e in err)
        if "go or stop> " in reader.checked:
            assert any("answer go or stop" in e for e in err)
        found |= reader.checked
        ps.close()
        if found >= {"choice", "go or stop> "}:
            break
    assert found >= {"choice", "go or stop> "}


def _crafted(tmp_path: Path) -> PlaySession:
    """A CARDAVIA hand dealt by hand: the human plays first and holds a card for each case."""
    ps = PlaySession.start(JsonlSink(tmp_path / "crafted.jsonl", fsync=False), "cardavia", seed=1)
    layout = ["05A", "05R", "05J1", "08G", "08A", "03G", "01G", "02J1"]
    mine = ["05J2", "08J1", "03R", "12A", "04A", "06A", "07A", "09A", "10A", "11G"]
    used = set(layout) | set(mine)
    rest = [c for c in C.codes(C.STANDARD_DECK) if c not in used]
    theirs, stock = rest[:10], rest[10:]
    ps.rec.deal(layout, [mine, theirs], stock, dealer=HUMAN)
    return ps


def test_what_each_hand_card_would_take(tmp_path: Path) -> None:
    ps = _crafted(tmp_path)
    opts = {o.label: o for o in ps.options()}
    assert opts["03R"].text == "takes 03G"
    assert opts["08J1"].text == "takes 08G or 08A (you choose)" and opts["08J1"].choose
    assert opts["05J2"].text == "takes the stack of 05: +1 junk from Computer"
    assert opts["12A"].text == "stays"
    assert [o.number for o in ps.options()] == list(range(1, 11))
    assert all(o.kind == "card" for o in opts.values())  # CARDAVIA: no bombs, no shaking


def test_answers_at_the_play_prompt(tmp_path: Path) -> None:
    ps = _crafted(tmp_path)
    theirs = next(e.event for e in ps.envelopes if e.type == "cards_dealt").hands[1]
    before = len(ps.envelopes)
    opt, chosen = ps.parse_play("3r")
    assert opt.card == "03R" and chosen is None
    opt, chosen = ps.parse_play("08j1 08a")
    assert (opt.card, chosen) == ("08J1", "08A")
    assert ps.parse_play(str(opt.number))[0] == opt
    cases = {
        "08j1 03g": "can take 08G or 08A, not 03G",
        "01g": "01G is not in your hand: it is face up on the layout",
        theirs[0]: f"{theirs[0]} is not in your hand: your hand is 03R",
        "bomb 5": "no bombs",
        "0": "no number 0 in the list",
        "": "type a card code",
    }
    for answer, reason in cases.items():
        with pytest.raises(PlayInputError, match=re.escape(reason)):
            ps.parse_play(answer)
    with pytest.raises(PlayInputError, match="say which it takes"):
        ps.play(ps.parse_play("08j1")[0])
    assert len(ps.envelopes) == before  # nothing written for any of them
    entry = ps.play_answer("08J1 08A")
    assert entry.input.event == E.CardPlayed(seat=HUMAN, card="08J1", chosen="08A")


def test_the_table_hides_the_other_hands_and_the_stock(tmp_path: Path) -> None:
    ps = _crafted(tmp_path)
    dealt = next(e.event for e in ps.envelopes if e.type == "cards_dealt")
    view = render_seat_view(ps.game, HUMAN)
    for code in [*dealt.hands[1], *dealt.stock]:
        assert code not in view
    for code in dealt.hands[0]:
        assert code in view
    assert "10 cards, hidden" in view and "20 cards, face down" in view
    assert "[05A 05R 05J1] stack" in view


# --- determinism, output, the command's edges ------------------------------------------------


def test_same_seed_and_answers_give_the_same_payloads(tmp_path: Path) -> None:
    a = Scripted(more_hands=1)
    ps1, _, out1, _ = play_in_process(tmp_path / "a.jsonl", "matgo", 9, a)
    b = Scripted(more_hands=1)
    ps2, _, out2, _ = play_in_process(tmp_path / "b.jsonl", "matgo", 9, b)
    assert payloads(ps1.envelopes) == payloads(ps2.envelopes)
    assert out1 == out2 and a.answers == b.answers
    c = Scripted(more_hands=1)
    ps3, _, _, _ = play_in_process(tmp_path / "c.jsonl", "matgo", 10, c)
    deck = [e.event.deck for e in ps3.envelopes if e.type == "hand_started"]
    assert deck[0] != next(e.event.deck for e in ps1.envelopes if e.type == "hand_started")


def test_piped_output_has_no_colour(tmp_path: Path) -> None:
    reader = Scripted()
    play_in_process(tmp_path / "lib.jsonl", "cardavia", 4, reader)
    stdin = "show\nhelp\n" + reader.stdin()
    res = invoke_play("--seed", "4", "--log", str(tmp_path / "g.jsonl"), stdin=stdin)
    assert res.exit_code == 0
    assert "layout" in res.stdout and "quit" in res.stdout
    assert not ANSI.search(res.stdout) and not ANSI.search(res.stderr)


def _on_a_terminal(tmp_path: Path, env: dict[str, str]) -> str:
    """``gostop play`` with stdout on a pseudo-terminal; answers piped on stdin."""
    master, slave = pty.openpty()
    cmd = [
        sys.executable,
        "-m",
        "gostop_cli.app",
        "play",
        "--seed",
        "4",
        "--log",
        str(tmp_path / "tty.jsonl"),
    ]
    proc = subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    os.close(slave)
    assert proc.stdin is not None
    proc.stdin.write(b"show\nquit\n")
    proc.stdin.close()
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def test_colour_only_on_a_terminal_and_never_with_no_color(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(REPO)
    coloured = _on_a_terminal(tmp_path, env)
    assert "layout" in coloured and ANSI.search(coloured)
    plain = _on_a_terminal(tmp_path, {**env, "NO_COLOR": "1"})
    assert "layout" in plain and not ANSI.search(plain)


def test_quit_keeps_a_valid_log_and_says_where(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke_play(stdin="quit\n")
    assert res.exit_code == 0, res.output
    seed = re.search(r"seed (\d+)", res.stdout)
    assert seed is not None  # a random seed, shown so the game can be played again
    logs = list(tmp_path.glob("play-*.jsonl"))
    assert len(logs) == 1 and f"written to {logs[0].name}" in res.stdout
    envs = list(L.read_log(logs[0]))
    assert envs[0].game_id == logs[0].stem
    assert f"seed {seed.group(1)}" in envs[0].event.notes
    project(envs, strict=True)


def test_answers_that_run_out_exit_1(tmp_path: Path) -> None:
    reader = Scripted()
    play_in_process(tmp_path / "lib.jsonl", "cardavia", 11, reader)
    res = invoke_play(
        "--seed",
        "11",
        "--log",
        str(tmp_path / "g.jsonl"),
        stdin=reader.stdin().split("\n", 1)[0] + "\n",
    )
    if len(reader.answers) > 1:
        assert res.exit_code == 1
        assert "answers ran out" in res.stderr
    project(list(L.read_log(tmp_path / "g.jsonl")), strict=True)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--bot", "smart"], 2, "bots are"),
        (["--players", "4"], 2, "2 or 3 players"),
        (["--ruleset", "cardavia", "--players", "3"], 1, "played by 2 players, not 3"),
        (["--ruleset", "nosuch"], 1, "unknown ruleset"),
        (["--log", "a.jsonl", "--db", "b.duckdb"], 2, "not both"),
        (["--name", "computer"], 1, "'computer' is the computer's name"),
        (["--name", "Computer 2"], 1, "'Computer 2' is the computer's name"),  # at any size
    ],
)
def test_bad_options(
    tmp_path: Path, monkeypatch: Any, args: list[str], code: int, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke_play(*args)
    assert res.exit_code == code
    assert message in res.output
    assert not list(tmp_path.iterdir())  # no log started for a game that cannot be played


def test_a_game_into_the_store(tmp_path: Path) -> None:
    reader = Scripted()
    ps, _, _, _ = play_in_process(tmp_path / "lib.jsonl", "cardavia", 11, reader)
    db = tmp_path / "games.duckdb"
    res = invoke_play("--seed", "11", "--db", str(db), stdin=reader.stdin())
    assert res.exit_code == 0, res.output
    from gostop_records.store import Store

    with Store(db) as store:
        games = store.game_ids()
        assert len(games) == 1
        envs = store.events(games[0])
    check_log(envs)
    assert payloads(envs) == payloads(ps.envelopes)
    assert f"--db {db} --game {games[0]}" in res.stdout


def test_a_played_log_imports_into_the_store(tmp_path: Path) -> None:
    reader = Scripted()
    play_in_process(tmp_path / "lib.jsonl", "cardavia", 11, reader)
    log = tmp_path / "g.jsonl"
    assert invoke_play("--seed", "11", "--log", str(log), stdin=reader.stdin()).exit_code == 0
    res = runner.invoke(app, ["db", "import", str(log), "--db", str(tmp_path / "x.duckdb")])
    assert res.exit_code == 0, res.output


def test_a_bomb_option_says_the_steal_the_engine_takes(tmp_path: Path) -> None:
    """A two-card bomb steals what the ruleset sets for it (``two_card_bomb_steal``), and its
    option says so: the engine's decision, not one of the prompt's own."""
    rules = PRESETS["matgo"].model_copy(
        update={"two_card_bomb": True, "two_card_bomb_steal": 2, "bomb_steal": 1}
    )
    sink = JsonlSink(tmp_path / "bomb.jsonl", fsync=False)
    ps = PlaySession.start(sink, rules, seed=1)
    layout = ["05A", "05R", "08G", "08A", "03G", "01G", "02J1", "04J1"]
    mine = ["05J1", "05J2", "03R", "12A", "04A", "06A", "07A", "09A", "10A", "11G"]
    used = set(layout) | set(mine)
    rest = [c for c in C.codes(ps.game.table.deck) if c not in used]
    ps.rec.deal(layout, [mine, rest[:10]], rest[10:], dealer=HUMAN)
    bomb = next(o for o in ps.options() if o.kind == "bomb")
    assert bomb.label == "bomb 05"
    assert re.search(r", \+2 junk (cards|units) from Computer,", bomb.text), bomb.text
