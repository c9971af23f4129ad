"""Generate the sample logs of this folder, their index and README, from scripts.

Each sample is a real game with a fixed deck order: a script (the deal and the inputs, in the
text form of ``gostop_records.script``) from which the rules engine derives every
consequence. The outcome each sample is meant to show is written here by hand (who wins, the
score, every payment due and recorded, the special events it contains) and checked against
the generated log before anything is written, so a sample that does not show what the index
says is never committed. ``tests/test_samples.py`` checks the committed files again.

    .venv/bin/python samples/make_samples.py            # write *.jsonl, index.json, README.md
    .venv/bin/python samples/make_samples.py --check    # exit 1 if a file is out of date
    .venv/bin/python samples/make_samples.py --script ppuk-taken.jsonl   # print its script
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from gostop_records import events as E
from gostop_records import log as L
from gostop_records import script as scripted
from gostop_records.errors import ProjectionError
from gostop_records.projector import Projection, project
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate

HERE = Path(__file__).resolve().parent
CORPUS = "corpus-mixed.jsonl"

Envelopes = list[E.Envelope]


@dataclass(frozen=True)
class Sample:
    """One sample log: its script, what it shows and the outcome it must have."""

    file: str
    shows: str
    script: str
    hands: list[dict[str, Any]]
    features: dict[str, int] = field(default_factory=dict)
    validation: str = "strict"  # "strict", "lenient" (rules broken) or "tampered" (chain)
    failure: dict[str, Any] | None = None  # how a lenient or tampered sample fails strictly
    amend: Callable[[Envelopes], Envelopes] | None = None
    tamper: Callable[[bytes], bytes] | None = None
    start: datetime = datetime(2026, 1, 10, 19, 0, tzinfo=UTC)


def stop(
    winner: int,
    score: int,
    dues: list[tuple[int, int, int]],
    go: int = 0,
    paid: list[tuple[int, int, int]] | None = None,
    hand: int = 1,
    reason: str = "stop",
) -> dict[str, Any]:
    """A hand won by a Stop: ``dues`` are (payer, points, chips) to the winner."""
    due = [
        {"payer": p, "payee": winner, "points": pts, "chips": ch, "reason": "stop"}
        for p, pts, ch in dues
    ]
    return {
        "hand": hand,
        "outcome": "stop",
        "reason": reason,
        "winner": winner,
        "score": score,
        "go": go,
        "due": due,
        "paid": [{"payer": p, "payee": q, "chips": c} for p, q, c in paid]
        if paid is not None
        else [{"payer": d["payer"], "payee": winner, "chips": d["chips"]} for d in due],
    }


def instant(
    winner: int, reason: str, dues: list[tuple[int, int, int, str]], hand: int = 1
) -> dict[str, Any]:
    """A hand won at once: ``dues`` are (payer, points, chips, reason)."""
    due = [
        {"payer": p, "payee": winner, "points": pts, "chips": ch, "reason": why}
        for p, pts, ch, why in dues
    ]
    return {
        "hand": hand,
        "outcome": "instant",
        "reason": reason,
        "winner": winner,
        "score": None,
        "go": 0,
        "due": due,
        "paid": [{"payer": d["payer"], "payee": winner, "chips": d["chips"]} for d in due],
    }


def no_winner(outcome: str, reason: str, next_carry: int, hand: int = 1) -> dict[str, Any]:
    return {
        "hand": hand,
        "outcome": outcome,
        "reason": reason,
        "winner": None,
        "score": None,
        "go": 0,
        "due": [],
        "paid": [],
        "next_carry": next_carry,
    }


# --- the scripts ---------------------------------------------------------------------------

# A quick win used by many samples: seat 0 takes three brights and the three birds (godori)
# in three or four turns, so that the special situation of each sample stays in view.

PPUK_TAKEN = """
game sample-ppuk-taken ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 05A 03G 02A ...
seat1: 12G 05J2 02J1 ...
layout: 08A 01G 06J1 05R 10J1 03J1 04J1 12A
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 07J1
0 play 05A        # pairs with 05R ...
0 flip 05J1       # ... and the flip is the third 05: ppuk, the three stay face up
1 play 05J2       # the fourth 05 takes the ppuk: four cards and one junk from seat 0
1 flip 10J2
0 play 03G
0 flip 04A
1 play 02J1
1 flip 07J2
0 play 02A
0 flip 09J1
0 stop
pay due
"""

OWN_PPUK = """
game sample-own-ppuk ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 05A 05J2 03G ...
seat1: 12G 06J2 02J1 ...
layout: 08A 01G 06J1 05R 10J1 03J1 04J1 12A
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 05A
0 flip 05J1       # seat 0 makes a ppuk
1 play 06J2
1 flip 07J1
0 play 05J2       # and takes it back itself (ja-ppuk): two junk units from seat 1
0 flip 04A
1 play 02J1
1 flip 09J2
0 play 03G
0 flip 02A
0 stop
pay due
"""

TTADAK = """
game sample-ttadak ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 06A 03G 02A ...
seat1: 12G 02J1 09J2 ...
layout: 08A 01G 06J1 06J2 10J1 03J1 04J1 12A
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 06A        # two 06 lie face up; the played card ...
0 flip 06R        # ... and the flip are the other two: ttadak, all four and one junk
1 play 02J1
1 flip 07J1
0 play 03G
0 flip 04A
1 play 09J2
1 flip 07J2
0 play 02A
0 flip 11J1
0 stop
pay due
"""

JJOK = """
game sample-jjok ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 07R 03G 02A ...
seat1: 12G 02J1 11J1 ...
layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 07R        # no 07 face up: the card stays ...
0 flip 07J1       # ... and the flip takes it back: jjok, one junk from seat 1
1 play 02J1
1 flip 09J1
0 play 03G
0 flip 04A
1 play 11J1
1 flip 09J2
0 play 02A
0 flip 11J2
0 stop
pay due
"""

SSEUL_BODY = """
hand dealer=0
seat0: 08G 06A 03G 02A ...
seat1: 12G 07J1 11J1 ...
layout: 08A 01G 03R 04J1 12A 10J1 02J1 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 06A
0 flip 04A
1 play 07J1
1 flip 09J1
0 play 03G
0 flip 09J2
1 play 11J1
1 flip 07J2
0 play 02A        # the layout holds 02J1 and 11J1 only: seat 0 takes both,
0 flip 11J2       # the layout is empty: a sweep (sseul), one junk from seat 1
0 stop
pay due
"""

SSEUL_FLOOR_EMPTY = "game sample-sseul-floor-empty ruleset=matgo players=2 by=sample\n" + SSEUL_BODY
SSEUL_TWO_CARDS = "game sample-sseul-two-cards ruleset=cardavia players=2 by=sample\n" + SSEUL_BODY

BOMB = """
game sample-bomb ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 03R 03J1 03J2 04A 10J2 ...
seat1: 06J2 12G 12A ...
layout: 03G 01G 01R 01J1 04R 05A 06J1 07J1
stock: auto
0 play 04A
0 flip 05R
1 play 06J2
1 flip 07J2
0 bomb 03         # three 03 from the hand take the fourth: one junk (bomb) ...
0 flip 01J2       # ... the flip takes the stack of 01: one junk (stack) ...
1 play 12G        # ... and the layout is empty: one junk (sseul). Three steals in one turn.
1 flip 02J1
0 flip-only       # a bomb leaves two turns without a hand card
0 flip 02R
1 play 12A
1 flip 08J1
0 play 10J2
0 flip 08G
0 stop
pay due
"""

THREE_PPUK = """
game sample-three-ppuk ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 01G 02A 03G ...
seat1: 06A 12G ...
layout: 01J1 02J1 03J1 06J1 10J1 12A 07J1 11J1
stock: auto
0 play 01G
0 flip 01J2       # ppuk on the first turn: 7 at once
1 play 06A
1 flip 10J2
0 play 02A
0 flip 02J2       # again on the second turn: 14
1 play 12G
1 flip 09J1
0 play 03G
0 flip 03J2       # a third in a row: 21, and three ppuk win the hand for 7
pay due
"""

HAND_FOUR = """
game sample-hand-four ruleset=gamerules players=3 by=sample
hand dealer=0
seat0: ...
seat1: 05A 05R 05J1 05J2 ...
seat2: ...
layout: 01G 02R 03J1 08A 10J2 12A
stock: auto
fours             # seat 1 shows the four cards of May before the first play
pay due
"""

VOID_DEAL = """
game sample-void-deal ruleset=cardavia players=2 by=sample
hand dealer=0
seat0: ...
seat1: ...
layout: 11G 11D 11J1 11J2 01G 03J1 05R 08J1
stock: auto
hand dealer=0     # the same dealer deals again
seat0: 08G 07R 03G 02A ...
seat1: 12G 02J1 11J1 ...
layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 07R
0 flip 07J1
1 play 02J1
1 flip 09J1
0 play 03G
0 flip 04A
1 play 11J1
1 flip 09J2
0 play 02A
0 flip 11J2
0 stop
pay due
"""

SHAKE = """
game sample-shake ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 07A 07R 07J1 08G 03G ...
seat1: 12G 06J2 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06J1
stock: auto
0 shake 07        # shows 07A 07R 07J1 (no 07 face up) and plays one of them
0 play 07A
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 08G
0 flip 04A
1 play 06J2
1 flip 09J1
0 play 03G
0 flip 02A
0 stop
pay due
"""

JOKERS = """
game sample-jokers ruleset=gamerules players=2 by=sample
hand dealer=0
seat0: B2 06A 03G ...
seat1: 12G 07J1 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06R
bonus: B3         # a joker dealt face up goes to the dealer's pile and is replaced
stock: auto
0 play B2         # a joker from the hand is taken ...
0 flip 08G        # ... and a stock card is turned and played in its place ...
0 flip 01J1       # ... then the turn's own flip
1 play 12G
1 flip 10J2
0 play 06A
0 flip 04A
1 play 07J1
1 flip 09J1
0 play 03G
0 flip 02A
0 stop
pay due
"""

BONUS_CARDS = """
game sample-bonus-cards ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G B2 06A 03G ...
seat1: 12G 07J1 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06R
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play B2 draw 11J1   # a bonus card from the hand: taken, a junk from seat 1, draw, play on
0 play 06A
0 flip B3             # a bonus card turned up: taken, a junk from seat 1, turn again
0 flip 04A
1 play 07J1
1 flip 09J1
0 play 03G
0 flip 02A
0 stop
pay due
"""

CUP_ANIMAL = """
game sample-cup-animal-meong-tta ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 02A 08A 06A 09A ...
seat1: 10J2 11J2 01G ...
layout: 02J1 04J1 08J1 05J1 06J1 07J1 09J1 10J1
stock: auto
0 play 02A
0 flip 04A
1 play 10J2
1 flip 11J1
0 play 08A
0 flip 05A
1 play 11J2
1 flip 01J1
0 play 06A
0 flip 07A        # six animals with godori: 7 points
0 go
1 play 01G
1 flip 03J1
0 play 09A        # the September cup ...
0 flip 11D
0 cup animal      # ... as the seventh animal: 8 points and meong-tta
0 stop
pay due
"""

CUP_JUNK = """
game sample-cup-junk ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 01R 03R 08G 09A ...
seat1: 12G 05J1 05J2 ...
layout: 01G 02J1 03G 11J1 08J1 12A 09J1 10J1
stock: auto
0 play 01R
0 flip 02R
1 play 12G
1 flip 10J2
0 play 03R
0 flip 11D
1 play 05J1
1 flip 06J1
0 play 08G
0 flip 06J2
1 play 05J2
1 flip 07J1
0 play 09A        # the September cup ...
0 flip 04J1
0 cup junk        # ... as double junk: 10 junk units, 1 point, 7 in all
0 stop
pay due
"""

GO_LADDER = """
game sample-go-{n} ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 01G 08G 04A 06R 07R 10R 09R ...
seat1: 12A 12G 08J1 08J2 11D 12D ...
layout: 01R 03R 08A 02R 04R 05R 06J1 07J1
stock: auto
0 play 01G
0 flip 03G
1 play 12A
1 flip 10J1
0 play 08G
0 flip 02A
1 play 12G
1 flip 09J1
0 play 04A
0 flip 05A
0 decide          # 12 points
1 play 08J1
1 flip 04J1
0 play 06R
0 flip 11J1
0 decide          # 13
1 play 08J2
1 flip 05J1
0 play 07R
0 flip 12R
0 decide          # 17
1 play 11D
1 flip 06J2
0 play 10R
0 flip 01J1
0 decide          # 18
1 play 12D
1 flip 02J1
0 play 09R
0 flip 03J1
0 decide          # 22
"""


def go_ladder(n: int) -> str:
    """The Go ladder deal, stopped after ``n`` Gos: Go at each decision, then Stop."""
    out = []
    decisions = 0
    for line in GO_LADDER.format(n=n).splitlines():
        if line.startswith("0 decide"):
            decisions += 1
            out.append("0 go" if decisions <= n else "0 stop")
            if decisions > n:
                out.append("pay due")
                break
            continue
        out.append(line)
    return "\n".join(out) + "\n"


GO_BAK = """
game sample-go-bak ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 03G 04A 12R ...
seat1: 06R 10R 04R 05R ...
layout: 08A 01J1 03J1 02J1 04J1 04J2 06J1 09J1
stock: auto
0 play 08G
0 flip 01G
1 play 06R
1 flip 10J1
0 play 03G
0 flip 02A
1 play 10R
1 flip 09R
0 play 04A
0 flip 11J1
0 go              # seat 0 goes at 8 ...
1 play 04R
1 flip 05J1
0 play 12R
0 flip 07J1
1 play 05R
1 flip 07R
1 stop            # ... and seat 1 stops first: seat 0 pays double (go-bak)
pay due
"""

GWANG_BAK = """
game sample-gwang-bak ruleset=matgo players=2 by=sample
hand dealer=0
seat0: 08G 06A 03G ...
seat1: 12R 07J1 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12R
1 flip 10J2
0 play 06A
0 flip 04A
1 play 07J1
1 flip 09J1
0 play 03G
0 flip 02A
0 stop            # three brights against a loser without a bright: double
pay due
"""

PI_BAK = """
game sample-pi-bak ruleset=gostop3 players=3 by=sample
hand dealer=0
seat0: 11D 12D 03J1 ...
seat1: 05J1 05J2 ...
seat2: 07A 11G ...
layout: 11J1 01J2 12R 02J2 03J2 04J2
stock: auto
0 play 11D
0 flip 01J1
1 play 05J1
1 flip 06J1
2 play 07A
2 flip 09R
0 play 12D
0 flip 02J1
1 play 05J2
1 flip 10R
2 play 11G
2 flip 08A
0 play 03J1
0 flip 04J1
0 stop            # 13 junk units: seat 1 holds 2 (pi-bak), seat 2 none (exempt)
pay due
"""

THREE_PLAYERS = """
game sample-three-players ruleset=gostop3 players=3 by=sample
hand dealer=0
seat0: 11G 06A ...
seat1: 01G 08G ...
seat2: 05A ...
layout: 01J1 03J1 08J1 11J1 05J1 06J1
stock: auto
0 play 11G
0 flip 09J1
1 play 01G
1 flip 03G
2 play 05A
2 flip 10J1
0 play 06A
0 flip 07J1
1 play 08G
1 flip 02J1
1 stop            # seat 0 holds a bright, seat 2 none: only seat 2 pays double
pay due
hand dealer=1     # the winner deals the next hand
seat0: 01R 02R ...
seat1: 10A 10J1 ...
seat2: 01G 08G ...
layout: 01J1 01J2 03J1 03J2 02J1 08J1
stock: auto
1 play 10A
1 flip 12A
2 play 01G
2 flip 03G
0 play 01R
0 flip 03R
1 play 10J1
1 flip 12R
2 play 08G
2 flip 04J1
2 go              # seat 2 goes at 3 ...
0 play 02R
0 flip 05J1
0 stop            # ... seat 0 stops: seat 2 pays for both losers (dokbak)
pay due
"""

FOUR_SEATS = """
game sample-four-seats ruleset=rulesets/four.toml players=4 stake=10 by=sample names=Ann,Ben,Cho,Dan
chips 200 200 200 80          # the chips each brings to the sitting
draw night 0 05A 1 03R 2 11J1 3 08A   # by night the lowest month deals: Ben (March)
hand out=0        # Ann sits out by choice; Ben (the drawn dealer), Cho and Dan play
seat0: 12G ...    # Ann's dealt hand, which lies under the stock
seat1: 11G 06A ...
seat2: 01G 08G ...
seat3: 05J2 ...
layout: 01J1 03J1 08J1 11J1 05J1 06J1
stock: auto
0 sell 12G        # Ann sells her bright: 5 points x stake 10 from each of Ben, Cho, Dan
1 play 11G
1 flip 09J1
2 play 01G
2 flip 03G
3 play 05J2
3 flip 10J1
1 play 06A
1 flip 07J1
2 play 08G
2 flip 02J1
2 stop            # Ben holds a bright, Dan none: Dan owes double, 60, and holds 30
pay due           # Dan pays the 30 he holds; the shortfall of 30 is on the books
"""

# Hand 1 is a simulated hand (random bots, seed 295): seat 1 calls Go twice and never
# raises its score again, the cards run out, nobody wins. Hand 2 pays double.
NAGARI_CARRY = """
game sample-nagari-carry ruleset=matgo players=2 by=sample
hand dealer=1
deck: 10A 09J2 06R 10J1 12G 12R 04R B3 07A 01G 08J1 02J2 08J2 05J1 01J1 11J1 09R 10R 08G 06A 06J2 11D 03R 05J2 08A 11J2 04J1 07J2 03J2 06J1 03J1 11G 07J1 01J2 10J2 12D 07R 04A 02R 12A 02J1 09J1 03G 01R B2 02A 05A 09A 05R 04J2
seat0: 10A 09J2 06R 10J1 12G 01J1 11J1 09R 10R 08G
seat1: 12R 04R B3 07A 01G 06A 06J2 11D 03R 05J2
layout: 08J1 02J2 08J2 05J1 08A 11J2 04J1 07J2
stock: 03J2 06J1 03J1 11G 07J1 01J2 10J2 12D 07R 04A 02R 12A 02J1 09J1 03G 01R B2 02A 05A 09A 05R 04J2
1 play 03R
1 flip 03J2
0 play 01J1
0 flip 06J1
1 play B3 draw 03J1
1 play 07A
1 flip 11G
0 play 12G
0 flip 07J1
1 play 01G
1 flip 01J2
0 play 08G
0 flip 10J2
1 play 05J2
1 flip 12D
0 play 09R
0 flip 07R
1 play 12R
1 flip 04A
0 play 10J1
0 flip 02R
1 play 03J1
1 flip 12A
0 play 11J1
0 flip 02J1
1 play 06J2
1 flip 09J1
0 play 10R
0 flip 03G
1 play 06A
1 flip 01R
1 go
0 play 06R
0 flip B2
0 flip 02A
1 play 11D
1 flip 05A
1 go
0 play 09J2
0 flip 09A
0 cup animal
1 play 04R
1 flip 05R
0 play 10A
0 flip 04J2       # the last card: nobody won, nagari; the next hand pays double
hand dealer=1     # after a nagari the dealer stays
seat0: 12G 07J1 ...
seat1: 08G 06A 03G ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06J1
stock: auto
1 play 08G
1 flip 01J1
0 play 12G
0 flip 10J2
1 play 06A
1 flip 04A
0 play 07J1
0 flip 09J1
1 play 03G
1 flip 02A
1 stop
pay due
"""  # noqa: E501

LIVE_RECORD = """
game sample-live-record ruleset=matgo players=2 stake=100 by=recorder:table-3 step=20 names=North,South venue='club room, table 3'
hand dealer=0
seat0: ?          # the recorder does not see the hands ...
seat1: ?
layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1
stock: ?          # ... nor the stock order: each card is known when it is played or turned
0 play 08G
0 flip 01J1
1 play 12R        # a typo ...
retract typo: South played the rain bright
1 play 12G        # ... undone and entered again
1 flip 10J2
0 play 07R
0 flip 07J1
1 play 02J1
1 flip 09J1
0 play 03G
0 flip 04A
note @21 South asks to check the flip of 04A
1 play 11J1
1 flip 09J2
0 play 02A
0 flip 11J2
0 stop
pay due
"""  # noqa: E501

DISPUTED = """
game sample-disputed-payment ruleset=matgo players=2 stake=100 by=sample
hand dealer=0
seat0: 07A 07R 07J1 08G 03G ...
seat1: 12G 06J2 ...
layout: 08A 01G 03J1 04J1 12A 10J1 02J1 06J1
stock: auto
0 shake 07
0 play 07A
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 08G
0 flip 04A
1 play 06J2
1 flip 09J1
0 play 03G
0 flip 02A
0 stop
pay 1->0 800 South: the shake does not double the payment
"""

LENIENT = """
game sample-lenient-card-not-held ruleset=matgo players=2 by=recorder:table-1
hand dealer=0
seat0: 08G 07R 03G 02A 02J2 ...
seat1: 12G 02J1 11J1 ...
layout: 08A 01G 05R 10J1 03J1 04J1 12A 06J1
stock: auto
0 play 08G
0 flip 01J1
1 play 12G
1 flip 10J2
0 play 07R
0 flip 07J1
1 play 02J1       # recorded as 02J2, a card the deal gave seat 0
1 flip 09J1
0 play 03G
0 flip 04A
1 play 11J1
1 flip 09J2
0 play 02A
0 flip 11J2
0 stop
pay due
"""

TAMPERED = GWANG_BAK.replace("sample-gwang-bak", "sample-tampered-payment")


def _card_not_held(envs: Envelopes) -> Envelopes:
    """Seat 1's play of 02J1 recorded as 02J2, which is in seat 0's hand (then re-sealed)."""
    for env in envs:
        ev = env.event
        if type(ev) is E.CardPlayed and ev.seat == 1 and ev.card == "02J1":
            return scripted.amend(envs, env.seq, msgspec.structs.replace(ev, card="02J2"))
    raise AssertionError("the play to amend is not in the log")


def _edit_payment(data: bytes) -> bytes:
    """One byte of the recorded payment changed after sealing: 16 chips become 10."""
    lines = data.split(b"\n")
    for k, line in enumerate(lines):
        if b'"type":"payment_recorded"' in line:
            assert b'"chips":16,' in line
            lines[k] = line.replace(b'"chips":16,', b'"chips":10,')
            return b"\n".join(lines)
    raise AssertionError("no payment to edit")


def _seq_of(script: str, etype: str, nth: int = 1, **match: Any) -> int:
    """The seq of the n-th event of a type (and field values) in a script's log."""
    seen = 0
    for env in scripted.build(script):
        if env.type == etype and all(getattr(env.event, k) == v for k, v in match.items()):
            seen += 1
            if seen == nth:
                return env.seq
    raise AssertionError(f"no {etype} {match} in the script's log")


