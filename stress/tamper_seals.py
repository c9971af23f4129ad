"""Tampering that a valid hash chain cannot show, and what catches each case.

Whoever holds a log file, or the store, can change an event and recompute every hash after
it, cut a tail, replace or delete a whole game: the chain they leave is valid. These 33
cases are such edits, each made the way a forger would, and each must be caught:

- ``signatures``: ``validate`` flags the file and ``db import`` stores nothing of it (a
  signed checkpoint covers a head that was re-hashed, a signature does not verify, a hand
  end lost its checkpoint, a seat countersigns with a second key);
- ``seal``: the seal written down at the table (the head at the game's end) is no longer
  held by the record (``gostop verify LOG --seal``): a cut right after a checkpoint, a
  whole game re-recorded and re-signed with the forger's own key;
- ``heads``: ``db verify`` names the game from the store's heads chain (deleted, replaced,
  cut short, events added behind the chain, the chain itself edited);
- ``store seal``: the store's seal written down (the heads chain's tip) is no longer held,
  when the forger rewrote the heads chain too (``gostop verify --db --seal``).

Registered as a probe of ``make stress`` (see :mod:`.tamper`); ``tests/test_tamper_seals.py``
runs it once.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from gostop_records import events as E
from gostop_records import log as L
from gostop_records.integrity import checkpoints as CP
from gostop_records.integrity.seals import check_seal, parse_seal, seal_text
from gostop_records.integrity.signing import SigningKey
from gostop_records.recorder import JsonlSink, RecordingSession
from gostop_records.rules import PRESETS
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store
from gostop_records.store import heads as H
from gostop_records.store.codec import event_row
from gostop_records.store.writer import insert_events
from gostop_records.validate import validate_files

from .figures import Figures
from .tamper import register

__all__ = ["CASES", "SealCase", "seal_tampering"]

Envs = list[E.Envelope]
GID = "sealed"


@dataclass(slots=True)
class Lab:
    """The clean records every case starts from, and the seals written down."""

    work: Path
    recorder: SigningKey
    forger: SigningKey
    player: SigningKey
    game: Envs  # signed, two hands with payments
    counter: Envs  # the same, countersigned by seat 0 at its end
    seal: str  # the seal of the game's end, written down at the table
    store: Path  # the game appended live, entry by entry, plus one stopped mid-hand
    store_seal: str  # the store's seal (the heads chain's tip) written down
    mid: int  # the live game in progress stops at this seq
    serial: int = 0

    def path(self, suffix: str) -> Path:
        self.serial += 1
        return self.work / f"s{self.serial:03d}{suffix}"


@dataclass(frozen=True, slots=True)
class SealCase:
    name: str
    by: str  # signatures, seal, heads, store seal, import
    run: Callable[[Lab], str | None]  # None: caught; otherwise what went unnoticed


# --- making records --------------------------------------------------------------------


def _inputs(seed: int, hands: int) -> list[Any]:
    (game,) = simulate(PRESETS["matgo"], 2, 1, hands, seed)
    return [e.event for e in game if E.is_input(e.event) and type(e.event) is not E.GameStarted]


def _record(path: Path, key: SigningKey, seed: int, hands: int = 2, gid: str = GID) -> Envs:
    rec = RecordingSession.start(JsonlSink(path), ["Ann", "Ben"], "matgo", game_id=gid, signer=key)
    for ev in _inputs(seed, hands):
        if type(ev) is E.HandStarted:
            rec.start_hand(ev.dealer)
        else:
            rec.record(ev)
    rec.close()
    return list(L.read_log(path))


def _resealed(envs: Envs, start: int = 0) -> Envs:
    """The forger's last step: every hash from ``start`` on recomputed, seqs made dense."""
    out = [msgspec.structs.replace(e, seq=k + 1) for k, e in enumerate(envs)]
    prev = out[start - 1].hash if start else L.GENESIS
    return out[:start] + L.seal(out[start:], prev=prev)


def _changed(envs: Envs, k: int, **fields: Any) -> Envs:
    out = list(envs)
    out[k] = msgspec.structs.replace(envs[k], **fields)
    return _resealed(out, k)


