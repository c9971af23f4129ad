"""An event told in a sentence: in the third person, to the player of a seat (what it may
not see kept hidden), or as the record has it for an audit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import cards as C
from .. import events as E
from .marks import PLAIN, Marks, acts, object_of, subject_of, who
from .payments import settlement_words

#: A capture's kind (``cards_captured.kind``) in words.
CAPTURE_KINDS = {
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
#: Where a capture's cards came from (``cards_captured.source``).
SOURCES = {"hand": "by hand", "flip": "by flip", "hand_and_flip": "by hand and flip"}


def describe(
    ev: Any, players: Sequence[E.Player], viewer: int | None = None, marks: Marks = PLAIN
) -> str:
    """One sentence for a payload (typed or unknown): in the third person, or told to the
    player in seat ``viewer`` ("you play 03R", "Ben gives you 01J1 (jjok)"); events that
    name no player read the same either way."""
    if isinstance(ev, E.UnknownEvent):
        return f"{E.event_type(ev)} (an event type this version does not know; kept as read)"
    if viewer is not None and (told := _told_to(ev, players, viewer, marks)) is not None:
        return told
    return _seat_acts(ev, players, viewer, marks) or _third_person(ev, players, marks)


def _seat_acts(ev: Any, players: Sequence[E.Player], viewer: int | None, p: Marks) -> str | None:
    """The sentence for a seat's act that reads alike in either person ("Ann plays 03G, taking
    03R", "you shake month 03"); None for an event told differently to its player, or not a seat's
    act."""
    t = E.event_type(ev)

    def s(seat: int | None, verb: str) -> str:
        return subject_of(players, viewer, seat, verb)

    if t in ("card_played", "card_flipped"):
        verb = "play" if t == "card_played" else "flip"
        taking = f", taking {p.card(ev.chosen)}" if ev.chosen else ""
        return f"{s(ev.seat, verb)} {p.card(ev.card)}{taking}"
    if t == "shake_declined":
        return f"{s(ev.seat, 'decline')} to shake month {ev.month:02d}"
    if t == "shaken":
        return f"{s(ev.seat, 'shake')} month {ev.month:02d}: {p.cards(ev.cards)}"
    if t == "bomb_played":
        return f"{s(ev.seat, 'bomb')} month {ev.month:02d} with {p.cards(ev.cards)}"
    if t == "cards_captured":
        kind = CAPTURE_KINDS.get(ev.kind, ev.kind)
        return f"{s(ev.seat, 'capture')} {p.cards(ev.cards)} ({kind}, {SOURCES[ev.source]})"
    if t == "ppuk_made":
        return (
            f"{p.mark('ppuk', 'ppuk')}: {s(ev.seat, 'leave')} {p.cards(ev.cards)} on the "
            f"layout (ppuk {ev.count} this hand)"
        )
    if t == "junk_transferred":
        to = object_of(players, viewer, ev.to_seat)
        return f"{s(ev.from_seat, 'give')} {to} {p.card(ev.card)} ({ev.reason})"
    if t == "cup_assigned":
        return f"{s(ev.seat, 'count')} the September cup as {ev.role}"
    if t == "go_called":
        return p.mark(f"{s(ev.seat, 'call')} Go {ev.count} at {ev.score} points", "call")
    if t == "stop_called":
        how = " (automatic: the last turn)" if ev.auto else ""
        return p.mark(f"{s(ev.seat, 'stop')} at {ev.score} points{how}", "call")
    if t == "hand_ended" and ev.outcome in ("stop", "instant"):
        how = "by Stop" if ev.outcome == "stop" else f"instantly ({ev.reason})"
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        return p.mark(f"hand over: {s(ev.winner, 'win')} {how}", "outcome") + carry
    return None


# Long: one branch per event type, each a sentence.
def _third_person(ev: Any, players: Sequence[E.Player], p: Marks) -> str:
    """One sentence for an event that is not a seat's act told alike in either person,
    naming players by name."""
    w = lambda s: who(players, s)  # noqa: E731
    v = lambda s, verb: acts(who(players, s), verb)  # noqa: E731
    t = E.event_type(ev)
    if t == "game_started":
        seats = ", ".join(f"{pl.name} (seat {i})" for i, pl in enumerate(ev.players))
        name = ev.ruleset.get("name", "?")
        return f"game started: {seats}; ruleset {name}; stake {ev.stake} per point"
    if t == "dealer_drawn":
        draws = ", ".join(f"{w(d.seat)} {p.card(d.card)}" for d in ev.draws)
        when = "by night the lowest month deals" if ev.night else "by day the highest deals"
        if ev.dealer is None:
            return f"draw for the first deal: {draws} ({when}): a tie, the tied seats draw again"
        if ev.by_lot:
            return (
                f"draw for the first deal: {draws} ({when}): a tie; by lot, {v(ev.dealer, 'deal')}"
            )
        return f"draw for the first deal: {draws} ({when}): {v(ev.dealer, 'deal')}"
    if t == "chips_counted":
        held = ", ".join(f"{w(s)} {c}" for s, c in enumerate(ev.chips))
        return f"chips on the table: {held}"
    if t == "seats_sat_out":
        how = "in turn order from the dealer" if ev.rule == "turn_order" else "by choice"
        return f"sitting out this hand ({how}): {', '.join(w(s) for s in ev.seats)}"
    if t == "brights_sold":
        n = len(ev.cards)
        return f"gwang-pali: {v(ev.seat, 'sell')} {n} bright{'s' * (n != 1)} {p.cards(ev.cards)}"
    if t == "payment_capped":
        whose = "what the loser holds" if ev.cap == "loser_holdings" else "the winner's chips"
        return (
            f"capped at {whose}: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.paid} of "
            f"{ev.due} chips (short {ev.due - ev.paid})"
        )
    if t == "sitting_ended":
        return p.mark(
            f"the sitting is over: {', '.join(w(s) for s in ev.seats)} has no chips left",
            "outcome",
        )
    if t == "hand_started":
        deck = "; shuffled deck recorded" if ev.deck else ""
        plays = "play" if who(players, ev.dealer).lower() == "you" else "plays"
        return f"hand {ev.hand} started: {v(ev.dealer, 'deal')} and {plays} first{deck}"
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
    if t == "four_kept":
        return f"{v(ev.seat, 'keep')} a four of a month in hand and plays on (들고치기)"
    if t == "flip_only_played":
        return f"{v(ev.seat, 'take')} a flip-only turn"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "from the layout"}
        rep = f"; draws {p.card(ev.replacement)}" if ev.replacement else ""
        if ev.source == "hand" and not ev.replacement:
            rep = "; draws a replacement"
        return f"{v(ev.seat, 'take')} bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "hand_ended":
        carry = f"; the next hand pays x{ev.next_carry}" if ev.next_carry > 1 else ""
        if ev.outcome == "nagari":
            return p.mark(f"hand over: nagari, no winner ({ev.reason})", "outcome") + carry
        return p.mark(f"hand over: void ({ev.reason}), deal again", "outcome") + carry
    if t == "payment_due":
        return (
            f"due: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {w(ev.payer)} -> {w(ev.payee)} {ev.chips} chips{note}"
    if t == "game_closed":
        why = f" ({ev.note})" if ev.note else ""
        return p.mark(f"the night is closed, no hand follows{why}", "outcome")
    if t == "settlement_proposed":
        return "settlement: " + settlement_words(players, ev.totals, ev.paid, ev.transfers)
    if t == "settlement_paid":
        note = f" ({ev.note})" if ev.note else ""
        return f"settled: {v(ev.payer, 'pay')} {w(ev.payee)} {ev.chips}{note}"
    if t == "note_added":
        about = f" (about seq {ev.about_seq})" if ev.about_seq else ""
        return f"note{about}: {ev.text}"
    if t == "entry_retracted":
        why = f" ({ev.reason})" if ev.reason else ""
        return f"undo: the entry at seq {ev.seq} is retracted{why}"
    if t in ("key_added", "result_countersigned"):
        from ..errors import GostopError
        from ..integrity.signing import PublicKey

        try:
            fp = PublicKey.from_text(ev.key).fingerprint
        except GostopError:  # an unreadable key is named as such; the checks report it
            fp = "an unreadable key"
        if t == "key_added":
            return f"recorder key {fp} added, held by {ev.holder}"
        return f"{w(ev.seat)} countersigns the record up to seq {ev.head_seq} with key {fp}"
    if t == "checkpoint_signed":
        return f"checkpoint: the record up to seq {ev.head_seq} signed by key {ev.key}"
    if t == "person_renamed":
        return f"person {ev.person} is renamed"
    if t == "persons_merged":
        return f"person {ev.person}'s games count for person {ev.into} from now on"
    if t == "person_forgotten":
        return f"person {ev.person} is forgotten: their names can no longer be read"
    return t


# Long: one branch per event type told differently to its player.
def _told_to(ev: Any, players: Sequence[E.Player], viewer: int, p: Marks) -> str | None:
    """The sentence for an event its player is told differently ("you play no card (a
    flip-only turn)"); None for one that reads alike in either person."""
    t = E.event_type(ev)
    seat = getattr(ev, "seat", None)

    def s(verb: str) -> str:
        return subject_of(players, viewer, seat, verb)

    if t == "hand_started":
        dealer = subject_of(players, viewer, ev.dealer, "deal")
        return p.mark(
            f"hand {ev.hand}: {dealer} and play{'' if ev.dealer == viewer else 's'} first",
            "heading",
        )
    if t == "cards_dealt":
        sizes = {len(h) for h in ev.hands if h is not None}
        each = f"{sizes.pop()} cards each, " if len(sizes) == 1 else ""
        stock = f", {len(ev.stock)} in the stock" if ev.stock is not None else ""
        dealt = sum(len(h) for h in ev.hands if h is not None) + len(ev.layout)
        extra = dealt + len(ev.stock or ()) + len(ev.bonus_to_pile) - C.STANDARD_DECK.bit_count()
        if ev.stock is not None and None not in ev.hands and extra > 0:
            stock += f" (the deck's {extra} bonus card{'s' if extra != 1 else ''} included)"
        return f"dealt: {each}{len(ev.layout)} face up{stock}"
    if t == "four_kept":
        if seat == viewer:
            return "you keep your four of a month in hand and play on (들고치기)"
        # the holder's decision tells no one else that a four is held (p2p says nothing)
        return f"{s('play')} on"
    if t == "flip_only_played":
        return f"{s('play')} no card (a flip-only turn)"
    if t == "bonus_card_taken":
        src = {"hand": "from the hand", "flip": "flipped", "layout": "dealt face up"}
        rep = ""
        if ev.replacement:
            draws = "draw" if seat == viewer else "draws"
            # the card drawn into a hand is seen by its holder only
            drawn = p.card(ev.replacement) if seat == viewer or ev.source != "hand" else "a card"
            rep = f"; {draws} {drawn}"
        return f"{s('take')} bonus card {p.card(ev.card)} ({src[ev.source]}){rep}"
    if t == "four_of_a_month_shown":
        shown = "; ".join(
            f"{subject_of(players, viewer, f.seat, 'show')} four of month {f.month:02d}"
            for f in ev.shown
        )
        return f"four of a month: {shown}"
    if t == "payment_due":
        payer = subject_of(players, viewer, ev.payer, "owe")
        return (
            f"due: {payer} {object_of(players, viewer, ev.payee)} {ev.chips} chips "
            f"({ev.points} points, {ev.reason})"
        )
    if t == "payment_recorded":
        payer = subject_of(players, viewer, ev.payer, "pay")
        note = f" ({ev.note})" if ev.note else ""
        return f"paid: {payer} {object_of(players, viewer, ev.payee)} {ev.chips} chips{note}"
    return None


