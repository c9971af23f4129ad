"""Canonical bytes and the hash chain: chaining envelopes, and verifying a chain.

The hash is a function of the *values* as stored, not of the formatting of a line (see the
package docstring). :func:`chain_break` and :func:`link_break` are the one check of seq order
and links, with one wording, for every reader: :func:`verify`, the file check
(:func:`~gostop_records.log.files.verify_file`) and the store's import. The integrity wing
(:mod:`gostop_records.integrity`) names this API beside seals, signatures and checkpoints,
and says what each of their words means.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ..events import Envelope, UnknownEvent

__all__ = [
    "GENESIS",
    "HASH_MISMATCH",
    "Chain",
    "StoredEnvelope",
    "VerifyResult",
    "canonical_bytes",
    "chain_break",
    "compute_hash",
    "digest_after",
    "iter_games",
    "link_break",
    "seal",
    "stored_bytes",
    "verify",
    "verify_games",
    "with_stored",
]


#: The ``prev`` of a game's first event.
GENESIS = "0" * 64

#: The reason given for an envelope whose hash is not that of its content.
HASH_MISMATCH = "hash does not match the content (changed after it was sealed)"


def link_break(last: tuple[int, str] | None, game_id: str, seq: int, prev: str) -> str | None:
    """Why an envelope (``seq``, ``prev``) does not follow ``last``, the (seq, hash) of the
    game's event before it (None: it must be the game's first); None when it follows.

    Each reason names the seq, so it stands alone.
    """
    if last is None:
        if seq != 1:
            return f"game {game_id!r} starts at seq {seq}: expected seq 1"
        if prev != GENESIS:
            return "seq 1: prev is not the genesis value (64 zeros)"
        return None
    last_seq, last_hash = last
    if seq != last_seq + 1:
        if seq == last_seq:
            return f"seq {seq} follows seq {last_seq}: duplicate"
        if seq < last_seq:
            return f"seq {seq} follows seq {last_seq}: out of order"
        gap = (
            f"{last_seq + 1} is missing"
            if seq == last_seq + 2
            else f"{last_seq + 1}..{seq - 1} are missing"
        )
        return f"seq {seq} follows seq {last_seq}: {gap}"
    if prev != last_hash:
        return (
            f"seq {seq}: prev is not the hash of seq {last_seq} "
            "(an event before it was changed, removed or inserted)"
        )
    return None


def _first_break(
    run: Sequence[Envelope],
    continues: bool,
    hash_holds: Callable[[Envelope], bool] | None,
    bad_hash: int | None,
) -> tuple[int, str] | None:
    """The first break in a run of one game's envelopes: (seq, reason), or None.

    ``continues``: the run may start after seq 1 (the rest of a game stored elsewhere, whose
    head the caller checks against the run's first ``prev``). ``hash_holds`` tells whether an
    envelope's own hash is that of its content; None when each was checked as the file was
    read, ``bad_hash`` being the index of the first wrong one (or None).
    """
    if not run:
        return None
    first = run[0]
    started = continues and first.seq != 1  # an event before the run is given by its prev
    last_seq = first.seq - 1
    last_hash = first.prev if started else GENESIS
    for i in range(len(run)):
        env = run[i]
        seq = env.seq
        # the usual event follows: no tuple, no call (a reason is worded only at a break)
        if seq != last_seq + 1 or env.prev != last_hash or (not started and seq != 1):
            last = (last_seq, last_hash) if started else None
            reason = link_break(last, env.game_id, seq, env.prev)
            if reason is not None:
                return seq, reason
        if (i == bad_hash) if hash_holds is None else not hash_holds(env):
            return seq, f"seq {seq}: {HASH_MISMATCH}"
        last_seq, last_hash, started = seq, env.hash, True
    return None


_sorted_enc = msgspec.json.Encoder(order="sorted")


_CHAIN_KEYS = ("prev", "hash")


_HASH_KEY = b',"hash":'


_RECORDED_KEY = b',"recorded_at":'


#: Every digest starts as a copy of this empty one: with OpenSSL 3, ``hashlib.sha256()``
#: looks the algorithm up again at each call, which a copy skips.
_SHA256_EMPTY = hashlib.sha256()


def digest_after(prev: str, canonical: bytes, rest: bytes = b"") -> str:
    """``sha256(prev + canonical bytes)`` as hex: the one definition of an event's hash
    (and of an entry's in the store's chain of heads). The canonical bytes may come in two
    parts (``rest`` follows ``canonical``), as a reader that cut them around ``prev`` and
    ``hash`` has them, so that they are hashed without joining them first."""
    h = _SHA256_EMPTY.copy()
    h.update(prev.encode())
    h.update(canonical)
    h.update(rest)
    return h.hexdigest()


_ENVELOPE_FIELDS = Envelope.__struct_fields__


class StoredEnvelope(Envelope, dict=True, gc=True):
    """An envelope whose stored form is not its typed form (upcast, or written sparsely).

    It carries the canonical bytes of the stored form, so that the hash verifies and a copy
    writes back exactly what was read. ``msgspec.structs.replace`` drops that, so use
    :meth:`Chain.seal` (which keeps it) rather than replacing fields by hand.
    """


def stored_bytes(env: Envelope) -> bytes | None:
    """The canonical bytes of the stored form, for an envelope read in a non-typed form."""
    d = getattr(env, "__dict__", None)
    return d.get("stored") if d else None


def with_stored(env: Envelope, stored: bytes) -> StoredEnvelope:
    """``env`` shown in its typed form and hashed, and written, as ``stored`` (the canonical
    bytes of another form of it): a name sealed in the record and shown opened, say."""
    return _with_stored(env, stored)


def _with_stored(env: Envelope, stored: bytes) -> StoredEnvelope:
    out = (
        env
        if type(env) is StoredEnvelope
        else StoredEnvelope(*(getattr(env, f) for f in _ENVELOPE_FIELDS))
    )
    out.__dict__["stored"] = stored
    return out  # type: ignore[return-value]


# --- canonical bytes and the chain -------------------------------------------------------


def _body_dict(env: Envelope) -> dict[str, Any]:
    ev = env.event
    if isinstance(ev, UnknownEvent):
        payload = ev.payload if "type" in ev.payload else {"type": ev.type, **ev.payload}
    else:
        payload = msgspec.to_builtins(ev)
    return {
        "game_id": env.game_id,
        "seq": env.seq,
        "hand": env.hand,
        "at": env.at,
        "recorded_at": env.recorded_at,
        "by": env.by,
        "v": env.v,
        "event": payload,
    }


def canonical_bytes(env: Envelope) -> bytes:
    """Compact JSON, keys sorted at every depth, of every field except ``prev`` and ``hash``.

    Typed envelopes take the fast path: encode sorted, then cut the ``hash`` and ``prev``
    members, which sort next to each other after ``event``, out of the bytes.
    """
    if type(env) is not Envelope:
        stored = stored_bytes(env)
        if stored is not None:
            return stored
    if type(env.event) is UnknownEvent:
        return _sorted_enc.encode(_body_dict(env))
    head, tail = _around_chain(_sorted_enc.encode(env))
    return head + tail


def _around_chain(data: bytes) -> tuple[bytes, bytes]:
    """The sorted encoding of a whole typed envelope, before and after its ``hash`` and
    ``prev`` members: the canonical bytes are the two joined."""
    # Sorted envelope keys: at, by, event, game_id, hand, hash, prev, recorded_at, seq, v.
    # Only string values (escaped quotes) and ints follow "hash", so the last occurrences
    # are the envelope's own members even if a payload holds keys with the same names.
    return data[: data.rfind(_HASH_KEY)], data[data.rfind(_RECORDED_KEY) :]


def _canonical_of_raw(raw: dict[str, Any]) -> bytes:
    if "prev" in raw or "hash" in raw:
        raw = {k: v for k, v in raw.items() if k not in _CHAIN_KEYS}
    return _sorted_enc.encode(raw)


def compute_hash(prev: str, env: Envelope) -> str:
    """The hash an envelope must carry after ``prev``."""
    return digest_after(prev, canonical_bytes(env))


class Chain:
    """Chains the envelopes of one game as they are appended: fills ``prev`` and ``hash``.

    The live recorder and the simulator append one envelope at a time; ``prev`` is the hash
    of the last sealed envelope (:data:`GENESIS` for a new game, the stored last hash to
    continue an existing log).
    """

    __slots__ = ("count", "prev")

    def __init__(self, prev: str = GENESIS) -> None:
        self.prev = prev
        self.count = 0

    def seal(self, env: Envelope) -> Envelope:
        canon = canonical_bytes(env)
        digest = digest_after(self.prev, canon)
        sealed = msgspec.structs.replace(env, prev=self.prev, hash=digest)
        if type(env) is StoredEnvelope:
            sealed = _with_stored(sealed, canon)
        self.prev = digest
        self.count += 1
        return sealed

    __call__ = seal


def seal(envelopes: Iterable[Envelope], prev: str = GENESIS) -> list[Envelope]:
    """Envelopes chained (``prev`` and ``hash`` filled), one chain per game.

    ``prev`` starts the chain of the first game met (to continue a stored log); every other
    game starts from :data:`GENESIS`.
    """
    chains: dict[str, Chain] = {}
    out = []
    for env in envelopes:
        chain = chains.get(env.game_id)
        if chain is None:
            chain = chains[env.game_id] = Chain(prev if not chains else GENESIS)
        out.append(chain.seal(env))
    return out


# --- verification --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of checking seq order and the hash chain: the first break, if any."""

    ok: bool
    game_id: str | None
    first_bad_seq: int | None
    reason: str
    count: int
    line: int | None = None
    games: int = 0

    def __bool__(self) -> bool:
        return self.ok


def chain_break(
    run: Sequence[Envelope],
    *,
    continues: bool = False,
    hashes_checked: bool = False,
    bad_hash: int | None = None,
) -> tuple[int, str] | None:
    """The first break in a run of one game's envelopes: (seq, reason), or None.

    ``continues``: the run may start after seq 1 (the rest of a game stored elsewhere, whose
    head the caller checks against the run's first ``prev``). ``hashes_checked``: each
    envelope's own hash was checked as the file was read (see :func:`read_checked`) and
    ``bad_hash`` is the index of the first wrong one, or None; otherwise each hash is
    computed here.
    """
    hash_holds = None if hashes_checked else _hash_holds
    return _first_break(run, continues, hash_holds, bad_hash)


def _hash_holds(env: Envelope) -> bool:
    return bool(env.hash) and compute_hash(env.prev, env) == env.hash


class _Checker:
    """Per-game seq and chain state: each game is checked on its own."""

    __slots__ = ("count", "state")

    def __init__(self) -> None:
        self.state: dict[str, tuple[int, str]] = {}
        self.count = 0

    def check(self, game_id: str, seq: int, prev: str, digest: str, canon: bytes) -> str | None:
        """The reason the event breaks the game's chain, or None."""
        reason = link_break(self.state.get(game_id), game_id, seq, prev)
        if reason is not None:
            return reason
        if digest_after(prev, canon) != digest:
            return f"seq {seq}: {HASH_MISMATCH}"
        self.state[game_id] = (seq, digest)
        self.count += 1
        return None

    def ok(self) -> VerifyResult:
        games = len(self.state)
        only = next(iter(self.state)) if games == 1 else None
        return VerifyResult(
            True,
            only,
            None,
            f"{self.count} events in {games} game(s): chain intact",
            self.count,
            games=games,
        )

    def bad(
        self, game_id: str | None, seq: int | None, reason: str, line: int | None = None
    ) -> VerifyResult:
        return VerifyResult(False, game_id, seq, reason, self.count, line, len(self.state))


def iter_games(envelopes: Iterable[Envelope]) -> Iterator[tuple[str, list[Envelope]]]:
    """(game_id, envelopes) for each run of consecutive envelopes of one game."""
    game: str | None = None
    batch: list[Envelope] = []
    for env in envelopes:
        if env.game_id != game:
            if batch and game is not None:
                yield game, batch
            game, batch = env.game_id, []
        batch.append(env)
    if batch and game is not None:
        yield game, batch


def verify_games(envelopes: Iterable[Envelope]) -> Iterator[VerifyResult]:
    """One result per run of consecutive envelopes of a game (see :func:`iter_games`)."""
    for _, batch in iter_games(envelopes):
        yield verify(batch)


def verify(envelopes: Iterable[Envelope]) -> VerifyResult:
    """Check seq (from 1, dense) and the hash chain of every game; the first break.

    Catches a changed payload, a removed, inserted or duplicated event, two events swapped
    and a seq gap, and names the seq where the log breaks. Envelopes read from a file keep
    their stored form, so upcast and sparsely written events verify as stored.
    """
    checker = _Checker()
    for env in envelopes:
        reason = checker.check(env.game_id, env.seq, env.prev, env.hash, canonical_bytes(env))
        if reason is not None:
            return checker.bad(env.game_id, env.seq, reason)
    return checker.ok()
