"""Who may do what on ``gostop serve``: the one table of the service's permissions.

Every route of the service declares the action it performs (``opt={"access": ...}``, an
:class:`Action` or its name); :func:`guard`, the app's one guard, looks the action up in
:data:`TABLE` and lets the request through or refuses it (401 without a credential, 403
with one that does not open it). A route that declares nothing is refused: a new route
must say who may call it. ``docs/access.md`` is this table in words; keep them together.

The credentials, each sent as ``Authorization: Bearer ...``:

- the **server key**: printed by ``gostop serve`` at start (``$GOSTOP_SERVER_KEY``), held by
  whoever runs the server; it administers (reissues recorder tokens, imports, takes
  backups) and starts games;
- a game's **recorder token**: given once when the game starts (or reissued by the key);
  it records that game's entries and, on a ``--private`` server, reads that game;
- a **seat key**: a player's Ed25519 key. It is not sent as a header: the countersignature
  it makes proves it. A seat's key is bound to the game by the seat's first
  countersignature, which the recorder confirms (that request carries the game's recorder
  token); from then on the seat countersigns with that key alone, from the player's phone.

``--open`` lets anyone who reaches the server start games (and play on ``/play``), never
reissue a token, import, take a backup, rebuild or administer: those still need the server
key. ``--private`` asks for a credential to read anything (and to play on ``/play``).
"""

from __future__ import annotations

import enum
import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ServiceError

if TYPE_CHECKING:
    from litestar.connection import ASGIConnection
    from litestar.handlers.base import BaseRouteHandler

__all__ = [
    "TABLE",
    "Action",
    "Role",
    "Rule",
    "bearer",
    "guard",
    "holds_key",
    "holds_recorder_token",
    "permits",
    "require",
    "roles_for",
]


class Role(enum.StrEnum):
    """Who a request is, by the credential it carries."""

    KEY = "server key"
    RECORDER = "the game's recorder token"
    SEAT = "the seat's bound key"
    ANYONE = "anyone"


class Action(enum.StrEnum):
    """What a route does; the value is what the route declares in its ``opt``."""

    PUBLIC = "public"  # the health check, the page shells, card drawings, the API's schema
    START_GAME = "start_game"
    RECORD = "record"
    REISSUE_TOKEN = "reissue_token"
    IMPORT = "import"
    BACKUP = "backup"
    REBUILD = "rebuild"
    READ_GAME = "read_game"
    READ_STORE = "read_store"
    COUNTERSIGN = "countersign"
    BIND_SEAT = "bind_seat"
    PLAY = "play"
    METRICS = "metrics"
    PEOPLE = "people"


@dataclass(frozen=True, slots=True)
class Rule:
    """Who may do an action: ``roles`` on a server started plainly; ``when_open`` instead
    on an ``--open`` server, ``when_private`` instead on a ``--private`` one (None: as
    plainly). ``what`` names the action in a refusal; ``routes`` and ``note`` are for the
    table in words (``docs/access.md``)."""

    what: str
    roles: frozenset[Role]
    when_open: frozenset[Role] | None = None
    when_private: frozenset[Role] | None = None
    routes: tuple[str, ...] = ()
    note: str = ""


def _r(*roles: Role) -> frozenset[Role]:
    return frozenset(roles)


KEY, RECORDER, SEAT, ANYONE = Role.KEY, Role.RECORDER, Role.SEAT, Role.ANYONE

