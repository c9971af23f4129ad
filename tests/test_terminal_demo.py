"""``gostop demo`` at a terminal: the replayed hand's ledger is accounted for below it (the
Stop's proof and the instant payments), and its SQL answers are tables."""

from __future__ import annotations

import re
from pathlib import Path

from pty_support import Terminal


def test_the_demo_replay_accounts_for_its_ledger(tmp_path: Path) -> None:
    term = Terminal("demo", "--dir", str(tmp_path / "demo"), cols=160)
    term.expect(r"== 2\. replay: the end of hand 1 of", timeout=120)
    ledger = term.expect(r"ledger  (.+)\n").group(1)
    due = dict(re.findall(r"(Player \d) ([+-]\d+) due", ledger))
    proof = term.expect(
        r"(?s)payout proof: (Player \d) wins.*?= (\d+) chips\n(.*?)\n== 3", timeout=60
    )
    tail = proof.group(3)
    winner, chips = proof.group(1), int(proof.group(2))
    if "instant payments of the hand:" in tail:
        net = dict(re.findall(r"(Player \d) ([+-]\d+)", tail.split("due in all:")[1]))
        assert net == due  # every chip of the ledger is in a line above
    else:
        assert int(due[winner]) == chips
    term.expect(r"== 4\. questions", timeout=60)
    assert term.wait(timeout=60) == 0
