"""``gostop play``: a hand against the computer in the terminal, recorded like any table game.

The CARDAVIA page offers "2 players, you vs AI, a single hand" under its own precise rules;
this is that game (and the other presets, against one or two bots) on the project's engine.
The table is drawn as you see it: your hand with what each card would take, the layout by
month, both piles with their itemised scores, the stock and the other hands as counts. The
computer's turns are told step by step. Every entry is checked by the rules and saved before
the next prompt, and each hand ends with the payment the rules make due recorded as paid, so
the log replays, audits and imports like a recorded table game.

Answers are read line by line: typed at the prompt, or piped from a file, so a game can be
scripted. ``help``, ``show`` and ``quit`` work at every prompt; a refused answer is told why
and asked again, and nothing is written for it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from gostop_records import words
from gostop_records.engine.settlement import Proof
from gostop_records.errors import GostopError
from gostop_records.play import (
    HUMAN,
    Option,
    PlayInputError,
    PlaySession,
    new_play_id,
    random_seed,
    resolve_setup,
    seat_names,
)
from gostop_records.proof_view import stop_summary
from gostop_records.recorder import Entry, card_code, open_sink
from gostop_records.sim.roster import known
from gostop_records.sim.roster import names as bot_names

from . import common
from .render import (
    Painter,
    describe_for,
    render_scores,
    render_seat_view,
    settlement_lines,
)

__all__ = ["PlayLoop", "play"]

T = TypeVar("T")

ALWAYS_HELP = (
    "  show          the table again\n"
    "  help          this text\n"
    "  quit          stop playing (every move so far is saved in the log)"
)
PLAY_HELP = (
    "Your card:\n"
    "  03R           a card code (case does not matter: 3r, 03r) or its number in the list\n"
    "  08J1 08A      a card and the layout card it takes, when two of its month lie face up\n"
    "                (without it you are asked)\n"
    "  bomb MONTH    when listed: three cards of a month onto the fourth face up\n"
    "  shake MONTH   when listed: show three cards of a month; your win pays more\n"
    "  flip-only     when listed: play no card and only flip (the turns a bomb leaves)\n"
)
CHOICE_HELP = "Which layout card it takes: its code or its number in the list.\n"
DECIDE_HELP = (
    "go            play on: a later Stop pays more, but if another player stops first\n"
    "              your score is lost\n"
    "stop          end the hand now and be paid\n"
)
CUP_HELP = "animal | junk  what the September cup (09A) counts as for you, for the whole hand\n"
ANOTHER_HELP = "y | n         deal another hand of this game, or stop here (n, or enter)\n"


class _Quit(Exception):
    """The player typed quit."""


class _InputEnded(Exception):
    """The answers ran out (end of a piped file, or Ctrl-D)."""


class PlayLoop:
    """The dialogue of ``gostop play`` over a :class:`~gostop_records.play.PlaySession`.

    ``answers`` is anything with ``read(prompt) -> str | None`` (None: no more answers).
    """

    def __init__(
        self,
        session: PlaySession,
        answers: Any,
        *,
        out: Callable[[str], None],
        err: Callable[[str], None],
        paint: Painter,
        err_paint: Painter | None = None,
    ) -> None:
        self.ps = session
        self.answers = answers
        self.out = out
        self.err = err
        self.p = paint
        self.pe = err_paint or Painter()
        self.refused = 0
        self._summed: set[int] = set()
        self._options: list[Option] = []
        #: What Tab completes at the prompt being asked (see :meth:`ask`).
        self.completions: list[str] = []

    # --- the loop ------------------------------------------------------------------------

    def run(self) -> str:
        """Play until the game is over, the player declines another hand or quits.

        Returns ``over`` (the single-hand game ended), ``done`` (no other hand wanted),
        ``quit`` or ``input_ended``.
        """
        try:
            while True:
                step = self.ps.next_step()
                k = step.kind
                if k == "deal":
                    self.show(self.ps.deal())
                elif k == "fours":
                    self.show([self.ps.show_fours()])
                elif k == "pay":
                    self.summary(step.hand)
                    self.show(self.ps.pay())
                    self.totals()
                elif k == "hand_over":
                    self.summary(step.hand)
                    if not self.ask_another():
                        return "done"
                    self.show(self.ps.deal())
                elif k == "over":
                    self.summary(step.hand)
                    return "over"
                elif not step.human:
                    self.show([self.ps.bot_step()])
                elif k == "play":
                    self.human_play()
                elif k == "flip":
                    self.human_flip()
                elif k == "cup":
                    self.human_cup()
                else:
                    self.human_decide()
        except _Quit:
            return "quit"
        except _InputEnded:
            return "input_ended"

    def ask(
        self,
        question: str,
        parse: Callable[[str], T],
        help_text: str,
        show: Callable[[], None] | None = None,
        choices: Sequence[str] = (),
    ) -> T:
        """Ask until an answer parses; ``help``, ``show`` and ``quit`` work at every prompt.
        ``choices``: the answers Tab completes (with those three)."""
        self.completions = [*choices, "help", "show", "quit"]
        while True:
            line = self.answers.read(question)
            if line is None:
                raise _InputEnded
            a = line.strip()
            low = a.lower()
            if low in ("quit", "q", "exit"):
                raise _Quit
            if low in ("help", "?"):
                self.out(help_text + ALWAYS_HELP)
                continue
            if low in ("show", "table"):
                (show or self.show_table)()
                continue
            try:
                return parse(a)
            except GostopError as exc:
                self.refuse(str(exc))

    def refuse(self, reason: str) -> None:
        self.refused += 1
        self.err(self.pe(f"refused: {reason}", "red"))

    # --- output --------------------------------------------------------------------------

    def say(self, ev: Any) -> str:
        text = describe_for(ev, self.ps.players, HUMAN, self.p)
        return text[:1].upper() + text[1:]

    def show(self, entries: Sequence[Entry]) -> None:
        """What happened: each input, its consequences indented below it."""
        ended = False
        for entry in entries:
            t = entry.input.type
            if t == "hand_started":
                self.out("")
            said = self.say(entry.input.event)
            ev = entry.input.event
            if t == "card_flipped" and words.stays(ev.card, [c.event for c in entry.consequences]):
                said += f": {words.STAYS}"
            self.out(said)
            for env in entry.consequences:
                self.out("  " + self.say(env.event))
                ended = ended or env.type == "hand_ended"
            if t == "hand_started" and entry.input.hand == 1:
                self.out("  (the first player is chosen at random)")
        if (
            not entries
            or ended
            or entries[-1].input.type
            not in (
                "card_flipped",
                "cup_assigned",
                "go_called",
            )
        ):
            return
        nxt = self.ps.next_step()
        if not (nxt.human and nxt.kind == "play"):  # the table is drawn before that prompt
            self.out("  " + render_scores(self.ps.game, self.p))

    def show_table(self) -> None:
        self.out(render_seat_view(self.ps.game, HUMAN, paint=self.p, width=_columns()))

    def show_hand(self) -> None:
        self.out(
            render_seat_view(self.ps.game, HUMAN, paint=self.p, own_hand=False, width=_columns())
        )
        self.out(self.p("your hand:", bold=True))
        width = max((len(o.label) for o in self._options), default=4)
        for o in self._options:
            label = self.p.card(o.label) if o.kind == "card" else self.p(o.label, bold=True)
            label += " " * (width - len(o.label))
            self.out(f"  {o.number:>2}. {label}  -> {o.text}")

    def summary(self, hand: int) -> None:
        """The end of a hand, once: the outcome and the payout proof."""
        if hand in self._summed:
            return
        self._summed.add(hand)
        r = self.ps.result(hand)
        if r is None:
            return
        players = self.ps.players
        self.out("")
        if r.outcome == "stop":
            if r.proof() is not None:
                shortfalls = self.ps.game.shortfalls
                lines = settlement_lines(r, players, self.p, shortfalls, self._names())
                self.out("\n".join(lines))
        elif r.outcome == "instant":
            self.out(self.p(f"instant win ({r.reason}):", bold=True))
            for payer, payee, pts, chips, why in r.dues:
                payer_name = "you" if payer == HUMAN else players[payer].name
                payee_name = "you" if payee == HUMAN else players[payee].name
                self.out(
                    f"  {payer_name} pay{'' if payer == HUMAN else 's'} {payee_name} "
                    f"{chips} chips ({pts} points, {why})"
                )
        elif r.outcome == "nagari":
            carry = f"; the next hand pays x{r.next_carry}" if r.next_carry > 1 else ""
            draw = "a draw" if self.ps.rules.single_hand else "nagari"
            self.out(self.p(f"no winner ({r.reason}): {draw}, nobody pays{carry}", bold=True))

    def totals(self) -> None:
        if not self.ps.multi_hand:
            return
        net = self.ps.game.recorded_ledger()
        cells = [
            f"{'you' if s == HUMAN else p.name} {net[s]:+d}" for s, p in enumerate(self.ps.players)
        ]
        self.out(f"chips so far: {', '.join(cells)}")

    # --- the human's moves ---------------------------------------------------------------

    def human_play(self) -> None:
        self._options = self.ps.options()
        if len(self._options) == 1 and self._options[0].kind == "flip_only":
            self.out("You have no card left to play: a flip-only turn")
            self.show([self.ps.play(self._options[0])])
            return
        self.out("")
        self.show_hand()

        def parse(answer: str) -> tuple[Option, str | None]:
            return self.ps.parse_play(answer)

        playable = [o.label for o in self._options]
        opt, chosen = self.ask("your card> ", parse, PLAY_HELP, self.show_hand, playable)
        if opt.choose and chosen is None:
            chosen = self.choose(opt.card or opt.label, opt.takes)
        self.show([self.ps.play(opt, chosen)])

    def choose(self, card: str, candidates: Sequence[str]) -> str:
        """Which of two layout cards a played or flipped card takes."""
        self.out(f"{self.p.card(card)} matches two cards of its month on the layout:")
        for k, c in enumerate(candidates, 1):
            self.out(f"  {k}. {self.p.card(c)}")

        def parse(answer: str) -> str:
            if answer.isdecimal() and 1 <= int(answer) <= len(candidates):
                return candidates[int(answer) - 1]
            try:
                code = card_code(answer)
            except GostopError:
                code = None
            if code not in candidates:
                raise PlayInputError(
                    f"{answer!r} is not one of them: answer {' or '.join(candidates)} "
                    f"(or 1..{len(candidates)})"
                )
            return code

        return self.ask(f"{card} takes which> ", parse, CHOICE_HELP, None, candidates)

    def human_flip(self) -> None:
        card, choices = self.ps.flip_pending()
        chosen = None
        if choices:
            self.out(f"You flip {self.p.card(card)}.")
            chosen = self.choose(card, choices)
        self.show([self.ps.flip(chosen)])

    def human_cup(self) -> None:
        pts = self.ps.cup_points()
        self.out(
            f"You took the September cup (09A): it counts as an animal ({pts['animal']} "
            f"points for you) or as double junk ({pts['junk']} points)."
        )

        def parse(answer: str) -> str:
            role = {"a": "animal", "j": "junk"}.get(answer.lower(), answer.lower())
            if role not in ("animal", "junk"):
                raise PlayInputError(f"{answer!r}: the cup counts as animal or junk")
            return role

        role = self.ask("cup: animal or junk> ", parse, CUP_HELP, None, ("animal", "junk"))
        self.show([self.ps.cup(role)])

    def _names(self) -> list[str]:
        """The seats' names as the player is told them: their own seat is "you"."""
        return ["you" if s == HUMAN else pl.name for s, pl in enumerate(self.ps.players)]

    def stop_text(self, proof: Proof) -> list[str]:
        return ["  " + line for line in stop_summary(proof, self._names())]

    def human_decide(self) -> None:
        h = self.ps.hand
        assert h is not None
        sc = h.itemised(HUMAN)
        lines = "; ".join(f"{ln.name} {ln.points}" for ln in sc.lines)
        gone = f" after {h.go_count[HUMAN]} Go" if h.go_count[HUMAN] else ""
        self.out("")
        self.out(self.p(f"You have {sc.total} points{gone}: {lines}", bold=True))
        self.out("A Stop now wins:")
        for line in self.stop_text(self.ps.stop_value()):
            self.out(line)
        self.out("A Go plays on for more; if another player stops first, your score is lost.")

        def parse(answer: str) -> str:
            a = answer.lower()
            if a in ("go", "g"):
                return "go"
            if a in ("stop", "s"):
                return "stop"
            raise PlayInputError(f"{answer!r}: answer go or stop")

        choice = self.ask("go or stop> ", parse, DECIDE_HELP, None, ("go", "stop"))
        self.show([self.ps.go() if choice == "go" else self.ps.stop()])

    def ask_another(self) -> bool:
        def parse(answer: str) -> bool:
            a = answer.lower()
            if a in ("y", "yes"):
                return True
            if a in ("", "n", "no"):
                return False
            raise PlayInputError(f"{answer!r}: answer y or n")

        self.out("")
        return self.ask("another hand? [y/N]> ", parse, ANOTHER_HELP, None, ("yes", "no"))