def _event(envs: Envs, k: int, **fields: Any) -> Envs:
    return _changed(envs, k, event=msgspec.structs.replace(envs[k].event, **fields))


def _index(envs: Envs, t: type, nth: int = 0) -> int:
    return [i for i, e in enumerate(envs) if type(e.event) is t][nth]


def _resigned(envs: Envs, key: SigningKey) -> Envs:
    """The whole record re-signed by ``key``: its key_added and every checkpoint."""
    out: Envs = []
    chain = L.Chain(L.GENESIS)
    for env in envs:
        ev = env.event
        if type(ev) is E.KeyAdded:
            ev = CP.key_added(key, "a forger")
        elif type(ev) is E.CheckpointSigned:
            ev = CP.checkpoint(GID, out[ev.head_seq - 1], key)
        elif type(ev) is E.ResultCountersigned:
            continue
        out.append(chain.seal(msgspec.structs.replace(env, event=ev, seq=len(out) + 1)))
    return out


def _countersigned(envs: Envs, seat: int, key: SigningKey) -> Envs:
    cp = envs[_index(envs, E.CheckpointSigned, -1)].event
    assert type(cp) is E.CheckpointSigned
    ev = CP.countersign(GID, seat, cp.head_seq, cp.head, key)
    env = L.envelope(GID, len(envs) + 1, envs[-1].hand, ev, by="phone", at=envs[-1].at)
    return [*envs, *L.seal([env], prev=envs[-1].hash)]


def _write(lab: Lab, envs: Envs) -> Path:
    path = lab.path(".jsonl")
    path.write_bytes(b"".join(L.encode_json(e) + b"\n" for e in envs))
    return path


# --- detectors -------------------------------------------------------------------------


def _by_signatures(lab: Lab, envs: Envs) -> str | None:
    path = _write(lab, envs)
    report = validate_files([path])
    if report.valid:
        return "validate passed the file"
    with Store(lab.path(".duckdb")) as st:
        imported = st.import_paths([path], workers=0)
        if imported.imported or st.game_ids():
            return "db import stored the game"
    return None


def _by_seal(lab: Lab, envs: Envs) -> str | None:
    if check_seal(envs, parse_seal(lab.seal)).holds:
        return "the record still holds the seal written down"
    return None


def _by_import(lab: Lab, envs: Envs) -> str | None:
    path = _write(lab, envs)
    with Store(lab.path(".duckdb")) as st:
        report = st.import_paths([path], workers=0)
        if report.imported or st.game_ids():
            return "db import stored the game"
        problem = report.rejected[0] if report.rejected else None
        if problem is None or "signature" not in problem.reason or problem.line is None:
            return f"rejected without naming the signature and the line: {problem}"
    return None


def _store_copy(lab: Lab) -> Path:
    path = lab.path(".duckdb")
    shutil.copy(lab.store, path)
    return path


def _by_heads(lab: Lab, edit: Callable[[Store], None]) -> str | None:
    path = _store_copy(lab)
    with Store(path) as st:
        edit(st)
        report = st.verify()
    if report.ok:
        return "db verify called the store clean"
    if not report.heads and not report.signatures:
        return f"db verify found only {report.problems()[:1]}"
    return None


def _by_store_seal(lab: Lab, edit: Callable[[Store], None]) -> str | None:
    path = _store_copy(lab)
    with Store(path) as st:
        edit(st)
        if H.check_seal(st.conn, parse_seal(lab.store_seal)).holds:
            return "the store still holds the store seal written down"
    return None


# --- edits in the store ----------------------------------------------------------------


def _replace_events(st: Store, gid: str, envs: Envs, start: int = 0) -> None:
    """The game's events from ``start`` (0-based) on replaced by ``envs[start:]``."""
    st.conn.execute("DELETE FROM events WHERE game_id = ? AND seq > ?", [gid, start])
    insert_events(st.conn, [event_row(e) for e in envs[start:]])


def _stored(st: Store, gid: str = GID) -> Envs:
    return st.events(gid)


def _renamed(envs: Envs, gid: str) -> Envs:
    return _resealed([msgspec.structs.replace(e, game_id=gid) for e in envs])


