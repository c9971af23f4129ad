"""Fours of a month at the deal, typed at the prompt: found in the hands typed with `deal`,
told with the entry that records them, and refusals that show that entry."""

from __future__ import annotations

from pathlib import Path

from pty_support import Terminal

from gostop_records import events as E
from gostop_records import log as L

HANDS = {
    0: "07A 07R 07J1 07J2 05A 05R 05J1 05J2 06A 06R",
    1: "09A 09R 09J1 09J2 10A 10R 10J1 10J2 11G 11D",
}
LAYOUT = "01G 01R 02A 02R 03G 03R 04A 04R"
FORM = "four 0 05 0 07 1 09 1 10"


def _start(log: Path) -> Terminal:
    return Terminal(
        "record",
        "--players",
        "Ann,Ben",
        "--log",
        str(log),
        "--game-id",
        "g1",
        "--no-sign",
        cols=200,
    )


def test_fours_in_a_typed_deal_are_found_and_the_refusals_show_the_form(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    term = _start(log)
    term.expect(r"deal> $")
    term.send(f"deal layout {LAYOUT} hand 0 {HANDS[0]} hand 1 {HANDS[1]}\r")
    term.expect(
        r"fours at the deal: Ann holds four of months 05 and 07; Ben holds four of months "
        rf"09 and 10: they are shown before any play: `{FORM}`"
    )
    term.send("play 05A\r")
    term.expect(rf"refused: .*enter `{FORM}` \(or `four` alone\)")
    term.send("four 0 07\r")
    term.expect(rf"refused: Ann also holds four of month 05.*enter `{FORM}`")
    term.send("four 0 07 1\r")
    term.expect(rf"refused: four takes a seat and a month for each four: {FORM}")
    term.send(FORM + "\r")
    term.expect(r"four of a month: Ann shows month 05; Ann shows month 07; Ben shows month 09")
    term.expect(r"hand over: nagari")
    term.send("quit\r")
    assert term.wait() == 0
    shown = [e.event for e in L.read_log(log) if isinstance(e.event, E.FourOfAMonthShown)]
    assert [(f.seat, f.month) for f in shown[0].shown] == [(0, 5), (0, 7), (1, 9), (1, 10)]


def test_fours_in_a_guided_deal_are_found(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    term = _start(log)
    term.expect(r"deal> $")
    term.send("deal\r")
    term.expect(r"dealer .*: $")
    term.send("\r")
    term.expect(r"layout, the face-up cards: $")
    term.send(LAYOUT + "\r")
    for seat in (0, 1):
        term.expect(rf"hand \(seat {seat}; enter = unknown\): $")
        term.send(HANDS[seat] + "\r")
    term.expect(r"stock, top card first \(enter = unknown\): $")
    term.send("\r")
    term.expect(r"bonus cards dealt face up, now in the dealer's pile \(enter = none\): $")
    term.send("\r")
    term.expect(rf"fours at the deal: .*`{FORM}`")
    term.send("four\r")
    term.expect(r"hand over: nagari")
    term.send("quit\r")
    assert term.wait() == 0
