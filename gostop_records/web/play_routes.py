"""The ``/play`` page of ``gostop serve``: a hand against the computer in the browser.

The hands in play live on the server (:class:`PlayHall`), each a
:class:`~gostop_records.web.play.PlayTable` under an unguessable id that only its page knows
(the page keeps it in its address's fragment, so a reload resumes the hand). The page sends the
human's answers; the server checks them on the engine, runs the computer's moves, and
answers with the human seat's view and the frames of what happened. A refused answer (a card
not in your hand, the wrong step, an unknown hand) is a 4xx with the reason and changes
nothing. A finished hand is handed to the store through the service (``store_game``), as a
normal, strictly valid game, so ``/games/{id}/replay`` replays it. In a game of several hands
(every preset but CARDAVIA's) the answer ``next`` deals the next hand of the same game, and
each finished hand hands the whole log again: the strict import appends what follows the
events the store holds, so the store keeps one game that grows hand by hand.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html import escape
from typing import Annotated, Any
from urllib.parse import urlencode

import msgspec
from litestar import Request, Response, get, post
from litestar.enums import RequestEncodingType
from litestar.handlers import HTTPRouteHandler
from litestar.params import Body, FromPath, JSONBody, QueryParameter
from litestar.response import Redirect

from ..errors import GostopError
from ..people import MINTED_ID, mint_person_id
from ..play import HUMAN, random_seed
from ..rules import PRESETS
from ..sim.roster import LEVELS, known
from ..sim.roster import names as bot_names
from .pages import PLAY_CSS
from .play import NotYourTurn, PlayTable
from .review_jobs import ReviewBusy, ReviewJobs
from .review_page import progress_page, review_page
from .routes import html, page_get, refusal
from .table_pages import table_page

__all__ = [
    "DEFAULT_BOT",
    "PERSON_COOKIE",
    "PlayAnswer",
    "PlayHall",
    "PlayStart",
    "StoreGame",
    "browser_person",
    "play_page",
    "play_routes",
]

#: Hands the store through the service: JSON Lines in, the import report out.
StoreGame = Callable[[bytes], Awaitable[dict[str, Any]]]

log = logging.getLogger("gostop.service")

DEFAULT_RULESET = "cardavia"
DEFAULT_BOT = "strong"
JSON = "application/json"
#: Largest seed a page may ask for (repeatable hands, tests).
MAX_SEED = 2**62


#: The cookie that holds a browser's own person id on ``/play`` (see ``people``): each
#: browser is its own player on ``/players``, not one ``You`` shared by every hand.
PERSON_COOKIE = "gostop_person"
#: Kept for two years; a browser that loses it plays on as a new person.
PERSON_COOKIE_AGE = 2 * 365 * 24 * 3600


def browser_person(cookie: str | None) -> tuple[str, bool]:
    """The browser's person id from its cookie, and whether it was minted now (no cookie,
    or one that is not a minted id: a cookie is untrusted input, never a way to sit down as
    a person a recorder named)."""
    if cookie and MINTED_ID.match(cookie):
        return cookie, False
    return mint_person_id(), True


class PlayStart(msgspec.Struct, forbid_unknown_fields=True):
    """A new hand: the preset, the computer's bot, a seed to repeat a hand (else random),
    the player count (else the preset's: 2 when it is played by two)."""

    ruleset: str = DEFAULT_RULESET
    bot: str = DEFAULT_BOT
    seed: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEED)] | None = None
    players: Annotated[int, msgspec.Meta(ge=2, le=3)] | None = None


@dataclass
class RewindForm:
    """The form of a review's "replay to this decision" button: the hand and the seq."""

    hand: int
    seq: int


class PlayAnswer(msgspec.Struct, forbid_unknown_fields=True):
    """The human's answer (see :meth:`PlayTable.act`), with the version the page saw and
    the frames it has already shown (``since``: only later ones come back)."""

    kind: str
    card: str | None = None
    month: Annotated[int, msgspec.Meta(ge=1, le=12)] | None = None
    chosen: str | None = None
    version: int | None = None
    since: Annotated[int, msgspec.Meta(ge=0)] | None = None