SAMPLES: list[Sample] = [
    Sample(
        "ppuk-taken.jsonl",
        "a ppuk (seat 0's played card and the flip both match the one 05 face up) and the "
        "ppuk taken by seat 1 with the fourth card, which also takes one junk from seat 0",
        PPUK_TAKEN,
        [stop(0, 8, [(1, 8, 8)])],
        {"ppuk_made": 1, "cards_captured:ppuk_taken": 1, "junk_transferred:ppuk_taken": 1},
    ),
    Sample(
        "own-ppuk.jsonl",
        "ja-ppuk: seat 0 takes back its own ppuk with the fourth card, which takes two junk "
        "units from seat 1 (two single junk, least valuable first)",
        OWN_PPUK,
        [stop(0, 8, [(1, 8, 8)])],
        {"ppuk_made": 1, "cards_captured:own_ppuk": 1, "junk_transferred:own_ppuk": 2},
    ),
    Sample(
        "ttadak.jsonl",
        "ttadak: two cards of June face up, seat 0 plays the third and flips the fourth: all "
        "four and one junk from seat 1",
        TTADAK,
        [stop(0, 8, [(1, 8, 8)])],
        {"cards_captured:ttadak": 1, "junk_transferred:ttadak": 1},
    ),
    Sample(
        "jjok.jsonl",
        "jjok: seat 0's card matches nothing and the flip takes it back: both cards and one "
        "junk from seat 1",
        JJOK,
        [stop(0, 8, [(1, 8, 8)])],
        {"cards_captured:jjok": 1, "junk_transferred:jjok": 1},
    ),
    Sample(
        "sseul-floor-empty.jsonl",
        "sseul as matgo defines it (sseul_rule=floor_empty): seat 0's turn leaves the layout "
        "empty: one junk from seat 1",
        SSEUL_FLOOR_EMPTY,
        [stop(0, 8, [(1, 8, 8)])],
        {"junk_transferred:sseul": 1},
    ),
    Sample(
        "sseul-two-cards.jsonl",
        "sseul as the source pages define it (sseul_rule=two_cards): the layout holds exactly "
        "two cards of different months and seat 0 takes both; the same play as "
        "sseul-floor-empty under CARDAVIA rules",
        SSEUL_TWO_CARDS,
        [stop(0, 8, [(1, 8, 8)])],
        {"junk_transferred:sseul": 1},
    ),
    Sample(
        "bomb.jsonl",
        "a bomb (three of March with the fourth face up) whose flip takes a stack and empties "
        "the layout: three steals in one turn (bomb, stack, sseul); a flip-only turn after "
        "it; the bomb doubles the payment",
        BOMB,
        [stop(0, 7, [(1, 14, 14)])],
        {
            "bomb_played": 1,
            "flip_only_played": 1,
            "junk_transferred:bomb": 1,
            "junk_transferred:stack": 1,
            "junk_transferred:sseul": 1,
        },
    ),
    Sample(
        "three-ppuk.jsonl",
        "ppuk on each of seat 0's first three turns: first-turn ppuk payments of 7, 14 and "
        "21, then three ppuk win the hand for 7 more (49 in all)",
        THREE_PPUK,
        [
            instant(
                0,
                "three_ppuk",
                [
                    (1, 7, 7, "first_ppuk"),
                    (1, 14, 14, "first_ppuk"),
                    (1, 21, 21, "first_ppuk"),
                    (1, 7, 7, "three_ppuk"),
                ],
            )
        ],
        {"ppuk_made": 3},
    ),
    Sample(
        "hand-four.jsonl",
        "four of a month at the deal: seat 1 holds the four cards of May, shows them before "
        "the first play and wins at once; each opponent pays 5 (general rules page)",
        HAND_FOUR,
        [instant(1, "hand_four", [(0, 5, 5, "hand_four"), (2, 5, 5, "hand_four")])],
        {"four_of_a_month_shown": 1},
    ),
    Sample(
        "void-deal.jsonl",
        "a voided deal: four of November face up, the same dealer deals again (no carry); "
        "the second deal is won with a jjok on the way",
        VOID_DEAL,
        [no_winner("void", "layout_four", 1), stop(0, 8, [(1, 8, 8)], hand=2)],
        {"deal_voided": 1},
    ),
    Sample(
        "shake.jsonl",
        "a shake (heundeum): seat 0 shows three cards of July, none face up, and plays one; "
        "winning doubles the payment",
        SHAKE,
        [stop(0, 8, [(1, 16, 16)])],
        {"shaken": 1},
    ),
    Sample(
        "jokers.jsonl",
        "jokers under the general rules page: one dealt face up goes to the dealer's pile, "
        "one played from the hand is taken and a stock card is played in its place",
        JOKERS,
        [stop(0, 8, [(1, 8, 8)])],
        {"bonus_card_taken": 2},
    ),
    Sample(
        "bonus-cards.jsonl",
        "matgo bonus cards: B2 played from the hand (taken, one junk from seat 1, a card "
        "drawn, play on) and B3 turned from the stock (taken, one junk, turn again); the "
        "loser keeps no junk, so no pi-bak (zero-junk exemption)",
        BONUS_CARDS,
        [stop(0, 10, [(1, 10, 10)])],
        {"bonus_card_taken": 2, "junk_transferred:bonus": 2},
    ),
    Sample(
        "cup-animal-meong-tta.jsonl",
        "the September cup kept as an animal: the seventh animal, so meong-tta doubles "
        "(8 points after 1 Go: (8 + 1) x 2)",
        CUP_ANIMAL,
        [stop(0, 8, [(1, 18, 18)], go=1)],
        {"cup_assigned": 1, "go_called": 1},
    ),
    Sample(
        "cup-junk.jsonl",
        "the September cup counted as double junk: 10 junk units make 1 point and 7 in all; "
        "the loser holds 4 units, so pi-bak doubles",
        CUP_JUNK,
        [stop(0, 7, [(1, 14, 14)])],
        {"cup_assigned": 1},
    ),
    Sample(
        "go-1.jsonl",
        "one Go: seat 0 goes at 12 and stops at 13: 13 + 1",
        go_ladder(1),
        [stop(0, 13, [(1, 14, 14)], go=1)],
        {"go_called": 1},
    ),
    Sample(
        "go-2.jsonl",
        "two Gos (same deal as go-1): stop at 17: 17 + 2",
        go_ladder(2),
        [stop(0, 17, [(1, 19, 19)], go=2)],
        {"go_called": 2},
    ),
    Sample(
        "go-3.jsonl",
        "three Gos (same deal): stop at 18: (18 + 3) x 2",
        go_ladder(3),
        [stop(0, 18, [(1, 42, 42)], go=3)],
        {"go_called": 3},
    ),
    Sample(
        "go-4.jsonl",
        "four Gos (same deal): stop at 22: (22 + 4) x 4",
        go_ladder(4),
        [stop(0, 22, [(1, 104, 104)], go=4)],
        {"go_called": 4},
    ),
    Sample(
        "go-bak.jsonl",
        "go-bak: seat 0 goes at 8, seat 1 reaches 8 and stops; seat 0 called Go and lost, "
        "so it pays double",
        GO_BAK,
        [stop(1, 8, [(0, 16, 16)])],
        {"go_called": 1},
    ),
    Sample(
        "gwang-bak.jsonl",
        "gwang-bak: seat 0 scores three brights and seat 1 holds none: double",
        GWANG_BAK,
        [stop(0, 8, [(1, 16, 16)])],
    ),
    Sample(
        "pi-bak.jsonl",
        "pi-bak in a 3-player game: seat 0 stops with 13 junk units; seat 1 holds 2 units "
        "and pays double, seat 2 holds no junk at all and is exempt",
        PI_BAK,
        [stop(0, 4, [(1, 8, 8), (2, 4, 4)])],
    ),
    Sample(
        "three-players.jsonl",
        "a 3-player game of two hands: per-loser multipliers (only the loser without a bright "
        "pays gwang-bak), the winner deals next, and dokbak (seat 2 called Go and lost: it "
        "pays for both losers)",
        THREE_PLAYERS,
        [stop(1, 3, [(0, 3, 3), (2, 6, 6)]), stop(0, 3, [(2, 6, 6)], hand=2)],
        {"hand_started": 2, "go_called": 1},
    ),
    Sample(
        "four-seats.jsonl",
        "a sitting of four (rulesets/four.toml): chips counted at the start, the first "
        "dealer drawn by night (seat 1, the lowest month), seat 0 sits out by choice and sells "
        "its bright (gwang-pali: 50 from each player of the hand); seat 3, gwang-bak, owes 60 "
        "but holds 30: it pays 30 and the shortfall of 30 is recorded (payment_capped)",
        FOUR_SEATS,
        [
            {
                "hand": 1,
                "outcome": "stop",
                "reason": "stop",
                "winner": 2,
                "score": 3,
                "go": 0,
                "due": [
                    *(
                        {"payer": p, "payee": 0, "points": 5, "chips": 50, "reason": "gwang_pali"}
                        for p in (1, 2, 3)
                    ),
                    {"payer": 1, "payee": 2, "points": 3, "chips": 30, "reason": "stop"},
                    {"payer": 3, "payee": 2, "points": 6, "chips": 30, "reason": "stop"},
                ],
                "paid": [
                    *({"payer": p, "payee": 0, "chips": 50} for p in (1, 2, 3)),
                    {"payer": 1, "payee": 2, "chips": 30},
                    {"payer": 3, "payee": 2, "chips": 30},
                ],
            }
        ],
        {
            "chips_counted": 1,
            "dealer_drawn": 1,
            "seats_sat_out": 1,
            "brights_sold": 1,
            "payment_capped": 1,
        },
    ),
    Sample(
        "nagari-carry.jsonl",
        "a nagari: seat 1 calls Go twice and never raises its score, the cards run out and "
        "nobody wins (a simulated hand); the next hand, dealt by the same dealer, pays double",
        NAGARI_CARRY,
        [no_winner("nagari", "cards_exhausted", 2), stop(1, 8, [(0, 16, 16)], hand=2)],
        {"go_called": 2},
    ),
    Sample(
        "live-record.jsonl",
        "a live record: the recorder sees neither the hands nor the stock (both null); cards "
        "become known as they are played and turned; a typo retracted, a note; stake 100",
        LIVE_RECORD,
        [stop(0, 8, [(1, 8, 800)])],
        {"entry_retracted": 1, "note_added": 1},
        start=datetime(2026, 3, 14, 20, 15, tzinfo=UTC),
    ),
    Sample(
        "disputed-payment.jsonl",
        "a disputed payment: the rules make seat 1 owe 1600 (8 points, doubled for the shake, "
        "stake 100); the table recorded 800 with the loser's objection",
        DISPUTED,
        [stop(0, 8, [(1, 16, 1600)], paid=[(1, 0, 800)])],
        {"shaken": 1},
    ),
    Sample(
        "lenient-card-not-held.jsonl",
        "a table that broke a rule: seat 1 is recorded playing 02J2, which the deal gave to "
        "seat 0; the chain is sealed, so only the rules object (valid in lenient mode only)",
        LENIENT,
        [],
        validation="lenient",
        failure={
            "seq": _seq_of(LENIENT, "card_played", seat=1, card="02J1"),
            "rule": "card_in_hand",
        },
        amend=_card_not_held,
    ),
    Sample(
        "tampered-payment.jsonl",
        "a tampered log: the recorded payment was edited from 16 to 10 after sealing; the "
        "hash chain names the seq",
        TAMPERED,
        [stop(0, 8, [(1, 16, 16)], paid=[(1, 0, 10)])],
        validation="tampered",
        failure={"seq": _seq_of(TAMPERED, "payment_recorded")},
        tamper=_edit_payment,
    ),
]

