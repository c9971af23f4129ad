"""The one check of seq order and chain links (compiled in the native build): the first
break and its wording, for any run cut, repeated, reordered or re-linked."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from store_support import games

from gostop_records import log as L
from gostop_records.events import Envelope

GAME = games("matgo", 2, count=1, hands=1, seed=17)[0]


def _reference(
    run: list[Envelope], continues: bool, hashes_checked: bool, bad_hash: int | None
) -> tuple[int, str] | None:
    """The check written plainly: every envelope against the one before it."""
    if not run:
        return None
    last = (run[0].seq - 1, run[0].prev) if continues and run[0].seq != 1 else None
    for i, env in enumerate(run):
        reason = L.link_break(last, env.game_id, env.seq, env.prev)
        if reason is not None:
            return env.seq, reason
        wrong = i == bad_hash if hashes_checked else L.compute_hash(env.prev, env) != env.hash
        if wrong:
            return env.seq, f"seq {env.seq}: {L.HASH_MISMATCH}"
        last = (env.seq, env.hash)
    return None


@st.composite
def runs(draw: st.DrawFn) -> list[Envelope]:
    start = draw(st.integers(0, len(GAME) - 2))
    run = list(GAME[start : start + draw(st.integers(1, 12))])
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, len(run) - 1))
        change = draw(st.sampled_from(["repeat", "drop", "swap", "prev", "payload"]))
        if change == "repeat":
            run.insert(k, run[k])
        elif change == "drop" and len(run) > 1:
            del run[k]
        elif change == "swap" and k + 1 < len(run):
            run[k], run[k + 1] = run[k + 1], run[k]
        elif change == "prev":
            prev = draw(st.sampled_from([L.GENESIS, "f" * 64, GAME[0].hash]))
            run[k] = msgspec.structs.replace(run[k], prev=prev)
        elif change == "payload":
            run[k] = msgspec.structs.replace(run[k], by=run[k].by + "!")
    return run


@settings(max_examples=300, deadline=None)
@given(runs(), st.booleans(), st.booleans(), st.none() | st.integers(0, 12))
def test_the_first_break_is_the_one_a_plain_walk_finds(
    run: list[Envelope], continues: bool, hashes_checked: bool, bad_hash: int | None
) -> None:
    got = L.chain_break(run, continues=continues, hashes_checked=hashes_checked, bad_hash=bad_hash)
    assert got == _reference(run, continues, hashes_checked, bad_hash)


def test_each_break_is_worded_with_its_seq() -> None:
    g = GAME
    assert L.chain_break(g) is None and L.chain_break([]) is None
    assert L.chain_break(g[2:]) == (3, f"game {g[0].game_id!r} starts at seq 3: expected seq 1")
    assert L.chain_break(g[2:], continues=True) is None
    assert L.chain_break([g[0], g[1], g[1]]) == (2, "seq 2 follows seq 2: duplicate")
    assert L.chain_break([g[0], g[2], g[1]]) == (3, "seq 3 follows seq 1: 2 is missing")
    assert L.chain_break([g[0], g[4]]) == (5, "seq 5 follows seq 1: 2..4 are missing")
    assert L.chain_break([g[0], g[1], g[2], g[1]]) == (2, "seq 2 follows seq 3: out of order")
    relinked = msgspec.structs.replace(g[2], prev=g[0].hash)
    assert L.chain_break([g[0], g[1], relinked]) == (
        3,
        "seq 3: prev is not the hash of seq 2 (an event before it was changed, removed or "
        "inserted)",
    )
    first = msgspec.structs.replace(g[0], prev="1" * 64)
    assert L.chain_break([first]) == (1, "seq 1: prev is not the genesis value (64 zeros)")
    assert L.chain_break(g[:3], hashes_checked=True, bad_hash=1) == (2, f"seq 2: {L.HASH_MISMATCH}")
    changed = msgspec.structs.replace(g[1], by="someone else")
    assert L.chain_break([g[0], changed]) == (2, f"seq 2: {L.HASH_MISMATCH}")