@dataclass
class _Hand:
    table: PlayTable
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    touched: float = field(default_factory=time.monotonic)
    stored: dict[str, Any] | None = None
    #: the game's version when it was last stored (each finished hand stores it again)
    stored_at: int = -1
    #: the review pages of finished hands, by hand number
    reviews: dict[int, str] = field(default_factory=dict)


class PlayHall:
    """The hands in play, by id: at most ``limit``, the ones idle longest forgotten first
    (and any idle more than ``idle_s``)."""

    def __init__(self, limit: int = 500, idle_s: float = 6 * 3600) -> None:
        self.limit = limit
        self.idle_s = idle_s
        self.hands: OrderedDict[str, _Hand] = OrderedDict()

    def add(self, table: PlayTable) -> str:
        self._sweep()
        hand_id = secrets.token_urlsafe(18)
        self.hands[hand_id] = _Hand(table)
        while len(self.hands) > self.limit:
            self.hands.popitem(last=False)
        return hand_id

    def get(self, hand_id: str) -> _Hand:
        hand = self.hands.get(hand_id)
        if hand is None:
            raise _Refused(
                404,
                "not_found",
                "no hand in play has this id (it ended long ago, or the server restarted): "
                "start a new hand",
            )
        hand.touched = time.monotonic()
        self.hands.move_to_end(hand_id)
        return hand

    def _sweep(self) -> None:
        old = time.monotonic() - self.idle_s
        for hand_id in [k for k, h in self.hands.items() if h.touched < old]:
            del self.hands[hand_id]


class _Refused(Exception):
    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.error = error
        self.reason = reason

    def response(self) -> Response[bytes]:
        body = msgspec.json.encode({"error": self.error, "reason": self.reason})
        return Response(body, status_code=self.status, media_type=JSON)


def _refused_json(_request: Request[Any, Any, Any], exc: _Refused) -> Response[bytes]:
    return exc.response()


def _refused_page(_request: Request[Any, Any, Any], exc: _Refused) -> Response[str]:
    return html(f"<p>{escape(exc.reason)}</p>", exc.status)


#: How a route of /play answers a refusal (an unknown hand, a bad choice): the API in
#: JSON, the pages in HTML.
_API_REFUSALS: Any = {_Refused: _refused_json}
_PAGE_REFUSALS: Any = {_Refused: _refused_page}


def _api(route: Any, path: str, summary: str, **more: Any) -> Any:
    """A route of the play API (``route`` is ``get`` or ``post``): the player's, its
    refusals answered in JSON."""
    return route(
        path, summary=summary, exception_handlers=_API_REFUSALS, opt={"access": "play"}, **more
    )


def _choose(ruleset: str, bot: str) -> None:
    if ruleset not in PRESETS:
        raise _Refused(
            400, "bad_request", f"unknown ruleset {ruleset!r}: presets are {', '.join(PRESETS)}"
        )
    if not known(bot):
        raise _Refused(400, "bad_request", f"unknown bot {bot!r}: {bot_names()}")


#: The scripts of /play, in the order they load (they share the page's global scope).
PLAY_JS = ("play_state.js", "play_server.js", "play_draw.js", "play_end.js", "play.js")


def play_page(ruleset: str, bot: str) -> str:
    """The page: a shell with the presets and bots; the hand comes from ``/api/play``."""
    presets = [(name, r.description, list(r.players)) for name, r in PRESETS.items()]
    data = {
        "ruleset": ruleset,
        "bot": bot,
        "bots": list(LEVELS),
        "presets": {name: players for name, _, players in presets},
    }
    return table_page(
        "play.html",
        PLAY_JS,
        data,
        PLAY_CSS,
        presets=presets,
        levels=[(lv.name, lv.about) for lv in LEVELS.values()],
        level_names=list(LEVELS),
        ruleset=ruleset,
        bot=bot,
    )