#: The simulated corpus: a few games of every preset and player count, mixed bots.
CORPUS_RUNS: list[tuple[str, int, int, int, int, tuple[str, ...]]] = [
    # ruleset, players, games, hands per game, first seed, bots
    # (seeds chosen so that the corpus holds every way a hand ends, for the SQL examples)
    ("matgo", 2, 2, 2, 13, ("greedy", "random")),
    ("gamerules", 2, 2, 2, 71, ("greedy", "random")),
    ("gamerules", 3, 2, 2, 71, ("greedy", "random", "greedy")),
    ("gostop3", 3, 2, 2, 202, ("greedy",)),
    ("cardavia", 2, 3, 1, 1, ("random", "greedy")),
]


# --- building and checking -----------------------------------------------------------------


def jsonl(envs: Envelopes) -> bytes:
    buf = io.BytesIO()
    L.write_jsonl(buf, envs)
    return buf.getvalue()


def build_sample(s: Sample) -> tuple[Envelopes, bytes]:
    # where: the sample's path, so that a ruleset file is found beside it (rulesets/)
    envs = scripted.build(s.script, start=s.start, where=str(HERE / s.file))
    if s.amend is not None:
        envs = s.amend(envs)
    data = jsonl(envs)
    if s.tamper is not None:
        data = s.tamper(data)
    return envs, data


