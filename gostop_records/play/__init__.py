"""A game against the computer, recorded like any table game.

The CARDAVIA page offers "2 players, you vs AI, a single hand" under a precise ruleset. A
:class:`PlaySession` offers that (and the other presets, with one or two bots) on the same
engine that replays and audits logs: the deck comes from the seeded dealer, the whole deal is
recorded (digital play knows every hand, the stock and the shuffled deck), and every input,
the human's and the bots', goes through a :class:`~gostop_records.recorder.RecordingSession`,
so each entry is checked by the rules before it is written and is durable when it returns.
At the end of a hand the amount the rules make due is recorded as paid, as a table would.

What the session tells its user interface: who moves (:meth:`PlaySession.next_step`), what
the human may do and what each hand card would capture (:meth:`PlaySession.options`), the
human's answers read as options (:meth:`PlaySession.parse_play`), the bots' moves one input
at a time (:meth:`PlaySession.bot_step`, an :class:`~gostop_records.recorder.Entry` with its
consequences), what a Stop would pay now (:meth:`PlaySession.stop_value`) and the final proof.

Randomness comes from :class:`~gostop_records.sim.dealer.SplitMix64` streams named after
the seed: ``"{seed}/play-{ruleset}-{n}p-{seed}"`` picks the first player (CARDAVIA C2.3:
chosen at random), ``.../hand{h}`` shuffles hand ``h`` and ``.../bot{s}`` breaks seat ``s``'s
ties. The same seed and the same answers give the same payloads.

No terminal I/O here: the ``gostop play`` command is the user interface.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from .. import log as L
from .. import notation
from ..engine.actions import legal_actions
from ..engine.game import GameState, HandResult
from ..engine.scoring import points
from ..engine.settlement import Proof, settle
from ..engine.state import HandState, Phase
from ..engine.table import table_for
from ..engine.turn import facts_of
from ..errors import GostopError
from ..people import derived_person_id
from ..recorder import Clock, Entry, EventSink, RecordingSession, card_code, make_players
from ..rules import BonusPlay, LastTurnRule, Ruleset, Shaking, StealCount, resolve
from ..sim.bots import Bot
from ..sim.dealer import SplitMix64, deal, shuffled_deck
from ..sim.roster import known, make_bot
from ..sim.roster import names as bot_and_level_names

__all__ = [
    "DEFAULT_BOT",
    "HUMAN",
    "Option",
    "PlayInputError",
    "PlaySession",
    "Step",
    "bot_names",
    "new_play_id",
    "random_seed",
    "resolve_setup",
    "seat_names",
]

#: The human's seat; the bots sit after it.
HUMAN = 0
DEFAULT_BOT = "greedy"
CODES = C.CODES
_MM = C.MONTH_MASKS

#: Steps the session takes by itself, without an answer from anybody.
AUTOMATIC = frozenset({"deal", "fours", "pay"})


class PlayInputError(GostopError):
    """An answer the session cannot take, with the reason; nothing was written."""


def random_seed() -> int:
    """A fresh seed for a game nobody asked to replay (shown, so it can be)."""
    return secrets.randbelow(10**9)


def new_play_id(clock: Clock = L.now) -> str:
    """A fresh game id for a game against the computer: ``play-2026-05-01-3fa2c1``."""
    return f"play-{clock()[:10]}-{secrets.token_hex(3)}"


def resolve_setup(ruleset: str | Ruleset, players: int | None = None) -> tuple[Ruleset, int]:
    """The ruleset and the player count of a game: ``players`` defaults to 2 when the
    ruleset is played by two, else its smallest table; a count it is not played with is a
    :class:`~gostop_records.errors.RulesetError`."""
    rules = ruleset if isinstance(ruleset, Ruleset) else resolve(ruleset)
    n = players if players is not None else (2 if 2 in rules.players else rules.players[0])
    table_for(rules, n)
    return rules, n


def bot_names(players: int) -> list[str]:
    """Display names of the bots' seats: ``Computer``, or ``Computer 1`` and ``Computer 2``."""
    if players == 2:
        return ["Computer"]
    return [f"Computer {k}" for k in range(1, players)]


