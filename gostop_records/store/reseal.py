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
- no seat but those whose person id is made from the name (no id, or the slug of the
  name: a bot on ``/play``, a game recorded before persons had ids). Such a seat keeps its
  name in the clear in a game re-chained for its other seats: the id says it anyway.

Each game re-chained gets a ``game_resealed`` entry in the store's heads chain (its events
and new head, as every entry), whose detail keeps what a verifier needs to rebuild the old
chain from the new events: the old hash of the first event, the old head, and each
re-signed checkpoint's old head and signature. :func:`check` rebuilds it (``gostop db
verify``): every event after the first is what the old chain hashed, the old checkpoints'
signatures verify, and while the persons' keys are held the first event with its names
opened is the old one. So a seal written on a score sheet before the upgrade is traced to
the new record (:func:`trace_seal`). Everything is written in one transaction, with the
projection rows of the games derived again.
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
from ..names import is_sealed, new_key, open_name, seal_name
from ..people import People, derived_person_id
from . import heads as H
from .codec import row_to_envelope, rows_to_envelopes
from .errors import StoreError
from .people import keys_for, person_envelopes
from .writer import transaction

if TYPE_CHECKING:
    import duckdb

    from .store import Store

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
    sealed, the seqs of the checkpoints signed again and the seats whose names stay in the
    clear (their id says the name anyway: a bot's on ``/play``, a seat recorded without
    an id)."""

    game_id: str
    events: int
    old_head: str
    new_head: str
    sealed: tuple[str, ...]
    resigned: tuple[int, ...]
    kept: tuple[int, ...]  # seats left in the clear: their person id is made from the name
    rows: list[tuple[Any, ...]] = field(repr=False, compare=False)
    detail: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Upgrade:
    """What ``gostop people upgrade`` did (or, with ``dry_run``, would do)."""

    resealed: tuple[Resealed, ...]
    refused: tuple[Refused, ...]
    untouched: int  # games holding no name in the clear
    dry_run: bool


def _clear_seats(payload: Mapping[str, Any]) -> list[tuple[int, str, str]]:
    """(seat, person id, name) of each seat whose name is in the clear."""
    out = []
    for i, p in enumerate(payload.get("players") or []):
        if isinstance(p, dict) and p.get("name") and not is_sealed(str(p["name"])):
            out.append((i, str(p.get("id") or ""), str(p["name"])))
    return out


def _plan(
    gid: str,
    rows: Sequence[tuple[Any, ...]],
    signer: SigningKey | None,
    key_of: Mapping[str, bytes],
    forgotten: People,
) -> Resealed | Refused | None:
    """The new rows of one game, or why it is refused; None for a game with no clear name."""
    if not rows or rows[0][2] != "game_started":
        return None
    first = msgspec.json.decode(rows[0][8])
    clear = _clear_seats(first)
    if not clear:
        return None
    named = [c for c in clear if not c[1] or c[1] == derived_person_id(c[2])]
    kept = tuple(c[0] for c in named)
    clear = [c for c in clear if c not in named]
    if not clear:
        return Refused(
            gid,
            f"the person id of seat(s) {', '.join(map(str, kept))} is made from the name "
            "(no id, or its slug): sealing the name would leave it readable in the id",
        )
    for seat, pid, _name in clear:
        if forgotten.forgotten(pid):
            return Refused(gid, f"seat {seat}'s person {pid} is forgotten already")
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
    ids = {pid for _, pid, _ in clear}
    players = [dict(p) for p in first["players"]]
    for seat, pid, name in clear:
        players[seat]["name"] = seal_name(name, key_of[pid], pid)
    first["players"] = players
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
    detail = {
        "old_first": old[1],
        "old_head": envs[-1].hash,
        "new_head": prev,
        "sealed": sorted(ids),
        "checkpoints": checkpoints,
    }
    return Resealed(
        gid,
        len(rows),
        envs[-1].hash,
        prev,
        tuple(sorted(ids)),
        tuple(c["seq"] for c in checkpoints),
        kept,
        out,
        detail,
    )


#: Games planned and written at a time: their rows are held in memory until written.
_BATCH = 256


def upgrade(store: Store, signer: SigningKey | None, *, dry_run: bool = False) -> Upgrade:
    """Seal every name held in the clear that can be (see the module docstring): the games
    re-chained, their heads entries, the persons' new keys and the games' projection rows in
    one transaction, a batch of games at a time; with ``dry_run``, only what it would do."""
    if not dry_run:
        store._writable()
    store.settle()
    conn = store.conn
    firsts = conn.execute(
        "SELECT game_id, payload FROM events WHERE seq = 1 AND type = 'game_started' "
        "ORDER BY game_id"
    ).fetchall()
    clear = {str(g): _clear_seats(msgspec.json.decode(p)) for g, p in firsts}
    wanted = [g for g, seats in clear.items() if seats]
    ids = sorted({pid for g in wanted for _, pid, _ in clear[g] if pid})
    people = People(person_envelopes(conn))
    keys = keys_for(conn, ids)
    held = set(keys)
    keys.update({pid: new_key() for pid in ids if pid not in keys})
    done: list[Resealed] = []
    refused: list[Refused] = []
    with contextlib.ExitStack() as writing:
        if not dry_run:
            writing.enter_context(H.writing(store.path))
            writing.enter_context(transaction(conn))
        for start in range(0, len(wanted), _BATCH):
            batch = store.games_events(wanted[start : start + _BATCH])
            plans = [_plan(gid, rows, signer, keys, people) for gid, rows in batch.items()]
            refused += [p for p in plans if isinstance(p, Refused)]
            resealed = [p for p in plans if isinstance(p, Resealed)]
            if not dry_run and resealed:
                held |= _write(store, resealed, keys, held)
            done += [dataclasses.replace(p, rows=[]) for p in resealed]
    return Upgrade(tuple(done), tuple(refused), len(firsts) - len(wanted), dry_run)


def _write(
    store: Store, games: Sequence[Resealed], keys: Mapping[str, bytes], held: set[str]
) -> set[str]:
    """Write re-chained games inside the upgrade's transaction: the keys of their persons
    not held yet, their events, their heads entries and their projection rows; the persons
    whose keys were written."""
    from .rebuild import fresh_rows
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
    conn: duckdb.DuckDBPyConnection, env: E.Envelope, sealed: Sequence[str]
) -> bytes | None:
    """The old canonical bytes of the first event (its sealed names opened), or None once a
    person whose name was sealed is forgotten (their key is gone)."""
    keys = keys_for(conn, sealed)
    if set(sealed) - set(keys):
        return None
    body = msgspec.json.decode(L.canonical_bytes(env))
    for p in body["event"]["players"]:
        if p.get("id") in sealed:
            p["name"] = open_name(p["name"], keys[p["id"]], p["id"])
    return _sorted_enc.encode(body)


def check(store: Store) -> list[Finding]:
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
        opened = _first_opened(conn, envs[0], detail.get("sealed", []))
        if opened is not None and L.digest_after(L.GENESIS, opened) != detail["old_first"]:
            bad("the first event with its names opened is not the one the old chain began with")
    return out


def trace_seal(store: Store, gid: str, query: SealQuery) -> SealCheck | None:
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
            opened = _first_opened(store.conn, envs[0], detail.get("sealed", []))
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
