"""A hand against the computer for the ``/play`` page, driven on the server.

The page never decides a rule: a :class:`~gostop_records.play.PlaySession` records every
input (the human's and the bots') on the engine, in memory while the hand is played, so
the shuffled deck in ``hand_started`` never leaves the server. What the page gets is the
human seat's view only (:meth:`PlayTable.view`) and, for each entry since its last answer,
a frame (:meth:`PlayTable.frames_since`): the sentences, the cards played, flipped, captured
and given, and the public table right after it, so the page can show a turn step by step.

Each deal is committed before the first play: ``sha256(salt + " " + deck codes joined by
spaces)`` is shown at the start, and the deck and the salt are revealed when the hand is
over, so the player can check the computer neither saw nor changed the cards (a deal made
void at once, four of a month face up, is committed and revealed too). The finished log is
handed to the store as a normal, strictly valid game.
"""

from __future__ import annotations

import hashlib
import io
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from .. import log as L
from .. import words
from ..engine.state import HandState
from ..play import HUMAN, PlayInputError, PlaySession
from ..views import pending_cards, proof_dict

__all__ = ["MemorySink", "NotYourTurn", "PlayTable", "commitment", "option_words", "signed"]

#: The steps where the human has a decision a hint can review.
HINT_STEPS = ("play", "flip", "decide", "cup")
#: Worlds of the review a finished hand links to (Go/Stop, captures, the cup; not every play).
REVIEW_BUDGET = 60

#: Inputs a play session gives by itself (the deal, fours shown, the payments): a game
#: played again from a decision gets them from its session, not from the earlier log.
_SESSION_INPUTS = (
    E.GameStarted,
    E.HandStarted,
    E.CardsDealt,
    E.FourOfAMonthShown,
    E.PaymentRecorded,
)

#: What the human may answer, and the step each answer belongs to.
ANSWERS = {
    "play": "play",
    "bomb": "play",
    "shake": "play",
    "flip_only": "play",
    "flip": "flip",
    "go": "decide",
    "stop": "decide",
    "cup": "cup",
    "next": "hand_over",
}


def signed(x: float) -> str:
    """Chips as the page shows them: +3.2, −1.0, 0.0."""
    return f"+{x:.1f}" if x > 0.05 else f"\u2212{-x:.1f}" if x < -0.05 else "0.0"


#: Each option of the hint in words, by its type (the page shows these as they are).
_OPTION_WORDS: dict[type, Callable[[Any], str]] = {
    E.GoCalled: lambda a: "Go",
    E.StopCalled: lambda a: "Stop",
    E.CupAssigned: lambda a: f"the September cup as {a.role}",
    E.CardPlayed: lambda a: f"play {a.card}" + (f", taking {a.chosen}" if a.chosen else ""),
    E.CardFlipped: lambda a: (
        f"take {a.chosen} with the {a.card} you turned" if a.chosen else f"turn {a.card}"
    ),
    E.BombPlayed: lambda a: "bomb with " + " ".join(a.cards),
    E.Shaken: lambda a: "shake " + " ".join(a.cards),
    E.FlipOnlyPlayed: lambda a: "play no card, turn one from the stock",
}


def option_words(a: Any) -> str:
    """An option of the hint in words."""
    return _OPTION_WORDS.get(type(a), str)(a)


#: What a frame shows of the cards an event moves: one function per payload class that moves
#: cards, appending to the frame's ``played``, ``flipped``, ``captured`` and ``given``.
_MOVES: dict[type, Callable[[dict[str, Any], Any], None]] = {
    E.CardPlayed: lambda f, ev: f["played"].append(ev.card),
    E.BombPlayed: lambda f, ev: f["played"].extend(ev.cards),
    E.Shaken: lambda f, ev: f["played"].extend(ev.cards),
    E.CardFlipped: lambda f, ev: f["flipped"].append(ev.card),
    E.CardsCaptured: lambda f, ev: f["captured"].extend(ev.cards),
    E.JunkTransferred: lambda f, ev: f["given"].append(
        {"card": ev.card, "from": ev.from_seat, "to": ev.to_seat, "why": ev.reason}
    ),
}


class NotYourTurn(PlayInputError):
    """An answer the game does not wait for now (another step, the computer's move, the end)."""