#: The table. ``docs/access.md`` says the same in words.
TABLE: dict[Action, Rule] = {
    Action.PUBLIC: Rule(
        "this",
        _r(ANYONE),
        routes=(
            "GET /api/health",
            "GET /api/token",
            "GET /",
            "GET /games/{id}/record",
            "GET /play",
            "GET /cards/{code}.svg",
            "POST /qr",
            "GET /schema",
        ),
        note="the health check names the store's file (its base name) to the server key "
        "only; GET /api/token answers only the game of the token it is given; the recorder "
        "page is a shell: the token stays in the phone",
    ),
    Action.START_GAME: Rule(
        "starting a game", _r(KEY), when_open=_r(ANYONE), routes=("POST /api/games",)
    ),
    Action.RECORD: Rule(
        "recording",
        _r(RECORDER),
        routes=("POST /api/games/{id}/entries",),
        note="checked with the entry on the store's thread, in memory",
    ),
    Action.REISSUE_TOKEN: Rule(
        "issuing a recorder token",
        _r(KEY),
        routes=("POST /api/games/{id}/token",),
        note="the old token stops working: never open to anyone, not even with --open",
    ),
    Action.IMPORT: Rule(
        "importing", _r(KEY), routes=("POST /api/import",), note="never open to anyone"
    ),
    Action.BACKUP: Rule(
        "taking a backup",
        _r(KEY),
        routes=("POST /api/backup",),
        note="written into the server's backup folder only (a request gives a file name at "
        "most); never open to anyone",
    ),
    Action.REBUILD: Rule(
        "rebuilding the projection tables",
        _r(KEY),
        routes=("POST /api/rebuild", "DELETE /api/rebuild"),
        note="starts (or cancels) a rebuild beside the live tables; its progress is in "
        "GET /api/health for the key holder; never open to anyone",
    ),
    Action.READ_GAME: Rule(
        "reading a game",
        _r(ANYONE),
        when_private=_r(KEY, RECORDER),
        routes=(
            "GET /api/games/{id}",
            "GET /api/games/{id}/now",
            "GET /api/games/{id}/events",
            "GET /api/games/{id}/stream",
            "GET /api/games/{id}/audit",
            "GET /api/games/{id}/checkpoint",
            "GET /games/{id}",
            "GET /games/{id}/view",
            "GET /games/{id}/watch",
            "GET /games/{id}/replay",
            "GET /games/{id}/audit",
            "GET /games/{id}/review",
        ),
        note="a review the store does not keep yet is computed in the background, one at a "
        "time, and then kept",
    ),
    Action.READ_STORE: Rule(
        "reading the store",
        _r(ANYONE),
        when_private=_r(KEY),
        routes=(
            "GET /api/games",
            "POST /api/query",
            "GET /games",
            "GET /players",
            "GET /players/{id}",
            "GET /report",
            "GET /api/people",
        ),
        note="SQL shows no path of the server's files",
    ),
    Action.COUNTERSIGN: Rule(
        "countersigning",
        _r(SEAT),
        when_private=_r(SEAT),
        routes=("POST /api/games/{id}/countersign",),
        note="the signature must verify with the key bound to the seat; a --private server "
        "also asks for the right to read the game (the server key or the recorder token)",
    ),
    Action.BIND_SEAT: Rule(
        "binding a seat's key",
        _r(RECORDER),
        routes=("POST /api/games/{id}/countersign",),
        note="a seat's first countersignature binds its key: that request carries the "
        "game's recorder token; a stranger cannot take a seat",
    ),
    Action.PLAY: Rule(
        "playing against the computer",
        _r(ANYONE),
        when_private=_r(KEY),
        routes=(
            "POST /api/play",
            "GET /api/play/{hand}",
            "POST /api/play/{hand}",
            "GET /api/play/{hand}/hint",
            "GET /play/{hand}/review/{n}",
            "POST /play/{hand}/rewind",
        ),
        note="a finished hand is stored as a game (a hand played again from a decision is "
        "practice, not stored)",
    ),
    Action.PEOPLE: Rule(
        "renaming, merging or forgetting persons",
        _r(KEY),
        routes=(
            "POST /api/people/{id}/rename",
            "POST /api/people/merge",
            "POST /api/people/{id}/forget",
        ),
        note="events of the store's people record, never edits; never open to anyone",
    ),
    Action.METRICS: Rule(
        "reading the server's metrics",
        _r(KEY),
        routes=("GET /metrics",),
        note="never open to anyone: for whoever runs the server (the scraper sends the key)",
    ),
}


