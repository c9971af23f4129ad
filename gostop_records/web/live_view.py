"""What the live table shows a viewer: the table as the people around it see it, told in
sentences by the one narrator (:mod:`gostop_records.words`).

A viewer is anyone with the address of the live table, so the view holds no card the table
has not seen: while a hand is in progress the cards the recorder knows in a hand (a hand
dealt face up to the recorder, a card drawn for a bonus card) and the stock are left out;
they show once the hand has ended. The view is a JSON object built from the log on the
server; the page draws it and words nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import events as E
from .. import words
from ..engine.game import GameState
from ..engine.state import Phase
from ..projector import Projector
from ..views import game_dict

__all__ = ["RECENT", "live_view", "redact"]

#: Sentences of the latest events sent, newest last.
RECENT = 12
#: Events a viewer is not told about: the keys and signatures of the record.
#: Keys and signatures: the table sees nothing happen in them.
_QUIET = E.METADATA_TYPES


def redact(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` (:func:`~gostop_records.views.game_dict`) without what the table has not
    seen: while its hand is in progress, the cards known in a hand and the top of the
    stock; the last event (a deal names every card dealt). Changes ``table`` and returns it."""
    table.pop("event", None)
    h = table.get("hand")
    if h is not None and h.get("phase") != Phase.ENDED.name.lower():
        h["stock_next"] = None
        for seat in h["seats"]:
            seat["hand"] = None
            seat["hand_known"] = []
    return table


def _totals(game: GameState) -> list[int]:
    """The night's totals so far, each seat's chips over its hands (after caps), whether
    paid at the table or tallied for the settlement."""
    return list(game.night.totals) if game.night is not None else game.ledger()


def live_view(game_id: str, envelopes: Sequence[E.Envelope]) -> dict[str, Any]:
    """The live table of a game after ``envelopes``: ``version`` (the last seq), ``table``
    (:func:`redact`-ed), ``waiting``, ``sentence`` (where the game stands),
    ``result_words`` (how the hand shown ended, when it has) and ``recent`` (the latest
    events in words: ``seq`` and ``text``)."""
    proj = Projector(strict=False)
    for env in envelopes:
        try:
            proj.feed(env)
        except Exception:  # a log that stops replaying: the table as far as it goes
            break
    game = proj.game
    version = envelopes[-1].seq if envelopes else 0
    if game is None:
        return {
            "game_id": game_id,
            "version": version,
            "table": None,
            "waiting": None,
            "sentence": "The game has not started.",
            "result_words": None,
            "recent": [],
        }
    players = game.players
    ended = [e for e in envelopes if type(e.event) is E.HandEnded]
    last_result = words.describe(ended[-1].event, players, words.WATCHER) if ended else None
    w = game.waiting()
    h = game.hand
    shown = last_result if h is not None and h.phase is Phase.ENDED and ended else None
    if shown is not None and ended[-1].hand != h.hand_no:  # type: ignore[union-attr]
        shown = None
    recent = [
        {"seq": env.seq, "text": words.describe(env.event, players, words.WATCHER)}
        for env in envelopes
        if env.type not in _QUIET
    ][-RECENT:]
    return {
        "game_id": game_id,
        "version": version,
        "table": redact(game_dict(game)),
        "waiting": {"kind": w.kind, "seat": w.seat, "hand": w.hand},
        "sentence": words.table_words(
            w.kind,
            w.seat,
            w.hand,
            players,
            last_result,
            _totals(game),
            [(p, q, c) for p, q, c, _note in game.settled],
        ),
        "result_words": shown,
        "recent": recent,
    }
