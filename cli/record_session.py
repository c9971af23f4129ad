"""The recording session of ``gostop record``: a game at a real table, one entry at a time.

Every entry is checked against the rules before it is written: an impossible one is refused
with the reason and nothing is written. An accepted entry (and what the rules derive from
it: captures, ppuk, junk transfers, the end of the hand) is on disk before the next prompt,
so a killed session loses nothing and continues with ``--resume GAME_ID``.

The commands, typed at the prompt, read from ``--script FILE`` or piped on stdin, are the
table notation of :mod:`gostop_records.notation` (parsed there, recorded by
:meth:`~gostop_records.recorder.RecordingSession.record_all`) and a few of the session's own
(``show``, ``proof``, ``log``, ``seal``, ``help``, ``quit``); :data:`GRAMMAR` lists them,
and ``help`` and ``--help`` show it.

One command per line; case does not matter; commas and colons count as spaces; blank lines
and lines starting with ``#`` are skipped. A card is written as
:data:`gostop_records.cards.CODE_FORMS` says, in upper or lower case (``01G``, ``9a``,
``11d``); a SEAT is a seat number (0, 1, 2) or a player's name (or its start). MONTH is
1..12. ``dealer`` is for the first hand only: the rules name the dealer of the next ones.
``stock`` lists the stock from the top; ``bonus`` lists bonus cards dealt face up that went
to the dealer's pile (the layout then lists their replacements). A question (which card to
take, a part of a guided deal) is answered on the next line, in a script too.

A refused line is reported with its reason and the recording goes on: at the prompt the
question is asked again; in a script the refusal goes to stderr with its line number and
the exit code is 1 at the end.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

import msgspec

from gostop_records import events as E
from gostop_records import notation, words
from gostop_records.cards import CODE_FORMS
from gostop_records.engine.state import Phase
from gostop_records.errors import GostopError, NoSpaceError
from gostop_records.recorder import (
    ChoiceRequired,
    Entry,
    RecordingSession,
    card_code,
)

from . import common
from .render import (
    Painter,
    describe_event,
    render_game,
    render_layout,
    render_scores,
    settlement_lines,
)
from .seal_cmd import seal_lines

__all__ = ["CARD_HELP", "COMMANDS", "GRAMMAR", "Refused", "Session"]

#: The commands, as ``help`` and ``--help`` show them.
GRAMMAR = """\
deal layout CARD... [hand SEAT CARD...]... [stock CARD...]
     [bonus CARD...] [dealer SEAT] [out SEAT...]
                      the deal; it starts the hand. A hand or the stock
                      left out (or given as ?) is unknown to the record.
                      `deal` alone asks for each part on the next lines.
                      At 4 or 5 seats three play: out names those who
                      sit out by choice (else the dealer and the next two
                      play)
sell SEAT CARD...     gwang-pali: a seat sitting out sells the brights in
                      its hand, after the deal: sell Dan 01G 08G
chips N...            each seat's chips at the start of the sitting
draw night|day SEAT CARD... [lot SEAT]
                      the cards drawn for the first deal (밤일낮장); lot SEAT:
                      the seat the lot chose after the ruleset's last tie
play CARD [TAKE]      a hand card; TAKE is the layout card it takes when
                      two of its month lie there (asked for when left out)
flip CARD [TAKE]      the card turned from the stock
CARD [TAKE]           play or flip, whichever the table waits for
bomb MONTH            three (or two) cards of a month onto the rest of it
shake MONTH [CARDS]   show three cards of a month (name them if unknown)
noshake [MONTH]       asked to shake once the card is chosen: decline
flip-only             a turn without a hand card, after a bomb (alias fo)
four SEAT MONTH...    fours of a month shown at the deal
keep [SEAT]           a four of a month in hand kept and played on (들고치기)
cup animal|junk       the September cup counts as animal or as junk
go | stop             the decision of a player who may stop
pay                   record the payments due at the computed amounts
pay PAYER->PAYEE N [NOTE]
                      what the table actually paid: pay Ben->Ann 24
