"""A hand against the computer for the ``/play`` page, driven on the server.

The page never decides a rule: a :class:`~gostop_records.play.PlaySession` records every
input (the human's and the bot's) on the engine, in memory while the hand is played, so
the shuffled deck in ``hand_started`` never leaves the server. What the page gets is the
human seat's view only (:meth:`PlayTable.view`). The deal is committed before the first
play: ``sha256(salt + " " + deck codes joined by spaces)`` is shown at the start, and the
deck and the salt are revealed when the hand is over, so the player can check the computer
neither saw nor changed the cards. The finished log is handed to the store as a normal,
strictly valid game.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from .. import events as E
from .. import log as L
from .. import words
from ..play import HUMAN, PlayInputError, PlaySession
from ..views import proof_dict

__all__ = ["MemorySink", "PlayTable", "commitment"]


class MemorySink:
    """An event sink that keeps a game in memory until it is handed to the store."""

    location = "the play table"

    def __init__(self) -> None:
        self.envs: list[E.Envelope] = []

    def version(self, game_id: str) -> int:
        return self.envs[-1].seq if self.envs else 0

    def game_events(self, game_id: str) -> list[E.Envelope]:
        return list(self.envs)

    def append(self, env: E.Envelope, expected_version: int) -> None:
        if expected_version != self.version(env.game_id):
            raise PlayInputError("the game moved on meanwhile: reload the page")
        self.envs.append(env)

    def close(self) -> None:
        pass


def commitment(deck: list[str], salt: str) -> str:
    """The hash a player checks at the end: sha256 of the salt, a space, the deck codes."""
    return hashlib.sha256(f"{salt} {' '.join(deck)}".encode()).hexdigest()


class PlayTable:
    """One hand of a human (seat 0) against one bot, with its deal commitment."""

    def __init__(self, ruleset: str = "cardavia", bot: str = "strong", seed: int = 0) -> None:
        self.sink = MemorySink()
        self.bot = bot
        self.session = PlaySession.start(self.sink, ruleset, players=2, bot=bot, seed=seed)
        self.salt = secrets.token_hex(16)
        self.log: list[str] = []
        self._advance()
        started = next(e for e in self.sink.envs if isinstance(e.event, E.HandStarted))
        self.deck = list(started.event.deck)
        self.commitment = commitment(self.deck, self.salt)

    @property
    def game_id(self) -> str:
        return self.session.game_id

    def _told(self, envs: Any) -> None:
        for env in envs:
            self.log.append(words.describe(env.event, self.session.players, HUMAN))

    def _advance(self) -> None:
        """Run the automatic steps and the bot's moves until the human answers or the end."""
        s = self.session
        while True:
            step = s.next_step()
            if step.kind == "deal":
                for e in s.deal():
                    self._told(e.consequences)
            elif step.kind == "fours":
                self._told(s.show_fours().envelopes)
            elif step.kind == "pay":
                for e in s.pay():
                    self._told(e.envelopes)
            elif step.kind in ("over", "hand_over") or step.human:
                return
            else:
                self._told(s.bot_step().envelopes)

    def act(self, kind: str, card: str | None = None, chosen: str | None = None) -> None:
        """The human's answer: ``play`` a card (or ``bomb``/``shake`` a month, ``flip_only``),
        ``flip``, ``go``, ``stop``, ``cup`` (``chosen``: animal or junk). A refusal is a
        :class:`PlayInputError` and changes nothing."""
        s = self.session
        if kind in ("play", "bomb", "shake", "flip_only"):
            want = "card" if kind == "play" else kind
            opts = [o for o in s.options() if o.kind == want and (card is None or o.card == card)]
            if not opts or (kind == "play" and card is None):
                raise PlayInputError(f"{card or kind} is not something you may play now")
            entry = s.play(opts[0], chosen)
        elif kind == "flip":
            entry = s.flip(chosen)
        elif kind == "go":
            entry = s.go()
        elif kind == "stop":
            entry = s.stop()
        elif kind == "cup":
            entry = s.cup(chosen or "")
        else:
            raise PlayInputError(f"unknown answer {kind!r}")
        self._told(entry.envelopes)
        self._advance()

    def jsonl(self) -> bytes:
        """The whole log as JSON Lines, for the store."""
        import io

        buf = io.BytesIO()
        L.write_jsonl(buf, self.sink.envs)
        return buf.getvalue()

    def view(self) -> dict[str, Any]:
        """What the page may show: the human's hand, never the computer's nor the stock."""
        s = self.session
        step = s.next_step()
        h = s.hand
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "ruleset": s.rules.name,
            "bot": self.bot,
            "commitment": self.commitment,
            "step": {"kind": step.kind, "human": step.human},
            "log": list(self.log),
        }
        if h is not None:
            d = h.to_dict()
            seats = []
            for seat in d["seats"]:
                mine = seat["seat"] == HUMAN
                seats.append(
                    {
                        "seat": seat["seat"],
                        "hand": seat["hand_known"] if mine else None,
                        "hand_count": seat["hand_count"],
                        "pile": seat["pile"],
                        "score": seat["score"],
                        "score_lines": seat["score_lines"],
                    }
                )
            out["layout"] = d["layout"]
            out["seats"] = seats
            out["stock_count"] = d.get("stock_count")
        if step.human and step.kind == "play":
            out["options"] = [
                {
                    "kind": o.kind,
                    "card": o.card,
                    "takes": list(o.takes),
                    "choose": o.choose,
                    "text": o.text,
                }
                for o in s.options()
            ]
        if step.human and step.kind == "decide":
            out["stop_pays"] = proof_dict(s.stop_value())
        if step.kind in ("over", "hand_over"):
            out["deck"] = self.deck
            out["salt"] = self.salt
            proof = s.proof()
            out["proof"] = None if proof is None else proof_dict(proof)
            out["replay"] = f"/games/{self.game_id}/replay"
        return out