def recorded(ev: Any) -> str:
    """An input as the record states it, for an audit: "seat 1 played 07R" (seats by number,
    past tense: what the table did)."""
    t = type(ev)
    if t is E.CardPlayed:
        return f"seat {ev.seat} played {ev.card}" + (f" onto {ev.chosen}" if ev.chosen else "")
    if t is E.CardFlipped:
        return f"seat {ev.seat} turned {ev.card}" + (f" onto {ev.chosen}" if ev.chosen else "")
    if t is E.BombPlayed:
        return f"seat {ev.seat} bombed month {ev.month:02d} with {' '.join(ev.cards)}"
    if t is E.Shaken:
        return f"seat {ev.seat} shook month {ev.month:02d} ({' '.join(ev.cards)})"
    if t is E.FourKept:
        return f"seat {ev.seat} kept a four of a month in hand and played on"
    if t is E.ShakeDeclined:
        return f"seat {ev.seat} declined to shake month {ev.month:02d}"
    if t is E.FlipOnlyPlayed:
        return f"seat {ev.seat} took a flip-only turn"
    if t is E.GoCalled:
        return f"seat {ev.seat} called Go number {ev.count} at {ev.score}"
    if t is E.StopCalled:
        return f"seat {ev.seat} called Stop at {ev.score}"
    if t is E.CupAssigned:
        return f"seat {ev.seat} counted the cup as {ev.role}"
    if t is E.PaymentRecorded:
        return f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips"
    if t is E.SettlementPaid:
        return f"seat {ev.payer} paid seat {ev.payee} {ev.chips} chips in the settlement"
    if t is E.GameClosed:
        return "closed the night"
    if t is E.BrightsSold:
        return f"seat {ev.seat} sold {' '.join(ev.cards)}"
    if t is E.DealerDrawn:
        lot = f" (a tie: by lot, seat {ev.dealer} deals)" if ev.by_lot else ""
        return "drew " + ", ".join(f"seat {d.seat} {d.card}" for d in ev.draws) + lot
    if t is E.ChipsCounted:
        return "counted chips " + ", ".join(f"seat {s} {c}" for s, c in enumerate(ev.chips))
    return E.event_type(ev).replace("_", " ")