# --- the command ------------------------------------------------------------------------------


# Long: a typer command: its options are its signature, over half of its lines.
def play(
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset",
            "-r",
            metavar="cardavia|NAME|FILE",
            help="A preset (cardavia, gamerules, matgo, gostop3) or a ruleset file; "
            "default cardavia for 2 players, gostop3 for 3.",
            show_default=False,
        ),
    ] = None,
    bot: Annotated[
        str,
        typer.Option(
            "--bot",
            metavar="BOT|LEVEL",
            help="How the computer plays: a bot (greedy, random, strong: a search over what "
            "its seat can see, deep: strong and a second look) or a level (beginner, casual, "
            "club, strong, expert, master).",
        ),
    ] = "greedy",
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            metavar="S",
            min=0,
            help="Deal and play this game again: the same seed and answers give the same "
            "game (default: a random seed, shown at the start).",
            show_default=False,
        ),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            metavar="2|3",
            help="Players at the table, you included (3: two computers; default 2).",
            show_default=False,
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", metavar="YOU", help="Your name in the log.")
    ] = "You",
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            metavar="FILE",
            help="The JSON Lines log to write (default: GAME_ID.jsonl in this folder).",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            metavar="FILE",
            help="Write to this DuckDB store instead of a log file.",
            show_default=False,
        ),
    ] = None,
    stake: Annotated[int, typer.Option("--stake", min=0, metavar="N", help="Chips per point.")] = 1,
) -> None:
    """Play a hand against the computer, recorded like any table game.

    CARDAVIA rules by default: you against the computer, one hand, target 7.
    Other presets: matgo, gamerules; gostop3 (or --players 3) for two computers.
    With them another hand is offered after each one.

    Answers are read line by line, so a game can be piped from a file.
    At every prompt: help, show, quit.
    The log replays, audits and imports like a recorded game.

    Example: gostop play --seed 42
    """
    if not known(bot):
        raise typer.BadParameter(f"{bot!r}: {bot_names()}", param_hint="--bot")
    if players is not None and players not in (2, 3):
        raise typer.BadParameter(f"{players}: 2 or 3 players", param_hint="--players")
    common.not_both("--db", db, "--log", log)
    rules, n = resolve_setup(ruleset or ("gostop3" if players == 3 else "cardavia"), players)
    seat_names(name, n)  # a clash with a computer's name is refused before any file is made
    s = seed if seed is not None else random_seed()
    game_id = new_play_id()
    interactive = sys.stdin.isatty()
    paint = Painter(common.color_enabled(sys.stdout))
    with contextlib.ExitStack() as stack:
        sink = open_sink(
            db=db, log=log if db is not None or log is not None else Path(f"{game_id}.jsonl")
        )
        stack.callback(sink.close)
        ps = PlaySession.start(
            sink,
            rules,
            players=n,
            bot=bot,
            seed=s,
            name=name,
            stake=stake,
            game_id=game_id,
        )
        if interactive:
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401 - line editing and history at the prompt
        foes = " and ".join(p.name for p in ps.players[1:])
        common.echo(
            paint(
                f"gostop play: {ps.rules.name} rules, you against {foes} ({bot} bot"
                f"{'s' if n > 2 else ''}), stake {stake} per point",
                bold=True,
            )
        )
        common.echo(f"seed {s}: the same seed and answers play this game again (--seed {s})")
        common.echo(f"recording game {ps.game_id} in {ps.location}")
        common.echo("type help at any prompt for the answers it takes; Tab completes them")
        loop = PlayLoop(
            ps,
            common.LineReader(sys.stdin, interactive, common.echo),
            out=common.echo,
            err=lambda line: typer.echo(line, err=True),
            paint=paint,
            err_paint=Painter(common.color_enabled(sys.stderr)),
        )
        loop.answers.lines = lambda: loop.completions  # Tab completes the prompt's answers
        try:
            how = loop.run()
        except KeyboardInterrupt:
            typer.echo("", err=True)
            how = "interrupted"
        _farewell(ps, how, db is not None)
    if how == "interrupted":
        raise typer.Exit(130)
    if how == "input_ended" and not interactive:
        common.fail("the answers ran out before the game ended")


def _columns() -> int | None:
    """The terminal's width, which long table lines wrap at; None in a pipe (one line)."""
    import shutil

    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def _farewell(ps: PlaySession, how: str, in_store: bool) -> None:
    where = ps.location
    common.echo("")
    if how in ("quit", "input_ended", "interrupted"):
        common.echo(f"stopped: game {ps.game_id} is saved up to seq {ps.rec.last_seq}")
    src = f"--db {where} --game {ps.game_id}" if in_store else where
    common.echo(f"game {ps.game_id}: {len(ps.envelopes)} events written to {where}")
    common.echo(f"  replay it: gostop replay {src}")
    common.echo(f"  audit it:  gostop audit {src}")
