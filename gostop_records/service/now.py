"""What a recorder needs to know right now: the table, what the rules wait for, and every
entry they accept next, as lines of the recorder's grammar.

The web recorder draws its buttons from this and nothing else, so the rules live in one
place (the engine): each offered line comes from :func:`~gostop_records.engine.actions.
legal_actions`, and the shakes and bombs of a hand the record does not know are tried
against the engine before they are offered.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from .. import cards as C
from .. import events as E
from .. import words
from ..engine import night as NIGHT
from ..engine.actions import legal_actions
from ..engine.game import GameState, apply_game
from ..engine.rulebook import seats as SEATS
from ..engine.settlement import settle
from ..engine.state import HandState, Phase
from ..engine.turn import facts_of
from ..errors import GostopError
from ..integrity.seals import Seal
from ..notation import text
from ..recorder import RecordingSession
from ..rules import Shaking
from ..views import game_dict, proof_dict

__all__ = ["RECENT", "now"]

#: Input entries of the log sent back, newest last, so that a page can say what changed.
RECENT = 12


def _action(payload: Any) -> dict[str, Any]:
    """One accepted entry: its line and the cards it involves."""
    out: dict[str, Any] = {"line": text(payload), "verb": E.event_type(payload)}
    for field in ("card", "chosen", "month", "cards", "role", "seat"):
        value = getattr(payload, field, None)
        if value is not None:
            out[field] = list(value) if isinstance(value, tuple) else value
    return out


def _hidden_shows(game: Any, h: HandState) -> list[Any]:
    """Shakes and bombs of a hand the record does not know: every set of cards of a month
    that could be held, kept when the engine accepts it."""
    rules = h.table.rules
    seat = h.turn_seat
    turn = h.turn
    if not h.hand_unknown[seat] or turn is None or turn.played >= 0 or turn.shake_month:
        return []
    pool = h.hands[seat] | h.unknown_pool()
    sizes: list[tuple[type, int]] = []
    if rules.shaking is not Shaking.NONE:
        sizes.append((E.Shaken, 3))
    if rules.bombs:
        sizes += [(E.BombPlayed, 3)] + ([(E.BombPlayed, 2)] if rules.two_card_bomb else [])
    out: list[Any] = []
    for m in range(1, 13):
        mine = C.codes(pool & C.MONTH_MASKS[m])
        for cls, k in sizes:
            for cards in combinations(mine, k):
                payload = cls(seat=seat, month=m, cards=list(cards))
                try:
                    apply_game(game, payload)
                except GostopError:
                    continue
                out.append(payload)  # each set a line: the recorder taps the one shown
    return out


def _sale_cards(game: GameState, seat: int) -> list[str]:
    """The brights a seat sitting out may hold, to offer for a sale: those of its dealt
    hand under a known stock, else those the record has not seen dealt to the play."""
    h = game.hand
    if h is None:
        return []
    if h.stock is not None:
        block = SEATS.seller_block(h.stock, game.sat_out, seat, game.table.hand_size)
        return [C.CODES[i] for i in block if (1 << i) & C.BRIGHTS]
    return C.codes(C.BRIGHTS & ~h.seen)


def _table(game: GameState) -> dict[str, Any]:
    """The entries of the table around the hand the rules wait for or allow now (``chips``,
    ``draw``, ``sell``), with what a page needs to offer them."""
    entries = game.table_entries()
    n = game.table.players
    return {
        "entries": entries,
        "draw_seats": (list(game.draw_tied) or list(range(n))) if "draw" in entries else [],
        "sellers": [{"seat": s, "brights": _sale_cards(game, s)} for s in game.sellers()],
    }


def _result_words(rec: RecordingSession) -> str | None:
    """How the hand on the table ended, in the narrator's words; None while it goes on."""
    h = rec.game.hand
    if h is None or h.phase is not Phase.ENDED:
        return None
    for env in reversed(rec.envelopes):
        if type(env.event) is E.HandEnded and env.hand == h.hand_no:
            return words.describe(env.event, rec.players, words.WATCHER)
    return None


def _hand_end(rec: RecordingSession) -> dict[str, Any] | None:
    """The latest hand's end while the table is between hands, for the confirmation it
    reads: the hand, whether payments are still due, and the seal to write on the score
    sheet (of the latest signed checkpoint after the hand's end: the one after its
    payments once they are in; the head in a record that is not signed)."""
    if rec.game.in_hand or not rec.game.results:
        return None
    envs = rec.envelopes
    end = next(
        (i for i in range(len(envs) - 1, -1, -1) if type(envs[i].event) is E.HandEnded), None
    )
    if end is None:
        return None
    head = next((e for e in reversed(envs[end:]) if type(e.event) is E.CheckpointSigned), envs[-1])
    seal = Seal(rec.game_id, head.seq, head.hand, head.hash)
    return {
        "hand": envs[end].hand,
        "due": bool(rec.pending_dues()),
        "seal": seal.text,
        "seq": seal.seq,
        "uri": seal.uri,
    }


def _names_first_dealer(game: GameState) -> bool:
    """Whether the deal waited for is the first and its dealer is for the table to name:
    no hand started, no dealer drawn, and no draw the rules wait for."""
    return game.hand is None and game.next_dealer is None and "draw" not in game.table_entries()


