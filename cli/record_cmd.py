"""``gostop record``: record a game at a real table, one entry at a time.

Every entry is checked against the rules before it is written: an impossible one is refused
with the reason and nothing is written. An accepted entry (and what the rules derive from
it: captures, ppuk, junk transfers, the end of the hand) is on disk before the next prompt,
so a killed session loses nothing and continues with ``--resume GAME_ID``.

The commands, typed at the prompt, read from ``--script FILE`` or piped on stdin:

    deal layout CARD... [hand SEAT CARD...]... [stock CARD...]
         [bonus CARD...] [dealer SEAT]
                          the deal; it starts the hand. A hand or the stock
                          left out (or given as ?) is unknown to the record.
                          `deal` alone asks for each part on the next lines.
    play CARD [TAKE]      a hand card; TAKE is the layout card it takes when
                          two of its month lie there (asked for when left out)
    flip CARD [TAKE]      the card turned from the stock
    CARD [TAKE]           play or flip, whichever the table waits for
    bomb MONTH            three (or two) cards of a month onto the rest of it
    shake MONTH [CARDS]   show three cards of a month (name them if unknown)
    flip-only             a turn without a hand card, after a bomb (alias fo)
    four SEAT MONTH...    fours of a month shown at the deal
    cup animal|junk       the September cup counts as animal or as junk
    go | stop             the decision of a player who may stop
    pay                   record the payments due at the computed amounts
    pay PAYER->PAYEE N [NOTE]
                          what the table actually paid: pay Ben->Ann 24
    note [@SEQ] TEXT      free text, optionally about an earlier seq
    undo [REASON]         retract the latest entry (back to the hand's start)
    show | proof | log [N]
                          the table; the payout proof; the last N events
    help | quit           these lines; stop (every entry is already saved)

One command per line; case does not matter; commas and colons count as spaces; blank lines
and lines starting with ``#`` are skipped. A card is a month 01..12 and a kind: G bright, A
animal, R ribbon, J1/J2 junk, D double junk (``01G``, ``9a``, ``11d``); bonus cards are B2,
B3, B2B ... A SEAT is a seat number (0, 1, 2) or a player's name (or its start). MONTH is
1..12. ``dealer`` is for the first hand only: the rules name the dealer of the next ones.
``stock`` lists the stock from the top; ``bonus`` lists bonus cards dealt face up that went
to the dealer's pile (the layout then lists their replacements). A question (which card to
take, a part of a guided deal) is answered on the next line, in a script too.

A refused line is reported with its reason and the recording goes on: at the prompt the
question is asked again; in a script the refusal goes to stderr with its line number and
the exit code is 1 at the end.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine.state import Phase
from gostop_records.errors import GostopError
from gostop_records.recorder import (
    ChoiceRequired,
    Entry,
    EventSink,
    JsonlSink,
    RecordingSession,
    StoreSink,
    card_code,
)

from . import common
from .render import Painter, describe_event, proof_lines, render_game, render_layout, render_scores

__all__ = ["GRAMMAR", "Refused", "Session", "record"]

#: The command grammar, as the module docstring states it (``help`` and ``--help`` show it).
GRAMMAR = "\n".join(line[4:] for line in (__doc__ or "").split("\n\n")[3].splitlines())
CARD_HELP = (
    "CARD: a month 01..12 and a kind (G bright, A animal, R ribbon, J1/J2 junk,\n"
    "      D double junk): 01G, 9a, 11d; bonus cards B2, B3, B2B ...\n"
    "SEAT: a seat number (0, 1, 2) or a player's name."
)

_DEAL_WORDS = ("layout", "hand", "stock", "bonus", "dealer")
_UNKNOWN = ("?", "unknown", "-")


class Refused(GostopError):
    """A line the recorder cannot take (not a command, a bad seat, a bad number)."""


class _Quit(Exception):
    pass


# --- parsing helpers ------------------------------------------------------------------------


def _month(token: str) -> int:
    try:
        m = int(token)
    except ValueError:
        raise Refused(f"{token!r} is not a month (1..12)") from None
    if not 1 <= m <= 12:
        raise Refused(f"{token!r} is not a month (1..12)")
    return m


def _chips(token: str) -> int:
    try:
        n = int(token)
    except ValueError:
        raise Refused(f"{token!r} is not a number of chips") from None
    if n < 0:
        raise Refused(f"{token!r}: a payment is 0 chips or more")
    return n


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
        self.commands: dict[str, Callable[[list[str], str], None]] = {
            "deal": self.cmd_deal,
            "play": self.cmd_play,
            "p": self.cmd_play,
            "flip": self.cmd_flip,
            "f": self.cmd_flip,
            "bomb": self.cmd_bomb,
            "shake": self.cmd_shake,
            "flip-only": self.cmd_flip_only,
            "fliponly": self.cmd_flip_only,
            "flip_only": self.cmd_flip_only,
            "fo": self.cmd_flip_only,
            "four": self.cmd_four,
            "fours": self.cmd_four,
            "cup": self.cmd_cup,
            "go": self.cmd_go,
            "stop": self.cmd_stop,
            "pay": self.cmd_pay,
            "note": self.cmd_note,
            "undo": self.cmd_undo,
            "show": self.cmd_show,
            "table": self.cmd_show,
            "proof": self.cmd_proof,
            "log": self.cmd_log,
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
            common.error_message(f"line {line_no}: {text}: {msg}")

    def handle(self, text: str) -> None:
        word, *more = text.split(None, 1)
        rest = more[0] if more else ""
        key = word.lower()
        if key == "note":
            self.cmd_note([], rest.strip())
            return
        tokens = rest.replace(",", " ").replace(":", " ").split()
        fn = self.commands.get(key)
        if fn is not None:
            fn(tokens, rest.strip())
            return
        if key in C.CODE_TO_INDEX or _looks_like_card(key):
            self.cmd_card([word, *tokens], text)
            return
        raise Refused(f"unknown command {word!r}; type help for the commands")

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
        for k, env in enumerate(entry.envelopes):
            indent = "  " if k else ""
            self.out(f"{env.seq:>5}  {indent}{describe_event(env.event, players, self.p)}")
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
        ):
            if h.phase is not Phase.DEAL:
                self.out("       " + render_layout(h, self.p, g.players))
            self.out("       " + render_scores(g, self.p))
        ended = any(E.event_type(env.event) == "hand_ended" for env in last.consequences)
        if ended:
            proof = self.rec.proof()
            if proof is not None:
                for line in proof_lines(proof, self.rec.players, self.p):
                    self.out("       " + line)
        self.hint(between_hands=ended or t == "payment_recorded")

    def hint(self, between_hands: bool = True) -> None:
        """Say what the table waits for when it is a decision or a payment."""
        w = self.rec.waiting()
        players = self.rec.players
        h = self.rec.hand
        if w.kind == "decide" and h is not None and w.seat is not None:
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
            self.out("type help for the commands")
        self.hint()

    # --- seats ---------------------------------------------------------------------------

    def seat(self, token: str) -> int:
        """A seat from its number, a player's id or name, or a unique start of a name."""
        players = self.rec.players
        t = token.strip().lower()
        if t.isdigit():
            s = int(t)
            if s < len(players):
                return s
            raise Refused(f"there is no seat {s} (seats 0..{len(players) - 1})")
        exact = [i for i, p in enumerate(players) if t in (p.id.lower(), p.name.lower())]
        if len(exact) == 1:
            return exact[0]
        pre = [i for i, p in enumerate(players) if p.name.lower().startswith(t)]
        if len(pre) == 1:
            return pre[0]
        names = ", ".join(f"{i} {p.name}" for i, p in enumerate(players))
        raise Refused(f"{token!r} is not a seat: give a seat number or a name ({names})")

    # --- commands ------------------------------------------------------------------------

    def cmd_deal(self, tokens: list[str], _rest: str) -> None:
        n = self.rec.game.table.players
        unpaid = self.rec.pending_dues()
        if not tokens:
            self.after(self.guided_deal())
        else:
            self.after(self.parse_deal(tokens, n))
        if unpaid:
            self.out(f"       (no payment was recorded for hand {unpaid[0].hand})")

    def parse_deal(self, tokens: list[str], n: int) -> list[Entry]:
        """``deal`` with its parts on the line (see the module docstring)."""
        parts: dict[str, Any] = {"layout": None, "stock": None, "bonus": [], "dealer": None}
        hands: list[list[str] | None] = [None] * n
        section: str | None = None
        seat: int | None = None
        i = 0
        while i < len(tokens):
            tok = tokens[i].lower()
            if tok in _DEAL_WORDS:
                section = tok
                if tok in ("hand", "dealer"):
                    if i + 1 >= len(tokens):
                        raise Refused(f"`{tok}` needs a seat")
                    seat = self.seat(tokens[i + 1])
                    i += 1
                    if tok == "dealer":
                        parts["dealer"] = seat
                        section = None
                    else:
                        hands[seat] = []
                elif tok == "layout":
                    parts["layout"] = []
                elif tok == "stock":
                    parts["stock"] = []
                i += 1
                continue
            if section is None:
                raise Refused(f"{tokens[i]!r}: start with `layout` (deal layout 01G 03R ...)")
            if tok in _UNKNOWN:
                if section == "hand" and seat is not None:
                    hands[seat] = None
                elif section == "stock":
                    parts["stock"] = None
                i += 1
                continue
            code = card_code(tokens[i])
            if section == "hand":
                assert seat is not None
                hand = hands[seat]
                if hand is None:
                    raise Refused(f"seat {seat}'s hand is marked unknown and lists {code}")
                hand.append(code)
            elif section == "bonus":
                parts["bonus"].append(code)
            elif parts[section] is None:
                raise Refused(f"the {section} is marked unknown and lists {code}")
            else:
                parts[section].append(code)
            i += 1
        if not parts["layout"]:
            raise Refused("the deal needs the face-up layout: deal layout 01G 03R ...")
        return self.rec.deal(
            parts["layout"], hands, parts["stock"], parts["bonus"], dealer=parts["dealer"]
        )

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
            dealer = self.seat(a) if a else None
        layout = _cards(self.ask("layout, the face-up cards: ").replace(",", " ").split())
        if not layout:
            raise Refused("the deal needs the face-up layout")
        hands: list[list[str] | None] = []
        for s, pl in enumerate(players):
            a = self.ask(f"{pl.name}'s hand (seat {s}; enter = unknown): ")
            hands.append(_cards(a.replace(",", " ").split()) if a and a not in _UNKNOWN else None)
        a = self.ask("stock, top card first (enter = unknown): ")
        stock = _cards(a.replace(",", " ").split()) if a and a not in _UNKNOWN else None
        bonus: list[str] = []
        if g.rules.bonus_cards:
            a = self.ask("bonus cards dealt face up, now in the dealer's pile (enter = none): ")
            bonus = _cards(a.replace(",", " ").split()) if a else []
        return rec.deal(layout, hands, stock, bonus, dealer=dealer)

    def _card_step(self, step: str, tokens: list[str]) -> None:
        if not tokens or len(tokens) > 2:
            raise Refused(
                f"{step} takes a card and, when two match, the layout card it takes: "
                f"{step} 03R [03J1]"
            )
        card = card_code(tokens[0])
        chosen = card_code(tokens[1]) if len(tokens) == 2 else None
        fn = self.rec.play if step == "play" else self.rec.flip
        try:
            entry = fn(card, chosen)
        except ChoiceRequired as exc:
            if chosen is not None or not exc.candidates:
                raise
            chosen = self.choose(card, exc.candidates)
            entry = fn(card, chosen)
        self.after([entry])

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

    def cmd_card(self, tokens: list[str], _rest: str) -> None:
        w = self.rec.waiting()
        if w.kind == "flip":
            self._card_step("flip", tokens)
        elif w.kind == "play":
            self._card_step("play", tokens)
        else:
            raise Refused(f"a card is played or flipped; the table waits for {w.kind}")

    def cmd_play(self, tokens: list[str], _rest: str) -> None:
        self._card_step("play", tokens)

    def cmd_flip(self, tokens: list[str], _rest: str) -> None:
        self._card_step("flip", tokens)

    def cmd_bomb(self, tokens: list[str], _rest: str) -> None:
        if not tokens:
            raise Refused("bomb takes a month: bomb 05 (or the cards: bomb 05 05A 05R 05J1)")
        self.after([self.rec.bomb(_month(tokens[0]), _cards(tokens[1:]) or None)])

    def cmd_shake(self, tokens: list[str], _rest: str) -> None:
        if not tokens:
            raise Refused("shake takes a month: shake 05 (or the cards: shake 05 05A 05R 05J1)")
        self.after([self.rec.shake(_month(tokens[0]), _cards(tokens[1:]) or None)])

    def cmd_flip_only(self, tokens: list[str], _rest: str) -> None:
        self.after([self.rec.flip_only()])

    def cmd_four(self, tokens: list[str], _rest: str) -> None:
        if not tokens or len(tokens) % 2:
            raise Refused("four takes a seat and a month for each four: four Ann 05")
        shown = [(self.seat(tokens[k]), _month(tokens[k + 1])) for k in range(0, len(tokens), 2)]
        self.after([self.rec.show_fours(shown)])

    def cmd_cup(self, tokens: list[str], _rest: str) -> None:
        if len(tokens) != 1:
            raise Refused("cup animal or cup junk")
        role = {"a": "animal", "j": "junk", "animal": "animal", "junk": "junk"}.get(
            tokens[0].lower()
        )
        if role is None:
            raise Refused(f"the cup counts as animal or junk, not {tokens[0]!r}")
        self.after([self.rec.cup(role)])

    def cmd_go(self, tokens: list[str], _rest: str) -> None:
        self.after([self.rec.go()])

    def cmd_stop(self, tokens: list[str], _rest: str) -> None:
        self.after([self.rec.stop()])

    def cmd_pay(self, tokens: list[str], rest: str) -> None:
        if not tokens:
            self.after(self.rec.pay_due())
            return
        m = re.match(r"^\s*(\S+?)\s*(?:->|>|\s)\s*(\S+)\s+(\S+)(?:\s+(.*))?$", rest)
        if m is None:
            raise Refused(
                "pay PAYER->PAYEE CHIPS [NOTE], e.g. pay Ben->Ann 24 (or `pay` for the amounts due)"
            )
        payer, payee = self.seat(m.group(1)), self.seat(m.group(2))
        note = (m.group(4) or "").strip() or None
        self.after([self.rec.pay(payer, payee, _chips(m.group(3)), note)])

    def cmd_note(self, tokens: list[str], rest: str) -> None:
        about = None
        m = re.match(r"^@(\d+)\s*(.*)$", rest, re.S)
        if m:
            about, rest = int(m.group(1)), m.group(2)
        self.after([self.rec.note(rest, about)])

    def cmd_undo(self, tokens: list[str], rest: str) -> None:
        self.after([self.rec.undo(rest or None)])

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
        proof = self.rec.proof(hand)
        if proof is None:
            raise Refused("no hand won by a Stop to prove (yet)")
        for line in proof_lines(proof, self.rec.players, self.p):
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

    def cmd_help(self, tokens: list[str], _rest: str) -> None:
        self.out(GRAMMAR)
        self.out(CARD_HELP)

    def cmd_quit(self, tokens: list[str], _rest: str) -> None:
        raise _Quit


