"""The decisions of a recorded hand, each with the information set of the seat that made it.

A log holds inputs; a *decision* is an input given where the rules offered more than one,
with the options the seat really had. The log is folded by the projector (lenient, so a
record of a table that broke a rule is reviewed up to the break, and retracted inputs are
left out) and, before each input, the legal inputs (:func:`~..engine.actions.legal_actions`)
are read from the state. The kinds:

- ``go_stop``: Go or Stop; ``cup``: the September animal kept as an animal or as double
  junk; ``four``: a four of a month in hand shown (and paid at once) or kept (chongtong).
- ``capture``: which of two layout cards a played or turned card takes. When the record
  does not know the seat's hand, only the card it played is known, so only this choice is.
- ``play``: which card to play, where (every card of a known hand, every capture; when
  the card played could take either of two cards, that choice is also a ``capture``
  decision of its own, at the same seq);
  ``bomb``, ``shake``, ``flip_only``: a play turn where one of these was offered or given
  (the other options of that turn are the plays). A shake asked once the card is chosen is
  ``shake`` too.
- ``sell``: a seat sitting out (4-5 players) sells its brights or keeps them; the price is
  a fact, so the review is exact.

The information set (:func:`information_set`) is the strong bot's view of the seat
(:func:`~..sim.view.seat_view`: its own hand, the layout, the piles, the counters, every card
seen, never another hand or the stock), corrected for a record that did not see the seat's
own hand: those cards stay unknown, but for the card it played, which the seat held.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from .. import notation
from ..engine.actions import legal_actions
from ..engine.game import GameState, apply_game
from ..engine.moves import equivalent
from ..engine.rulebook import seats as SEATS
from ..engine.state import HandState, Phase
from ..projector import Projector
from ..sim.strong import candidates
from ..sim.view import SeatView, seat_view

__all__ = [
    "DEFAULT_KINDS",
    "KINDS",
    "Decision",
    "Keep",
    "decision_at",
    "find_decisions",
    "information_set",
    "label",
]

#: Every kind of decision, in the order they are described above.
KINDS = ("go_stop", "cup", "four", "capture", "play", "bomb", "shake", "flip_only", "sell")
#: The kinds a review judges unless told otherwise: all but ``play``, whose every card and
#: capture is played out (ten options and more: ten times the time of a Go/Stop).
DEFAULT_KINDS = tuple(k for k in KINDS if k != "play")
_IDX = C.CODE_TO_INDEX
_MM = C.MONTH_MASKS
_FOURS = (E.FourOfAMonthShown, E.FourKept)
#: Inputs that answer a question of the rules (Go or Stop, the cup, a shake once asked).
_ANSWERS = (E.GoCalled, E.StopCalled, E.CupAssigned, E.Shaken, E.ShakeDeclined)


@dataclass(frozen=True, slots=True)
class Keep:
    """The option of not selling: a seat sitting out keeps its brights (no input records it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision: ``options[taken]`` is the input the seat gave.

    ``view`` is everything a judgement of it may read (``None`` for a sale, whose values
    ``exact`` are known: the price paid, or nothing kept)."""

    seq: int
    hand: int
    seat: int
    kind: str
    options: tuple[Any, ...]
    taken: int
    view: SeatView | None
    stake: int
    exact: tuple[int, ...] | None = None


#: Options worded here, not in the script notation: its lines for these name a seat, and
#: :class:`Keep` is no input at all.
_LABELS: dict[type, Callable[[Any], str]] = {
    Keep: lambda o: "keep the brights",
    E.BrightsSold: lambda o: "sell " + " ".join(o.cards),
    E.FourKept: lambda o: "keep the four",
    E.FourOfAMonthShown: lambda o: (
        "show the four of " + ", ".join(f"{f.month:02d}" for f in o.shown)
    ),
}


def label(option: Any) -> str:
    """An option in the script notation ("go", "play 09R choose 09J1"), without the seat."""
    own = _LABELS.get(type(option))
    return own(option) if own is not None else notation.text(option)


def information_set(state: HandState, seat: int, options: Sequence[Any]) -> SeatView:
    """What ``seat`` knows of ``state`` while it chooses among ``options`` (see the module
    docstring). The view copies what it keeps: ``state`` is not changed."""
    view = seat_view(state, seat, tuple(options))
    unknown = state.hand_unknown[seat]
    if not unknown:
        return view
    v = view.state
    held = 0
    for a in options:  # the card the seat played from a hand the record did not see
        if type(a) is E.CardPlayed and not state.hands[seat] >> _IDX[a.card] & 1:
            held |= 1 << _IDX[a.card]
    if held.bit_count() > 1:  # options of any unseen card: none of them is known to be held
        held = 0
    v.hands = v.hands[:]
    v.hands[seat] |= held
    v.hand_unknown = v.hand_unknown[:]
    v.hand_unknown[seat] = unknown - held.bit_count()
    v.seen |= held
    return SeatView(seat, v, view.actions, view.flip)


def _same_play(a: Any, b: Any, state: HandState) -> bool:
    """Two plays that change nothing between them (``candidates`` keeps one of them)."""
    if type(a) is not E.CardPlayed or type(b) is not E.CardPlayed or a.chosen != b.chosen:
        return False
    i, j = _IDX[a.card], _IDX[b.card]
    return C.month_of(i) == C.month_of(j) and equivalent(i, j, state.table)


def _with_taken(state: HandState, options: list[Any], ev: Any) -> tuple[list[Any], int]:
    """``options`` less the plays equal to another, with the one taken kept; its index."""
    opts = candidates(state, options)
    if ev in opts:
        return opts, opts.index(ev)
    for k, a in enumerate(opts):
        if _same_play(a, ev, state):
            opts[k] = ev
            return opts, k
    return [*opts, ev], len(opts)


#: A turn offering one of these inputs is of its kind (the first offered, in this order).
_PLAY_KINDS = ((E.BombPlayed, "bomb"), (E.Shaken, "shake"), (E.FlipOnlyPlayed, "flip_only"))


def _play_kind(options: Sequence[Any], ev: Any) -> str:
    types = {type(a) for a in options}
    kind = next((k for cls, k in _PLAY_KINDS if cls in types), None)
    if kind is not None:
        return kind
    if all(type(a) is E.CardPlayed and a.card == ev.card for a in options):
        return "capture"
    return "play"


def _decision_of(state: HandState, ev: Any) -> tuple[int, str, list[Any], int] | None:
    """(seat, kind, options, index taken) of the input ``ev`` in ``state``; None when the
    record offers no choice (or does not know the seat's alternatives)."""
    t = type(ev)
    acts = legal_actions(state)
    phase = state.phase
    if t in _ANSWERS and ev not in acts:
        return None  # an input the rules do not offer here: nothing to compare it with
    if phase is Phase.DECIDE:
        return state.decider, "go_stop", acts, acts.index(ev)
    if phase is Phase.CUP:
        return state.decider, "cup", acts, acts.index(ev)
    if phase in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        seat = state.turn_seat
        if t in (E.Shaken, E.ShakeDeclined):
            return seat, "shake", acts, acts.index(ev)
        opts = [a for a in acts if type(a) is E.CardFlipped and a.card == ev.card]
        if len(opts) < 2 or ev not in opts:
            return None
        return seat, "capture", opts, opts.index(ev)
    if phase is not Phase.PLAY:
        return None
    if t in _FOURS:
        holders = [s for s in range(state.players) if state.fours_pending >> s & 1]
        if len(holders) != 1:
            return None
        who = holders[0]
        opts = [a for a in acts if type(a) is E.FourOfAMonthShown or a == E.FourKept(seat=who)]
        if len(opts) < 2:
            return None
        return who, "four", opts, opts.index(ev)
    seat = state.turn_seat
    plays = [a for a in acts if type(a) not in _FOURS]
    if state.hand_unknown[seat]:
        # only the card played is known: the choice left is where it goes
        if t is not E.CardPlayed:
            return None
        plays = [a for a in plays if type(a) is E.CardPlayed and a.card == ev.card]
    if len(plays) < 2:
        return None
    opts, k = _with_taken(state, plays, ev)
    if len(opts) < 2:
        return None
    return seat, _play_kind(opts, ev), opts, k


def _capture_within(state: HandState, ev: Any) -> list[Any] | None:
    """The options of where a card played from a known hand goes, when it lands on two
    cards of its month: the capture choice inside a play, reviewed on its own too."""
    if type(ev) is not E.CardPlayed or state.phase is not Phase.PLAY:
        return None
    opts = [a for a in legal_actions(state) if type(a) is E.CardPlayed and a.card == ev.card]
    return opts if len(opts) > 1 and ev in opts else None


def decision_at(state: HandState, ev: Any, seq: int = 0, stake: int = 1) -> Decision | None:
    """The decision the input ``ev`` makes in ``state`` (a hand in progress: a record's, or
    one built by hand), or None when the state offers no choice; ``seq`` and ``stake`` name
    it and scale its grade."""
    found = _decision_of(state, ev)
    if found is None:
        return None
    who, kind, options, k = found
    view = information_set(state, who, options)
    return Decision(seq, state.hand_no, who, kind, tuple(options), k, view, stake)


def _sale_value(game: GameState, sale: E.BrightsSold) -> int:
    """The chips a sale brings its seller (as the chips on the table let it be paid)."""
    _, derived = apply_game(game, sale)
    return sum(d.chips for d in derived if type(d) is E.PaymentDue and d.payee == sale.seat)


def _sales(
    game: GameState, seq: int, sold: dict[int, tuple[int, E.BrightsSold, GameState]]
) -> list[Decision]:
    """The sale decisions of a hand, at its first play: every seat sitting out that sold, and
    every one that kept brights it could have sold (when the record knows its hand)."""
    h = game.hand
    assert h is not None
    out = []
    for seat in game.sat_out:
        if seat in sold:
            at, sale, before = sold[seat]
            taken = 0
        else:
            if h.stock is None:
                continue
            block = SEATS.seller_block(h.stock, list(game.sat_out), seat, game.table.hand_size)
            brights = [C.CODES[i] for i in sorted(block) if (1 << i) & C.BRIGHTS]
            if not brights:
                continue
            at, sale, taken = seq, E.BrightsSold(seat=seat, cards=brights), 1
            before = game
        try:
            price = _sale_value(before, sale)
        except Exception:  # a sale the rules refuse here: no decision to judge
            continue
        out.append(
            Decision(
                at, h.hand_no, seat, "sell", (sale, Keep(seat)), taken, None, game.stake, (price, 0)
            )
        )
    return out


def find_decisions(
    envelopes: Sequence[E.Envelope],
    hand: int | None = None,
    seat: int | None = None,
    kinds: Sequence[str] | None = None,
) -> list[Decision]:
    """The decisions of ``seat`` (every seat when None) in ``hand`` (every hand when None),
    in log order. A hand is read up to the first input the rules refuse."""
    p = Projector(strict=False)
    inputs: list[tuple[int, GameState, Any]] = []
    for env in envelopes:
        before = p.game
        issues = len(p.issues)
        was_desync = p.desync
        p.feed(env)
        ev = env.event
        if not E.is_input(ev) or before is None or type(ev) is E.EntryRetracted:
            continue
        if was_desync is not None or len(p.issues) > issues:
            continue  # a hand the rules stopped checking: nothing to judge in it
        inputs.append((env.seq, before, ev))
    gone = set(p.retracted)
    out: list[Decision] = []
    sold: dict[int, tuple[int, E.BrightsSold, GameState]] = {}
    sales_done = -1
    for seq, game, ev in inputs:
        h = game.hand
        if seq in gone or h is None or not game.in_hand:
            continue
        if hand is not None and h.hand_no != hand:
            continue
        if type(ev) is E.BrightsSold:
            sold[ev.seat] = (seq, ev, game)
            continue
        if game.sat_out and sales_done != h.hand_no and h.phase is not Phase.DEAL:
            sales_done = h.hand_no
            out.extend(_sales(game, seq, sold))
            sold = {}
        found = _decision_of(h, ev)
        if found is None:
            continue
        who, kind, options, k = found
        view = information_set(h, who, options)
        out.append(Decision(seq, h.hand_no, who, kind, tuple(options), k, view, game.stake))
        inner = _capture_within(h, ev) if kind != "capture" else None
        if inner is not None:
            view = information_set(h, who, inner)
            d = Decision(
                seq, h.hand_no, who, "capture", tuple(inner), inner.index(ev), view, game.stake
            )
            out.append(d)
    return [
        d for d in out if (seat is None or d.seat == seat) and (kinds is None or d.kind in kinds)
    ]