def outcomes(p: Projection) -> list[dict[str, Any]]:
    """Each checked hand of a projection in the index's form."""
    assert p.game is not None
    out = []
    for r in p.game.results:
        if r.outcome == "unchecked":
            continue
        h = r.state
        paid = [
            {"payer": a, "payee": b, "chips": c}
            for hand, a, b, c in p.game.payments
            if hand == r.hand
        ]
        d: dict[str, Any] = {
            "hand": r.hand,
            "outcome": r.outcome,
            "reason": r.reason,
            "winner": r.winner,
            "score": h.score_of(r.winner)
            if r.outcome == "stop" and h is not None and r.winner is not None
            else None,
            "go": h.go_count[r.winner] if h is not None and r.winner is not None else 0,
            "due": [
                {"payer": a, "payee": b, "points": pts, "chips": ch, "reason": why}
                for a, b, pts, ch, why in r.dues
            ],
            "paid": paid,
        }
        if r.outcome in ("nagari", "void"):
            d["next_carry"] = r.next_carry
        out.append(d)
    return out


def features(envs: Envelopes) -> Counter[str]:
    """Event counts by type, and by type:kind / type:reason for captures and transfers."""
    c: Counter[str] = Counter()
    for env in envs:
        ev = env.event
        c[env.type] += 1
        if type(ev) is E.CardsCaptured:
            c[f"cards_captured:{ev.kind}"] += 1
        elif type(ev) is E.JunkTransferred:
            c[f"junk_transferred:{ev.reason}"] += 1
    return c


