"""Sealing the names of games recorded before names were sealed (``gostop people upgrade``).

A game recorded before names were sealed, imported from a log or played on ``/play`` holds
its seats' names in the clear, inside its hashed first event: such a person cannot be
forgotten. Sealing those names (:mod:`gostop_records.names`) changes the bytes of
``game_started``, so its hash and every hash after it. The upgrade therefore re-chains a game
only when it must and only when the store can redo everything that covers the old hashes.
It refuses, leaving it byte for byte as it was, a game with:

- a ``checkpoint_signed`` made with any key but the server's own (the key file beside the
  store): that one is signed again over the new head, another is its signer's alone;
- a ``result_countersigned``: a player's, nobody else can sign the new head;
- an event of a type this version does not know (it might sign a head too);
- a chain or a checkpoint that does not verify (not laundered into a new valid one);
- a seat whose person is forgotten already, or a sealed name the store cannot open;
- nothing else to seal than names that must stay, each named with why (see below).

A seat whose person id is made from the name (no id, or the name's slug: a game recorded
before persons had ids, an old log, ``gostop play``) would keep saying the name in its id:
that person is seated again, in every game, under a minted id (:mod:`.reseat`), with the
name sealed under the new person's key. The computer's seats (a bot on ``/play``) keep their
names: the computer is no person. A person whose id is made from the name keeps it when the
people record names that id, and in every game when any game seating them is refused.

Each game re-chained gets a ``game_resealed`` entry in the store's heads chain (its events
and new head, as every entry), whose detail keeps what a verifier needs to rebuild the old
chain from the new events: the old hash of the first event, the old head, each re-signed
checkpoint's old head and signature, and each seat given a minted id (``reseated``: the seat,
the new person, the old id sealed under the new person's key, and the old sealed name if
there was one). :func:`check` rebuilds it (``gostop db verify``): every event after the
first is what the old chain hashed, the old checkpoints' signatures verify, and while the
persons' keys are held the first event with its names and old ids opened is the old one.
So a seal written on a score sheet before the upgrade is traced to the new record
(:func:`trace_seal`). Everything is written in one transaction, with the projection rows of
the games derived again, and the keys of the old ids deleted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from .. import events as E
from .. import log as L
from ..errors import Finding, LogError
from ..integrity.seals import SealCheck, SealQuery, seal_text
from ..integrity.signing import PublicKey, SigningKey, checkpoint_message
from ..names import FORGOTTEN, is_sealed, new_key, open_name, seal_name
from ..people import People, is_computer
from . import heads as H
from .codec import row_to_envelope, rows_to_envelopes
from .errors import StoreError
from .people import keys_for, person_envelopes
from .reseat import Reseating, earlier_ids, plan_ids, seat_id
from .writer import transaction

if TYPE_CHECKING:
    import duckdb

    from .handle import StoreHandle

__all__ = ["KIND", "Refused", "Resealed", "Upgrade", "check", "trace_seal", "upgrade"]

#: The heads chain's kind of a game re-chained with its names sealed.
KIND = "game_resealed"
_enc = msgspec.json.Encoder()
_sorted_enc = msgspec.json.Encoder(order="sorted")
_CHECKPOINT = "checkpoint_signed"
_COUNTERSIGNED = "result_countersigned"


@dataclass(frozen=True, slots=True)
class Refused:
    """A game holding a name in the clear that the upgrade leaves as it is, and why."""

    game_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Resealed:
    """A game re-chained: its events, the old and new head, the persons whose names were
    sealed, the seqs of the checkpoints signed again, the seats given a minted id (old id,
    new id) and the seats whose names stay in the clear (the computer's, or a person whose
    id is made from the name and must stay: see :mod:`.reseat`)."""

    game_id: str
    events: int
    old_head: str
    new_head: str
    sealed: tuple[str, ...]
    resigned: tuple[int, ...]
    kept: tuple[int, ...]  # seats left in the clear
    reseated: tuple[tuple[str, str], ...] = ()
    rows: list[tuple[Any, ...]] = field(default_factory=list, repr=False, compare=False)
    detail: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Upgrade:
    """What ``gostop people upgrade`` did (or, with ``dry_run``, would do): the games, the
    persons seated again under a minted id (old id to new; ``minted``: new in this run) and
    the ids made from a name that stay, with why."""

    resealed: tuple[Resealed, ...]
    refused: tuple[Refused, ...]
    untouched: int  # games holding nothing to seal
    dry_run: bool
    ids: dict[str, str] = field(default_factory=dict)
    minted: frozenset[str] = frozenset()
    kept: dict[str, str] = field(default_factory=dict)


def _todo(payload: Mapping[str, Any], reseat: Reseating) -> bool:
    """Whether a game's first event holds a seat the upgrade changes or must name: a name
    in the clear (not the computer's), or a person seated again."""
    for p in payload.get("players") or []:
        if not isinstance(p, dict):
            continue
        sid, name = seat_id(p), str(p.get("name") or "")
        if sid in reseat.ids or (name and not is_sealed(name) and not is_computer(sid, name)):
            return True
    return False


def _checked(
    gid: str, rows: Sequence[tuple[Any, ...]], signer: SigningKey | None
) -> Refused | tuple[list[E.Envelope], list[dict[str, Any]]]:
    """A game the store can re-chain: its envelopes and the checkpoints to sign again (seq,
    old head, old signature); or why it cannot (the module docstring's list)."""
    try:
        envs = rows_to_envelopes(rows, source=gid)
    except LogError as exc:
        return Refused(gid, f"its events do not decode ({exc}): nothing is re-chained over that")
    checked = L.verify(envs)
    if not checked.ok:
        return Refused(gid, f"its chain does not verify ({checked.reason}): it is not re-made")
    old = {env.seq: env.hash for env in envs}
    checkpoints: list[dict[str, Any]] = []
    for r in rows:
        seq, kind = int(r[1]), str(r[2])
        if kind not in E.EVENT_TYPES:
            return Refused(gid, f"seq {seq} is a {kind} event this version does not know")
        if kind == _COUNTERSIGNED:
            seat = msgspec.json.decode(r[8]).get("seat")
            return Refused(
                gid,
                f"seat {seat} countersigned the head at seq {seq}: only that player's key can "
                "sign a new head",
            )
        if kind == _CHECKPOINT:
            cp = msgspec.json.decode(r[8])
            if signer is None or cp.get("key") != signer.fingerprint:
                return Refused(
                    gid,
                    f"the checkpoint at seq {seq} is signed by {cp.get('key')}, a key this "
                    "store does not hold (only the server's key beside it is signed with again)",
                )
            hs = int(cp["head_seq"])
            message = checkpoint_message(gid, hs, str(cp["head"]))
            if old.get(hs) != cp["head"] or not signer.public.verify(cp["signature"], message):
                return Refused(gid, f"the checkpoint at seq {seq} does not verify: not re-signed")
            checkpoints.append({"seq": seq, "head": cp["head"], "signature": cp["signature"]})
    return envs, checkpoints


@dataclass(frozen=True, slots=True)
class _Seats:
    """A first event's seats as the upgrade leaves them: the players, the persons whose
    names are sealed, the seats kept in the clear and the record of each seat given a
    minted id (seat, new person, old id sealed under their key)."""

    players: list[Any]
    sealed: set[str]
    kept: list[int]
    moved: list[dict[str, Any]]


def _seats(
    gid: str,
    first: dict[str, Any],
    keys: Mapping[str, bytes],
    people: People,
    reseat: Reseating,
) -> Refused | _Seats:
    """The first event's seats as the upgrade leaves them, or why the game is refused (a
    person forgotten, a sealed name that does not open, or nothing it may change)."""
    players = [dict(p) if isinstance(p, dict) else p for p in first.get("players") or []]
    sealed: set[str] = set()
    kept: list[int] = []
    moved: list[dict[str, Any]] = []
    why: list[str] = []
    for seat, p in enumerate(players):
        if not isinstance(p, dict):
            continue
        sid, name = seat_id(p), str(p.get("name") or "")
        if sid in reseat.ids:
            new = reseat.ids[sid]
            record: dict[str, Any] = {"seat": seat, "person": new, "old": sid}
            record["was"] = seal_name(sid, keys[new], new)
            if "id" not in p or not p["id"]:
                record["id_was"] = "absent" if "id" not in p else "empty"
            if is_sealed(name):
                record["sealed_as"] = name
                name = open_name(name, keys.get(sid), sid)
                if name == FORGOTTEN:
                    return Refused(gid, f"seat {seat}'s name under {sid} cannot be opened")
            players[seat] = {**p, "id": new, "name": seal_name(name, keys[new], new)}
            sealed.add(new)
            moved.append(record)
        elif not name or is_sealed(name):
            continue
        elif is_computer(sid, name):
            kept.append(seat)
        elif sid in reseat.kept:
            kept.append(seat)
            why.append(f"seat {seat}'s id is made from the name and stays: {reseat.kept[sid]}")
        elif people.forgotten(sid):
            return Refused(gid, f"seat {seat}'s person {sid} is forgotten already")
        else:
            players[seat] = {**p, "name": seal_name(name, keys[sid], sid)}
            sealed.add(sid)
    if not sealed and why:
        return Refused(gid, "; ".join(why))
    return _Seats(players, sealed, kept, moved)


def _plan(
    gid: str,
    rows: Sequence[tuple[Any, ...]],
    signer: SigningKey | None,
    keys: Mapping[str, bytes],
    people: People,
    reseat: Reseating,
) -> Resealed | Refused | None:
    """The new rows of one game, or why it is refused; None for a game with nothing to
    seal (no name in the clear but the computer's, no person seated again)."""
    if not rows or rows[0][2] != "game_started":
        return None
    first = msgspec.json.decode(rows[0][8])
    if not _todo(first, reseat):
        return None
    seats = _seats(gid, first, keys, people, reseat)
    if isinstance(seats, Refused) or not seats.sealed:
        return seats if isinstance(seats, Refused) else None
    checked = _checked(gid, rows, signer)
    if isinstance(checked, Refused):
        return checked
    envs, checkpoints = checked
    first["players"] = seats.players
    new: dict[int, str] = {}
    out: list[tuple[Any, ...]] = []
    prev = L.GENESIS
    for r in rows:
        seq, payload = int(r[1]), r[8]
        if seq == 1:
            payload = _enc.encode(first).decode()
        elif r[2] == _CHECKPOINT:
            cp = msgspec.json.decode(payload)
            hs = int(cp["head_seq"])
            assert signer is not None
            cp["head"] = new[hs]
            cp["signature"] = signer.sign(checkpoint_message(gid, hs, new[hs]))
            payload = _enc.encode(cp).decode()
        digest = L.compute_hash(prev, row_to_envelope((*r[:8], payload, ""), prev, source=gid))
        out.append((*r[:8], payload, digest))
        new[seq] = prev = digest
    detail: dict[str, Any] = {
        "old_first": envs[0].hash,
        "old_head": envs[-1].hash,
        "new_head": prev,
        "sealed": sorted(seats.sealed),
        "checkpoints": checkpoints,
    }
    if seats.moved:  # the old id only sealed: the record must not say the name either
        detail["reseated"] = [{k: v for k, v in m.items() if k != "old"} for m in seats.moved]
    return Resealed(
        gid,
        len(rows),
        envs[-1].hash,
        prev,
        tuple(sorted(seats.sealed)),
        tuple(c["seq"] for c in checkpoints),
        tuple(seats.kept),
        tuple((m["old"], m["person"]) for m in seats.moved),
        out,
        detail,
    )


#: Games planned and written at a time: their rows are held in memory until written.
_BATCH = 256


def upgrade(store: StoreHandle, signer: SigningKey | None, *, dry_run: bool = False) -> Upgrade:
    """Seal every name held in the clear that can be and seat every person whose id is made
    from their name under a minted one (see the module docstring and :mod:`.reseat`): the
    games re-chained, their heads entries, the persons' new keys and the games' projection
    rows in one transaction, a batch of games at a time; with ``dry_run``, only what it
    would do.

    A person seated again is seated again in every game or in none: when one of the games
    seating them is refused, they keep their id everywhere (the same id would otherwise be
    two persons), and the upgrade says why."""
    if not dry_run:
        store._writable()
    store.settle()
    conn = store.conn
    firsts = {
        str(g): msgspec.json.decode(p)
        for g, p in conn.execute(
            "SELECT game_id, payload FROM events WHERE seq = 1 AND type = 'game_started' "
            "ORDER BY game_id"
        ).fetchall()
    }
    people = People(person_envelopes(conn))
    earlier = earlier_ids(conn, [json.loads(e[5]) for e in _entries(conn) if e[5]])
    reseat = plan_ids(conn, firsts, people, earlier)
    wanted = [g for g, first in firsts.items() if _todo(first, reseat)]
    ids = sorted({seat_id(p) for g in wanted for p in _clear(firsts[g])} | set(reseat.ids))
    ids += sorted(set(reseat.ids.values()))
    keys = keys_for(conn, ids)
    held = set(keys)
    keys.update({pid: new_key() for pid in ids if pid not in keys})
    # a person seated again in a game that cannot be re-chained keeps their id everywhere
    moving = [g for g in wanted if _seat_ids(firsts[g]) & set(reseat.ids)]
    refusals: dict[str, Refused] = {}
    for start in range(0, len(moving), _BATCH):
        for gid, rows in store.games_events(moving[start : start + _BATCH]).items():
            seats = _seats(gid, firsts[gid], keys, people, reseat)
            why = seats if isinstance(seats, Refused) else _checked(gid, rows, signer)
            if isinstance(why, Refused):
                refusals[gid] = why
                for old in sorted(_seat_ids(firsts[gid]) & set(reseat.ids)):
                    reseat.keep(old, f"game {gid} seats them and is refused")
    done: list[Resealed] = []
    refused: list[Refused] = []
    with contextlib.ExitStack() as writing:
        if not dry_run:
            writing.enter_context(H.writing(store.path))
            writing.enter_context(transaction(conn))
        for start in range(0, len(wanted), _BATCH):
            batch = store.games_events(wanted[start : start + _BATCH])
            plans = [
                refusals.get(gid) or _plan(gid, rows, signer, keys, people, reseat)
                for gid, rows in batch.items()
            ]
            refused += [p for p in plans if isinstance(p, Refused)]
            resealed = [p for p in plans if isinstance(p, Resealed)]
            if not dry_run and resealed:
                held |= _write(store, resealed, keys, held)
            done += [dataclasses.replace(p, rows=[], detail={}) for p in resealed]
        if not dry_run and reseat.ids:
            # the keys of the old ids: no game seats them now, and each row names its id
            conn.execute(
                "DELETE FROM person_keys WHERE person_id IN (SELECT unnest(?::VARCHAR[]))",
                [sorted(reseat.ids)],
            )
    return Upgrade(
        tuple(done),
        tuple(refused),
        len(firsts) - len(done) - len(refused),
        dry_run,
        dict(reseat.ids),
        frozenset(reseat.minted),
        dict(reseat.kept),
    )


def _seat_ids(payload: Mapping[str, Any]) -> set[str]:
    return {seat_id(p) for p in payload.get("players") or [] if isinstance(p, dict)}


def _clear(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The seats whose name is in the clear."""
    return [
        p
        for p in payload.get("players") or []
        if isinstance(p, dict) and p.get("name") and not is_sealed(str(p["name"]))
    ]


def _write(
    store: StoreHandle, games: Sequence[Resealed], keys: Mapping[str, bytes], held: set[str]
) -> set[str]:
    """Write re-chained games inside the upgrade's transaction: the keys of their persons
    not held yet, their events, their heads entries and their projection rows; the persons
    whose keys were written."""
    from .stored_events import fresh_rows
    from .writer import clear_games, insert_projection

    conn = store.conn
    new = sorted({pid for d in games for pid in d.sealed} - held)
    for pid in new:
        conn.execute("INSERT INTO person_keys VALUES (?, ?)", [pid, keys[pid]])
    for d in games:
        conn.execute(
            "UPDATE events SET payload = n.payload, hash = n.hash FROM (SELECT "
            "unnest($seq::BIGINT[]) AS seq, unnest($payload::VARCHAR[]) AS payload, "
            "unnest($hash::VARCHAR[]) AS hash) n "
            "WHERE events.game_id = $game AND events.seq = n.seq",
            {
                "game": d.game_id,
                "seq": [r[1] for r in d.rows],
                "payload": [r[8] for r in d.rows],
                "hash": [r[9] for r in d.rows],
            },
        )
        H.record(conn, KIND, [(d.game_id, d.events, d.new_head)], d.detail)
        store.cache.pop(d.game_id, None)
    ids = [d.game_id for d in games]
    failed: list[Any] = []
    rows, _ = fresh_rows(store, ids, failed)
    if failed:
        raise StoreError(
            f"{store.path}: nothing was changed: game(s) re-chained do not derive again "
            f"({'; '.join(f'{f.game_id}: {f.reason}' for f in failed[:3])})"
        )
    clear_games(conn, ids)
    insert_projection(conn, rows)
    return set(new)


# --- checking the record of an upgrade --------------------------------------------------


def _entries(conn: duckdb.DuckDBPyConnection, gid: str | None = None) -> list[tuple[Any, ...]]:
    sql = "SELECT entry, game_id, seq, head, recorded_at, detail FROM heads WHERE kind = ?"
    args: list[Any] = [KIND]
    if gid is not None:
        sql += " AND game_id = ?"
        args.append(gid)
    return conn.execute(sql + " ORDER BY entry", args).fetchall()


def _old_chain(envs: Sequence[E.Envelope], detail: Mapping[str, Any]) -> list[str]:
    """The old hashes of the game's events (seq 1 first), rebuilt from the old first hash,
    the events after it as they are now and the re-signed checkpoints' old payloads."""
    old_cp = {int(c["seq"]): c for c in detail.get("checkpoints", [])}
    prev = str(detail["old_first"])
    out = [prev]
    for env in envs[1:]:
        ev = env.event
        c = old_cp.get(env.seq)
        if c is not None and isinstance(ev, E.CheckpointSigned):
            ev = msgspec.structs.replace(ev, head=c["head"], signature=c["signature"])
            env = msgspec.structs.replace(env, event=ev)
        prev = L.compute_hash(prev, env)
        out.append(prev)
    return out


def _first_opened(
    conn: duckdb.DuckDBPyConnection, env: E.Envelope, detail: Mapping[str, Any]
) -> bytes | None:
    """The old canonical bytes of the first event (its sealed names opened, its old ids and
    names of seats given a minted id put back), or None once a person whose name was sealed
    is forgotten (their key is gone)."""
    sealed: Sequence[str] = detail.get("sealed", [])
    reseated: Sequence[Mapping[str, Any]] = detail.get("reseated", [])
    keys = keys_for(conn, sealed)
    if set(sealed) - set(keys):
        return None
    body = msgspec.json.decode(L.canonical_bytes(env))
    players = body["event"]["players"]
    for p in players:
        if p.get("id") in sealed:
            p["name"] = open_name(p["name"], keys[p["id"]], p["id"])
    for r in reseated:
        p, new = players[int(r["seat"])], str(r["person"])
        if "sealed_as" in r:
            p["name"] = r["sealed_as"]
        if r.get("id_was") == "absent":
            del p["id"]
        else:
            p["id"] = "" if r.get("id_was") == "empty" else open_name(r["was"], keys[new], new)
    return _sorted_enc.encode(body)


def check(store: StoreHandle) -> list[Finding]:
    """Every ``game_resealed`` entry against the game now: the old chain rebuilt reaches the
    old head, the old checkpoints' signatures verify, and (while the keys are held) the
    first event with its names opened is the old one."""
    conn = store.conn
    out: list[Finding] = []
    for entry, gid, count, head, _at, text in _entries(conn):

        def bad(reason: str, gid: str = gid, entry: int = entry) -> None:
            out.append(Finding(reason=reason, rule=KIND, game_id=gid, entry=int(entry)))

        try:
            detail = json.loads(text)
            envs = store.events(gid)[: int(count)]
        except Exception as exc:
            bad(f"the entry or the game cannot be read: {exc}")
            continue
        if len(envs) < int(count) or envs[-1].hash != head:
            continue  # a loss: the heads check names it
        try:
            old = _old_chain(envs, detail)
        except (KeyError, TypeError, ValueError) as exc:
            bad(f"the entry's detail is not an upgrade's record: {exc}")
            continue
        if old[-1] != detail.get("old_head"):
            bad(
                "the events after the first are not those the old chain hashed: the game "
                "changed in the upgrade, or after it, beyond its names and re-signed checkpoints"
            )
            continue
        keys = {
            PublicKey.from_text(e.event.key).fingerprint: PublicKey.from_text(e.event.key)
            for e in envs
            if isinstance(e.event, E.KeyAdded)
        }
        for c in detail.get("checkpoints", []):
            ev = envs[int(c["seq"]) - 1].event
            key = keys.get(ev.key) if isinstance(ev, E.CheckpointSigned) else None
            if not isinstance(ev, E.CheckpointSigned) or key is None:
                bad(f"seq {c['seq']} is not a checkpoint signed by a key the game added")
                continue
            message = checkpoint_message(gid, ev.head_seq, c["head"])
            if not key.verify(c["signature"], message):
                bad(f"the old checkpoint at seq {c['seq']} does not verify")
        opened = _first_opened(conn, envs[0], detail)
        if opened is not None and L.digest_after(L.GENESIS, opened) != detail["old_first"]:
            bad("the first event with its names opened is not the one the old chain began with")
    return out


def trace_seal(store: StoreHandle, gid: str, query: SealQuery) -> SealCheck | None:
    """A seal taken before the game's names were sealed, found in the old chain rebuilt
    from an upgrade's record (the events after the first unchanged): where it is now.

    The first event is checked against its old hash with its names opened; once a person
    is forgotten that is no longer possible, and the answer says that its other fields
    (the ruleset, the stake) rest on the store's record of the upgrade."""
    for entry, _gid, count, _head, at, text in _entries(store.conn, gid):
        envs = store.events(gid)
        detail = json.loads(text)
        old = _old_chain(envs[: int(count)], detail)
        for seq, digest in enumerate(old, start=1):
            if not ((query.seq is None or query.seq == seq) and query.matches(digest)):
                continue
            said = (
                f"the record held seal {query.text} at seq {seq} before the names of its first "
                f"event were sealed ({at}, heads entry {entry})"
            )
            opened = _first_opened(store.conn, envs[0], detail)
            if opened is not None and L.digest_after(L.GENESIS, opened) != detail["old_first"]:
                return SealCheck(
                    False,
                    f"{said}, but its first event with the names opened is not the one the "
                    "seal covered: it was changed beyond its names",
                    seq,
                )
            first = (
                "the first event is the one it covered but for its names, sealed"
                if opened is not None
                else "the first event's names can no longer be opened (a person is "
                "forgotten): its other fields rest on the store's record of the upgrade"
            )
            now, after = envs[seq - 1], len(envs) - seq
            return SealCheck(
                True,
                f"{said}; {first}; the events after it are those the seal covered (a "
                f"checkpoint among them signed again over the new hashes); its seal at seq "
                f"{seq} is now {seal_text(now.hash)}; {after} event(s) follow it",
                seq,
                after,
            )
    return None