settle                close the night (정산): each seat's total over its
                      hands and the transfers that square them; no hand follows
settle pay [PAYER->PAYEE N [NOTE]]
                      the settlement as paid (alone: as proposed); a different
                      transfer needs a NOTE: settle pay Ben->Ann 300 owes 40
note [@SEQ] TEXT      free text, optionally about an earlier seq
undo [REASON]         retract the latest entry (back to the hand's start)
show | proof | log [N]
                      the table; the payout proof; the last N events
seal                  the record's seal now (signed when the recorder signs)
help | quit           these lines; stop (every entry is already saved)"""
CARD_HELP = "\n".join(
    (
        textwrap.fill(
            f"CARD: {CODE_FORMS} (upper or lower case; the month's 0 may be left out: 9a, 11d)",
            width=78,
            subsequent_indent="      ",
        ),
        "SEAT: a seat number (0, 1, 2 ...) or a player's name.",
    )
)

_UNKNOWN = ("?", "unknown", "-")
#: The session's own commands, as Tab completes them.
COMMANDS = ("show", "proof", "log", "seal", "help", "quit")


class Refused(GostopError):
    """A line the recorder cannot take (not a command, a bad seat, a bad number)."""


class _Quit(Exception):
    pass


def _cards(tokens: Sequence[str]) -> list[str]:
    return [card_code(t) for t in tokens]


class Session:
    """The read-check-write loop of ``gostop record`` over a :class:`RecordingSession`."""

    def __init__(
        self,
        rec: RecordingSession,
        source: common.LineReader,
        *,
        out: Callable[[str], None],
        err: Callable[[str], None],
        paint: Painter,
        err_paint: Painter | None = None,
    ) -> None:
        self.rec = rec
        self.source = source
        self.out = out
        self.err = err
        self.p = paint
        self.pe = err_paint or Painter()
        self.refused = 0
        self.seals_shown = len(rec.seals)
        self.qr = source.interactive
        #: The session's own commands; every other line is a table input (the notation).
        self.commands: dict[str, Callable[[list[str], str], None]] = {
            "show": self.cmd_show,
            "table": self.cmd_show,
            "proof": self.cmd_proof,
            "log": self.cmd_log,
            "seal": self.cmd_seal,
            "help": self.cmd_help,
            "?": self.cmd_help,
            "quit": self.cmd_quit,
            "exit": self.cmd_quit,
            "q": self.cmd_quit,
        }

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> None:
        while True:
            line = self.source.read(self.prompt())
            if line is None:
                return
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            start = self.source.line_no
            try:
                self.handle(text)
            except _Quit:
                return
            except NoSpaceError:
                raise  # not a refusal: the recording stops (see record)
            except GostopError as exc:
                self.refuse(text, exc, start)

    def refuse(self, text: str, exc: Exception, line_no: int) -> None:
        self.refused += 1
        msg = str(exc)
        if isinstance(exc, ChoiceRequired) and exc.candidates:
            msg += f" (e.g. {exc.step} {exc.card} {exc.candidates[0]})"
        if self.source.interactive:
            self.err(self.pe(f"refused: {msg}", "red"))
        else:
            name = getattr(self.source.stream, "name", None)  # the script file, or <stdin>
            where = f"{name}, line {line_no}" if isinstance(name, str) else f"line {line_no}"
            common.error_message(f"{where}: {text}: {msg}")

    def handle(self, text: str) -> None:
        word, *more = text.split(None, 1)
        rest = more[0] if more else ""
        fn = self.commands.get(word.lower())
        if fn is not None:
            fn(rest.replace(",", " ").replace(":", " ").split(), rest.strip())
            return
        self.enter(text)

    def enter(self, text: str) -> None:
        """A table input: parsed by the notation, recorded all or nothing; a card that
        matches two layout cards without saying which is asked about on the next line."""
        rec = self.rec
        target = rec.retractable()
        try:
            line = notation.read(text, rec.players)
        except notation.UnknownCommand as exc:
            raise Refused(f"{exc}; type help for the commands") from None
        if line.verb == "deal" and not line.args:
            payloads = None
        else:
            payloads = notation.parse(
                line, rec.game, undo_target=target.seq if target is not None else None
            )
        unpaid = rec.pending_dues() if line.verb == "deal" else []
        if line.verb == "pay" and payloads and not self.confirm_payments(payloads):
            self.out("       not recorded")
            return
        if payloads is None:
            entries = self.guided_deal()
        else:
            try:
                entries = rec.record_all(payloads)
            except ChoiceRequired as exc:
                (p,) = payloads
                if p.chosen is not None or not exc.candidates:
                    raise
                chosen = self.choose(exc.card, exc.candidates)
                entries = rec.record_all([msgspec.structs.replace(p, chosen=chosen)])
        self.after(entries)
        if unpaid:
            self.out(f"       (no payment was recorded for hand {unpaid[0].hand})")

    def confirm_payments(self, payloads: Sequence[object]) -> bool:
        """A payment that differs from what is due is said so; at the prompt it is recorded
        only when confirmed, in a script it is recorded and the difference goes to stderr."""
        due = [d[1:] for d in self.rec.game.pending_dues()]
        for p in payloads:
            if not isinstance(p, E.PaymentRecorded):
                continue
            diff = words.payment_difference(self.rec.players, p.payer, p.payee, p.chips, due)
            if diff is None:
                continue
            if not self.source.interactive:
                common.warn(f"line {self.source.line_no}: {diff}")
                continue
            self.out("       " + self.p(diff, "yellow"))
            answer = self.ask("record it as paid all the same? [y/N] ").lower()
            if answer not in ("y", "yes"):
                return False
        return True

    def prompt(self) -> str:
        if not self.source.interactive:
            return ""
        w = self.rec.waiting()
        players = self.rec.players
        name = players[w.seat].name if w.seat is not None and w.seat < len(players) else ""
        if w.kind == "play":
            what = f"{name} to play"
        elif w.kind == "flip":
            what = f"{name} to flip"
        elif w.kind == "cup":
            what = f"{name}: cup animal|junk"
        elif w.kind == "decide":
            what = f"{name}: go|stop"
        elif w.kind == "pay":
            what = "pay (enter `pay` for the amounts due)"
        elif w.kind == "over":
            return "[game over] > "
        else:
            what = "deal"
        return f"[hand {w.hand}] {what}> "

    # --- output --------------------------------------------------------------------------

    def show_entry(self, entry: Entry) -> None:
        players = self.rec.players
        stays = isinstance(entry.input.event, E.CardFlipped) and words.stays(
            entry.input.event.card, [c.event for c in entry.consequences]
        )
        for k, env in enumerate(entry.envelopes):
            indent = "  " if k else ""
            said = describe_event(env.event, players, self.p)
            if not k and stays:
                said += f": {words.STAYS}"
            self.out(f"{env.seq:>5}  {indent}{said}")
        if entry.retracted is not None:
            self.out(f"       (was: {describe_event(entry.retracted.event, players, self.p)})")

    def after(self, entries: Sequence[Entry]) -> None:
        """What happened, then the table's new situation."""
        for e in entries:
            self.show_entry(e)
        if not entries:
            return
        last = entries[-1]
        g = self.rec.game
        h = g.hand
        t = E.event_type(last.input.event)
        if h is not None and t not in (
            "card_played",
            "shaken",
            "bomb_played",
            "note_added",
            "payment_recorded",
            "hand_started",
            "game_closed",
            "settlement_paid",
        ):
            if h.phase is not Phase.DEAL:
                self.out("       " + render_layout(h, self.p, g.players))
            self.out("       " + render_scores(g, self.p))
        ended = any(E.event_type(env.event) == "hand_ended" for env in last.consequences)
        if ended:
            result = self.rec.result()
            for line in (
                settlement_lines(result, self.rec.players, self.p, self.rec.game.shortfalls)
                if result
                else []
            ):
                self.out("       " + line)
        self.hint(
            between_hands=ended or t in ("payment_recorded", "game_closed", "settlement_paid")
        )
        self.show_seals()

    def show_seals(self) -> None:
        """The seals made since the last ones shown: write the last on the score sheet."""
        new = self.rec.seals[self.seals_shown :]
        self.seals_shown = len(self.rec.seals)
        for k, s in enumerate(new):
            settled = self.rec.waiting().kind in ("deal", "over", "closed") and k == len(new) - 1
            for line in seal_lines(s, qr=settled and self.qr):
                self.out("       " + line)

    def hint(self, between_hands: bool = True) -> None:
        """Say what the table waits for when it is a decision or a payment."""
        w = self.rec.waiting()
        players = self.rec.players
        h = self.rec.hand
        fours = self.rec.fours_due()
        if fours is not None:
            self.out("       " + words.fours_held(fours, players, notation.text(fours)))
        elif w.kind == "decide" and h is not None and w.seat is not None:
            self.out(
                f"       {players[w.seat].name} may stop with {h.score_of(w.seat)} points: "
                "go or stop?"
            )
        elif w.kind == "cup" and w.seat is not None:
            self.out(
                f"       {players[w.seat].name} took the September cup: cup animal or cup junk?"
            )
        elif w.kind == "pay":
            dues = ", ".join(
                f"{players[d.payer].name}->{players[d.payee].name} {d.chips}"
                for d in self.rec.pending_dues()
            )
            self.out(
                f"       payments due: {dues}; `pay` records them as due, "
                "`pay PAYER->PAYEE CHIPS` what was paid"
            )
        elif w.kind == "settle":
            g = self.rec.game
            open_ = words.transfer_words(players, g.open_transfers())
            self.out(
                f"       the night is closed; to pay: {open_}; `settle pay` records them as "
                "proposed, `settle pay PAYER->PAYEE CHIPS NOTE` what was paid"
            )
        elif w.kind == "closed" and between_hands:
            self.out("       the night is closed and settled; quit to finish")
        elif w.kind == "over" and between_hands:
            self.out("       the game is over (a single-hand ruleset); quit to finish")
        elif w.kind == "deal" and between_hands:
            dealer = f" ({players[w.seat].name} deals)" if w.seat is not None else ""
            self.out(f"       next: the deal of hand {w.hand}{dealer}: deal layout CARD...")

    def greet(self, resumed: bool) -> None:
        g = self.rec.game
        seats = ", ".join(f"{pl.name} (seat {i})" for i, pl in enumerate(g.players))
        verb = "resumed" if resumed else "recording"
        self.out(
            f"{verb} game {g.game_id} in {self.rec.sink.location}: {seats}; ruleset "
            f"{g.rules.name}; stake {g.stake} per point"
        )
        if resumed:
            for env in self.rec.completed:
                self.out(
                    f"{env.seq:>5}  {describe_event(env.event, g.players, self.p)}"
                    "  (completed after the interruption)"
                )
            self.out(f"at seq {self.rec.last_seq}")
            self.out(render_game(g, paint=self.p))
        if self.source.interactive:
            self.out("type help for the commands; Tab completes them and the cards playable now")
        self.hint()

    # --- questions ------------------------------------------------------------------------

    def ask(self, question: str) -> str:
        """The answer to a follow-up question: the next line (EOF cancels the command)."""
        answer = self.source.read(question if self.source.interactive else "")
        if answer is None:
            raise Refused(f"no answer to: {question.strip()}")
        return answer.strip()

    def guided_deal(self) -> list[Entry]:
        rec = self.rec
        g = rec.game
        players = g.players
        dealer = None
        if rec.needs_hand_start() and g.next_dealer is None:
            a = self.ask("dealer (seat or name, enter = seat 0): ")
            dealer = notation.seat_of(a, players) if a else None
        layout = _cards(self.ask("layout, the face-up cards: ").replace(",", " ").split())
        if not layout:
            raise Refused("the deal needs the face-up layout")
        hands: list[list[str] | None] = []
        h = g.hand
        playing = (
            notation.hand_started(g, dealer).order
            if rec.needs_hand_start() or h is None
            else h.order
        )
        for s, pl in enumerate(players):
            if s not in playing:  # at 4-5 seats: sits this hand out, dealt nothing
                hands.append(None)
                continue
            a = self.ask(f"{pl.name}'s hand (seat {s}; enter = unknown): ")
            hands.append(_cards(a.replace(",", " ").split()) if a and a not in _UNKNOWN else None)
        a = self.ask("stock, top card first (enter = unknown): ")
        stock = _cards(a.replace(",", " ").split()) if a and a not in _UNKNOWN else None
        bonus: list[str] = []
        if g.rules.bonus_cards:
            a = self.ask("bonus cards dealt face up, now in the dealer's pile (enter = none): ")
            bonus = _cards(a.replace(",", " ").split()) if a else []
        return rec.deal(layout, hands, stock, bonus, dealer=dealer)

    def choose(self, card: str, candidates: Sequence[str]) -> str:
        opts = "/".join(candidates)
        question = (
            f"{card} matches {' and '.join(candidates)} on the layout: which does it "
            f"take? [{opts}] "
        )
        while True:
            answer = self.ask(question)
            pick = _pick(answer, candidates)
            if pick is not None:
                return pick
            if not answer:
                raise Refused(f"{card}: no layout card chosen, the entry is cancelled")
            msg = f"{answer!r} is not one of {opts}"
            if not self.source.interactive:
                raise Refused(f"{card} matches {' and '.join(candidates)}: {msg}")
            self.err(self.pe(f"refused: {msg}", "red"))

    def cmd_show(self, tokens: list[str], _rest: str) -> None:
        last = self.rec.envelopes[-1] if self.rec.envelopes else None
        self.out(render_game(self.rec.game, paint=self.p, last=last))

    def cmd_proof(self, tokens: list[str], _rest: str) -> None:
        hand = None
        if tokens:
            try:
                hand = int(tokens[0])
            except ValueError:
                raise Refused(f"{tokens[0]!r} is not a hand number") from None
        result = self.rec.result(hand)
        lines = (
            settlement_lines(result, self.rec.players, self.p, self.rec.game.shortfalls)
            if result
            else []
        )
        if not lines:
            raise Refused("no hand won by a Stop to prove (yet)")
        for line in lines:
            self.out(line)

    def cmd_log(self, tokens: list[str], _rest: str) -> None:
        n = 10
        if tokens:
            try:
                n = max(1, int(tokens[0]))
            except ValueError:
                raise Refused(f"{tokens[0]!r} is not a number of events") from None
        for env in self.rec.envelopes[-n:]:
            self.out(f"{env.seq:>5}  {describe_event(env.event, self.rec.players, self.p)}")

    def cmd_seal(self, tokens: list[str], _rest: str) -> None:
        self.rec.seal()
        if len(self.rec.seals) == self.seals_shown and self.rec.seals:
            self.seals_shown -= 1  # the head was sealed already: show that seal again
        self.show_seals()

    def cmd_help(self, tokens: list[str], _rest: str) -> None:
        self.out(GRAMMAR)
        self.out(CARD_HELP)

    def cmd_quit(self, tokens: list[str], _rest: str) -> None:
        raise _Quit


def _pick(answer: str, candidates: Sequence[str]) -> str | None:
    a = answer.strip()
    if a.isdecimal() and 1 <= int(a) <= len(candidates):
        return candidates[int(a) - 1]
    try:
        code = card_code(a)
    except GostopError:
        return None
    return code if code in candidates else None