def _rewrite_heads(st: Store) -> None:
    """The forger's heads chain: begun again over what the store now holds."""
    st.conn.execute("DELETE FROM heads")
    H.adopt(st.conn)


# --- the cases -------------------------------------------------------------------------


def _file(by: str, name: str, edit: Callable[[Lab], Envs]) -> SealCase:
    check = {"signatures": _by_signatures, "seal": _by_seal, "import": _by_import}[by]
    return SealCase(name, by, lambda lab: check(lab, edit(lab)))


def _cut_after_hand_end(lab: Lab) -> Envs:
    g = lab.game
    return g[: _index(g, E.HandEnded, -1) + 1]


def _cut_after_first_checkpoint(lab: Lab) -> Envs:
    g = lab.game
    end = _index(g, E.HandEnded, 0)
    cp = next(i for i in range(end, len(g)) if type(g[i].event) is E.CheckpointSigned)
    return g[: cp + 1]


def _cut_mid_hand(lab: Lab) -> Envs:
    g = lab.game
    return g[: _index(g, E.HandStarted, 1) + 8]


def _payment(lab: Lab, nth: int) -> tuple[Envs, int]:
    g = lab.game
    k = _index(g, E.PaymentRecorded, nth)
    chips = g[k].event.chips  # type: ignore[union-attr]
    return _event(g, k, chips=chips + 50, note="settled so"), k


def _last_payment_resealed_checkpoint_dropped(lab: Lab) -> Envs:
    changed, k = _payment(lab, -1)
    after = [
        e
        for i, e in enumerate(changed)
        if not (i > k and type(e.event) is E.CheckpointSigned)  # the seal of the paid hand
    ]
    return _resealed(after, k)


def _note_inserted(lab: Lab) -> Envs:
    g = lab.game
    k = _index(g, E.HandStarted, 0) + 3
    note = msgspec.structs.replace(g[k], event=E.NoteAdded(text="Ben paid in cash"))
    return _resealed([*g[:k], note, *g[k:]], k)


def _signature_altered(lab: Lab) -> Envs:
    g = lab.game
    k = _index(g, E.CheckpointSigned, 0)
    sig = g[k].event.signature  # type: ignore[union-attr]
    return _event(g, k, signature=("B" if sig[0] == "A" else "A") + sig[1:])


def _checkpoint_head_forged(lab: Lab) -> Envs:
    forged, _k = _payment(lab, 0)
    cp = _index(forged, E.CheckpointSigned, 1)
    ev = forged[cp].event
    assert type(ev) is E.CheckpointSigned
    return _event(forged, cp, head=forged[ev.head_seq - 1].hash)


def _checkpoint_removed(lab: Lab) -> Envs:
    g = lab.game
    k = _index(g, E.CheckpointSigned, 0)
    return _resealed([*g[:k], *g[k + 1 :]], k)


def _key_removed(lab: Lab) -> Envs:
    g = lab.game
    k = _index(g, E.KeyAdded)
    return _resealed([*g[:k], *g[k + 1 :]], k)


def _countersignature_altered(lab: Lab) -> Envs:
    g = lab.counter
    sig = g[-1].event.signature  # type: ignore[union-attr]
    return _event(g, len(g) - 1, signature=("B" if sig[0] == "A" else "A") + sig[1:])


def _second_key_for_a_seat(lab: Lab) -> Envs:
    return _countersigned(lab.counter, 0, lab.forger)


def _countersigned_by_a_stranger_for_a_seat(lab: Lab) -> Envs:
    """The forger's countersignature under seat 0, whose player countersigned before."""
    return _countersigned(lab.counter, 0, SigningKey.generate("stranger"))


def _time_changed(lab: Lab) -> Envs:
    g = lab.game
    k = _index(g, E.PaymentRecorded, 0)
    return _changed(g, k, at="2031-01-01T00:00:00.000Z")


def _game_renamed(lab: Lab) -> Envs:
    return _renamed(lab.game, "another-night")


def _another_game(lab: Lab) -> Envs:
    """The forger records another game under the same id and signs it with their own key."""
    return _record(lab.path(".jsonl"), lab.forger, seed=91)