def roles_for(action: Action, *, open_: bool, private: bool) -> frozenset[Role]:
    """Who may do ``action`` on a server so started."""
    rule = TABLE[action]
    roles = rule.roles
    if open_ and rule.when_open is not None:
        roles = rule.when_open
    if private and rule.when_private is not None:
        roles = rule.when_private
    return roles


# --- credentials ----------------------------------------------------------------------------


def bearer(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The ``Authorization: Bearer`` value, if any."""
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def _state(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state["gostop"]


def holds_key(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Whether the request carries the server key."""
    key = _state(connection).config.key
    token = bearer(connection)
    return key is not None and token is not None and hmac.compare_digest(token, key)


async def holds_recorder_token(
    connection: ASGIConnection[Any, Any, Any, Any], game_id: str | None
) -> bool:
    """Whether the request carries the recorder token of game ``game_id``."""
    token = bearer(connection)
    if game_id is None or not token:
        return False
    st = _state(connection)
    return bool(await st.look(st.svc.token_opens, game_id, token))


# --- the checks -----------------------------------------------------------------------------


async def require(
    connection: ASGIConnection[Any, Any, Any, Any], action: Action, game_id: str | None = None
) -> None:
    """Let the request do ``action`` (on game ``game_id``) or raise the refusal."""
    cfg = _state(connection).config
    roles = roles_for(action, open_=cfg.opens_games, private=cfg.private)
    if ANYONE in roles or action is Action.RECORD:  # an entry's token: the worker checks it
        return
    if SEAT in roles:
        # the signature proves the seat's key (TableService.countersign); a private
        # server asks for the right to read the game first
        if cfg.private:
            await require(connection, Action.READ_GAME, game_id)
        return
    if KEY in roles and holds_key(connection):
        return
    if RECORDER in roles and await holds_recorder_token(connection, game_id):
        return
    private = cfg.private and TABLE[action].when_private is not None
    raise refusal(
        action, roles, has_key=cfg.key is not None, sent=bearer(connection), private=private
    )


async def permits(
    connection: ASGIConnection[Any, Any, Any, Any], action: Action, game_id: str | None = None
) -> bool:
    """Whether the request may do ``action``, for a route that asks only in some cases
    (countersigning asks for :attr:`Action.BIND_SEAT` when the seat has no key yet)."""
    try:
        await require(connection, action, game_id)
    except ServiceError:
        return False
    return True


def refusal(
    action: Action,
    roles: frozenset[Role],
    *,
    has_key: bool,
    sent: str | None,
    private: bool = False,
) -> ServiceError:
    """The 401 (nothing sent) or 403 (what was sent does not open it) of ``action``;
    ``private``: refused because the server is private."""
    what = TABLE[action].what
    if private:
        what = f"this server is private: {what}"
    if roles == {KEY} and not has_key:
        return ServiceError(
            403,
            "forbidden",
            f"{what} needs the server key; this server was started without one, so nobody "
            "may (start it with a server key: $GOSTOP_SERVER_KEY)",
        )
    who = " or ".join(
        ("the " if r is KEY else "") + r.value
        for r in sorted(roles, key=list(Role).index)
        if r is not ANYONE
    )
    if sent is None:
        return ServiceError(401, "unauthorized", f"{what} needs {who} (Bearer)")
    return ServiceError(403, "forbidden", f"{what} needs {who}; this is not it")


async def guard(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """The app's guard: the action the route declares, checked against :data:`TABLE`."""
    declared = handler.opt.get("access")
    if declared is None:
        if connection.scope["path"].startswith("/schema"):  # Litestar's OpenAPI routes
            return
        if connection.scope.get("method") == "OPTIONS":  # Litestar's answer of the methods
            return
        raise ServiceError(403, "forbidden", "this route declares no permission")
    await require(connection, Action(declared), connection.path_params.get("game_id"))
