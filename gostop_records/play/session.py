"""A game against the computer as it runs: whose move it is, the deal from the seeded
dealer, the bots' moves and the human's, each recorded through a recording session."""

from __future__ import annotations

from collections.abc import Sequence

from .. import cards as C
from .. import events as E
from .. import log as L
from ..closing import Closing
from ..engine.actions import legal_actions
from ..engine.game import GameState, HandResult
from ..engine.scoring import points
from ..engine.settlement import Proof, settle
from ..engine.state import Phase
from ..engine.turn import facts_of
from ..errors import GostopError
from ..recorder import Clock, Entry, EventSink, RecordingSession
from ..recorder.view import GameView
from ..rules import Ruleset
from ..sim.bots import Bot
from ..sim.dealer import SplitMix64, deal, shuffled_deck
from ..sim.roster import known, make_bot
from ..sim.roster import names as bot_and_level_names
from .prompt import Option, PlayPrompt
from .setup import (
    DEFAULT_BOT,
    HUMAN,
    PlayInputError,
    new_play_id,
    resolve_setup,
    seat_names,
    seated,
)
from .step import Step

CODES = C.CODES


class PlaySession(Closing, PlayPrompt, GameView):
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

    # --- the state -----------------------------------------------------------------------

    @property
    def game(self) -> GameState:
        return self.rec.game

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