class MemorySink:
    """An event sink that keeps a game in memory until it is handed to the store."""

    location = "the play table"

    def __init__(self) -> None:
        self.envs: list[E.Envelope] = []

    def version(self, game_id: str) -> int:
        return self.envs[-1].seq if self.envs else 0

    def game_events(self, game_id: str) -> list[E.Envelope]:
        return list(self.envs)

    def append(
        self, envs: Sequence[E.Envelope], expected_version: int, checked: object = None
    ) -> None:
        if expected_version != self.version(envs[0].game_id):
            raise PlayInputError("the game moved on meanwhile: reload the page")
        self.envs.extend(envs)

    def close(self) -> None:
        pass


def commitment(deck: list[str], salt: str) -> str:
    """The hash a player checks at the end: sha256 of the salt, a space, the deck codes."""
    return hashlib.sha256(f"{salt} {' '.join(deck)}".encode()).hexdigest()


class PlayTable:
    """A game of a human (seat 0) against one bot (two in a 3-player preset), played a hand
    at a time (:meth:`next_hand` deals the next one of a game of several), each deal
    committed. ``players`` defaults to the preset's (2 when it is played by two);
    ``person`` is the browser's own person id (its cookie), seated as ``You``."""

    def __init__(
        self,
        ruleset: str = "cardavia",
        bot: str = "strong",
        seed: int = 0,
        players: int | None = None,
        person: str | None = None,
        *,
        replay: Sequence[Any] = (),
        practice: dict[str, Any] | None = None,
    ) -> None:
        self.sink = MemorySink()
        self.bot = bot
        self.seed = seed
        self.ruleset = ruleset
        self.players = players
        #: inputs of an earlier game given again before the play goes on (:meth:`rewound`)
        self._script = list(replay)
        #: where a table played again from a decision comes from (None: a new game)
        self.practice = practice
        self.person = person
        self.session = PlaySession.start(
            self.sink, ruleset, players=players, bot=bot, seed=seed, person=person
        )
        self.log: list[str] = []
        self.frames: list[dict[str, Any]] = []
        #: Every deal of this play: hand number, deck, salt and commitment.
        self.deals: list[dict[str, Any]] = []
        #: where the deals of the hand in play start in ``deals`` (a void deal adds one)
        self._first_deal = 0
        #: where the sentences of the hand in play start in ``log``
        self._log_from = 0
        self._advance()

    @property
    def game_id(self) -> str:
        return self.session.game_id

    @property
    def version(self) -> int:
        """How many events the game holds: an answer may name it, to be refused if stale."""
        return len(self.sink.envs)

    @property
    def commitment(self) -> str:
        """The commitment of the deal being played (the latest)."""
        return str(self.deals[-1]["commitment"])

    @property
    def over(self) -> bool:
        return self.session.next_step().kind in ("over", "hand_over")

    # --- moving the game -----------------------------------------------------------------

    def _told(self, envs: Iterable[E.Envelope]) -> None:
        """One frame for one entry: its sentences, the cards it moved, the table after it."""
        envs = list(envs)
        if not envs:
            return
        players = self.session.players
        frame: dict[str, Any] = {
            "seat": getattr(envs[0].event, "seat", None),
            "lines": [],
            "played": [],
            "flipped": [],
            "captured": [],
            "given": [],
        }
        for env in envs:
            ev = env.event
            if type(ev) is E.HandStarted:
                salt = secrets.token_hex(16)
                deck = list(ev.deck)
                self.deals.append(
                    {
                        "hand": ev.hand,
                        "deck": deck,
                        "salt": salt,
                        "commitment": commitment(deck, salt),
                    }
                )
            moved = _MOVES.get(type(ev))
            if moved is not None:
                moved(frame, ev)
            text = words.describe(ev, players, HUMAN)
            frame["lines"].append(text)
            self.log.append(text)
        h = self.session.hand
        frame["table"] = self._public(h) if h is not None else None
        frame["index"] = len(self.frames)
        self.frames.append(frame)

    def _advance(self) -> None:
        """Run the automatic steps, the bots' moves and the human's flips that ask nothing,
        until the human answers or the hand is over."""
        s = self.session
        while True:
            step = s.next_step()
            if step.kind == "deal":
                for e in s.deal():
                    self._told(e.envelopes)
            elif step.kind == "fours":
                self._told(s.show_fours().envelopes)
            elif step.kind == "pay":
                for e in s.pay():
                    self._told(e.envelopes)
            elif step.kind in ("over", "hand_over"):
                if self._script and step.kind == "hand_over":
                    self._first_deal = len(self.deals)
                    self._log_from = len(self.log)
                    for e in s.deal():
                        self._told(e.envelopes)
                    continue
                return
            elif self._script:  # an earlier game's input, given again
                self._told(s.rec.record(self._script.pop(0)).envelopes)
            elif step.human:
                if step.kind != "flip" or s.flip_pending()[1]:
                    return
                self._told(s.flip().envelopes)
            else:
                self._told(s.bot_step().envelopes)

    def act(
        self,
        kind: str,
        card: str | None = None,
        chosen: str | None = None,
        *,
        month: int | None = None,
        version: int | None = None,
    ) -> None:
        """The human's answer: ``play`` a card, ``bomb`` or ``shake`` a month, ``flip_only``,
        ``flip`` (``chosen``: the layout card it takes), ``go``, ``stop``, ``cup``
        (``chosen``: animal or junk), ``next`` (the next hand of a game of several).
        ``version``, when given, must be the game's: a stale answer is refused. A refusal
        is a :class:`PlayInputError` (:class:`NotYourTurn` when the game waits for something
        else) and changes nothing."""
        s = self.session
        want = ANSWERS.get(kind)
        if want is None:
            raise PlayInputError(f"unknown answer {kind!r}: answers are {', '.join(ANSWERS)}")
        if version is not None and version != self.version:
            raise NotYourTurn(
                f"the table has moved on (version {self.version}, the answer was made at "
                f"{version}): look again"
            )
        step = s.next_step()
        if kind == "next":
            if step.kind != "hand_over":
                raise NotYourTurn(
                    "the game is over: start a new one"
                    if step.kind == "over"
                    else f"the hand is still in play (the game waits for a {step.kind})"
                )
            self.next_hand()
            return
        if step.kind in ("over", "hand_over"):
            more = "deal the next hand or start a new game" if step.kind == "hand_over" else ""
            raise NotYourTurn(f"the hand is over: {more or 'start a new one'}")
        if not step.human:
            raise NotYourTurn(f"it is the computer's move ({step.kind}), not yours")
        if step.kind != want:
            raise NotYourTurn(f"the game waits for your {step.kind}, not a {kind}")
        if want == "play":
            entry = s.play(self._option(kind, card, month), chosen)
        elif kind == "flip":
            entry = s.flip(chosen)
        elif kind == "go":
            entry = s.go()
        elif kind == "stop":
            entry = s.stop()
        else:
            entry = s.cup(chosen or "")
        self._told(entry.envelopes)
        self._advance()

    def next_hand(self) -> None:
        """Deal the next hand of the same game, once a hand is over and paid: the dealer, the
        carry of a nagari and the hand number are the engine's; the deal gets its own
        commitment. A game of one hand (``over``) has no next hand."""
        s = self.session
        if s.next_step().kind != "hand_over":
            raise NotYourTurn("there is no next hand now")
        self._first_deal = len(self.deals)
        self._log_from = len(self.log)
        for e in s.deal():
            self._told(e.envelopes)
        self._advance()

    def _option(self, kind: str, card: str | None, month: int | None) -> Any:
        s = self.session
        opts = s.options()
        if kind == "play":
            if not card:
                raise PlayInputError("say which card you play")
            found = [o for o in opts if o.kind == "card" and o.card == card.upper()]
            if not found:
                s.parse_play(card)  # says why: not a card, not in your hand, not now
                raise PlayInputError(f"{card} cannot be played now")
            return found[0]
        found = [o for o in opts if o.kind == kind and (month is None or o.month == month)]
        if not found:
            what = kind.replace("_", "-") + (f" month {month:02d}" if month else "")
            raise PlayInputError(f"you may not {what} now")
        if len(found) > 1:
            months = ", ".join(f"{o.month:02d}" for o in found)
            raise PlayInputError(f"say which month you {kind}: {months}")
        return found[0]

    # --- the hint and the review ---------------------------------------------------------

    def hint(self, seconds: float | None = None) -> dict[str, Any]:
        """The review of the decision in front of the human, before they decide: every
        option's expected chips from now to the end of the hand, by rollouts from what the
        human's seat knows (:func:`gostop_records.review.hint.hint`). Refused with
        :class:`NotYourTurn` when the game waits for no decision of theirs."""
        from ..review.decisions import label
        from ..review.hint import HINT_SECONDS, hint, hint_options

        s = self.session
        step = s.next_step()
        h = s.hand
        if not step.human or step.kind not in HINT_STEPS or h is None:
            raise NotYourTurn("no decision of yours to hint at now")
        found = hint(h, HUMAN, seconds=HINT_SECONDS if seconds is None else seconds)
        if found is None:
            return {"options": [], "summary": "You have only one thing to do here."}
        actions = {label(a): a for a in hint_options(h)[1]}
        best = found.options[0]
        lead = (
            "clearly the best at this budget"
            if found.clear
            else "but the best few are within the noise of each other at this budget"
        )
        first = option_words(actions[best.label])
        summary = (
            f"{first[0].upper()}{first[1:]} is the best found: {signed(best.chips.mean)} "
            f"chips on average from here to the end of the hand, {lead}. From "
            f"{found.worlds} deals of the {found.unseen} cards you cannot see, each option "
            f"played out by the {found.policy} bot at every seat."
        )
        return {
            "kind": found.kind,
            "worlds": found.worlds,
            "seconds": found.seconds,
            "clear": found.clear,
            "summary": summary,
            "options": [
                {
                    "label": o.label,
                    "text": option_words(actions[o.label]),
                    "chips": o.chips.mean,
                    "low": o.chips.low,
                    "high": o.chips.high,
                    "chips_text": f"{signed(o.chips.mean)} chips",
                    "interval_text": f"95%: {signed(o.chips.low)} to {signed(o.chips.high)}",
                    "best": o.best,
                }
                for o in found.options
            ],
        }

    def review_input(self, hand: int) -> tuple[list[E.Envelope], dict[str, Any]]:
        """What the review of a finished hand of this game reads: the log up to that hand's
        end (never a later deal: a hand in play keeps its cards), and the review's options
        (every decision of every kind, at :data:`REVIEW_BUDGET` worlds)."""
        from ..review import KINDS

        done = {r.hand for r in self.session.game.results}
        if hand not in done:
            raise NotYourTurn(f"hand {hand} is not over: its review comes at its end")
        envs = []
        for e in self.sink.envs:
            if e.hand is not None and e.hand > hand:
                break
            envs.append(e)
        return envs, {"hand": hand, "budget": REVIEW_BUDGET, "kinds": KINDS}

    def rewound(self, hand: int, seq: int) -> PlayTable:
        """A new table at the player's decision ``seq`` of finished hand ``hand`` of this
        game: the same deal (the same seed deals the same deck), every input before it given
        again, so the player stands where they stood and may choose otherwise. The bots'
        later moves are their own again. It is practice: :attr:`practice` says where it
        comes from, and it is not stored (its first inputs were played already)."""
        done = {r.hand for r in self.session.game.results}
        if hand not in done:
            raise NotYourTurn(f"hand {hand} is not over: it can be played again at its end")
        envs = self.sink.envs
        if not any(e.seq == seq and e.hand == hand and E.is_input(e.event) for e in envs):
            raise PlayInputError(f"hand {hand} has no input at seq {seq}")
        script = [
            e.event
            for e in envs
            if e.seq < seq and E.is_input(e.event) and type(e.event) not in _SESSION_INPUTS
        ]
        origin = self.practice["game_id"] if self.practice else self.game_id
        table = PlayTable(
            self.ruleset,
            self.bot,
            self.seed,
            self.players,
            self.person,
            replay=script,
            practice={"game_id": origin, "hand": hand, "seq": seq},
        )
        step = table.session.next_step()
        # the player stands at seq: the computer moved nothing after the inputs given again
        if table._script or table.version != seq - 1 or not step.human:
            raise PlayInputError(f"seq {seq} of hand {hand} is no decision of yours")
        return table

    # --- what the page may see -----------------------------------------------------------

    def jsonl(self) -> bytes:
        """The whole log as JSON Lines, for the store."""
        buf = io.BytesIO()
        L.write_jsonl(buf, self.sink.envs)
        return buf.getvalue()

    def _public(self, h: HandState) -> dict[str, Any]:
        """The table as the human seat sees it: no other hand (until the hand is over),
        never the stock."""
        d = h.to_dict()
        ended = self.over
        seats = []
        for seat in d["seats"]:
            mine = seat["seat"] == HUMAN
            seats.append(
                {
                    "seat": seat["seat"],
                    "name": self.session.players[seat["seat"]].name,
                    "hand": seat["hand_known"] if mine or ended else None,
                    "hand_count": seat["hand_count"],
                    "pile": seat["pile"],
                    "score": seat["score"],
                    "score_lines": seat["score_lines"],
                    "go_count": seat["go_count"],
                    "shakes": seat["shakes"],
                    "bombs": seat["bombs"],
                    "ppuk_count": seat["ppuk_count"],
                    "flip_only_turns": seat["flip_only_turns"],
                }
            )
        pending = pending_cards(h)
        return {
            "hand": d["hand"],
            "dealer": d["dealer"],
            "turn_seat": d["turn_seat"],
            "layout": d["layout"],
            "pending": C.codes(pending),
            "stock_count": d["stock_count"],
            "seats": seats,
            "outcome": d["outcome"],
            "winner": d["winner"],
            "reason": d["reason"],
        }

    def frames_since(self, index: int) -> list[dict[str, Any]]:
        """The frames from ``index`` on (what the page has not shown yet)."""
        return self.frames[max(0, index) :]

    def view(self) -> dict[str, Any]:
        """What the page may show now: the human's hand, never the computer's nor the
        stock; what the human may answer; at the end, the proof and every deal revealed."""
        s = self.session
        step = s.next_step()
        h = s.hand
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "ruleset": s.rules.name,
            "bot": self.bot,
            "players": [p.name for p in s.players],
            "version": self.version,
            "frame_count": len(self.frames),
            "commitment": self.commitment,
            "commitments": [{"hand": d["hand"], "commitment": d["commitment"]} for d in self.deals],
            #: the first deal of the hand in play (earlier ones were revealed at their end)
            "deals_from": self.deals[self._first_deal]["hand"],
            "step": {"kind": step.kind, "human": step.human, "seat": step.seat},
            "multi_hand": s.multi_hand,
            "hand_no": s.game.hand_no,
            "log": list(self.log),
            "log_from": self._log_from,
            "table": self._public(h) if h is not None else None,
            "practice": self.practice,
        }
        if step.human and step.kind == "play":
            out["options"] = [
                {
                    "kind": o.kind,
                    "label": o.label,
                    "card": o.card,
                    "month": o.month,
                    "cards": list(o.cards),
                    "takes": list(o.takes),
                    "choose": o.choose,
                    "text": o.text,
                }
                for o in s.options()
            ]
        if step.human and step.kind == "flip":
            card, choices = s.flip_pending()
            out["flip"] = {"card": card, "choices": list(choices)}
        if step.human and step.kind == "cup":
            out["cup_points"] = s.cup_points()
        if step.human and step.kind == "decide":
            out["stop_pays"] = proof_dict(s.stop_value(), _as_told(s))
        if step.kind in ("over", "hand_over"):
            last = self.deals[-1]
            out["deck"] = last["deck"]
            out["salt"] = last["salt"]
            out["deals"] = list(self.deals)
            proof = s.proof()
            out["proof"] = None if proof is None else proof_dict(proof, _as_told(s))
            result = s.result()
            out["result"] = (
                None
                if result is None
                else {
                    "outcome": result.outcome,
                    "winner": result.winner,
                    "reason": result.reason or None,
                }
            )
            out["replay"] = f"/games/{self.game_id}/replay"
            #: net chips per seat over every hand of the game so far
            out["ledger"] = s.game.ledger()
            out["hands_played"] = len(s.game.results)
            out["next_hand"] = step.kind == "hand_over"
        return out


def _as_told(s: PlaySession) -> list[str]:
    """The seats' names as the player is told them in a proof: their own seat is "you"."""
    return ["you" if seat == HUMAN else pl.name for seat, pl in enumerate(s.players)]
