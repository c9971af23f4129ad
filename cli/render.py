"""The table, events and payout proofs as text for people, and as JSON for programs.

Shared by ``record``, ``replay`` and ``validate``. Players are shown by name with their seat,
layout cards by month with stacks and ppuk owners, piles by kind, scores itemised. Colour is
a courtesy for a terminal: callers pass ``color=common.color_enabled(stream)``, which is off
when the stream is not a TTY or ``NO_COLOR`` is set, and the text reads the same without it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import typer

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine.game import GameState
from gostop_records.engine.settlement import Proof
from gostop_records.engine.state import HandState, Phase
from gostop_records.views import pending_cards

__all__ = [
    "Painter",
    "describe_event",
    "describe_for",
    "proof_lines",
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
_CAPTURE_KINDS = {
    "pair": "pair",
    "stack": "stack of four",
    "ppuk_taken": "ppuk taken",
    "own_ppuk": "own ppuk taken back",
    "ttadak": "ttadak",
    "jjok": "jjok",
    "last_turn_three": "three on the last turn",
    "bomb": "bomb",
    "bonus": "bonus card",
}
_SOURCES = {"hand": "by hand", "flip": "by flip", "hand_and_flip": "by hand and flip"}
_PHASE_WORDS = {
    Phase.DEAL: "waits for the deal",
    Phase.PLAY: "to play",
    Phase.FLIP: "to flip",
    Phase.FLIP_AS_PLAY: "to flip (in place of the bonus card)",
    Phase.CUP: "to decide the September cup",
    Phase.DECIDE: "to say Go or Stop",
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


def seat_name(players: Sequence[E.Player], seat: int | None) -> str:
    """``Ann (seat 0)``; just ``seat N`` when the seat has no player."""
    if seat is None:
        return "nobody"
    if 0 <= seat < len(players):
        return f"{players[seat].name} (seat {seat})"
    return f"seat {seat}"


def _who(players: Sequence[E.Player], seat: int | None) -> str:
    if seat is not None and 0 <= seat < len(players):
        return players[seat].name
    return "nobody" if seat is None else f"seat {seat}"


# --- events ----------------------------------------------------------------------------------


def describe_event(ev: Any, players: Sequence[E.Player], paint: Painter | None = None) -> str:
    """One sentence for a payload (typed or unknown), naming players by name."""
    p = paint or Painter()
    w = lambda s: _who(players, s)  # noqa: E731
    t = E.event_type(ev)
    if isinstance(ev, E.UnknownEvent):
        return f"{t} (an event type this version does not know; kept as read)"
    if t == "game_started":
        seats = ", ".join(f"{pl.name} (seat {i})" for i, pl in enumerate(ev.players))
        name = ev.ruleset.get("name", "?")
        return f"game started: {seats}; ruleset {name}; stake {ev.stake} per point"
    if t == "hand_started":
        deck = "; shuffled deck recorded" if ev.deck else ""
        return f"hand {ev.hand} started: {w(ev.dealer)} deals and plays first{deck}"
    if t == "cards_dealt":
        known = [w(s) for s, h in enumerate(ev.hands) if h is not None]
        hands = f"hands known: {', '.join(known)}" if known else "hands unknown"
        stock = "stock known" if ev.stock is not None else "stock unknown"
        bonus = (
            f"; bonus to the dealer's pile: {p.cards(ev.bonus_to_pile)}" if ev.bonus_to_pile else ""
        )
        return f"dealt: layout {p.cards(ev.layout)}; {hands}; {stock}{bonus}"
    if t == "deal_voided":
        if ev.reason == "layout_four":
            return f"the deal does not stand: four of month {ev.month:02d} on the layout"
        return "the deal does not stand: every player holds a four"
    if t == "four_of_a_month_shown":
        shown = "; ".join(f"{w(f.seat)} shows month {f.month:02d}" for f in ev.shown)
        return f"four of a month: {shown}"
    if t == "shaken":
        return f"{w(ev.seat)} shakes month {ev.month:02d}: {p.cards(ev.cards)}"
    if t == "bomb_played":
        return f"{w(ev.seat)} bombs month {ev.month:02d} with {p.cards(ev.cards)}"
    if t == "card_played":
        ch = f" (takes {p.card(ev.chosen)})" if ev.chosen else ""
        return f"{w(ev.seat)} plays {p.card(ev.card)}{ch}"
    if t == "flip_only_played":
        return f"{w(ev.seat)} takes a flip-only turn"
    if t == "card_flipped":
        ch = f" (takes {p.card(ev.chosen)})" if ev.chosen else ""
        return f"{w(ev.seat)} flips {p.card(ev.card)}{ch}"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "from the layout"}
        rep = f"; draws {p.card(ev.replacement)}" if ev.replacement else ""
        if ev.source == "hand" and not ev.replacement:
            rep = "; draws a replacement"
        return f"{w(ev.seat)} takes bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "cards_captured":
        kind = _CAPTURE_KINDS.get(ev.kind, ev.kind)
        return f"{w(ev.seat)} captures {p.cards(ev.cards)} ({kind}, {_SOURCES[ev.source]})"
    if t == "ppuk_made":
        return (
            f"{p('ppuk', 'red', True)}: {w(ev.seat)} leaves {p.cards(ev.cards)} on the "
            f"layout (ppuk {ev.count} this hand)"
        )
    if t == "junk_transferred":
        return f"{w(ev.from_seat)} gives {w(ev.to_seat)} {p.card(ev.card)} ({ev.reason})"
    if t == "cup_assigned":
        return f"{w(ev.seat)} counts the September cup as {ev.role}"
    if t == "go_called":
        return p(f"{w(ev.seat)} calls Go {ev.count} at {ev.score} points", "cyan", True)
    if t == "stop_called":
        how = " (automatic: the last turn)" if ev.auto else ""
        return p(f"{w(ev.seat)} stops at {ev.score} points{how}", "cyan", True)
    if t == "hand_ended":
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        if ev.outcome in ("stop", "instant"):
            how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
            return p(f"hand over: {w(ev.winner)} wins {how}", bold=True) + carry
        if ev.outcome == "nagari":
            return p(f"hand over: nagari, no winner ({ev.reason})", bold=True) + carry
        return p(f"hand over: void ({ev.reason}), deal again", bold=True) + carry
    if t == "payment_due":
        return (
            f"due: {w(ev.payer)} pays {w(ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {w(ev.payer)} -> {w(ev.payee)} {ev.chips} chips{note}"
    if t == "note_added":
        about = f" (about seq {ev.about_seq})" if ev.about_seq else ""
        return f"note{about}: {ev.text}"
    if t == "entry_retracted":
        why = f" ({ev.reason})" if ev.reason else ""
        return f"undo: the entry at seq {ev.seq} is retracted{why}"
    return t


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
    """Every seat's score on one line: ``scores  Ann 3 (...) | Ben 0``."""
    p = paint or Painter()
    h = game.hand
    if h is None:
        return "scores  (no hand yet)"
    parts = []
    for s in range(h.players):
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
            word = _PHASE_WORDS[h.phase]
            out.append(
                "next    the hand waits for the deal"
                if h.phase is Phase.DEAL
                else f"next    {p(_who(players, actor), bold=True)} {word}"
            )
        if h.phase is not Phase.DEAL:
            out.append(render_layout(h, p, players))
            top = h.stock_top()
            nxt = f", next {p.card(C.ALL_CARDS[top].code)}" if top is not None else ""
            out.append(f"stock   {h.stock_remaining()} card(s){nxt}")
        for s in range(h.players):
            mark = (
                ">"
                if h.phase not in (Phase.ENDED, Phase.DEAL)
                and s == (h.decider if h.phase in (Phase.CUP, Phase.DECIDE) else h.turn_seat)
                else " "
            )
            out.append(f"{mark} {p(seat_name(players, s), bold=True)}")
            out.append(f"    hand    {_hand_text(h, s, p)}")
            pile = h.piles[s]
            groups = []
            for label, mask in (
                ("brights", C.BRIGHTS),
                ("animals", C.ANIMALS),
                ("ribbons", C.RIBBONS),
                ("junk", h.table.stealable),
            ):
                got = C.codes(pile & mask)
                if got:
                    groups.append(f"{label} {p.cards(got)}")
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
    if game.results or game.payments:
        ledger = game.ledger()
        paid = game.recorded_ledger()
        cells = [
            f"{_who(players, s)} {ledger[s]:+d} due / {paid[s]:+d} paid"
            for s in range(len(players))
        ]
        out.append("ledger  " + " | ".join(cells))
    if last is not None:
        out.append(f"event   seq {last.seq}: {describe_event(last.event, players, p)}")
    return "\n".join(out)


