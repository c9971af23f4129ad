"""Countersignatures: what a seat signs (the head of a checkpoint the server signed), and
the signature checked and stored. A seat's first countersignature binds its key and is
confirmed by the recorder; later ones are the seat's alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from .. import events as E
from ..errors import (
    GostopError,
)
from ..integrity import checkpoints as CP
from ..integrity.signing import countersign_message
from .errors import ServiceError
from .models import CountersignIn
from .sessions import (
    Answer,
    Sessions,
    events_json,
)

__all__ = ["Signatures"]


class Signatures(Sessions):
    """The server's signed checkpoints and the players' countersignatures of them."""

    def checkpoint(self, game_id: str) -> dict[str, Any]:
        """The latest signed checkpoint of a game and what each seat signs to countersign
        it (the bytes of :func:`~gostop_records.integrity.signing.countersign_message`, base64)."""
        import base64

        rec = self._session(game_id)
        cp = _latest_checkpoint(rec.envelopes)
        if cp is None:
            raise ServiceError(
                404, "no_checkpoint", f"game {game_id!r} has no signed checkpoint yet"
            )
        ev = cp.event
        assert type(ev) is E.CheckpointSigned
        covered = next((e for e in rec.envelopes if e.seq == ev.head_seq), None)
        report = CP.check(rec.envelopes)
        return {
            "game_id": game_id,
            "seq": cp.seq,
            "head_seq": ev.head_seq,
            "head": ev.head,
            "hand": covered.hand if covered is not None else cp.hand,
            "recorder_key": ev.key,
            "countersigned": sorted(
                s.seat
                for s in report.signatures
                if s.kind == "countersignature" and s.valid and s.head_seq == ev.head_seq
            ),
            "messages": [
                base64.b64encode(countersign_message(game_id, seat, ev.head_seq, ev.head)).decode()
                for seat in range(len(rec.players))
            ],
        }

    def countersign(self, game_id: str, req: CountersignIn, *, confirmed: bool = False) -> Answer:
        """A player's countersignature of a signed checkpoint, checked, then appended
        (``result_countersigned``). One per seat and checkpoint; a seat keeps the key it
        first countersigned with. A retry of a countersignature already recorded gets the
        same answer and appends nothing.

        A seat's first countersignature binds its key to the game, so it must be
        ``confirmed`` by the recorder (the request carries the game's recorder token,
        :mod:`.access`); without that, a stranger could take a seat and lock its player
        out. Later ones are the bound key's alone (any other key is ``wrong_key``)."""
        rec = self._session(game_id)
        if not 0 <= req.seat < len(rec.players):
            raise ServiceError(
                400, "bad_seat", f"game {game_id!r} has seats 0..{len(rec.players) - 1}"
            )
        covered = [
            e
            for e in rec.envelopes
            if type(e.event) is E.CheckpointSigned
            and e.event.head_seq == req.head_seq
            and e.event.head == req.head
        ]
        if not covered:
            raise ServiceError(
                422,
                "no_checkpoint",
                f"no signed checkpoint of game {game_id!r} covers seq {req.head_seq} with head "
                f"{req.head[:12]}...: countersign a head the recorder signed",
                version=rec.last_seq,
            )
        try:
            payload = CP.countersignature(
                game_id, req.seat, req.head_seq, req.head, req.public_key, req.signature
            )
        except GostopError as exc:
            raise ServiceError(422, "bad_signature", str(exc), version=rec.last_seq) from None
        for e in rec.envelopes:
            ev = e.event
            if type(ev) is not E.ResultCountersigned or ev.seat != req.seat:
                continue
            if ev.key != payload.key:
                raise ServiceError(
                    422,
                    "wrong_key",
                    f"seat {req.seat} countersigned at seq {e.seq} with another key: a seat "
                    "countersigns with one key",
                    version=rec.last_seq,
                )
            if ev.head_seq == req.head_seq:
                body = {"game_id": game_id, "version": rec.last_seq, "events": [e]}
                return Answer(200, msgspec.json.encode(body), replayed=True)
        bound = any(
            type(e.event) is E.ResultCountersigned and e.event.seat == req.seat
            for e in rec.envelopes
        )
        if not bound and not confirmed:
            raise ServiceError(
                403,
                "seat_unbound",
                f"seat {req.seat} has no key bound in game {game_id!r} yet: its first "
                "countersignature binds the key and is confirmed by the recorder (send it with "
                "the game's recorder token as Bearer); later ones need only the seat's key",
                version=rec.last_seq,
            )
        version = rec.last_seq
        try:
            with rec.deciding() as decision:
                rec.add_countersignature(payload)
        except BaseException:
            self._abandon(game_id, rec, version)
            raise
        envs = self._commit(decision)
        body = {"game_id": game_id, "version": rec.last_seq, "events": events_json(envs)}
        return Answer(201, msgspec.json.encode(body))


def _latest_checkpoint(envs: Sequence[E.Envelope]) -> E.Envelope | None:
    return next((e for e in reversed(envs) if type(e.event) is E.CheckpointSigned), None)
