"""The links of a game's hash chain: each event follows the one before it in seq order and
names that event's hash as its ``prev``.

:func:`link_break` and :func:`first_break` are the one check of seq order and links, with one
wording, for every reader: :func:`.chain.verify`, the file check
(:func:`~gostop_records.log.files.verify_file`) and the store's import. An import walks every
event of every run here, so the module is compiled in the native build (``make native``; see
``NATIVE_MODULES``): as Python the walk of a run took 0.24 us an event, compiled 0.11
(bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from ..events import Envelope

__all__ = ["GENESIS", "HASH_MISMATCH", "first_break", "link_break"]

#: The ``prev`` of a game's first event.
GENESIS: Final = "0" * 64

#: The reason given for an envelope whose hash is not that of its content.
HASH_MISMATCH: Final = "hash does not match the content (changed after it was sealed)"


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


def first_break(
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