def seat_names(name: str, players: int) -> list[str]:
    """The names in seat order: the human's (``You`` when blank), then the bots'; a name
    that clashes with a bot's is a :class:`~gostop_records.errors.GostopError`."""
    names = [name.strip() or "You", *bot_names(players)]
    seated(names)  # refuses two seats with one name
    return names


def seated(names: Sequence[str], person: str | None = None) -> list[E.Player]:
    """The seats as persons: the human is ``person`` (a browser's own, on ``/play``), or
    the person of their name when none is given (one player at a terminal); each bot is
    the person of its name, the same in every game."""
    return make_players(
        [
            E.Player(id=(person if s == 0 and person else derived_person_id(n)), name=n)
            for s, n in enumerate(names)
        ]
    )


@dataclass(frozen=True, slots=True)
class Step:
    """What the game waits for next.

    ``kind``: ``deal`` (the next deal: the first one, or again after a void deal), ``fours``
    (four of a month held at the deal must be shown), ``play``, ``flip``, ``cup`` (the
    September cup's role), ``decide`` (Go or Stop), ``pay`` (record the payments of a
    finished hand), ``hand_over`` (a hand is over and paid; another may follow), ``over``
    (a single-hand game has ended). ``human`` says whether the human answers it.
    """

    kind: str
    seat: int | None
    hand: int
    human: bool = False

    @property
    def automatic(self) -> bool:
        return self.kind in AUTOMATIC


@dataclass(frozen=True, slots=True)
class Option:
    """One thing the human may do at the play prompt, with what it would do.

    ``kind``: ``card`` (play a hand card), ``bomb``, ``shake`` or ``flip_only``. ``takes`` is
    the layout cards a played card takes by itself (before the flip); when ``choose`` is
    true it takes one of them and the player says which. ``text`` says it in words
    ("takes 03G", "stays", "takes the stack of 05: +1 junk from Computer").
    """

    number: int
    kind: str
    label: str
    card: str | None
    month: int
    cards: tuple[str, ...]
    takes: tuple[str, ...]
    choose: bool
    text: str
    actions: tuple[Any, ...]

    def action(self, chosen: str | None = None) -> Any:
        """The payload to record; ``chosen`` names the layout card when there is a choice."""
        if not self.choose:
            if chosen is not None and chosen not in self.takes:
                raise PlayInputError(f"{self.label} has no choice to make ({chosen} given)")
            return self.actions[0]
        if chosen is None:
            raise PlayInputError(
                f"{self.label} matches {' and '.join(self.takes)}: say which it takes"
            )
        for a in self.actions:
            if a.chosen == chosen:
                return a
        raise PlayInputError(f"{self.label} can take {' or '.join(self.takes)}, not {chosen}")