def _recent(rec: RecordingSession) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for env in reversed(rec.envelopes):
        if len(out) >= RECENT:
            break
        if not E.is_input(env.event) or type(env.event) is E.GameStarted:
            continue
        out.append(
            {
                "seq": env.seq,
                "line": _line(env.event),
                "text": words.describe(env.event, rec.players),
                "by": env.by,
            }
        )
    return out[::-1]


# Long: one field of the answer after another, each a few lines over the same state.
def now(rec: RecordingSession) -> dict[str, Any]:
    """The state of a game being recorded, for a page: ``version``, ``table`` (as
    ``gostop replay --json``), ``waiting``, ``actions`` (each ``line`` the API accepts
    now), ``stop_pays`` (a Stop's proof while Go or Stop is asked), ``dues`` (the
    payments the rules make due), ``undo`` (the entry an undo retracts), ``unseen`` (the
    cards whose place the record does not know), ``deal`` (how many cards a deal lays
    out, who deals or whether the table names the first dealer, how many sit out),
    ``around`` (chips, the draw for the first dealer and sales of brights, when the rules
    wait for or allow them), ``settlement`` (the night's settlement: what closing it would
    propose, or once closed what it proposed and what is open and paid; None mid-hand),
    ``hand_end`` (between hands, the latest hand's seal and whether its payments are due;
    the proof is the table's) and ``recent`` (the latest input entries: each ``line`` as
    entered and ``text``, the narrator's sentence with names, as the live table words it)."""
    game = rec.game
    h = game.hand
    w = rec.waiting()
    actions: list[Any] = []
    stop_pays = None
    unseen: list[str] = []
    if h is not None and h.phase is not Phase.ENDED:
        actions = legal_actions(h)
        if h.phase is Phase.PLAY:
            actions += _hidden_shows(game, h)
        if h.phase is Phase.DECIDE:
            stop_pays = proof_dict(settle(h.table, facts_of(h, h.decider)), game.players)
        unseen = C.codes(h.unknown_pool())
    lines = [_action(a) for a in actions]
    dues = [
        {
            "payer": d.payer,
            "payee": d.payee,
            "points": d.points,
            "chips": d.chips,
            "reason": d.reason,
        }
        for d in rec.pending_dues()
    ]
    if dues:
        lines.append({"line": "pay", "verb": "payment_recorded"})
    settlement = _settlement(game)
    if settlement is not None:
        if settlement["closed"] and settlement["open"]:
            lines.append({"line": "settle pay", "verb": "settlement_paid"})
        elif not settlement["closed"]:
            lines.append({"line": "settle", "verb": "game_closed"})
    undo = rec.retractable()
    rules = game.rules
    hand_size, layout_size = rules.deal_size(len(game.players))
    return {
        "game_id": rec.game_id,
        "version": rec.last_seq,
        "table": game_dict(game, rec.envelopes[-1] if rec.envelopes else None),
        "waiting": {"kind": w.kind, "seat": w.seat, "hand": w.hand, "options": list(w.options)},
        "actions": lines,
        "stop_pays": stop_pays,
        "dues": dues,
        "settlement": settlement,
        "undo": {"seq": undo.seq, "line": _line(undo.event)} if undo is not None else None,
        "unseen": unseen,
        "deal": {
            "layout": layout_size,
            "hand": hand_size,
            "bonus": list(rules.bonus_cards),
            # while a hand's payments are due the table may deal on (it tallies): who deals
            "dealer": w.seat if w.kind == "deal" else game.next_dealer if w.kind == "pay" else None,
            # the first dealer is the table's to name (first_dealer = lot, nothing drawn)
            "choose_dealer": _names_first_dealer(game),
            "sit_out": max(len(game.players) - SEATS.HAND_PLAYERS, 0),
        },
        "around": _table(game),
        "result_words": _result_words(rec),
        "hand_end": _hand_end(rec),
        "rules": {
            "shaking": rules.shaking is not Shaking.NONE,
            "bombs": bool(rules.bombs),
            "cup": rules.cup_mode.value == "player_choice",
            "sit_out": rules.sit_out.value,
            "gwang_price": rules.gwang_price,
        },
        "recent": _recent(rec),
    }


def _settlement(game: GameState) -> dict[str, Any] | None:
    """The night's settlement step: once the night is closed, the settlement it proposed,
    the transfers still open and those paid; before, when it can be closed, what closing it
    now would propose (``closed`` false). None while it cannot be closed (mid-hand)."""
    if game.night is None and not game.can_close():
        return None
    night = game.night if game.night is not None else NIGHT.night_of(game)
    open_ = game.open_transfers() if game.night is not None else list(night.transfers)

    def tr(t: tuple[int, int, int]) -> dict[str, Any]:
        return {"payer": t[0], "payee": t[1], "chips": t[2], "line": f"{t[0]}->{t[1]} {t[2]}"}

    return {
        "closed": game.night is not None,
        "totals": list(night.totals),
        "paid_during": list(night.paid),
        "owed": list(night.owed),
        "transfers": [tr(t) for t in night.transfers],
        "open": [tr(t) for t in open_],
        "paid": [
            {"payer": p, "payee": q, "chips": c, "note": note} for p, q, c, note in game.settled
        ],
        "words": words.settlement_words(game.players, night.totals, night.paid, night.transfers),
    }


def _line(payload: Any) -> str:
    try:
        return text(payload)
    except GostopError:
        return E.event_type(payload)