# --- the table as one seat sees it ------------------------------------------------------------


def _subject(players: Sequence[E.Player], viewer: int | None, seat: int | None, verb: str) -> str:
    """``you play`` for the viewer's seat, ``Ben plays`` for another."""
    if seat is not None and seat == viewer:
        return f"you {verb}"
    return f"{_who(players, seat)} {verb}s"


def _object(players: Sequence[E.Player], viewer: int | None, seat: int | None) -> str:
    return "you" if seat is not None and seat == viewer else _who(players, seat)


def describe_for(
    ev: Any, players: Sequence[E.Player], viewer: int | None, paint: Painter | None = None
) -> str:
    """One sentence for a payload, told to the player in seat ``viewer`` ("you play 03R",
    "Ben gives you 01J1 (jjok)"); events without a player read as :func:`describe_event`."""
    p = paint or Painter()
    t = E.event_type(ev)
    if isinstance(ev, E.UnknownEvent):
        return describe_event(ev, players, p)
    seat = getattr(ev, "seat", None)

    def s(verb: str) -> str:
        return _subject(players, viewer, seat, verb)

    if t == "hand_started":
        who = _subject(players, viewer, ev.dealer, "deal")
        return p(
            f"hand {ev.hand}: {who} and play{'' if ev.dealer == viewer else 's'} first", bold=True
        )
    if t == "cards_dealt":
        sizes = {len(h) for h in ev.hands if h is not None}
        each = f"{sizes.pop()} cards each, " if len(sizes) == 1 else ""
        stock = f", {len(ev.stock)} in the stock" if ev.stock is not None else ""
        return f"dealt: {each}{len(ev.layout)} face up{stock}"
    if t == "shaken":
        return f"{s('shake')} month {ev.month:02d}: {p.cards(ev.cards)}"
    if t == "bomb_played":
        return f"{s('bomb')} month {ev.month:02d} with {p.cards(ev.cards)}"
    if t == "card_played":
        ch = f", taking {p.card(ev.chosen)}" if ev.chosen else ""
        return f"{s('play')} {p.card(ev.card)}{ch}"
    if t == "flip_only_played":
        return f"{s('play')} no card (a flip-only turn)"
    if t == "card_flipped":
        ch = f", taking {p.card(ev.chosen)}" if ev.chosen else ""
        return f"{s('flip')} {p.card(ev.card)}{ch}"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "dealt face up"}
        rep = ""
        if ev.replacement:
            draws = "draw" if seat == viewer else "draws"
            # the card drawn into a hand is seen by its holder only
            drawn = p.card(ev.replacement) if seat == viewer or ev.source != "hand" else "a card"
            rep = f"; {draws} {drawn}"
        return f"{s('take')} bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "cards_captured":
        kind = _CAPTURE_KINDS.get(ev.kind, ev.kind)
        return f"{s('capture')} {p.cards(ev.cards)} ({kind}, {_SOURCES[ev.source]})"
    if t == "ppuk_made":
        return (
            f"{p('ppuk', 'red', True)}: {s('leave')} {p.cards(ev.cards)} on the layout "
            f"(ppuk {ev.count} this hand)"
        )
    if t == "junk_transferred":
        giver = _subject(players, viewer, ev.from_seat, "give")
        return f"{giver} {_object(players, viewer, ev.to_seat)} {p.card(ev.card)} ({ev.reason})"
    if t == "cup_assigned":
        return f"{s('count')} the September cup as {ev.role}"
    if t == "go_called":
        return p(f"{s('call')} Go {ev.count} at {ev.score} points", "cyan", True)
    if t == "stop_called":
        how = " (automatic: the last turn)" if ev.auto else ""
        return p(f"{s('stop')} at {ev.score} points{how}", "cyan", True)
    if t == "four_of_a_month_shown":
        shown = "; ".join(
            f"{_subject(players, viewer, f.seat, 'show')} four of month {f.month:02d}"
            for f in ev.shown
        )
        return f"four of a month: {shown}"
    if t == "hand_ended" and ev.outcome in ("stop", "instant"):
        how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        return p(f"hand over: {_subject(players, viewer, ev.winner, 'win')} {how}", bold=True) + (
            carry
        )
    if t == "payment_due":
        payer = _subject(players, viewer, ev.payer, "owe")
        return (
            f"due: {payer} {_object(players, viewer, ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        payer = _subject(players, viewer, ev.payer, "pay")
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {payer} {_object(players, viewer, ev.payee)} {ev.chips} chips{note}"
    return describe_event(ev, players, p)


def render_seat_view(
    game: GameState, viewer: int, *, paint: Painter | None = None, own_hand: bool = True
) -> str:
    """The table as the player in seat ``viewer`` sees it: the layout by month (stacks and
    ppuk owners), the stock and every other hand as counts only, each pile by kind with its
    itemised score and counters. ``own_hand=False`` leaves the viewer's hand to the caller
    (a game lists it with what each card would do)."""
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
        out.append(f"stock   {h.stock_remaining()} card(s), face down")
    names = [("you" if s == viewer else _who(players, s)) for s in range(h.players)]
    width = max(len(n) for n in names)
    pad = " " * (width + 2)
    for s in range(h.players):
        first = f"{p(names[s].ljust(width), bold=True)}  "
        lines = []
        if s != viewer:
            n = h.hand_count(s)
            fo = f" (+{h.flip_only[s]} flip-only)" if h.flip_only[s] else ""
            lines.append(f"hand   {n} card{'s' if n != 1 else ''}, hidden{fo}")
        elif own_hand:
            lines.append(f"hand   {_hand_text(h, s, p)}")
        pile = h.piles[s]
        groups = []
        for label, mask in (
            ("brights", C.BRIGHTS),
            ("animals", C.ANIMALS),
            ("ribbons", C.RIBBONS),
            ("junk", h.table.stealable),
        ):
            got = C.codes(pile & mask)
            if got:
                groups.append(f"{label} {p.cards(got)}")
        sc = h.itemised(s)
        units = h.table.units(pile, sc.cup_role == "junk")
        junk = f" ({units} junk unit{'s' if units > 1 else ''})" if units else ""
        lines.append(f"pile   {'; '.join(groups) or '-'}{junk}")
        score = f"score  {_score_text(h, s)}"
        if sc.cup_role:
            score += f"; cup as {sc.cup_role}"
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


def proof_lines(
    proof: Proof, players: Sequence[E.Player], paint: Painter | None = None
) -> list[str]:
    """The arithmetic of a payout: score lines, Go points, each multiplier and why, chips."""
    p = paint or Painter()
    w = _who(players, proof.winner)
    out = [p(f"payout proof: {w} wins with {proof.score.total} points", bold=True)]
    for ln in proof.score.lines:
        out.append(f"  {ln.name}: {ln.points}  ({' '.join(ln.cards)})")
    if proof.score.cup_role:
        out.append(f"  September cup as {proof.score.cup_role}: {proof.score.cup_reason}")
    if proof.go_count:
        out.append(
            f"  {proof.go_count} Go: {proof.go_formula} = {proof.go_points} ({proof.go_setting})"
        )
    for lp in proof.losers:
        out.append(f"  from {_who(players, lp.loser)}:")
        for f in lp.factors:
            mark = "x" + str(f.factor) if f.applies else "--"
            out.append(f"    {mark:>4}  {f.name}: {f.condition} [{f.setting}]")
        out.append(
            f"    {proof.go_points} points x {lp.multiplier} = {lp.points} points "
            f"x stake {proof.stake} = {lp.chips} chips"
        )
        if lp.pays_chips != lp.chips or lp.note:
            out.append(f"    pays {lp.pays_chips} chips{': ' + lp.note if lp.note else ''}")
    return out