def decode(data: bytes) -> Envelopes:
    return [L.decode_json_line(line) for line in data.splitlines() if line.strip()]


def check_sample(s: Sample, data: bytes) -> None:
    """The log as written shows what the sample says, or an AssertionError naming the gap."""
    where = s.file
    envs = decode(data)
    chain = L.verify(envs)
    if s.validation == "tampered":
        assert s.failure is not None
        assert not chain.ok and chain.first_bad_seq == s.failure["seq"], (where, chain)
    else:
        assert chain.ok, (where, chain.reason)
    if s.validation == "lenient":
        assert s.failure is not None
        try:
            project(envs)
        except ProjectionError as exc:
            assert (exc.seq, exc.rule) == (s.failure["seq"], s.failure["rule"]), (where, exc)
        else:
            raise AssertionError(f"{where}: validates strictly")
        p = project(envs, strict=False)
        got = [(i.seq, i.rule) for i in p.issues if i.severity == "violation"]
        assert got == [(s.failure["seq"], s.failure["rule"])], (where, got)
    else:
        p = project(envs)
    got_hands = outcomes(p)
    assert got_hands == s.hands, f"{where}:\n  stated {s.hands}\n  actual {got_hands}"
    counted = features(envs)
    for key, n in s.features.items():
        assert counted[key] == n, f"{where}: {key}: {counted[key]} in the log, stated {n}"


