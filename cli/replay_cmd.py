"""``gostop replay``: the table at any point of a game, or a hand stepped through event by event.

The game is folded by the library (:func:`gostop_records.replay.timeline`, lenient, so a
record of a table that played wrongly can still be looked at); this command shows a point of
it, steps through it, and lists its disagreements with the rules on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from gostop_records.engine.state import Phase
from gostop_records.errors import GostopError
from gostop_records.replay import Timeline, timeline

from . import common
from .render import Painter, describe_event, render_game, settlement_lines

__all__ = ["STEP_HELP", "STEP_KEYS", "KeyReader", "replay", "step_through"]


def _show(tl: Timeline, i: int, paint: Painter) -> str:
    state = tl.states[i]
    env = tl.envelopes[i]
    if state is None:
        return f"seq {env.seq}: {describe_event(env.event, [], paint)}"
    head = paint(
        f"-- seq {env.seq} of {tl.envelopes[-1].seq}"
        + (f", hand {env.hand}" if env.hand else "")
        + " --",
        bold=True,
    )
    text = head + "\n" + render_game(state, paint=paint, last=env)
    h = state.hand
    if h is not None and h.phase is Phase.ENDED:
        result = next((r for r in state.results if r.hand == h.hand_no), None)
        lines = (
            settlement_lines(result, state.players, paint, state.shortfalls)
            if result is not None
            else []
        )
        if lines:
            text += "\n" + "\n".join(lines)
    return text


#: The keys of ``--step``, shown under every table (and in full for ``?``).
STEP_KEYS = (
    "keys: n/enter next, p previous event · t next turn, b back a turn · "
    "s/e start/end of the hand · ]/[ next/previous hand · SEQ+enter jump · ? help · q quit"
)
STEP_HELP = """\
  n, enter, space, right/down arrow   the next event
  p, left/up arrow                    the previous event
  t                                   to the end of the next turn (a play, its flip, all they cause)
  b                                   back to the end of the previous turn
  s / e                               the start / the end of this hand
  ] / [                               the start of the next / the previous hand
  a number, then enter                the event of that seq
  q                                   quit
A key may be followed by enter or not: the result is the same."""


class KeyReader:
    """Commands from a terminal in cbreak mode, one key each, so a key acts at once.

    An Enter right after a key is ignored (``p`` then Enter goes back once, as it does when
    lines are read); Enter alone is "next"; digits are gathered (and echoed) until Enter, to
    jump to that seq. Arrows are n/p; Ctrl-D or the end of input quits.
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.after_key = False

    def __call__(self) -> str | None:
        digits = ""
        while True:
            ch = self.stream.read(1)
            if ch in ("", "\x04"):
                return None
            if ch in ("\r", "\n"):
                if digits:
                    common.echo("")
                    return digits
                if self.after_key:
                    self.after_key = False
                    continue
                return "n"
            self.after_key = False
            if ch.isdecimal():
                digits += ch
                typer.echo(ch, nl=False)
                continue
            if ch in ("\x7f", "\b"):
                if digits:
                    digits = digits[:-1]
                    typer.echo("\b \b", nl=False)
                continue
            if ch == "\x1b":
                seq = self.stream.read(2)
                ch = {"[C": "n", "[B": "n", "[D": "p", "[A": "p"}.get(seq, "")
                if not ch:
                    continue
                self.after_key = True
                return ch
            if ch == " ":
                return "n"
            self.after_key = True
            return ch


@contextmanager
def _cbreak(fd: int) -> Iterator[None]:
    """The terminal in cbreak mode (keys one by one, no echo) for the whole stepping."""
    import termios
    import tty

    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        new = termios.tcgetattr(fd)
        new[3] &= ~termios.ECHO
        termios.tcsetattr(fd, termios.TCSADRAIN, new)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


def _target(tl: Timeline, span: range, i: int, cmd: str) -> int | str:
    """Where a command goes from index ``i`` (within ``span``), or why it stays."""
    if cmd in ("", "n", "next", "j"):
        return i + 1 if i + 1 < span.stop else "at the last event; p goes back, q quits"
    if cmd in ("p", "prev", "previous", "k"):
        return i - 1 if i > span.start else "at the first event; n goes on, q quits"
    if cmd in ("t", "turn"):
        nxt = [k for k in tl.turn_ends() if i < k < span.stop]
        return nxt[0] if nxt else "at the last turn; b goes back, q quits"
    if cmd in ("b", "back"):
        prev = [k for k in tl.turn_ends() if span.start <= k < i]
        return prev[-1] if prev else "at the first turn; t goes on, q quits"
    hand = tl.hand_span(i)
    if cmd in ("s", "start"):
        return max(hand.start, span.start)
    if cmd in ("e", "end"):
        return min(hand.stop - 1, span.stop - 1)
    if cmd in ("]", "h", "hand"):
        if hand.stop >= span.stop:
            return "in the last hand; [ goes back, q quits"
        return hand.stop
    if cmd == "[":
        if hand.start <= span.start:
            return "in the first hand; ] goes on, q quits"
        return max(tl.hand_span(hand.start - 1).start, span.start)
    if cmd.isdecimal():
        try:
            j = tl.index_of_seq(int(cmd))
        except GostopError as exc:
            return str(exc)
        return j if j in span else f"seq {cmd} is outside the events being stepped through"
    return "unknown key " + repr(cmd) + "; " + STEP_KEYS.removeprefix("keys: ")


def step_through(
    tl: Timeline,
    span: range,
    start: int,
    read: Callable[[], str | None],
    paint: Painter,
) -> None:
    """Show the table one step at a time (see :data:`STEP_HELP`); the end of input quits."""
    i = start
    hint = paint(STEP_KEYS, fg="bright_black")
    common.echo(_show(tl, i, paint))
    common.echo(hint)
    while True:
        cmd = read()
        if cmd is None:
            return
        cmd = cmd.strip()
        cmd = cmd if cmd in ("[", "]") else cmd.lower()
        if cmd in ("q", "quit", "exit"):
            return
        if cmd in ("?", "help"):
            common.echo(STEP_HELP)
            continue
        to = _target(tl, span, i, cmd)
        if isinstance(to, str):
            common.echo(f"({to})")
            continue
        i = to
        common.echo(_show(tl, i, paint))
        common.echo(hint)


def _line_reader() -> Callable[[], str | None]:
    def read() -> str | None:
        line = sys.stdin.readline()
        return None if not line else line.rstrip("\r\n")

    return read


# Long: a typer command: its options are its signature, over half of its lines.
def replay(
    log: common.GameLogArgument = None,
    db: common.GameDbOption = None,
    game: common.GameOption = None,
    hand: Annotated[
        int | None,
        typer.Option(
            "--hand",
            metavar="N",
            min=1,
            help="The hand: alone, the table at its end; with --step, step through it.",
        ),
    ] = None,
    at: Annotated[
        int | None,
        typer.Option("--at", metavar="SEQ", min=1, help="The table right after this seq."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="The table as JSON on stdout.")] = False,
    step: Annotated[
        bool,
        typer.Option(
            "--step",
            help="Step through the hand (or the game): n/p an event, t/b a turn, s/e the "
            "hand's start/end, ]/[ the next/previous hand, SEQ+enter a seq, q quit; "
            "a key acts at once on a terminal (an Enter after it is ignored); reads lines "
            "when piped.",
        ),
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="FILE",
            help="Write the visual replayer of the game as one self-contained HTML file "
            "(opens from the disk, makes no network request).",
        ),
    ] = None,
    server: common.ServerOption = None,
) -> None:
    """The table at a point of a game: layout, hands, stock, piles, itemised scores, Go counts.

    Without --hand or --at: the table at the end of the log.

    Rule disagreements are listed on stderr; the replay goes on past them.

    Example: gostop replay friday.jsonl --hand 2 --at 40

    Example: gostop replay friday.jsonl --html friday.html
    """
    if server is None and (log is None) == (db is None):
        raise typer.BadParameter("give a LOG file or --db FILE --game ID", param_hint="LOG")
    if step and json_out:
        raise typer.BadParameter(
            "--step shows the table for people; leave out --json", param_hint="--step"
        )
    if html is not None and (step or json_out):
        raise typer.BadParameter("--html writes a page; leave out --step and --json")
    if server is not None:
        from gostop_records.service.client import load_remote_game

        gid, envs = load_remote_game(server, game, common.server_token(game=True))
    else:
        gid, envs = common.load_game(log, db, game, exact=False)  # no hash checks here
    tl = timeline(gid, envs)
    if not tl.envelopes:
        raise GostopError(f"game {gid}: its first event does not replay")
    for issue in tl.issues:
        if issue.severity == "violation" or issue.rule != "unknown_event_type":
            common.warn(common.with_source(f"game {gid}: {issue}"))
    span = tl.hand_range(hand) if hand is not None else range(len(tl.envelopes))
    if at is not None:
        i = tl.index_of_seq(at)
        if i not in span:
            raise GostopError(f"seq {at} is not in hand {hand}")
    else:
        i = span.start if step else span.stop - 1
    if html is not None:  # opened at --at or the end of --hand, when given
        from gostop_records.web.pages import write_replay_html

        size = write_replay_html(html, gid, envs, start=tl.envelopes[i].seq)
        typer.echo(f"wrote {html} ({size:,} bytes): the replayer of game {gid}", err=True)
        return
    paint = Painter(common.color_enabled(sys.stdout))
    if step:
        if not sys.stdin.isatty():
            step_through(tl, span, i, _line_reader(), paint)
            return
        with _cbreak(sys.stdin.fileno()):
            step_through(tl, span, i, KeyReader(sys.stdin), paint)
        return
    if json_out:
        common.print_json(tl.state_dict(i))
        return
    common.echo(_show(tl, i, paint))
