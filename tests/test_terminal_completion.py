"""Tab at the prompts of ``gostop record`` and ``gostop play`` completes the commands and the
cards that can be played now (readline, fed by the rules' legal entries)."""

from __future__ import annotations

from pathlib import Path

from pty_support import Terminal

from gostop_records import notation

DEAL = (
    "deal layout 01G 01R 02A 02R 03G 03R 04A 04R hand 0 05A 05R 05J1 06A 06R 06J1 07A 07R "
    "07J1 08G hand 1 09A 09R 09J1 10A 10R 10J1 11G 11D 11J1 12G"
)


def test_complete_picks_the_next_word_of_the_lines_now() -> None:
    lines = ["play 05A", "play 06J1", "05A", "go", "note", "show"]
    assert notation.complete(lines, "", "") == ["05A", "go", "note", "play", "show"]
    assert notation.complete(lines, "", "p") == ["play"]
    assert notation.complete(lines, "PLAY ", "0") == ["05A", "06J1"]
    assert notation.complete(lines, "play ", "06") == ["06J1"]
    assert notation.complete(lines, "play 05A ", "") == []


def test_tab_in_record_completes_commands_and_the_playable_cards(tmp_path: Path) -> None:
    term = Terminal(
        "record", "--players", "Ann,Ben", "--log", str(tmp_path / "g.jsonl"), "--no-sign"
    )
    term.expect(r"deal> $")
    term.send("de\t")  # the only command starting so: completed, with a space
    term.expect(r"deal $")
    term.send(DEAL[5:] + "\r")
    term.expect(r"Ann to play> $")
    term.send("play 0\t\t")  # two tabs list what can be played now
    shown = term.expect(r"((?:\d\d\w+\s+)+)\n\[hand 1\] Ann to play> play 0$").group(1)
    assert shown.split() == sorted(
        ["05A", "05R", "05J1", "06A", "06R", "06J1", "07A", "07R", "07J1", "08G"]
    )
    term.send("8\t")  # 08G is the only card of month 08 in the hand
    term.expect(r"8G $")  # readline adds the rest of the code and a space
    term.send("\r")
    term.expect(r"Ann plays 08G")
    term.expect(r"Ann to flip> $")
    term.send("sh\t")
    term.expect(r"show $")
    term.send("\x15quit\r")  # Ctrl-U clears the line
    assert term.wait() == 0


def test_tab_in_play_completes_the_cards_of_the_hand(tmp_path: Path) -> None:
    term = Terminal("play", "--seed", "5", "--log", str(tmp_path / "p.jsonl"), cols=120)
    term.expect(r"your card> $")
    term.send("\t\t")
    listed = term.expect(r"((?:[\w-]+(?: \d\d)?\s+)+)\nyour card> $").group(1)
    assert {"01J2", "03J1", "12D", "help", "quit"} <= set(listed.split())
    term.send("12\t")
    term.expect(r"12D $")
    term.send("\r")
    term.expect(r"You play 12D")
    term.expect(r"your card> $")
    term.send("quit\r")
    term.wait()
