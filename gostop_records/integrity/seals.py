"""Seals: the head of a record, short enough to read aloud or write on a score sheet.

A seal is the hash of a game's latest event, which the hash chain ties to every event before
it: 10 characters of Crockford base32 (50 bits), grouped for reading (``K7Q2-M9XA-3F``).
Written down at the table at the end of a hand, it is out of reach of whoever holds the
file: a record that was cut, edited and re-hashed, or replaced, no longer holds an
event with that hash. The QR code carries the whole hash (and the game and seq), for a
phone's camera; a seal typed by hand may leave out the seq (``--seq`` gives it back).

50 bits keep a casual forger out but not a determined one with hardware to spare (about
2^50 hashes to find another record with the same seal); the whole head in the QR code, and
the checkpoints (:mod:`.checkpoints`), are the strong ones.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .. import events as E
from ..errors import GostopError
from ..plain import Record
from .signing import CROCKFORD, crockford, group

__all__ = [
    "SEAL_CHARS",
    "Seal",
    "SealCheck",
    "SealError",
    "SealQuery",
    "check_seal",
    "parse_seal",
    "qr_text",
    "seal_of",
    "seal_text",
]

#: Characters of a seal: 50 bits of the head.
SEAL_CHARS = 10
_URI = re.compile(r"^gostop-seal:(?P<game>.+):(?P<seq>\d+):(?P<head>[0-9a-fA-F]{64})$")
# what a hand might write for a character of the alphabet
_READ = {**{c: c for c in CROCKFORD}, "O": "0", "I": "1", "L": "1"}


class SealError(GostopError):
    """A seal that cannot be read."""


def seal_text(head: str) -> str:
    """The seal of a head (64 hex digits): ``K7Q2-M9XA-3F``."""
    return group(crockford(bytes.fromhex(head), SEAL_CHARS))


@dataclass(frozen=True, slots=True)
class Seal:
    """The head of a game's record at one seq."""

    game_id: str
    seq: int
    hand: int | None
    head: str

    @property
    def text(self) -> str:
        return seal_text(self.head)

    @property
    def uri(self) -> str:
        """What the QR code holds: the game, the seq and the whole hash."""
        return f"gostop-seal:{self.game_id}:{self.seq}:{self.head}"

    def describe(self) -> str:
        hand = f"hand {self.hand}, " if self.hand is not None else ""
        return f"seal {self.text}  (game {self.game_id}, {hand}seq {self.seq})"


def seal_of(envelopes: Sequence[E.Envelope]) -> Seal:
    """The seal of a game's latest event."""
    if not envelopes:
        raise SealError("there are no events to seal")
    last = envelopes[-1]
    return Seal(last.game_id, last.seq, last.hand, last.hash)


def qr_text(seal: Seal) -> str:
    """The seal's QR code drawn with text blocks, for a terminal."""
    import segno

    out = io.StringIO()
    segno.make(seal.uri, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


@dataclass(frozen=True, slots=True)
class SealQuery:
    """A seal as given: the short text (a prefix of the head) or the whole hash, maybe with
    the game and seq (from a QR code)."""

    prefix: str  # Crockford characters, upper case, no dashes; empty when ``head`` is given
    head: str | None = None
    seq: int | None = None
    game_id: str | None = None

    def matches(self, head: str) -> bool:
        if self.head is not None:
            return head == self.head
        return crockford(bytes.fromhex(head), len(self.prefix)) == self.prefix

    @property
    def text(self) -> str:
        return seal_text(self.head) if self.head is not None else group(self.prefix)


def parse_seal(text: str, seq: int | None = None) -> SealQuery:
    """Read a seal as written (``K7Q2-M9XA-3F``, any case, dashes and spaces ignored, O for
    0 and I or L for 1), a whole head (64 hex digits) or a QR code's text."""
    t = text.strip()
    m = _URI.match(t)
    if m:
        return SealQuery("", m.group("head").lower(), int(m.group("seq")), m.group("game"))
    if re.fullmatch(r"[0-9a-fA-F]{64}", t):
        return SealQuery("", t.lower(), seq)
    chars = re.sub(r"[\s\-]", "", t).upper()
    out = []
    for c in chars:
        if c not in _READ:
            raise SealError(
                f"seal {text!r}: {c!r} is not a seal character (digits and letters except "
                "I, L, O, U)"
            )
        out.append(_READ[c])
    if len(out) != SEAL_CHARS:
        raise SealError(
            f"seal {text!r} has {len(out)} characters; a seal has {SEAL_CHARS} "
            "(like K7Q2-M9XA-3F), or give the whole hash (64 hex digits)"
        )
    return SealQuery("".join(out), None, seq)


@dataclass(frozen=True, slots=True)
class SealCheck(Record):
    """Whether a record still holds a seal's head, and if not, where it departs."""

    holds: bool
    text: str  # one sentence for people
    seq: int | None = None  # the seq whose head the seal is
    following: int = 0  # events recorded after it
    vouched_until: int | None = None  # the latest head a valid signed checkpoint covers


def check_seal(
    envelopes: Sequence[E.Envelope], query: SealQuery, vouched_until: int | None = None
) -> SealCheck:
    """Whether the record holds the seal's head at some seq (which, and how many events
    follow it), or where it departs from it.

    ``vouched_until``: the latest seq whose head a valid checkpoint covers (see
    :func:`.checkpoints.check`); it bounds where a record that lost the seal departs.
    """
    n = len(envelopes)
    last = envelopes[-1].seq if envelopes else 0
    gid = envelopes[0].game_id if envelopes else (query.game_id or "?")
    if query.game_id is not None and envelopes and query.game_id != gid:
        return SealCheck(False, f"the seal is of game {query.game_id}, not of game {gid}")
    candidates = envelopes if query.seq is None else envelopes[query.seq - 1 : query.seq]
    for env in candidates:
        if env.seq == (query.seq or env.seq) and query.matches(env.hash):
            after = last - env.seq
            more = (
                f"{after} event(s) follow it (seq {env.seq + 1}..{last})"
                if after
                else "it is the latest event"
            )
            return SealCheck(
                True,
                f"the record holds seal {query.text}: the head at seq {env.seq} "
                f"(hand {env.hand if env.hand is not None else '-'}); {more}",
                env.seq,
                after,
                vouched_until,
            )
    vouched = ""
    if vouched_until and (query.seq is None or vouched_until < query.seq):
        vouched = (
            f"; a valid signed checkpoint covers the record up to seq {vouched_until}, "
            f"so it departs after seq {vouched_until}"
        )
    elif vouched_until:
        vouched = (
            f"; yet a valid signed checkpoint covers the record up to seq {vouched_until}: "
            "check the seal as written, or the recorder's key signed another record"
        )
    if query.seq is not None and query.seq > last:
        text = (
            f"the record does not hold seal {query.text}: the seal is of seq {query.seq}, the "
            f"record ends at seq {last}: events {last + 1}..{query.seq} are missing (cut)"
        )
    elif query.seq is not None:
        text = (
            f"the record does not hold seal {query.text}: its event at seq {query.seq} has "
            f"seal {seal_text(envelopes[query.seq - 1].hash)}: an event at or before seq "
            f"{query.seq} was changed, removed or inserted after the seal was taken"
        )
    else:
        text = (
            f"the record does not hold seal {query.text}: none of its {n} event(s) has this "
            f"head: it was changed, or cut, after the seal was taken (give the seal's seq "
            f"with --seq to tell which)"
        )
    return SealCheck(False, text + vouched, query.seq, 0, vouched_until)
