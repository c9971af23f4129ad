"""The state of one hand: layout by month with its stacks, hands, stock, piles, counters.

Sets of cards are int bitmasks (see ``cards``). Hidden information is first-class: a hand is
a mask of known cards plus a count of unknown ones, and the stock is either a known order or
a count, because a recorder at a real table sees the layout and the flips but rarely the
other hands or the stock. ``seen`` holds every card whose place is known, so that a card
revealed later can be checked never to have been seen elsewhere.

The engine treats a state as immutable: ``apply`` copies it (:meth:`HandState.copy`) and
changes the copy. Only lists of ints are copied, which keeps replay fast.
"""

from __future__ import annotations

import enum
from typing import Any

from ..cards import (
    ALL_CARDS,
    ANIMALS,
    BRIGHTS,
    MONTH_MASKS,
    RIBBONS,
    codes,
    popcount,
)
from .scoring import points, score
from .table import Table

__all__ = ["HandState", "Phase", "TurnEnd"]


class Phase(enum.IntEnum):
    """What the hand waits for next."""

    DEAL = 0  # cards_dealt
    PLAY = 1  # the turn seat plays: a card, a bomb, a flip-only turn, a shake (or shows fours)
    FLIP = 2  # the turn seat turns the stock
    FLIP_AS_PLAY = 3  # a stock card turned to be played in place of a joker (general page)
    CUP = 4  # the turn seat decides the September cup
    DECIDE = 5  # the turn seat says Go or Stop
    ENDED = 6  # the hand is over


class TurnEnd:
    """What the rules know of a turn once it is resolved, kept for the store's ``turns``
    rows (which read the rest of a turn from the record): the mover's combination score,
    which the rules compute for Go or Stop anyway, and whether the turn swept the layout
    (captured and left it empty; what a ``sseul`` steal looks for, whether or not the
    ruleset pays it). Never changed once made, so a copied hand shares it. A plain class
    rather than a ``NamedTuple``, which the compiled kernel would build through interpreted
    code at every turn."""

    __slots__ = ("score", "swept")

    def __init__(self, score: int, swept: bool) -> None:
        self.score = score
        self.swept = swept

    def __repr__(self) -> str:
        return f"TurnEnd(score={self.score}, swept={self.swept})"