def _looks_like_card(word: str) -> bool:
    return bool(re.fullmatch(r"(0?[1-9]|1[0-2])(g|a|r|j1|j2|j3|d)|b[23][a-c]?", word.lower()))


def _pick(answer: str, candidates: Sequence[str]) -> str | None:
    a = answer.strip()
    if a.isdigit() and 1 <= int(a) <= len(candidates):
        return candidates[int(a) - 1]
    try:
        code = card_code(a)
    except GostopError:
        return None
    return code if code in candidates else None


# --- the command ------------------------------------------------------------------------------


def _open_sink(db: Path | None, log: Path | None, create: bool) -> EventSink:
    if log is not None:
        return JsonlSink(log, create=create)
    return StoreSink(db, create=create)


def record(
    players: Annotated[
        str | None,
        typer.Option(
            "--players",
            metavar="NAMES",
            help='Player names in seat order, comma-separated: "Ann,Ben".',
        ),
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            "-r",
            metavar="NAME|FILE",
            help="A preset (cardavia, gamerules, matgo, gostop3) or a ruleset file; "
            "default matgo for 2 players, gostop3 for 3.",
        ),
    ] = None,
    stake: Annotated[int, typer.Option("--stake", min=0, help="Chips per point.")] = 1,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            metavar="FILE",
            help="The DuckDB store to append to (default $GOSTOP_DB or gostop.duckdb here).",
        ),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log", metavar="FILE.jsonl", help="Append to a JSON Lines log instead of the store."
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="GAME_ID",
            help="Continue a stored game at the exact point it stopped.",
        ),
    ] = None,
    game_id: Annotated[
        str | None,
        typer.Option("--game-id", metavar="ID", help="Id of the new game (default: generated)."),
    ] = None,
    script: Annotated[
        Path | None,
        typer.Option(
            "--script",
            metavar="FILE",
            help="Read the commands from a file ('-' = stdin) instead of prompting.",
        ),
    ] = None,
    by: Annotated[
        str, typer.Option("--by", metavar="WHO", help="Who records (stored with each event).")
    ] = "recorder",
    venue: Annotated[str | None, typer.Option("--venue", help="Where the game is played.")] = None,
) -> None:
    """Record a game at a real table: each entry is checked by the rules and saved at once.

    The commands, one per line, at the prompt, in --script FILE or piped on stdin:

    \b
    {grammar}

    A refused line is reported with its reason and nothing is written; the recording goes on.

    A script exits 1 at the end when a line was refused.

    Resume a stopped game at the exact point it stopped with --resume GAME_ID.

    Example: gostop record --players "Ann,Ben" --ruleset matgo --log friday.jsonl
    """
    if db is not None and log is not None:
        raise typer.BadParameter("give --db or --log, not both", param_hint="--db/--log")
    if resume is not None and game_id is not None and game_id != resume:
        raise typer.BadParameter(
            "--resume names the game; leave --game-id out", param_hint="--game-id"
        )
    if resume is None and not players:
        raise typer.BadParameter(
            'name the players in seat order: --players "Ann,Ben"', param_hint="--players"
        )
    if resume is not None and (players or ruleset):
        common.warn("--players and --ruleset are taken from the stored game when resuming")

    with contextlib.ExitStack() as stack:
        stream: IO[str]
        if script is not None and str(script) != "-":
            try:
                stream = stack.enter_context(open(script, encoding="utf-8"))
            except OSError as exc:
                common.fail(f"{script}: cannot read: {exc.strerror}")
            interactive = False
        else:
            stream = sys.stdin
            interactive = script is None and sys.stdin.isatty()
        if interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401 - line editing and history at the prompt
        sink = _open_sink(db, log, create=resume is None)
        stack.callback(sink.close)
        if getattr(sink, "repaired", 0):
            common.warn(
                f"{sink.location}: cut off an incomplete last record "
                f"({sink.repaired} bytes) left by an interrupted write"
            )
        if resume is not None:
            rec = RecordingSession.resume(sink, resume, by=by)
        else:
            assert players is not None
            names = [n.strip() for n in players.split(",") if n.strip()]
            rules = ruleset or ("gostop3" if len(names) == 3 else "matgo")
            rec = RecordingSession.start(
                sink, names, rules, stake=stake, game_id=game_id, by=by, venue=venue
            )
        loop = Session(
            rec,
            common.LineReader(stream, interactive),
            out=common.echo,
            err=lambda s: typer.echo(s, err=True),
            paint=Painter(common.color_enabled(sys.stdout)),
            err_paint=Painter(common.color_enabled(sys.stderr)),
        )
        loop.greet(resumed=resume is not None)
        try:
            loop.run()
        except KeyboardInterrupt:
            typer.echo("", err=True)
        where = f"--log {log}" if log is not None else f"--db {sink.location}"
        typer.echo(
            f"game {rec.game_id}: {rec.last_seq} events saved in {sink.location}; continue "
            f"with: gostop record --resume {rec.game_id} {where}",
            err=True,
        )
    if loop.refused and not interactive:
        common.error_message(f"{loop.refused} line(s) refused")
        raise typer.Exit(common.EXIT_REJECTED)


record.__doc__ = (record.__doc__ or "").replace(
    "{grammar}", (GRAMMAR + "\n" + CARD_HELP).replace("[", "\\[").replace("\n", "\n    ")
)
