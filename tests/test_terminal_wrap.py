"""Pile lines of ``gostop play`` wrap between cards at the terminal's width, never inside a
card code."""

from __future__ import annotations

import re
from pathlib import Path

from gostop_cli.render import wrap_words
from hypothesis import given
from hypothesis import strategies as st
from pty_support import Terminal

from gostop_records import cards as C

CARD = re.compile(r"^\d\d(G|A|R|J1|J2|D)$|^B\d[BC]?$")


@given(
    st.lists(st.sampled_from(C.CODES), min_size=1, max_size=30),
    st.integers(min_value=20, max_value=160),
    st.integers(min_value=0, max_value=10),
)
def test_wrap_breaks_only_between_words(codes: list[str], width: int, indent: int) -> None:
    text = "pile   junk " + " ".join(codes)
    lines = wrap_words(text, width, indent)
    assert [w for ln in lines for w in ln.split()] == text.split()
    for k, ln in enumerate(lines):
        assert len(ln) <= width
        if k:
            assert ln.startswith(" " * indent) and not ln[indent:].startswith(" ")
    # colour codes take no room
    coloured = wrap_words(text.replace("junk", "\x1b[1mjunk\x1b[0m"), width, indent)
    assert len(coloured) == len(lines)


def _pile_blocks(screen: str) -> list[list[str]]:
    """Each pile line with its continuation lines (indented deeper than ``pile``)."""
    blocks: list[list[str]] = []
    lines = screen.split("\n")
    for k, ln in enumerate(lines):
        at = ln.find("pile   ")
        if at < 0 or ln[:at].strip() not in ("", "you", "Computer"):
            continue
        block = [ln]
        for more in lines[k + 1 :]:
            if more.startswith(" " * (at + 7)) and more.strip():
                block.append(more)
            else:
                break
        blocks.append(block)
    return blocks


def test_play_wraps_piles_between_cards_at_the_terminal_width(tmp_path: Path) -> None:
    for cols in (48, 120):
        log = tmp_path / f"play{cols}.jsonl"
        term = Terminal("play", "--seed", "5", "--log", str(log), cols=cols)
        for _ in range(8):
            term.expect(r"(your card|takes which)> $", timeout=30)
            term.send("1\r")
        term.expect(r"your card> $", timeout=30)
        screen = term.shown
        term.send("quit\r")
        term.wait()
        blocks = _pile_blocks(screen)
        assert blocks and (cols > 48 or any(len(b) > 1 for b in blocks))
        for block in blocks:
            assert all(len(ln) <= cols for ln in block), block
            words = " ".join(ln.strip() for ln in block).split()
            for w in words:
                code = w.rstrip(";")
                if code[:1].isdigit() and code[:2].isdigit() and len(code) > 1:
                    assert CARD.match(code), (code, block)