def build_corpus() -> tuple[Envelopes, dict[str, Any]]:
    envs: Envelopes = []
    runs = []
    for name, players, games, hands, seed, bots in CORPUS_RUNS:
        for game in simulate(PRESETS[name], players, games, hands, seed, bots):
            envs.extend(game)
        runs.append(
            {
                "ruleset": name,
                "players": players,
                "games": games,
                "hands": hands,
                "seed": seed,
                "bots": list(bots),
            }
        )
    return envs, {"runs": runs}


def corpus_stats(envs: Envelopes) -> dict[str, Any]:
    results: Counter[str] = Counter()
    games = set()
    for env in envs:
        games.add(env.game_id)
        if type(env.event) is E.HandEnded:
            results[env.event.outcome] += 1
    return {
        "games": len(games),
        "hands": sum(results.values()),
        "events": len(envs),
        "outcomes": dict(sorted(results.items())),
    }


def summary(s: Sample) -> str:
    """The expected outcome in words, for the README table."""
    parts = []
    for h in s.hands:
        pre = f"hand {h['hand']}: " if len(s.hands) > 1 else ""
        if h["outcome"] == "stop":
            gos = f" after {h['go']} Go" if h["go"] else ""
            pays = ", ".join(
                f"seat {d['payer']} pays {d['chips']}"
                + ("" if d["reason"] == "stop" else f" ({d['reason']})")
                for d in h["due"]
            )
            text = f"seat {h['winner']} stops at {h['score']}{gos}; {pays}"
            if h["paid"] != [
                {"payer": d["payer"], "payee": d["payee"], "chips": d["chips"]} for d in h["due"]
            ]:
                text += (
                    " (recorded: "
                    + ", ".join(f"seat {p['payer']} paid {p['chips']}" for p in h["paid"])
                    + ")"
                )
        elif h["outcome"] == "instant":
            total: dict[int, list[int]] = {}
            for d in h["due"]:
                total.setdefault(d["payer"], []).append(d["chips"])
            pays = ", ".join(
                f"seat {p} pays "
                + (" + ".join(map(str, c)) + f" = {sum(c)}" if len(c) > 1 else str(c[0]))
                for p, c in total.items()
            )
            text = f"seat {h['winner']} wins at once ({h['reason']}); {pays}"
        elif h["outcome"] == "nagari":
            text = f"nagari, next hand x{h['next_carry']}"
        else:
            text = "void deal, dealt again"
        parts.append(pre + text)
    if s.validation == "lenient":
        assert s.failure is not None
        parts.append(
            f"strict: rejected at seq {s.failure['seq']} ({s.failure['rule']}); "
            "lenient: that one violation, the rest of the hand kept unchecked"
        )
    if s.validation == "tampered":
        assert s.failure is not None
        parts.append(f"hash chain broken at seq {s.failure['seq']}")
    return "; ".join(parts)