def _whole_record_resigned(lab: Lab) -> Envs:
    forged, _k = _payment(lab, 0)
    return _resigned(forged, lab.forger)


def _store_case(by: str, name: str, edit: Callable[[Store], None]) -> SealCase:
    check = _by_heads if by == "heads" else _by_store_seal
    return SealCase(name, by, lambda lab: check(lab, edit))


def _store_payment_resealed(lab: Lab) -> Callable[[Store], None]:
    forged, k = _payment(lab, 0)
    return lambda st: _replace_events(st, GID, forged, k)


def _store_replaced(lab: Lab) -> Callable[[Store], None]:
    other = _record(lab.path(".jsonl"), lab.forger, seed=93)
    return lambda st: _replace_events(st, GID, other)


def _store_added(st: Store) -> None:
    envs = _stored(st)
    note = L.envelope(GID, len(envs) + 1, envs[-1].hand, E.NoteAdded(text="forged"), by="x")
    insert_events(st.conn, [event_row(L.seal([note], prev=envs[-1].hash)[0])])


def _store_checkpoint_removed(st: Store) -> None:
    envs = _stored(st)
    k = _index(envs, E.CheckpointSigned, 0)
    _replace_events(st, GID, _resealed([*envs[:k], *envs[k + 1 :]], k), k)


def _store_cut_and_heads_rewritten(st: Store) -> None:
    st.conn.execute("DELETE FROM events WHERE game_id = ? AND seq > 20", [GID])
    _rewrite_heads(st)


def _store_deleted_and_heads_rewritten(st: Store) -> None:
    st.conn.execute("DELETE FROM events WHERE game_id = ?", [GID])
    _rewrite_heads(st)


def _lazy(make: Callable[[Lab], Callable[[Store], None]], by: str, name: str) -> SealCase:
    check = _by_heads if by == "heads" else _by_store_seal
    return SealCase(name, by, lambda lab: check(lab, make(lab)))


CASES: list[SealCase] = [
    # the file: what the signatures show
    _file("signatures", "the tail cut right after the last hand's end", _cut_after_hand_end),
    _file("signatures", "the tail cut: the last checkpoint gone", lambda lab: lab.game[:-1]),
    _file(
        "signatures",
        "the last payment changed, its checkpoint dropped",
        _last_payment_resealed_checkpoint_dropped,
    ),
    _file("signatures", "a payment changed and re-sealed", lambda lab: _payment(lab, 0)[0]),
    _file("signatures", "a note inserted into a hand and re-sealed", _note_inserted),
    _file("signatures", "a checkpoint's signature changed", _signature_altered),
    _file("signatures", "a checkpoint made to sign a re-sealed head", _checkpoint_head_forged),
    _file("signatures", "a hand's checkpoint removed and re-sealed", _checkpoint_removed),
    _file("signatures", "the recorder's key removed and re-sealed", _key_removed),
    _file("signatures", "a countersignature changed", _countersignature_altered),
    _file("signatures", "a seat countersigned again with the forger's key", _second_key_for_a_seat),
    _file(
        "signatures",
        "a seat countersigned again by a stranger",
        _countersigned_by_a_stranger_for_a_seat,
    ),
    _file("signatures", "a payment's time changed and re-sealed", _time_changed),
    _file("signatures", "the game passed off under another id", _game_renamed),
    # the file: what only the seal written down shows
    _file("seal", "the tail cut right after a hand's checkpoint", _cut_after_first_checkpoint),
    _file("seal", "the tail cut in the middle of a hand", _cut_mid_hand),
    _file("seal", "a payment changed and the whole record re-signed", _whole_record_resigned),
    _file("seal", "the whole game re-recorded and signed by the forger", _another_game),
    # the store: the heads chain
    _store_case(
        "heads",
        "a game deleted from the store",
        lambda st: st.conn.execute("DELETE FROM events WHERE game_id = ?", [GID]) and None,
    ),
    _lazy(_store_replaced, "heads", "a whole game replaced in the store"),
    _store_case(
        "heads",
        "the store's last event deleted",
        lambda st: (
            st.conn.execute(
                "DELETE FROM events WHERE game_id = ? AND seq = ?", [GID, st.version(GID)]
            )
            and None
        ),
    ),
    _lazy(
        lambda lab: (
            lambda st: (
                st.conn.execute(
                    "DELETE FROM events WHERE game_id = 'live' AND seq > ?", [lab.mid - 2]
                )
                and None
            )
        ),
        "heads",
        "plays of a hand in progress cut from the store",
    ),
    _lazy(_store_payment_resealed, "heads", "a payment changed and re-hashed in the store"),
    _store_case("heads", "an event added to the store behind the chain", _store_added),
    _store_case(
        "heads", "a checkpoint deleted from the store, re-hashed", _store_checkpoint_removed
    ),
    _store_case(
        "heads",
        "an entry of the heads chain deleted",
        lambda st: st.conn.execute("DELETE FROM heads WHERE entry = 3") and None,
    ),
    _store_case(
        "heads",
        "an entry of the heads chain changed",
        lambda st: st.conn.execute("UPDATE heads SET seq = seq - 1 WHERE entry = 5") and None,
    ),
    # the store: what only the store's seal written down shows
    _store_case(
        "store seal", "the tail cut and the heads chain rewritten", _store_cut_and_heads_rewritten
    ),
    _store_case(
        "store seal",
        "a game deleted and the heads chain rewritten",
        _store_deleted_and_heads_rewritten,
    ),
    # imports refuse a bad signature, naming the file, the line and the seq
    _file("import", "an import of a forged checkpoint", _signature_altered),
    _file("import", "an import of a re-sealed payment", lambda lab: _payment(lab, 0)[0]),
    _file("import", "an import cut after a hand's end", _cut_after_hand_end),
    _file("import", "an import with a seat's second key", _second_key_for_a_seat),
]