class PlaySession:
    """A game of one human (seat 0) against one or two bots; see the module docstring.

    Build with :meth:`start`. Every method that moves the game returns the entries written,
    each with its input envelope and the consequences the rules derived.
    """

    def __init__(self, rec: RecordingSession, *, seed: int, bots: Sequence[str], key: str) -> None:
        self.rec = rec
        self.seed = seed
        self.key = key
        self.bot_kinds = tuple(bots)
        n = rec.game.table.players
        self._bots: dict[int, Bot] = {
            s: make_bot(bots[s - 1], SplitMix64(f"{seed}/{key}/bot{s}")) for s in range(1, n)
        }
        self.first_player = SplitMix64(f"{seed}/{key}").below(n)

    @classmethod
    def start(
        cls,
        sink: EventSink,
        ruleset: str | Ruleset = "cardavia",
        *,
        players: int | None = None,
        bot: str | Sequence[str] = DEFAULT_BOT,
        seed: int = 0,
        name: str = "You",
        person: str | None = None,
        stake: int = 1,
        game_id: str | None = None,
        by: str = "play",
        clock: Clock = L.now,
    ) -> PlaySession:
        """A new game written to ``sink``: ``game_started`` with the pinned ruleset, the
        human in seat 0 and the bots after it, the stake; the seed is in its notes.

        ``players`` defaults to 2 when the ruleset is played by two, else its smallest
        table; ``bot`` is one bot kind for every computer seat, or one per seat. ``person``
        is the human's person id (see :func:`seated`).
        """
        rules, n = resolve_setup(ruleset, players)
        kinds = [bot] * (n - 1) if isinstance(bot, str) else list(bot)
        if len(kinds) != n - 1:
            raise GostopError(f"{n} players need {n - 1} bot(s), {len(kinds)} given")
        for k in kinds:
            if not known(k):
                raise GostopError(f"unknown bot {k!r}: {bot_and_level_names()}")
        if seed < 0:
            raise GostopError(f"the seed is a whole number 0 or more, not {seed}")
        names = seat_names(name, n)
        lineup = ", ".join(dict.fromkeys(kinds))
        rec = RecordingSession.start(
            sink,
            seated(names, person),
            rules,
            stake=stake,
            game_id=game_id or new_play_id(clock),
            by=by,
            notes=f"played against the computer ({lineup} bot), seed {seed}",
            clock=clock,
        )
        return cls(rec, seed=seed, bots=kinds, key=f"play-{rules.name}-{n}p-{seed}")

    def close(self) -> None:
        self.rec.close()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the state -----------------------------------------------------------------------

    @property
    def game(self) -> GameState:
        return self.rec.game

    @property
    def hand(self) -> HandState | None:
        return self.rec.hand

    @property
    def rules(self) -> Ruleset:
        return self.rec.rules

    @property
    def players(self) -> tuple[E.Player, ...]:
        return self.rec.players

    @property
    def game_id(self) -> str:
        return self.rec.game_id

    @property
    def location(self) -> str:
        return self.rec.sink.location

    @property
    def envelopes(self) -> list[E.Envelope]:
        return self.rec.envelopes

    @property
    def multi_hand(self) -> bool:
        """Whether the game goes on after a hand (every preset but CARDAVIA's)."""
        return not self.rules.single_hand

    def next_step(self) -> Step:
        """What the game waits for now (see :class:`Step`)."""
        g = self.game
        h = g.hand
        if h is not None and h.phase is not Phase.ENDED:
            if h.phase is Phase.DEAL:
                return Step("deal", h.dealer, h.hand_no)
            if h.phase in (Phase.CUP, Phase.DECIDE):
                seat = h.decider
                kind = "cup" if h.phase is Phase.CUP else "decide"
            elif h.phase is Phase.PLAY:
                seat = h.turn_seat
                kind = "play"
                if h.fours_pending:
                    acts = legal_actions(h)
                    if len(acts) == 1 and type(acts[0]) is E.FourOfAMonthShown:
                        return Step("fours", None, h.hand_no)
            else:
                seat = h.turn_seat
                kind = "flip"
            return Step(kind, seat, h.hand_no, seat == HUMAN)
        if self.rec.pending_dues():
            return Step("pay", None, g.hand_no)
        if g.finished:
            return Step("over", None, g.hand_no)
        if h is None or h.outcome == "void":
            dealer = g.next_dealer if g.next_dealer is not None else self.first_player
            return Step("deal", dealer, g.hand_no + 1)
        return Step("hand_over", None, g.hand_no)

    def result(self, hand: int | None = None) -> HandResult | None:
        """How a hand ended (the latest by default); None while it is in progress."""
        return self.rec.result(hand)

    def proof(self, hand: int | None = None) -> Proof | None:
        """The payout proof of a hand won by a Stop (the latest by default)."""
        return self.rec.proof(hand)

    # --- automatic steps -----------------------------------------------------------------

    def _expect(self, *kinds: str) -> Step:
        step = self.next_step()
        if step.kind not in kinds:
            raise PlayInputError(f"the game waits for {step.kind}, not {' or '.join(kinds)}")
        return step

    def deal(self) -> list[Entry]:
        """The next hand from the seeded dealer: ``hand_started`` with the shuffled deck,
        then ``cards_dealt`` with every hand and the stock (and what the rules derive)."""
        self._expect("deal", "hand_over")
        g = self.game
        t = g.table
        n = t.players
        dealer = g.next_dealer if g.next_dealer is not None else self.first_player
        hand_no = g.hand_no + 1
        deck = shuffled_deck(t, SplitMix64(f"{self.seed}/{self.key}/hand{hand_no}"))
        started = self.rec.record(
            E.HandStarted(
                hand=hand_no,
                dealer=dealer,
                order=[(dealer + k) % n for k in range(n)],
                deck=[CODES[i] for i in deck],
            )
        )
        d = deal(t, deck, dealer)
        dealt = self.rec.record(
            E.CardsDealt(
                hands=[[CODES[i] for i in hand] for hand in d.hands],
                layout=[CODES[i] for i in d.layout],
                stock=[CODES[i] for i in d.stock],
                bonus_to_pile=[CODES[i] for i in d.bonus_to_pile],
            )
        )
        return [started, dealt]

    def show_fours(self) -> Entry:
        """Four of a month held at the deal, shown as the rules require (an instant win)."""
        self._expect("fours")
        h = self.hand
        assert h is not None
        return self.rec.record(legal_actions(h)[0])

    def pay(self) -> list[Entry]:
        """Every payment the finished hand made due, recorded as paid at the computed amount."""
        self._expect("pay")
        return self.rec.pay_due()

    # --- the bots ------------------------------------------------------------------------

    def bot_step(self) -> Entry:
        """One input of the bot whose move it is (a play, a flip, the cup, Go or Stop)."""
        step = self.next_step()
        if step.human or step.seat is None or step.kind not in ("play", "flip", "cup", "decide"):
            raise PlayInputError(f"it is not a computer's move (the game waits for {step.kind})")
        h = self.hand
        assert h is not None
        action = self._bots[step.seat].choose(h, legal_actions(h))
        return self.rec.record(action)

    # --- the human: playing a card -------------------------------------------------------

    def _human_hand(self, kind: str) -> HandState:
        step = self.next_step()
        if not step.human or step.kind != kind:
            who = "you" if step.human else "the computer"
            raise PlayInputError(f"it is not your {kind} now ({who}: {step.kind})")
        h = self.hand
        assert h is not None
        return h

    def options(self) -> list[Option]:
        """What the human may do at the play prompt, numbered from 1: hand cards in deck
        order, then bombs, shakes and a flip-only turn."""
        h = self._human_hand("play")
        acts = legal_actions(h)
        by_card: dict[str, list[Any]] = {}
        extra: list[Any] = []
        for a in acts:
            if type(a) is E.CardPlayed:
                by_card.setdefault(a.card, []).append(a)
            elif type(a) in (E.BombPlayed, E.Shaken, E.FlipOnlyPlayed):
                extra.append(a)
        out: list[Option] = []
        for code, plays in by_card.items():
            out.append(self._card_option(h, len(out) + 1, code, plays))
        order = {E.BombPlayed: 0, E.Shaken: 1, E.FlipOnlyPlayed: 2}
        for a in sorted(extra, key=lambda a: (order[type(a)], getattr(a, "month", 0))):
            out.append(self._extra_option(h, len(out) + 1, a))
        return out

    def _opponents_text(self) -> str:
        n = self.game.table.players
        return f"from {self.players[1].name}" if n == 2 else "from each opponent"

    def _steal_text(self, amount: int) -> str:
        if not amount:
            return ""
        units = self.rules.steal_count is StealCount.UNITS
        what = "junk" if amount == 1 else ("junk units" if units else "junk cards")
        return f": +{amount} {what} {self._opponents_text()}"

    def _card_option(self, h: HandState, number: int, code: str, plays: list[Any]) -> Option:
        i = C.CODE_TO_INDEX[code]
        rules = self.rules
        if i >= 48:
            units = C.ALL_CARDS[i].junk_units
            text = f"a bonus card worth {units} junk: into your pile"
            text += self._steal_text(rules.bonus_steal).replace(":", ",", 1)
            text += (
                "; then you draw a card and play again"
                if rules.bonus_play is BonusPlay.DRAW_AND_PLAY_AGAIN
                else "; then the stock top is played in its place"
            )
            return Option(number, "card", code, code, 0, (code,), (), False, text, tuple(plays))
        m = C.month_of(i)
        on = h.layout & _MM[m]
        n = on.bit_count()
        choose = False
        if n == 0:
            takes: tuple[str, ...] = ()
            text = "stays"
        elif n == 1:
            takes = tuple(C.codes(on))
            text = f"takes {takes[0]}"
        elif n == 2:
            chosen = [a.chosen for a in plays]
            if len(chosen) > 1:
                takes = tuple(chosen)
                choose = True
                text = f"takes {' or '.join(takes)} (you choose)"
            else:
                takes = (chosen[0],) if chosen[0] else tuple(C.codes(on))[:1]
                text = f"takes {takes[0]}"
        else:
            takes = tuple(C.codes(on))
            owner = h.owner[m]
            last = h.turns_left(HUMAN) == 1
            void = last and LastTurnRule.PPUK_TAKEN in h.table.last_turn_exceptions
            if owner == HUMAN:
                text, amount = f"takes back your ppuk of {m:02d}", rules.own_ppuk_steal
            elif owner >= 0:
                text = f"takes {self.players[owner].name}'s ppuk of {m:02d}"
                amount = rules.ppuk_taken_steal
            else:
                text, amount = f"takes the stack of {m:02d}", rules.natural_stack_steal
            text += self._steal_text(0 if void else amount)
        return Option(number, "card", code, code, m, (code,), takes, choose, text, tuple(plays))

    def _extra_option(self, h: HandState, number: int, a: Any) -> Option:
        rules = self.rules
        t = type(a)
        if t is E.FlipOnlyPlayed:
            left = h.flip_only[HUMAN]
            text = f"play no card, just flip ({left} flip-only turn{'s' if left > 1 else ''} left)"
            return Option(number, "flip_only", "flip-only", None, 0, (), (), False, text, (a,))
        m = a.month
        cards = tuple(a.cards)
        if t is E.BombPlayed:
            on = tuple(C.codes(h.layout & _MM[m]))
            text = f"{' '.join(cards)} onto {' '.join(on)}: takes all four"
            if rules.bomb_steal:
                text += self._steal_text(rules.bomb_steal).replace(":", ",", 1)
            extra = len(cards) - 1
            text += f", {extra} flip-only turn{'s' if extra > 1 else ''} later"
            if rules.bomb_multiplier > 1:
                text += f", x{rules.bomb_multiplier} if you win"
            return Option(number, "bomb", f"bomb {m:02d}", None, m, cards, on, False, text, (a,))
        text = f"show {' '.join(cards)}: x{rules.shake_multiplier} if you win"
        if rules.shaking is Shaking.ON_PLAY:
            text += "; then play one of them"
        elif rules.bombs:
            text += f"; month {m:02d} can no longer bomb (G19)"
        return Option(number, "shake", f"shake {m:02d}", None, m, cards, (), False, text, (a,))

    def parse_play(self, answer: str) -> tuple[Option, str | None]:
        """The option an answer at the play prompt names, and the layout card it takes.

        Accepted: the option's number in the list, or a line of the table notation
        (:mod:`gostop_records.notation`) for the human's turn: a card code in any case
        (``03r``, ``play 03r``), optionally followed by the layout card to take (``08j1
        08a``); ``bomb MONTH``, ``shake MONTH``, ``flip-only`` (or ``flip``: the human's flips
        are turned by the session). Anything else raises :class:`PlayInputError` with the
        reason.
        """
        opts = self.options()
        tokens = answer.replace(",", " ").split()
        if not tokens:
            raise PlayInputError("type a card code (03R) or its number in the list")
        head = tokens[0].lower()
        if head == "flip" and len(tokens) == 1:
            tokens, answer = ["flip-only"], "flip-only"
        if head.isdecimal():
            if len(tokens) > 2:
                raise PlayInputError(
                    "one card, and when two of its month lie face up the one it takes: 08J1 08A"
                )
            k = int(head)
            if not 1 <= k <= len(opts):
                raise PlayInputError(f"there is no number {k} in the list (1..{len(opts)})")
            return self._with_take(opts[k - 1], tokens[1:])
        try:
            line = notation.read(answer, self.players)
        except notation.UnknownCommand as exc:
            _code(tokens[0])  # names the card code that is not one
            raise PlayInputError(str(exc)) from None
        except notation.NotationError as exc:
            raise PlayInputError(str(exc)) from None
        if line.verb in ("bomb", "shake"):
            return self._parse_month_option(opts, line.verb, list(line.args)), None
        if line.verb == "flip_only":
            if line.args:
                raise PlayInputError(f"{tokens[0]} takes nothing after it")
            for o in opts:
                if o.kind == "flip_only":
                    return o, None
            raise PlayInputError("you have no flip-only turn (a bomb leaves them)")
        if line.verb not in ("card", "play"):
            raise PlayInputError(
                "at the play prompt: a card (03R, with the card it takes: 08J1 08A), its "
                "number in the list, bomb MONTH, shake MONTH or flip-only"
            )
        cards = [*line.args, *([line.take] if line.take else [])]
        if len(cards) > 2 or not cards:
            raise PlayInputError(
                "one card, and when two of its month lie face up the one it takes: 08J1 08A"
            )
        return self._with_take(self._card_named(opts, cards[0]), cards[1:])

    def _with_take(self, opt: Option, rest: Sequence[str]) -> tuple[Option, str | None]:
        chosen = None
        if rest:
            if opt.kind != "card":
                raise PlayInputError(f"{opt.label} takes nothing after it")
            chosen = _code(rest[0])
            opt.action(chosen)  # refuses a card it cannot take
        return opt, chosen

    def _parse_month_option(self, opts: list[Option], kind: str, rest: list[str]) -> Option:
        rules = self.rules
        if kind == "bomb" and not rules.bombs:
            raise PlayInputError(f"the {rules.name} rules have no bombs")
        if kind == "shake" and rules.shaking is Shaking.NONE:
            raise PlayInputError(f"the {rules.name} rules have no shaking")
        if len(rest) != 1 or not rest[0].isdecimal() or not 1 <= int(rest[0]) <= 12:
            raise PlayInputError(f"{kind} takes a month 1..12: {kind} 05")
        m = int(rest[0])
        for o in opts:
            if o.kind == kind and o.month == m:
                return o
        h = self.hand
        assert h is not None
        held = (h.hands[HUMAN] & _MM[m]).bit_count()
        if kind == "bomb":
            on = (h.layout & _MM[m]).bit_count()
            why = (
                f"a bomb needs three cards of month {m:02d} in your hand (you hold {held}) "
                f"and the fourth face up ({on} face up)"
            )
            if h.turn is not None and h.turn.shake_month:
                why = "after a shake you play one of the cards shown"
        elif h.shaken_months[HUMAN] & (1 << m):
            why = f"you already shook month {m:02d}"
        elif held != 3:
            why = f"a shake shows three cards of month {m:02d}; you hold {held}"
        elif rules.shaking is Shaking.ON_PLAY and h.layout & _MM[m]:
            why = (
                f"month {m:02d} is face up: shaking needs it absent "
                "(with the fourth face up, three in hand make a bomb)"
            )
        else:
            why = "a shake comes before the turn's card, once per turn"
        raise PlayInputError(f"you cannot {kind} month {m:02d}: {why}")

    def _card_named(self, opts: list[Option], token: str) -> Option:
        code = _code(token)
        for o in opts:
            if o.card == code:
                return o
        h = self.hand
        assert h is not None
        b = 1 << C.CODE_TO_INDEX[code]
        if h.hands[HUMAN] & b:
            turn = h.turn
            if turn is not None and turn.shake_month:
                shown = " ".join(C.codes(h.hands[HUMAN] & _MM[turn.shake_month]))
                raise PlayInputError(
                    f"after shaking month {turn.shake_month:02d} you play one of {shown}"
                )
            raise PlayInputError(f"{code} cannot be played now")
        # say where a card is only when everybody can see it: hands and stock are hidden
        if h.layout & b:
            where = "it is face up on the layout"
        elif any(p & b for p in h.piles):
            owner = next(s for s, p in enumerate(h.piles) if p & b)
            where = (
                "it is in your pile"
                if owner == HUMAN
                else f"it is in {self.players[owner].name}'s pile"
            )
        elif not h.table.deck & b:
            where = f"the {self.rules.name} deck has no {code}"
        else:
            where = "your hand is " + (" ".join(C.codes(h.hands[HUMAN])) or "empty")
        raise PlayInputError(f"{code} is not in your hand: {where}")

    def play(self, option: Option, chosen: str | None = None) -> Entry:
        """Record the human's play (a card, a bomb, a shake, a flip-only turn)."""
        self._human_hand("play")
        return self.rec.record(option.action(chosen))

    def play_answer(self, answer: str, chosen: str | None = None) -> Entry:
        """Read an answer at the play prompt and record it (``chosen`` when it needed one)."""
        opt, picked = self.parse_play(answer)
        return self.play(opt, picked if picked is not None else chosen)

    # --- the human: flip, cup, Go or Stop ------------------------------------------------

    def flip_pending(self) -> tuple[str, tuple[str, ...]]:
        """The stock card the human turns now, and the layout cards it may take when the
        human must choose between two (empty when there is no choice)."""
        h = self._human_hand("flip")
        acts = legal_actions(h)
        if not acts:
            raise PlayInputError("the stock is empty")
        chosen = tuple(a.chosen for a in acts if a.chosen is not None)
        return acts[0].card, chosen if len(acts) > 1 else ()

    def flip(self, chosen: str | None = None) -> Entry:
        """Turn the stock top (automatic); ``chosen`` when it matches two layout cards."""
        card, choices = self.flip_pending()
        h = self.hand
        assert h is not None
        acts = legal_actions(h)
        if not choices:
            return self.rec.record(acts[0])
        if chosen is None:
            raise PlayInputError(f"{card} matches {' and '.join(choices)}: say which it takes")
        if chosen not in choices:
            raise PlayInputError(f"{card} can take {' or '.join(choices)}, not {chosen}")
        return self.rec.record(next(a for a in acts if a.chosen == chosen))

    def cup_points(self) -> dict[str, int]:
        """The human's combination score with the September cup as an animal or as junk."""
        h = self._human_hand("cup")
        return {role: points(h.table, h.piles[HUMAN], role) for role in ("animal", "junk")}

    def cup(self, role: str) -> Entry:
        """The September cup counts as ``animal`` or ``junk`` (matgo: the holder decides)."""
        self._human_hand("cup")
        r = role.strip().lower()
        r = {"a": "animal", "j": "junk"}.get(r, r)
        if r not in ("animal", "junk"):
            raise PlayInputError(f"the cup counts as animal or junk, not {role!r}")
        return self.rec.cup(r)

    def stop_value(self) -> Proof:
        """What a Stop by the seat deciding now would pay (the proof, per loser)."""
        h = self.hand
        if h is None or h.phase is not Phase.DECIDE:
            raise PlayInputError("nobody may stop now")
        return settle(h.table, facts_of(h, h.decider))

    def go(self) -> Entry:
        """Go: play on for a higher payout."""
        self._human_hand("decide")
        return self.rec.go()

    def stop(self) -> Entry:
        """Stop: end the hand and be paid."""
        self._human_hand("decide")
        return self.rec.stop()


def _code(token: str) -> str:
    try:
        return card_code(token)
    except GostopError:
        raise PlayInputError(
            f"{token!r} is not a card code or a number in the list: {notation.CARD_FORM}"
        ) from None