def index_entry(s: Sample) -> dict[str, Any]:
    script = scripted.parse_script(s.script, where=str(HERE / s.file))
    entry: dict[str, Any] = {
        "file": s.file,
        "game_id": script.game_id,
        "ruleset": script.rules.name,
        "players": script.players,
        "stake": script.stake,
        "shows": s.shows,
        "validation": s.validation,
        "hands": s.hands,
        "features": s.features,
    }
    if s.failure is not None:
        entry["failure"] = s.failure
    entry["outcome"] = summary(s)
    return entry


README_HEAD = """\
# Sample logs

Real games, one file per situation, each made from a script with a fixed deck order: the deal
and the inputs (plays, flips, choices, shakes, bombs, Go/Stop, cup decisions, payments) are
written by hand in `make_samples.py`, and the rules engine derives every consequence
(`gostop_records.script`). Every file here is generated; do not edit one by hand:

    .venv/bin/python samples/make_samples.py           # regenerate *.jsonl, index.json, README.md
    .venv/bin/python samples/make_samples.py --check   # is everything up to date?
    .venv/bin/python samples/make_samples.py --script jjok.jsonl   # the script of a sample

The scripts are in the text form of `gostop_records/script.py`: the deal (`seat0: ...`,
`layout: ...`, `stock: auto`), then one line per input (`0 play 03R`, `0 flip 08A choose 08G`,
`0 shake 07`, `0 bomb 03`, `0 flip-only`, `0 cup junk`, `1 go`, `0 stop`, `pay 1->0 24`), and
for the table around the hand `chips 200 200 200 80` (the chips at the start of a sitting),
`draw night 0 05A 1 03R ...` (the draw for the first dealer), `hand out=0` (who sits out at 4
or 5 seats; a sitter's `seat0:` line is its hand under the stock) and `0 sell 12G` (gwang-pali).

`index.json` is the machine-readable index this table is made from: for every sample its
ruleset, players, what it shows, the expected outcome of each hand (winner, score at the Stop,
Go count, every payment due and recorded) and the special events it contains.
`tests/test_samples.py` checks that the index is complete and that every stated outcome holds.

Seats are numbered from 0; seat 0 deals unless the table says otherwise, and chips are per
point of stake 1 unless the game says otherwise. Validation: *strict* logs replay under the
rules without a single disagreement; the *lenient* one is a record of a table that broke a
rule (strict validation rejects it at the seq named, lenient validation keeps it and reports
it); the *tampered* one had a byte changed after sealing (its hash chain breaks at the seq
named). `queries/` holds SQL examples over these logs, `disputes/` disputed hands for audits.

| file | ruleset | players | what it shows | expected outcome |
|---|---|---|---|---|
"""

