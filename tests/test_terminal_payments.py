"""A payment that differs from what is due: the recorder says how, and asks (at the prompt)
or reports it on stderr (in a script)."""

from __future__ import annotations

from pathlib import Path

from gostop_cli.app import app
from pty_support import Terminal
from record_helpers import script_for, sim_payloads
from typer.testing import CliRunner

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import words

runner = CliRunner()
START = ["record", "--players", "Ann,Ben", "--ruleset", "matgo", "--game-id", "g1", "--no-sign"]


def _lines() -> tuple[list[str], str]:
    lines = script_for(sim_payloads("matgo", 2, 3))
    assert lines[-1].startswith("pay 1->0 ")
    return lines[:-1], lines[-1]


def _payments(log: Path) -> list[tuple[int, int, int, str | None]]:
    out = []
    for env in L.read_log(log):
        ev = env.event
        if isinstance(ev, E.PaymentRecorded):
            out.append((ev.payer, ev.payee, ev.chips, ev.note))
    return out


def test_a_differing_payment_is_told_and_confirmed_at_the_prompt(tmp_path: Path) -> None:
    lines, pay = _lines()
    due = int(pay.split()[-1])
    log = tmp_path / "g.jsonl"
    head = tmp_path / "head.txt"
    head.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert runner.invoke(app, [*START, "--log", str(log), "--script", str(head)]).exit_code == 0
    term = Terminal("record", "--log", str(log), "--resume", "g1", "--no-sign")
    term.expect(r"pay \(enter `pay` for the amounts due\)> $")
    term.send(f"pay Ben->Ann {due - 6} we play no pi-bak\r")
    term.expect(
        rf"Ben->Ann {due - 6} differs from the {due} due \(\d+ points?, stop\): 6 chips less"
    )
    term.expect(r"record it as paid all the same\? \[y/N\] $")
    term.send("n\r")
    term.expect("not recorded")
    assert _payments(log) == []
    term.send(f"pay Ben->Ann {due - 6} we play no pi-bak\r")
    term.expect(r"\[y/N\] $")
    term.send("y\r")
    term.expect(rf"paid: Ben -> Ann {due - 6} chips \(we play no pi-bak\)")
    term.send("quit\r")
    assert term.wait() == 0
    assert _payments(log) == [(1, 0, due - 6, "we play no pi-bak")]


def test_a_differing_payment_in_a_script_is_reported_on_stderr(tmp_path: Path) -> None:
    lines, pay = _lines()
    due = int(pay.split()[-1])
    script = tmp_path / "s.txt"
    script.write_text("\n".join([*lines, f"pay 1->0 {due + 2}"]) + "\n", encoding="utf-8")
    log = tmp_path / "g.jsonl"
    res = runner.invoke(app, [*START, "--log", str(log), "--script", str(script)])
    assert res.exit_code == 0, res.stderr
    assert f"line {len(lines) + 1}: Ben->Ann {due + 2} differs from the {due} due" in res.stderr
    assert "2 chips more" in res.stderr
    assert _payments(log) == [(1, 0, due + 2, None)]
    # the amount due draws no word
    script.write_text("\n".join([*lines, pay]) + "\n", encoding="utf-8")
    log2 = tmp_path / "g2.jsonl"
    res = runner.invoke(app, [*START, "--log", str(log2), "--script", str(script)])
    assert res.exit_code == 0 and "differs" not in res.stderr


def test_payment_difference_words() -> None:
    players = [E.Player("a", "Ann"), E.Player("b", "Ben"), E.Player("c", "Cho")]
    due = [(1, 0, 12, 24, "stop"), (2, 0, 6, 12, "stop")]
    assert words.payment_difference(players, 1, 0, 24, due) is None
    assert words.payment_difference(players, 1, 0, 25, due) == (
        "Ben->Ann 25 differs from the 24 due (12 points, stop): 1 chip more"
    )
    told = words.payment_difference(players, 0, 1, 5, due)
    assert told == "Ann->Ben 5: no payment from Ann to Ben is due (due: Ben->Ann 24; Cho->Ann 12)"
