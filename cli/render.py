"""The table, events and payout proofs as text for people, and as JSON for programs.

Shared by ``record``, ``replay`` and ``validate``. Players are shown by name with their seat,
layout cards by month with stacks and ppuk owners, piles by kind, scores itemised. Colour is
a courtesy for a terminal: callers pass ``color=common.color_enabled(stream)``, which is off
when the stream is not a TTY or ``NO_COLOR`` is set, and the text reads the same without it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import typer

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records import words
from gostop_records.engine.game import GameState, HandResult
from gostop_records.engine.rulebook import INSTANTS
from gostop_records.engine.state import HandState, Phase
from gostop_records.proof_view import proof_text
from gostop_records.views import pending_cards

__all__ = [
    "Painter",
    "describe_event",
    "describe_for",
    "render_game",
    "render_layout",
    "render_scores",
    "render_seat_view",
    "seat_name",
]

_KIND_COLOURS = {
    C.Kind.BRIGHT: "yellow",
    C.Kind.ANIMAL: "green",
    C.Kind.RIBBON: "red",
    C.Kind.BONUS: "magenta",
}

#: The colour of each part of a sentence that :mod:`gostop_records.words` marks.
_ROLE_STYLES: dict[str, tuple[str | None, bool]] = {
    "ppuk": ("red", True),
    "call": ("cyan", True),
    "outcome": (None, True),
    "heading": (None, True),
}


class Painter:
    """Colours text when enabled; plain text otherwise."""

    def __init__(self, color: bool = False) -> None:
        self.color = color

    def __call__(self, text: str, fg: str | None = None, bold: bool = False) -> str:
        if not self.color or (fg is None and not bold):
            return text
        return typer.style(text, fg=fg, bold=bold)

    def card(self, code: str) -> str:
        kind = C.ALL_CARDS[C.CODE_TO_INDEX[code]].kind if code in C.CODE_TO_INDEX else None
        return self(code, _KIND_COLOURS.get(kind) if kind else None, kind is C.Kind.BRIGHT)

    def cards(self, codes: Sequence[str]) -> str:
        return " ".join(self.card(c) for c in codes) if codes else "-"

    def mark(self, text: str, role: str) -> str:
        """A part of a sentence :mod:`gostop_records.words` marks (its role's colour)."""
        fg, bold = _ROLE_STYLES.get(role, (None, False))
        return self(text, fg, bold)


seat_name = words.seat_name
_who = words.who


# --- events ----------------------------------------------------------------------------------


def describe_event(ev: Any, players: Sequence[E.Player], paint: Painter | None = None) -> str:
    """One sentence for a payload, naming players by name (:func:`gostop_records.words.describe`),
    coloured when the painter is."""
    return words.describe(ev, players, None, paint or Painter())


def describe_for(
    ev: Any, players: Sequence[E.Player], viewer: int | None, paint: Painter | None = None
) -> str:
    """One sentence for a payload told to the player in seat ``viewer`` ("you play 03R")."""
    return words.describe(ev, players, viewer, paint or Painter())


# --- the table ---------------------------------------------------------------------------------


def render_layout(
    h: HandState, paint: Painter | None = None, players: Sequence[E.Player] = ()
) -> str:
    """The face-up layout by month, stacks in brackets with their ppuk owner; the card the
    mover just played waits beside its month (``+ 01R played``) until the flip."""
    p = paint or Painter()
    pending = pending_cards(h)
    cells = []
    for m in range(1, 13):
        month = h.layout & C.MONTH_MASKS[m]
        cards = month & ~pending
        if not month:
            continue
        txt = p.cards(C.codes(cards)) if cards else "-"
        if cards.bit_count() == 3:
            owner = h.owner[m]
            txt = f"[{txt}]" + (f" ppuk of {_who(players, owner)}" if owner >= 0 else " stack")
        if month & pending:
            txt += f" + {p.cards(C.codes(month & pending))} played"
        cells.append(f"{p(f'{m:02d}', bold=True)}: {txt}")
    return "layout  " + (" | ".join(cells) if cells else "(empty)")


def _score_text(h: HandState, seat: int) -> str:
    sc = h.itemised(seat)
    if not sc.lines:
        return "0"
    return f"{sc.total} (" + "; ".join(f"{ln.name} {ln.points}" for ln in sc.lines) + ")"


def render_scores(game: GameState, paint: Painter | None = None) -> str:
    """Every playing seat's score on one line: ``scores  Ann 3 (...) | Ben 0``."""
    p = paint or Painter()
    h = game.hand
    if h is None:
        return "scores  (no hand yet)"
    parts = []
    for s in sorted(h.order):
        gos = f" {h.go_count[s]} Go" if h.go_count[s] else ""
        parts.append(f"{p(_who(game.players, s), bold=True)} {_score_text(h, s)}{gos}")
    return "scores  " + " | ".join(parts)


def _hand_text(h: HandState, seat: int, p: Painter) -> str:
    known = C.codes(h.hands[seat])
    txt = p.cards(known) if known else ""
    if h.hand_unknown[seat]:
        txt = (txt + " " if txt else "") + f"+{h.hand_unknown[seat]} unknown"
    if h.flip_only[seat]:
        txt += f" (+{h.flip_only[seat]} flip-only turn{'s' if h.flip_only[seat] > 1 else ''})"
    return txt or "-"


def _outcome(h: HandState, players: Sequence[E.Player]) -> str:
    who = _who(players, h.winner)
    if h.outcome == "stop":
        return f"{who} wins by Stop"
    if h.outcome == "instant":
        return f"{who} wins instantly ({h.reason})"
    if h.outcome == "nagari":
        return f"nagari, no winner ({h.reason})"
    if h.outcome == "void":
        return f"the deal does not stand ({h.reason})"
    return f"{h.outcome} ({h.reason})"


# Long: the table drawn top to bottom, one block per part of the screen.
def render_game(
    game: GameState,
    *,
    paint: Painter | None = None,
    last: E.Envelope | None = None,
) -> str:
    """The whole table: hand, dealer, who acts, layout, stock, each seat's hand, pile by kind,
    itemised score and counters, the ledger; ``last`` is the event just applied."""
    p = paint or Painter()
    players = game.players
    out: list[str] = []
    h = game.hand
    if h is None:
        out.append(p(f"game {game.game_id}: no hand started yet", bold=True))
        out.append("seats   " + ", ".join(seat_name(players, s) for s in range(len(players))))
    else:
        head = f"game {game.game_id}  hand {h.hand_no}  dealer {_who(players, h.dealer)}"
        if h.carry > 1:
            head += f"  carry x{h.carry}"
        out.append(p(head, bold=True))
        if h.phase is Phase.ENDED:
            out.append(f"ended   {_outcome(h, players)}")
        else:
            actor = h.decider if h.phase in (Phase.CUP, Phase.DECIDE) else h.turn_seat
            word = words.PHASE_WORDS[h.phase]
            out.append(
                "next    the hand waits for the deal"
                if h.phase is Phase.DEAL
                else f"next    {p(_who(players, actor), bold=True)} {word}"
            )
        if h.phase is not Phase.DEAL:
            out.append(render_layout(h, p, players))
            top = h.stock_top()
            nxt = f", next {p.card(C.ALL_CARDS[top].code)}" if top is not None else ""
            out.append(f"stock   {words.stock_words(h)}{nxt}")
        for s in range(h.players):
            mark = (
                ">"
                if h.phase not in (Phase.ENDED, Phase.DEAL)
                and s == (h.decider if h.phase in (Phase.CUP, Phase.DECIDE) else h.turn_seat)
                else " "
            )
            if s not in h.order:
                sold = [
                    c
                    for hand, seat, cards in game.sales
                    if (hand, seat) == (h.hand_no, s)
                    for c in cards
                ]
                what = f"; sold {p.cards(sold)}" if sold else ""
                out.append(f"  {p(seat_name(players, s), bold=True)}  sits out this hand{what}")
                if sold:
                    price, payers = game.rules.gwang_price, sorted(h.order)
                    proof = words.sale_proof(players, s, sold, price, game.stake, payers)
                    out.append(f"    sale    {proof}")
                continue
            out.append(f"{mark} {p(seat_name(players, s), bold=True)}")
            out.append(f"    hand    {_hand_text(h, s, p)}")
            groups = [f"{label} {p.cards(got)}" for label, got in words.pile_groups(h, s)]
            out.append(f"    pile    {'; '.join(groups) or '-'}")
            sc = h.itemised(s)
            line = f"    score   {_score_text(h, s)}"
            if sc.cup_role:
                line += f"; cup as {sc.cup_role} ({sc.cup_reason})"
            out.append(line)
            flags = []
            for n, word in (
                (h.go_count[s], "Go"),
                (h.ppuk_count[s], "ppuk"),
                (h.shakes[s], "shake"),
                (h.bombs[s], "bomb"),
            ):
                if n:
                    flags.append(f"{n} {word}")
            if flags:
                out.append(f"    counts  {', '.join(flags)}")
    if game.results or game.payments or game.hand_dues:
        ledger = game.ledger()
        paid = game.recorded_ledger()
        cells = [
            f"{_who(players, s)} {ledger[s]:+d} due / {paid[s]:+d} paid"
            for s in range(len(players))
        ]
        out.append("ledger  " + " | ".join(cells))
    held = game.holdings()
    if held is not None:
        out.append("chips   " + " | ".join(f"{_who(players, s)} {c}" for s, c in enumerate(held)))
    if last is not None:
        out.append(f"event   seq {last.seq}: {describe_event(last.event, players, p)}")
    return "\n".join(out)


# --- the table as one seat sees it ------------------------------------------------------------


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def wrap_words(text: str, width: int | None, indent: int) -> list[str]:
    """``text`` in lines of at most ``width`` visible columns, broken only at spaces (so never
    inside a card code); lines after the first start with ``indent`` spaces. A word longer
    than a line stays whole. ``width=None``: one line."""
    if width is None:
        return [text]
    lines: list[str] = []
    line, used = "", 0
    for word in text.split(" "):
        seen = len(_ANSI.sub("", word))
        lead = indent if lines else 0
        if line and lead + used + 1 + seen > width:
            lines.append(line)
            line, used = word, seen
        else:
            line, used = (f"{line} {word}", used + 1 + seen) if line else (word, seen)
    lines.append(line)
    return [lines[0], *(" " * indent + ln for ln in lines[1:])]


def render_seat_view(
    game: GameState,
    viewer: int,
    *,
    paint: Painter | None = None,
    own_hand: bool = True,
    width: int | None = None,
) -> str:
    """The table as the player in seat ``viewer`` sees it: the layout by month (stacks and
    ppuk owners), the stock and every other hand as counts only, each pile by kind with its
    itemised score and counters. ``own_hand=False`` leaves the viewer's hand to the caller
    (a game lists it with what each card would do). ``width``: the screen's columns, which
    long lines wrap at, between cards."""
    p = paint or Painter()
    players = game.players
    h = game.hand
    if h is None:
        return f"game {game.game_id}: no hand started yet"
    dealer = "you" if h.dealer == viewer else _who(players, h.dealer)
    head = f"hand {h.hand_no}  dealer {dealer}"
    if h.carry > 1:
        head += f"  carry x{h.carry} (nagari before)"
    out = [p(head, bold=True)]
    if h.phase is Phase.ENDED:
        out.append(f"ended   {_outcome(h, players)}")
    if h.phase is not Phase.DEAL:
        out.append(render_layout(h, p, players))
        out.append(f"stock   {words.stock_words(h, face_down=True)}")
    names = [("you" if s == viewer else _who(players, s)) for s in range(h.players)]
    name_width = max(len(n) for n in names)
    pad = " " * (name_width + 2)
    room = None if width is None else max(20, width - len(pad))
    for s in range(h.players):
        first = f"{p(names[s].ljust(name_width), bold=True)}  "
        lines = []
        if s != viewer:
            n = h.hand_count(s)
            fo = f" (+{h.flip_only[s]} flip-only)" if h.flip_only[s] else ""
            lines.append(f"hand   {n} card{'s' if n != 1 else ''}, hidden{fo}")
        elif own_hand:
            lines.append(f"hand   {_hand_text(h, s, p)}")
        pile = h.piles[s]
        groups = [f"{label} {p.cards(got)}" for label, got in words.pile_groups(h, s)]
        sc = h.itemised(s)
        units = h.table.units(pile, sc.cup_role == "junk")
        junk = f" ({units} junk unit{'s' if units > 1 else ''})" if units else ""
        lines.extend(wrap_words(f"pile   {'; '.join(groups) or '-'}{junk}", room, 7))
        score = f"score  {_score_text(h, s)}"
        if sc.cup_role:
            why = f" ({sc.cup_reason})" if sc.cup_reason else ""
            score += f"; cup as {sc.cup_role}{why}"
        flags = [
            f"{n} {word}"
            for n, word in (
                (h.go_count[s], "Go"),
                (h.ppuk_count[s], "ppuk"),
                (h.shakes[s], "shake"),
                (h.bombs[s], "bomb"),
            )
            if n
        ]
        if flags:
            score += f"  [{', '.join(flags)}]"
        lines.append(score)
        out.append(first + lines[0])
        out.extend(pad + ln for ln in lines[1:])
    return "\n".join(out)


# --- payout proofs -----------------------------------------------------------------------------


def settlement_lines(
    result: HandResult,
    players: Sequence[E.Player],
    paint: Painter | None = None,
    shortfalls: Sequence[tuple[int, int, int, int, int, str]] = (),
    names: Sequence[str] = (),
) -> list[str]:
    """What a hand made due, all of it: the payout proof of a Stop, then the instant payments
    of the hand (a first ppuk, a four in hand), the dues the chips on the table capped (the
    game's ``shortfalls``: a proof shows what the rules make due, a capped loser pays less)
    and each seat's net, so that the ledger's figures are accounted for line by line.
    ``names`` word the proof's seats otherwise (``you``) than the players' names."""
    p = paint or Painter()
    proof = result.proof()
    out = []
    if proof is not None:
        out = proof_text(proof, names or players, lambda text: p(text, bold=True))
    instants = [d for d in result.dues if d[4] != "stop"]
    caps = [c for c in shortfalls if c[0] == result.hand]
    if not instants and not caps:
        return out
    names = {rule.id: rule.name for rule in INSTANTS}
    if instants:
        out.append(p("instant payments of the hand:", bold=True))
    for payer, payee, points, chips, reason in instants:
        out.append(
            f"  {_who(players, payer)} pays {_who(players, payee)} {chips} chips "
            f"({points} points, {names.get(reason, reason)})"
        )
    if caps:
        out.append(p("capped by the chips on the table:", bold=True))
        for _hand, payer, payee, due, paid, cap in caps:
            capped = E.PaymentCapped(payer=payer, payee=payee, due=due, paid=paid, cap=cap)  # type: ignore[arg-type]
            out.append("  " + describe_event(capped, players, p))
    net = [0] * len(players)
    for payer, payee, _points, chips, _reason in result.dues:
        net[payer] -= chips
        net[payee] += chips
    out.append(
        "  due in all: " + " | ".join(f"{_who(players, s)} {n:+d}" for s, n in enumerate(net))
    )
    return out