class HandState:
    """One hand in progress. Seats are 0..players-1; ``order`` is the turn order."""

    __slots__ = (
        "bombs",
        "buried",
        "carry",
        "cup_role",
        "dealer",
        "decider",
        "flip_only",
        "fours_pending",
        "go_count",
        "go_order",
        "go_score",
        "go_seq",
        "hand_no",
        "hand_unknown",
        "hands",
        "idle_turns",
        "instant_dues",
        "kept_fours",
        "last_capture",
        "layout",
        "order",
        "outcome",
        "owner",
        "phase",
        "piles",
        "ppuk_count",
        "ppuk_streak",
        "proof",
        "reason",
        "seen",
        "shaken_months",
        "shakes",
        "stock",
        "stock_count",
        "stock_pos",
        "table",
        "turn",
        "turn_ends",
        "turn_index",
        "turn_seat",
        "turns_taken",
        "two_bombs",
        "winner",
    )

    def __init__(self, table: Table, hand_no: int, dealer: int, order: list[int], carry: int):
        n = table.players
        self.table = table
        self.hand_no = hand_no
        self.dealer = dealer
        self.order = order
        self.carry = carry
        self.phase = Phase.DEAL
        self.turn_seat = dealer
        self.turn_index = 0  # index into order of the seat to move
        self.hands = [0] * n  # known hand cards
        self.hand_unknown = [0] * n  # hand cards not known to the record
        self.layout = 0
        self.owner = [-1] * 13  # ppuk owner seat per month of a stack on the layout; -1 = none
        self.stock: list[int] | None = None  # known stock order, drawn from stock_pos on
        self.stock_pos = 0
        self.stock_count = 0
        self.piles = [0] * n
        self.seen = 0
        self.flip_only = [0] * n
        self.turns_taken = [0] * n
        self.go_count = [0] * n
        self.go_score = [0] * n
        self.go_order = [0] * n  # sequence number of each seat's latest Go, for dokbak
        self.go_seq = 0
        self.ppuk_count = [0] * n
        self.ppuk_streak = [0] * n  # ppuk on each of the first k turns in a row
        self.idle_turns = [0] * n  # the seat's latest turns in a row that took no card (hudang)
        self.shakes = [0] * n
        self.bombs = [0] * n
        self.two_bombs = [0] * n  # of those bombs, the two-card ones
        # bonus cards buried in the ppuk stack of each month (bonus_buried_in_ppuk); their
        # bits are on the layout too, outside every month mask
        self.buried = [0] * 13
        self.shaken_months = [0] * n  # bit m set = month m shown by this seat
        self.cup_role: str | None = None  # recorded cup decision (player_choice)
        self.decider = -1
        self.turn: Turn | None = None
        self.last_capture = 0  # cards the mover took in the last resolved turn
        self.outcome: str | None = None
        self.winner: int | None = None
        self.reason = ""
        self.fours_pending = 0  # seats (bitmask) whose known hand holds a four of a month
        self.kept_fours = [0] * n  # fours each seat kept and played on with (hand_four_keep)
        self.instant_dues: list[tuple[int, int, int, str]] = []  # payer, payee, points, reason
        self.proof: Any = None  # the settlement proof of a hand won by a Stop, once settled
        # each resolved turn, in turn order (see :meth:`end_turn`)
        self.turn_ends: list[TurnEnd] = []

    def copy(self) -> HandState:
        """A copy whose mutable parts are fresh; ``stock`` and ``order`` are never changed."""
        # through __init__, not object.__new__: a compiled class allows no other way in
        new = HandState(self.table, self.hand_no, self.dealer, self.order, self.carry)
        new.table = self.table
        new.hand_no = self.hand_no
        new.dealer = self.dealer
        new.order = self.order
        new.carry = self.carry
        new.phase = self.phase
        new.turn_seat = self.turn_seat
        new.turn_index = self.turn_index
        new.hands = self.hands[:]
        new.hand_unknown = self.hand_unknown[:]
        new.layout = self.layout
        new.owner = self.owner[:]
        new.stock = self.stock
        new.stock_pos = self.stock_pos
        new.stock_count = self.stock_count
        new.piles = self.piles[:]
        new.seen = self.seen
        new.flip_only = self.flip_only[:]
        new.turns_taken = self.turns_taken[:]
        new.go_count = self.go_count[:]
        new.go_score = self.go_score[:]
        new.go_order = self.go_order[:]
        new.go_seq = self.go_seq
        new.ppuk_count = self.ppuk_count[:]
        new.ppuk_streak = self.ppuk_streak[:]
        new.idle_turns = self.idle_turns[:]
        new.shakes = self.shakes[:]
        new.bombs = self.bombs[:]
        new.two_bombs = self.two_bombs[:]
        new.buried = self.buried[:]
        new.shaken_months = self.shaken_months[:]
        new.cup_role = self.cup_role
        new.decider = self.decider
        turn = self.turn
        new.turn = None if turn is None else turn.copy()
        new.last_capture = self.last_capture
        new.outcome = self.outcome
        new.winner = self.winner
        new.reason = self.reason
        new.fours_pending = self.fours_pending
        new.kept_fours = self.kept_fours[:]
        new.instant_dues = self.instant_dues[:]
        new.proof = self.proof
        new.turn_ends = self.turn_ends[:]
        return new

    # --- derived views -----------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.table.players

    def hand_count(self, seat: int) -> int:
        return popcount(self.hands[seat]) + self.hand_unknown[seat]

    def turns_left(self, seat: int) -> int:
        """Cards in hand plus flip-only turns: every turn uses exactly one of them."""
        return self.hand_count(seat) + self.flip_only[seat]

    def stock_known(self) -> bool:
        return self.stock is not None

    def stock_top(self) -> int | None:
        if self.stock is None or self.stock_pos >= len(self.stock):
            return None
        return self.stock[self.stock_pos]

    def month_cards(self, month: int) -> int:
        return self.layout & MONTH_MASKS[month]

    def score_of(self, seat: int) -> int:
        return points(self.table, self.piles[seat], self.cup_role)

    def end_turn(self, seat: int) -> int:
        """Close the turn just resolved (its captures in ``last_capture``), keeping its
        :class:`TurnEnd`; the mover's score."""
        sc = self.score_of(seat)
        self.turn_ends.append(TurnEnd(sc, self.layout == 0 and self.last_capture != 0))
        return sc

    def itemised(self, seat: int) -> Any:
        return score(self.table, self.piles[seat], self.cup_role)

    def unknown_pool(self) -> int:
        """Cards in play whose place the record does not know."""
        return self.table.deck & ~self.seen

    def card_total(self) -> int:
        """Cards accounted for: every place, known or counted. Always the deck size."""
        known = popcount(self.layout)
        for s in range(self.players):
            known += popcount(self.piles[s]) + popcount(self.hands[s]) + self.hand_unknown[s]
        if self.stock is None:
            known += self.stock_count
        else:
            known += len(self.stock) - self.stock_pos
        return known

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view of the table for displays and ``--json`` output."""
        t = self.table
        layout = []
        for m in range(1, 13):
            cards = self.layout & MONTH_MASKS[m] | self.buried[m]
            if cards:
                entry: dict[str, Any] = {"month": m, "cards": codes(cards)}
                if popcount(cards & MONTH_MASKS[m]) == 3:
                    entry["stack"] = True
                    entry["ppuk_owner"] = None if self.owner[m] < 0 else self.owner[m]
                layout.append(entry)
        seats = []
        for s in range(self.players):
            sc = self.itemised(s)
            pile = self.piles[s]
            seats.append(
                {
                    "seat": s,
                    "plays": s in self.order,  # false: the seat sits this hand out (4-5 seats)
                    "hand": codes(self.hands[s]) if not self.hand_unknown[s] else None,
                    "hand_known": codes(self.hands[s]),
                    "hand_unknown": self.hand_unknown[s],
                    "hand_count": self.hand_count(s),
                    "flip_only_turns": self.flip_only[s],
                    "pile": {
                        "brights": codes(pile & BRIGHTS),
                        "animals": codes(pile & ANIMALS),
                        "ribbons": codes(pile & RIBBONS),
                        "junk": codes(pile & (t.stealable)),
                    },
                    "score": sc.total,
                    "score_lines": [
                        {
                            "combo": ln.combo,
                            "name": ln.name,
                            "cards": list(ln.cards),
                            "points": ln.points,
                        }
                        for ln in sc.lines
                    ],
                    "cup_role": sc.cup_role,
                    "go_count": self.go_count[s],
                    "ppuk_count": self.ppuk_count[s],
                    "shakes": self.shakes[s],
                    "bombs": self.bombs[s],
                }
            )
        top = self.stock_top()
        return {
            "hand": self.hand_no,
            "dealer": self.dealer,
            "order": list(self.order),
            "phase": self.phase.name.lower(),
            "turn_seat": self.turn_seat if self.phase is not Phase.ENDED else None,
            "layout": layout,
            "stock_count": self.stock_remaining(),
            "stock_next": ALL_CARDS[top].code if top is not None else None,
            "seats": seats,
            "carry": self.carry,
            "outcome": self.outcome,
            "winner": self.winner,
            "reason": self.reason or None,
        }

    def stock_remaining(self) -> int:
        if self.stock is None:
            return self.stock_count
        return len(self.stock) - self.stock_pos

    def __str__(self) -> str:
        return render(self)


class Turn:
    """Scratch of the turn in progress, between the play and the flip."""

    __slots__ = (
        "bomb",
        "bonus_taken",
        "chosen",
        "flip_bonus",
        "layout_before",
        "play_month",
        "play_n",
        "play_source",
        "played",
        "shake_due",
        "shake_month",
        "steals",
        "took",
    )

    def __init__(self, layout_before: int) -> None:
        self.layout_before = layout_before
        self.played = -1  # card played (or turned in place of a joker); -1 = none
        self.play_month = 0
        self.play_n = 0  # cards of the played month on the layout before the play
        self.chosen = -1  # layout card the play pairs with when two matched
        self.bomb = 0  # mask of the bomb cards, 0 = no bomb
        self.shake_month = 0  # on_play shaking: the month shown this turn
        self.shake_due = 0  # shake_asked: the month of the card played, its shake not answered
        self.play_source = "hand"
        self.steals: list[tuple[str, int]] = []  # (reason, amount), in the order they happen
        self.bonus_taken = False
        self.flip_bonus = 0  # bonus cards flipped, held until the turn shows a ppuk or not
        self.took = False  # a bonus card went to the mover's pile (hudang counts no-card turns)

    def copy(self) -> Turn:
        new = Turn(self.layout_before)
        new.layout_before = self.layout_before
        new.played = self.played
        new.play_month = self.play_month
        new.play_n = self.play_n
        new.chosen = self.chosen
        new.bomb = self.bomb
        new.shake_month = self.shake_month
        new.shake_due = self.shake_due
        new.play_source = self.play_source
        new.steals = self.steals[:]
        new.bonus_taken = self.bonus_taken
        new.flip_bonus = self.flip_bonus
        new.took = self.took
        return new


def render(state: HandState) -> str:
    """The table as text: layout by month, each seat's hand, pile and score, the stock."""
    t = state.table
    out = [f"hand {state.hand_no}  dealer: seat {state.dealer}  phase: {state.phase.name.lower()}"]
    cells = []
    for m in range(1, 13):
        cards = state.layout & MONTH_MASKS[m]
        if not cards:
            continue
        txt = " ".join(codes(cards | state.buried[m]))
        if popcount(cards) == 3:
            owner = state.owner[m]
            txt = f"[{txt}]" + (f" ppuk:seat{owner}" if owner >= 0 else " stack")
        cells.append(f"{m:02d}: {txt}")
    out.append("layout  " + (" | ".join(cells) if cells else "(empty)"))
    top = state.stock_top()
    nxt = f", next {ALL_CARDS[top].code}" if top is not None else ""
    out.append(f"stock   {state.stock_remaining()} cards{nxt}")
    for s in range(state.players):
        hand = " ".join(codes(state.hands[s]))
        if state.hand_unknown[s]:
            hand = (hand + " " if hand else "") + f"+{state.hand_unknown[s]} unknown"
        extra = f" (+{state.flip_only[s]} flip-only)" if state.flip_only[s] else ""
        mark = ">" if s == state.turn_seat and state.phase is not Phase.ENDED else " "
        out.append(f"{mark}seat {s} hand: {hand or '-'}{extra}")
        pile = state.piles[s]
        groups = []
        for name, mask in (
            ("G", BRIGHTS),
            ("A", ANIMALS),
            ("R", RIBBONS),
            ("J", t.stealable),
        ):
            got = codes(pile & mask)
            if got:
                groups.append(f"{name}: {' '.join(got)}")
        sc = state.itemised(s)
        flags = []
        if state.go_count[s]:
            flags.append(f"{state.go_count[s]} Go")
        if state.ppuk_count[s]:
            flags.append(f"{state.ppuk_count[s]} ppuk")
        if state.shakes[s]:
            flags.append(f"{state.shakes[s]} shake")
        if state.bombs[s]:
            flags.append(f"{state.bombs[s]} bomb")
        fl = f"  [{', '.join(flags)}]" if flags else ""
        out.append(f"        pile: {'; '.join(groups) or '-'}  score: {sc}{fl}")
    if state.phase is Phase.ENDED:
        who = f" seat {state.winner}" if state.winner is not None else ""
        out.append(f"ended: {state.outcome}{who} ({state.reason})")
    return "\n".join(out)