def _lab(work: Path, seed: int) -> Lab:
    work.mkdir(parents=True, exist_ok=True)
    recorder = SigningKey.generate("the club's phone")
    forger = SigningKey.generate("a forger")
    player = SigningKey.generate("Ann")
    game = _record(work / "clean.jsonl", recorder, seed)
    counter = _countersigned(game, 0, player)
    store = work / "clean.duckdb"
    store.unlink(missing_ok=True)
    with Store(store) as st:
        for i, env in enumerate(game):  # appended live, one event an append, as recorded
            st.append(GID, [env], i)
        live = _record(work / "live.jsonl", recorder, seed + 1, gid="live")
        mid = _index(live, E.HandStarted, 1) + 10
        for i, env in enumerate(live[:mid]):
            st.append("live", [env], i)
        tip = st.heads_tip()[1]
    return Lab(
        work,
        recorder,
        forger,
        player,
        game,
        counter,
        seal_text(game[-1].hash),
        store,
        seal_text(tip),
        mid,
    )


def seal_tampering(work: Path, *, rounds: int = 1, seed: int = 21) -> Figures:
    """Every case ``rounds`` times on fresh records (new keys and games each round)."""
    fig = Figures("tampering (seals, signatures, heads)")
    start = time.perf_counter()
    for r in range(rounds):
        lab = _lab(work / "seals" / f"round{r}", seed + 10 * r)
        assert check_seal(lab.game, parse_seal(lab.seal)).holds  # the clean record holds
        with Store(lab.store, read_only=True) as st:
            if not st.verify().ok:
                fig.fail("the clean store does not verify")
        for case in CASES:
            fig.trials += 1
            try:
                missed = case.run(lab)
            except Exception as exc:
                fig.tracebacks += 1
                fig.fail(f"{case.name}: {type(exc).__name__}: {exc}")
                continue
            if missed is None:
                fig.survived += 1
            else:
                fig.lost += 1
                fig.fail(f"{case.name} (by {case.by}): {missed}")
    by: dict[str, int] = {}
    for case in CASES:
        by[case.by] = by.get(case.by, 0) + 1
    fig.notes.append(
        f"{len(CASES)} cases, caught by " + ", ".join(f"{k} {v}" for k, v in by.items())
    )
    fig.seconds = time.perf_counter() - start
    return fig


@register
def seals_signatures_heads(work: Path) -> Figures:
    """The 33 cases once (``make stress``)."""
    return seal_tampering(work, rounds=1)