README_TAIL = """
## The simulated corpus

`{corpus}` is {games} simulated games ({hands} hands, {events} events) of every preset and
player count (matgo, gamerules with 2 and 3 players, gostop3, cardavia), greedy and random
bots, for SQL examples. It is the output of these runs, one after another:

{runs}
"""


def readme(entries: list[dict[str, Any]], corpus: dict[str, Any]) -> str:
    rows = []
    for e in entries:
        cells = [
            f"[{e['file']}]({e['file']})",
            e["ruleset"],
            str(e["players"]),
            e["shows"],
            e["outcome"],
        ]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    runs = "\n".join(
        f"    gostop simulate --ruleset {r['ruleset']} --players {r['players']} "
        f"--games {r['games']} --hands {r['hands']} --seed {r['seed']} "
        + " ".join(f"--bot {b}" for b in r["bots"])
        + " --out DIR"
        for r in corpus["runs"]
    )
    tail = README_TAIL.format(
        corpus=CORPUS,
        games=corpus["stats"]["games"],
        hands=corpus["stats"]["hands"],
        events=corpus["stats"]["events"],
        runs=runs,
    )
    row = (
        f"| [{CORPUS}]({CORPUS}) | all presets | 2 and 3 | a simulated corpus for SQL "
        "(see below) | "
        + ", ".join(f"{n} {k}" for k, n in corpus["stats"]["outcomes"].items())
        + " |"
    )
    return README_HEAD + "\n".join(rows) + "\n" + row + "\n" + tail


def generate() -> dict[str, bytes]:
    """Every generated file of this folder (name -> bytes), checked."""
    files: dict[str, bytes] = {}
    entries = []
    for s in SAMPLES:
        _, data = build_sample(s)
        check_sample(s, data)
        files[s.file] = data
        entries.append(index_entry(s))
    corpus_envs, corpus = build_corpus()
    corpus["stats"] = corpus_stats(corpus_envs)
    files[CORPUS] = jsonl(corpus_envs)
    index = {
        "samples": entries,
        "corpus": {"file": CORPUS, "validation": "strict", **corpus},
    }
    files["index.json"] = (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode()
    files["README.md"] = readme(entries, corpus).encode()
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare with the files on disk")
    ap.add_argument("--script", metavar="FILE", help="print the script of one sample")
    args = ap.parse_args(argv)
    if args.script:
        for s in SAMPLES:
            if s.file == args.script:
                sys.stdout.write(s.script.strip() + "\n")
                return 0
        print(f"no sample {args.script!r}", file=sys.stderr)
        return 2
    files = generate()
    if args.check:
        stale = [
            n
            for n, data in files.items()
            if not (HERE / n).exists() or (HERE / n).read_bytes() != data
        ]
        for n in stale:
            print(f"samples/{n} is out of date: run samples/make_samples.py", file=sys.stderr)
        return 1 if stale else 0
    for name, data in files.items():
        (HERE / name).write_bytes(data)
    print(f"wrote {len(files)} files in {HERE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