# Long: the routes of /play are closures over its table of sessions; each route is short.
def play_routes(
    store_game: StoreGame, hall: PlayHall | None = None, reviews: ReviewJobs | None = None
) -> list[HTTPRouteHandler]:
    """The route handlers of ``/play`` and ``/api/play``; finished hands go to
    ``store_game``, their reviews are computed by ``reviews``."""
    hands = hall if hall is not None else PlayHall()
    jobs = reviews if reviews is not None else ReviewJobs()

    async def answer(hand_id: str, hand: _Hand, since: int, status: int = 200) -> Response[bytes]:
        t = hand.table
        error = None
        if t.over and hand.stored_at != t.version and t.practice is None:
            # the whole log each time: the store appends what follows the hands it holds
            try:
                report = await store_game(t.jsonl())
            except GostopError as exc:  # refused: the reason is for the player
                report = {"ok": False, "reason": str(exc)}
            except Exception as exc:  # the hand stays in play: the next look tries again
                error_id = secrets.token_hex(6)
                log.error("storing a hand of /play failed (error id %s)", error_id, exc_info=exc)
                reason = f"the server could not store the hand (error id {error_id} in its log)"
                report = {"ok": False, "reason": reason}
            if report.get("ok"):
                hand.stored = report
                hand.stored_at = t.version
            else:
                error = str(report.get("reason") or report)
        view = t.view()
        view["stored"] = hand.stored_at == t.version and t.practice is None
        if view.get("deals") is not None and view.get("result") is not None:
            view["review"] = f"/play/{hand_id}/review/{view['hand_no']}"
        if error is not None:
            view["store_error"] = error
        return _json({"id": hand_id, "view": view, "frames": t.frames_since(since)}, status)

    # the permissions the routes declare (gostop_records.service.access): the page is a
    # shell, the hands are played through the API
    @page_get("/play", "public")
    async def page(
        ruleset: Annotated[str, QueryParameter(description="a preset")] = DEFAULT_RULESET,
        bot: Annotated[
            str, QueryParameter(description="a level (beginner to master) or a bot")
        ] = DEFAULT_BOT,
    ) -> Response[str]:
        try:
            _choose(ruleset, bot)
        except _Refused as r:
            return refusal(400, "cannot play", r.reason, "<a href='/play'>play CARDAVIA</a>")
        return html(play_page(ruleset, bot))

    @_api(post, "/api/play", "Start a hand against the computer", status_code=201)
    async def start(data: JSONBody[PlayStart], request: Request[Any, Any, Any]) -> Response[bytes]:
        person, minted = browser_person(request.cookies.get(PERSON_COOKIE))
        _choose(data.ruleset, data.bot)
        seed = data.seed if data.seed is not None else random_seed()
        try:
            table = await asyncio.to_thread(
                PlayTable, data.ruleset, data.bot, seed, data.players, person
            )
        except GostopError as exc:
            raise _Refused(400, "bad_request", str(exc)) from None
        hand_id = hands.add(table)
        out = await answer(hand_id, hands.get(hand_id), 0, 201)
        if minted:
            out.set_cookie(
                PERSON_COOKIE,
                person,
                max_age=PERSON_COOKIE_AGE,
                httponly=True,
                samesite="strict",
                path="/",
            )
        return out

    @_api(get, "/api/play/{hand_id:str}", "A hand in play, as its player sees it")
    async def look(
        hand_id: FromPath[str],
        since: Annotated[int, QueryParameter(ge=0, description="frames already shown")] = 0,
    ) -> Response[bytes]:
        hand = hands.get(hand_id)
        async with hand.lock:
            return await answer(hand_id, hand, since)

    @_api(post, "/api/play/{hand_id:str}", "The player's answer", status_code=200)
    async def act(hand_id: FromPath[str], data: JSONBody[PlayAnswer]) -> Response[bytes]:
        hand = hands.get(hand_id)
        async with hand.lock:
            t = hand.table
            since = data.since if data.since is not None else len(t.frames)
            try:
                await asyncio.to_thread(
                    t.act,
                    data.kind,
                    data.card,
                    data.chosen,
                    month=data.month,
                    version=data.version,
                )
            except NotYourTurn as exc:
                return _Refused(409, "not_now", str(exc)).response()
            except GostopError as exc:
                return _Refused(422, "refused", str(exc)).response()
            return await answer(hand_id, hand, since)

    @_api(get, "/api/play/{hand_id:str}/hint", "The review of the decision in front of you")
    async def hint(hand_id: FromPath[str]) -> Response[bytes]:
        """Every option of the player's decision with its expected chips, by a short
        rollout search from what the player's seat knows (about a second)."""
        hand = hands.get(hand_id)
        async with hand.lock:
            t = hand.table
            try:
                found = await asyncio.to_thread(t.hint)
            except NotYourTurn as exc:
                return _Refused(409, "not_now", str(exc)).response()
            found["version"] = t.version
            return _json({"id": hand_id, "hint": found}, 200)

    @page_get("/play/{hand_id:str}/review/{hand_no:int}", "play", exception_handlers=_PAGE_REFUSALS)
    async def review(hand_id: FromPath[str], hand_no: FromPath[int]) -> Response[str]:
        """The review of a finished hand of the game in play, in the replayer, each of the
        player's decisions with a button to play it again. Computed in the background (the
        page says so meanwhile, with the progress), then kept."""
        hand = hands.get(hand_id)
        key = f"play/{hand_id}/{hand_no}"
        async with hand.lock:
            page = hand.reviews.get(hand_no)
            if page is not None:
                return html(page)
            t = hand.table
            try:
                envs, options = t.review_input(hand_no)
            except NotYourTurn as exc:
                return html(f"<p>{escape(str(exc))}</p>", 409)
            job = jobs.get(key)
            if job is not None and job.result is not None:
                rewind = (f"/play/{hand_id}/rewind", HUMAN)
                page = await asyncio.to_thread(review_page, job.result, envs, rewind=rewind)
                hand.reviews[hand_no] = page
                jobs.forget(key)
                return html(page)
            if job is not None and job.state == "failed":
                jobs.forget(key)
                return html(progress_page(t.game_id, "failed", 0, 0, job.error), 422)
            try:
                job = jobs.submit(key, t.game_id, envs, options)
            except ReviewBusy as exc:
                return html(f"<p>{escape(str(exc))}</p>", 503)
            return html(progress_page(t.game_id, job.state, job.done, job.total, None), 202)

    @post(
        "/play/{hand_id:str}/rewind",
        include_in_schema=False,
        status_code=303,
        exception_handlers=_PAGE_REFUSALS,
        opt={"access": "play"},
    )
    async def rewind(
        hand_id: FromPath[str],
        data: Annotated[RewindForm, Body(media_type=RequestEncodingType.URL_ENCODED)],
    ) -> Response[Any]:
        """Play a reviewed decision again: a new table at that decision (same deal, every
        input before it given again), and the page of that table."""
        hand = hands.get(hand_id)
        async with hand.lock:
            t = hand.table
            try:
                again = await asyncio.to_thread(t.rewound, data.hand, data.seq)
            except NotYourTurn as exc:
                return html(f"<p>{escape(str(exc))}</p>", 409)
            except GostopError as exc:
                return html(f"<p>{escape(str(exc))}</p>", 422)
        new_id = hands.add(again)
        query = urlencode({"ruleset": t.ruleset, "bot": t.bot})
        return Redirect(f"/play?{query}#hand={new_id}", status_code=303)

    return [page, start, look, act, hint, review, rewind]


def _json(body: dict[str, Any], status: int) -> Response[bytes]:
    return Response(msgspec.json.encode(body), status_code=status, media_type=JSON)
