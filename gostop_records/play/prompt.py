"""The human's play prompt: the numbered options (each hand card with what it would
capture, a bomb, a shake, a flip-only turn) and an answer read as one of them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import cards as C
from .. import events as E
from .. import notation
from ..engine.actions import legal_actions
from ..engine.capture import bomb_steal, stack_steal
from ..engine.state import HandState
from ..errors import GostopError
from ..recorder import card_code
from ..recorder.view import GameView
from ..rules import BonusPlay, LastTurnRule, Shaking, StealCount
from .setup import HUMAN, PlayInputError
from .step import Step

_MM = C.MONTH_MASKS
_NONE: frozenset[LastTurnRule] = frozenset()


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


def _code(token: str) -> str:
    try:
        return card_code(token)
    except GostopError:
        raise PlayInputError(
            f"{token!r} is not a card code or a number in the list: {notation.CARD_FORM}"
        ) from None


class PlayPrompt(GameView):
    """The play prompt of :class:`~.session.PlaySession`: its options, an answer read."""

    def next_step(self) -> Step:
        """What the game waits for now: the session's to say, the prompt only reads it."""
        raise NotImplementedError

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
            elif type(a) in _EXTRAS:
                extra.append(a)
        out: list[Option] = []
        for code, plays in by_card.items():
            out.append(self._card_option(h, len(out) + 1, code, plays))
        for a in sorted(extra, key=lambda a: (_EXTRA_ORDER[type(a)], getattr(a, "month", 0))):
            out.append(_EXTRAS[type(a)](self, h, len(out) + 1, a))
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
            # on the seat's last turn the ruleset's last-turn exceptions apply (the engine's rule)
            last = h.turns_left(HUMAN) == 1
            kind, amount = stack_steal(h, HUMAN, m, h.table.last_turn_exceptions if last else _NONE)
            if kind == "own_ppuk":
                text = f"takes back your ppuk of {m:02d}"
            elif kind == "ppuk_taken":
                text = f"takes {self.players[h.owner[m]].name}'s ppuk of {m:02d}"
            else:
                text = f"takes the stack of {m:02d}"
            text += self._steal_text(amount)
        return Option(number, "card", code, code, m, (code,), takes, choose, text, tuple(plays))

    def _flip_only_option(self, h: HandState, number: int, a: E.FlipOnlyPlayed) -> Option:
        left = h.flip_only[HUMAN]
        text = f"play no card, just flip ({left} flip-only turn{'s' if left > 1 else ''} left)"
        return Option(number, "flip_only", "flip-only", None, 0, (), (), False, text, (a,))

    def _bomb_option(self, h: HandState, number: int, a: E.BombPlayed) -> Option:
        rules = self.rules
        m = a.month
        cards = tuple(a.cards)
        on = tuple(C.codes(h.layout & _MM[m]))
        text = f"{' '.join(cards)} onto {' '.join(on)}: takes all four"
        if steal := bomb_steal(rules, len(cards)):
            text += self._steal_text(steal).replace(":", ",", 1)
        extra = len(cards) - 1
        text += f", {extra} flip-only turn{'s' if extra > 1 else ''} later"
        if rules.bomb_multiplier > 1:
            text += f", x{rules.bomb_multiplier} if you win"
        return Option(number, "bomb", f"bomb {m:02d}", None, m, cards, on, False, text, (a,))

    def _shake_option(self, h: HandState, number: int, a: E.Shaken) -> Option:
        rules = self.rules
        m = a.month
        cards = tuple(a.cards)
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


#: The options of the play prompt besides the cards in hand, in the order listed (each class
#: with the function that words it).
_EXTRAS: dict[type, Callable[[Any, HandState, int, Any], Option]] = {
    E.BombPlayed: PlayPrompt._bomb_option,
    E.Shaken: PlayPrompt._shake_option,
    E.FlipOnlyPlayed: PlayPrompt._flip_only_option,
}
_EXTRA_ORDER = {cls: i for i, cls in enumerate(_EXTRAS)}
