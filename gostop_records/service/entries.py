"""Recording: a new game, then its entries, each decided by the game's recording session and
stored with the entries of other tables that wait with it, in one journal record. A retry
of an idempotency key gets its first answer again; a conflict, a rule or a bad entry is a
4xx naming why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec

from .. import events as E
from ..errors import (
    CardCodeError,
    GostopError,
    IllegalAction,
    ProjectionError,
    RulesetError,
)
from ..recorder import Entry, RecordingSession, new_game_id
from ..rules import PRESETS, Ruleset, apply_overrides, get_preset
from ..store.errors import ConcurrencyError
from . import tokens_answers
from .errors import ServiceError
from .models import EntryIn, NewGame
from .sessions import (
    Answer,
    Decided,
    EntryRequest,
    Sessions,
    StoredGame,
    events_json,
    reused_key,
    unavailable,
    waiting_dict,
)

__all__ = ["Entries"]


class Entries(Sessions):
    """Starting games and recording entries: each checked by its game's session, stored
    together through the one write path (:mod:`.sessions`)."""

    def create_game(self, req: NewGame, idempotency_key: str | None = None) -> Answer:
        """Start a game: ``game_started`` stored with the hash of a fresh recorder token.

        A retry with the same idempotency key answers the same game with a new token (the
        old one no longer opens it): the token is never stored, so the first answer, lost
        on its way, cannot be sent again."""
        fp = fingerprint(req)
        if idempotency_key:
            with self.hold():  # a retry's answer, and a token written beside the settler
                done = tokens_answers.answered(self._conn(), "games", idempotency_key)
                if done is not None:
                    if done[0] != fp:
                        raise reused_key(idempotency_key)
                    body = msgspec.json.decode(done[2])
                    token = tokens_answers.new_secret()
                    self._set_token(self.store.conn, body["game_id"], token, self.clock())
                    body["recorder_token"] = token
                    return Answer(done[1], msgspec.json.encode(body), replayed=True)
        rules = _ruleset(req.ruleset, len(req.players))
        gid = req.game_id or new_game_id(self.clock)
        if self.store.version(gid):
            raise ServiceError(409, "exists", f"game {gid!r} exists already")
        sink = StoredGame(self.store)
        try:
            rec = RecordingSession.start(
                sink,
                req.players,
                rules,
                stake=req.stake,
                game_id=gid,
                by=req.by,
                venue=req.venue,
                notes=req.notes,
                clock=self.clock,
                signer=self.signer,
                deciding=True,
            )
        except (IllegalAction, GostopError) as exc:
            raise ServiceError(400, "bad_game", str(exc)) from None
        assert rec.opened is not None
        token = tokens_answers.new_secret()
        body = {
            "game_id": rec.game_id,
            "version": rec.last_seq,
            "ruleset": rules.name,
            "players": [msgspec.to_builtins(p) for p in rec.players],
            "waiting": waiting_dict(rec.waiting()),
            "signed_by": self.signer.fingerprint if self.signer is not None else None,
        }
        stamp = self.clock()
        rows: dict[str, list[tuple[Any, ...]]] = {
            tokens_answers.TOKENS: [tokens_answers.token_row(rec.game_id, token, stamp)]
        }
        if idempotency_key:
            answer = msgspec.json.encode(body).decode()
            rows[tokens_answers.ANSWERS] = [("games", idempotency_key, fp, 201, answer, stamp)]
        self._commit(rec.opened, rows)
        self.live[rec.game_id] = rec
        self.keys[rec.game_id] = set()
        # committed: the first entry need not read the hash back from the store
        self.token_hashes[rec.game_id] = tokens_answers.token_digest(token)
        return Answer(201, msgspec.json.encode({**body, "recorder_token": token}))

    def enter(
        self,
        game_id: str,
        req: EntryIn,
        *,
        raw_event: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Answer:
        """Record one entry (a line of the grammar or a typed input) at ``expected_version``."""
        ready = self._prepare(EntryRequest(game_id, req, raw_event, idempotency_key))
        if isinstance(ready, Answer):
            return ready
        try:
            self._commit_group([ready])
        except (ConcurrencyError, ProjectionError) as exc:
            raise self._commit_refusal(ready, exc) from None
        return Answer(201, ready.body)

    def enter_group(self, requests: Sequence[EntryRequest]) -> list[Answer | Exception]:
        """Entries of several games (one each), committed in one transaction when every one
        is accepted; when the group cannot be committed, each is committed on its own."""
        cause = self.write_error()
        if cause is not None:  # nothing more is taken while what was cannot be written
            return [unavailable(cause) for _r in requests]
        out: list[Answer | Exception | None] = [None] * len(requests)
        ready: list[tuple[int, Decided]] = []
        for i, r in enumerate(requests):
            try:
                if r.check_token:
                    self.check_token(r.game_id, r.token)
                got = self._prepare(r)
            except Exception as exc:  # each request gets its own refusal
                out[i] = exc
                continue
            if isinstance(got, Answer):
                out[i] = got
            else:
                ready.append((i, got))
        if ready:
            try:
                self._commit_group([e for _i, e in ready])
                for i, e in ready:
                    out[i] = Answer(201, e.body)
            except Exception:
                for i, _e in ready:  # one by one: each gets its own answer
                    r = requests[i]
                    try:
                        out[i] = self.enter(
                            r.game_id,
                            r.req,
                            raw_event=r.raw_event,
                            idempotency_key=r.idempotency_key,
                        )
                    except Exception as exc:
                        out[i] = exc
        return [a for a in out if a is not None]

    def _commit_refusal(self, e: Decided, exc: Exception) -> ServiceError:
        if isinstance(exc, ConcurrencyError):
            key = e.key
            if key and tokens_answers.answered(self._conn(e.game_id), e.game_id, key) is not None:
                return reused_key(key)
            return ServiceError(409, "conflict", str(exc), version=exc.actual)
        assert isinstance(exc, ProjectionError)
        return ServiceError(422, "rules", exc.reason, rule=exc.rule, version=e.decision.base)

    def _prepare(self, r: EntryRequest) -> Decided | Answer:
        """Check an entry with its game's session: the envelopes to store and the answer, or
        the stored answer to a retry of its idempotency key; ServiceError for a refusal."""
        game_id, req, key = r.game_id, r.req, r.idempotency_key
        if (req.entry is None) == (req.event is None):
            raise ServiceError(
                400, "bad_entry", "give either entry (a line such as 'play 03G 03R') or event"
            )
        if req.event is not None and r.raw_event is not None:
            _check_fields(r.raw_event)
        fp = fingerprint(req)
        rec = self._session(game_id)
        version = rec.last_seq
        # a key answered before moved the game past the version its request expected, so
        # only a request that is behind can be a retry; a key reused at the current version
        # is one of the game's answered keys
        if key and (req.expected_version != version or key in self.keys.get(game_id, ())):
            done = tokens_answers.answered(self._conn(game_id), game_id, key)
            if done is not None:
                if done[0] != fp:
                    raise reused_key(key)
                return Answer(done[1], done[2].encode(), replayed=True)
        if req.expected_version != version and not _only_countersigned(rec, req.expected_version):
            raise ServiceError(
                409,
                "conflict",
                f"game {game_id!r} is at version {version}, not {req.expected_version}: "
                "another device recorded first; read the game again and decide again",
                version=version,
            )
        try:
            with rec.deciding() as decision:
                if req.entry is not None:
                    rec.enter(req.entry)
                else:
                    _record_event(rec, req.event)
        except IllegalAction as exc:
            self._abandon(game_id, rec, version)
            extra: dict[str, Any] = {"rule": exc.rule, "version": version}
            candidates = getattr(exc, "candidates", None)
            if candidates:
                extra["candidates"] = list(candidates)
            raise ServiceError(422, "rules", exc.reason, **extra) from None
        except (CardCodeError, GostopError) as exc:
            self._abandon(game_id, rec, version)
            raise ServiceError(400, "bad_entry", str(exc), version=version) from None
        except BaseException:
            self._abandon(game_id, rec, version)
            raise
        envs = decision.envelopes
        if not envs:
            raise ServiceError(400, "bad_entry", "the entry records nothing", version=version)
        body = msgspec.json.encode(
            {
                "game_id": game_id,
                "version": version + len(envs),
                "events": events_json(envs),
                "waiting": waiting_dict(rec.waiting()),
            }
        )
        answer = (game_id, key, fp, 201, body.decode(), self.clock()) if key else None
        return Decided(decision, body, None, key, answer)


def fingerprint(obj: Any) -> str:
    """A digest of a request body, to tell a retry from another request with the same key."""
    return hashlib.sha256(msgspec.json.encode(msgspec.to_builtins(obj), order="sorted")).hexdigest()


def _ruleset(spec: str | dict[str, Any] | None, players: int) -> Ruleset:
    """A preset by name, or ``{"base": PRESET, field: value ...}``; never a file."""
    if spec is None:
        return PRESETS["gostop3" if players >= 3 else "matgo"]
    try:
        if isinstance(spec, str):
            return get_preset(spec)
        data = dict(spec)
        base = data.pop("base", None)
        if not isinstance(base, str):
            raise ServiceError(
                400,
                "bad_ruleset",
                f"ruleset.base: name the preset to start from ({', '.join(PRESETS)})",
            )
        rules = data.pop("rules", {})
        if not isinstance(rules, dict):
            raise ServiceError(400, "bad_ruleset", "ruleset.rules: must be an object of fields")
        overrides = {**data, **rules}
        preset = get_preset(base)
        overrides.setdefault("name", f"{preset.name}-custom")
        overrides.setdefault("description", f"{preset.name} with house overrides")
        return apply_overrides(preset, overrides, "ruleset")
    except RulesetError as exc:
        raise ServiceError(400, "bad_ruleset", str(exc)) from None


def _only_countersigned(rec: RecordingSession, expected: int) -> bool:
    """Whether the game moved past ``expected`` by countersignatures alone: they change
    nothing a recorder decides on, so an entry made at ``expected`` still stands."""
    if not 0 < expected < rec.last_seq:
        return False
    return all(type(e.event) is E.ResultCountersigned for e in rec.envelopes[expected:])


def _check_fields(raw: dict[str, Any]) -> None:
    """Refuse fields a typed input does not have (the events accept and ignore them)."""
    tag = raw.get("type")
    cls = E.EVENT_TYPES.get(tag) if isinstance(tag, str) else None
    if cls is None:
        return
    known = {"type", *cls.__struct_fields__}
    extra = sorted(set(raw) - known)
    if extra:
        raise ServiceError(
            400,
            "bad_entry",
            f"event {tag}: unknown field(s) {', '.join(extra)}; its fields are "
            f"{', '.join(cls.__struct_fields__)}",
        )


def _record_event(rec: RecordingSession, payload: Any) -> list[Entry]:
    """A typed input, recorded as the recorder would (an undo names its target's seq)."""
    return rec.record_all([payload])
