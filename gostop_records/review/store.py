"""Reviews kept in a store: the ``reviews`` and ``review_luck`` tables.

A review costs seconds of rollouts a hand, so ``gostop review --db FILE --store`` keeps its
results beside the game for SQL and for the ``/games/{id}/review`` page. They are no
projection of the events (a review depends on a budget, a seed and a policy, and a rebuild
could not derive it), so they live in tables of their own, created when first written and
left out of the schema version, ``db rebuild``, ``db verify`` and the Parquet export.

``reviews`` has a row per decision (the flat columns for SQL, and the options as JSON);
``review_luck`` a row per hand and seat. Storing a review replaces the rows of the hands
(and seat, when one was reviewed) it covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec

from .model import DecisionReview, HandLuck, HandReview, Interval, OptionValue

__all__ = [
    "LUCK_COLUMNS",
    "REVIEW_COLUMNS",
    "PlayerLuck",
    "create_tables",
    "load_review",
    "player_luck",
    "store_review",
]

#: The columns of ``reviews``, one row per decision.
REVIEW_COLUMNS = (
    ("game_id", "VARCHAR NOT NULL"),
    ("hand", "INTEGER NOT NULL"),
    ("seq", "INTEGER NOT NULL"),
    ("seat", "INTEGER NOT NULL"),
    ("kind", "VARCHAR NOT NULL"),
    ("taken", "VARCHAR NOT NULL"),
    ("best", "VARCHAR NOT NULL"),
    ("loss", "DOUBLE NOT NULL"),  # chips lost against the best option (mean)
    ("loss_low", "DOUBLE NOT NULL"),  # its 95% interval
    ("loss_high", "DOUBLE NOT NULL"),
    ("grade", "VARCHAR NOT NULL"),
    ("samples", "INTEGER NOT NULL"),  # worlds every option was played in (0: exact)
    ("unseen", "INTEGER NOT NULL"),
    ("options", "JSON NOT NULL"),  # [{label, chips: {mean, low, high}, taken, best}]
    ("policy", "VARCHAR NOT NULL"),
    ("budget", "INTEGER NOT NULL"),
    ("seed", "BIGINT NOT NULL"),
    ("reviewed_at", "VARCHAR NOT NULL"),
    ("through_seq", "INTEGER"),  # the game's last seq the review saw (NULL: before it was kept)
)
#: The columns of ``review_luck``, one row per hand and seat.
LUCK_COLUMNS = (
    ("game_id", "VARCHAR NOT NULL"),
    ("hand", "INTEGER NOT NULL"),
    ("seat", "INTEGER NOT NULL"),
    ("deal", "DOUBLE NOT NULL"),  # chips the deal was worth (mean), and its interval
    ("deal_low", "DOUBLE NOT NULL"),
    ("deal_high", "DOUBLE NOT NULL"),
    ("won", "INTEGER NOT NULL"),
    ("lost", "DOUBLE NOT NULL"),
    ("luck", "DOUBLE NOT NULL"),
    ("policy", "VARCHAR NOT NULL"),
    ("budget", "INTEGER NOT NULL"),
    ("seed", "BIGINT NOT NULL"),
    ("reviewed_at", "VARCHAR NOT NULL"),
    ("through_seq", "INTEGER"),
)


def _ddl(name: str, cols: tuple[tuple[str, str], ...], key: str) -> str:
    body = ", ".join(f"{c} {t}" for c, t in cols)
    return f"CREATE TABLE IF NOT EXISTS {name} ({body}, PRIMARY KEY ({key}))"


def create_tables(conn: Any) -> None:
    """Create both tables if missing (nothing else of the store changes)."""
    conn.execute(_ddl("reviews", REVIEW_COLUMNS, "game_id, hand, seq, kind, seat"))
    conn.execute(_ddl("review_luck", LUCK_COLUMNS, "game_id, hand, seat"))
    for table in ("reviews", "review_luck"):  # tables made before the column was kept
        conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS through_seq INTEGER")


def _tables(conn: Any) -> set[str]:
    rows = conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()
    return {r[0] for r in rows}


def store_review(conn: Any, review: Any, at: datetime | None = None) -> int:
    """Write a :class:`~.model.GameReview` (replacing the rows it covers) in one
    transaction; returns the decisions written."""
    stamp = (at or datetime.now(UTC)).isoformat(timespec="seconds")
    common = (review.policy, review.budget, review.seed, stamp, review.through_seq)
    n = 0
    conn.execute("BEGIN TRANSACTION")
    try:
        create_tables(conn)
        for h in review.hands:
            for table in ("reviews", "review_luck"):
                where = "game_id = ? AND hand = ?" + (
                    " AND seat = ?" if review.seat is not None else ""
                )
                args = [review.game_id, h.hand] + ([review.seat] if review.seat is not None else [])
                conn.execute(f"DELETE FROM {table} WHERE {where}", args)
            for d in h.decisions:
                conn.execute(
                    f"INSERT INTO reviews VALUES ({', '.join('?' * len(REVIEW_COLUMNS))})",
                    [
                        review.game_id, d.hand, d.seq, d.seat, d.kind, d.taken, d.best,
                        d.loss.mean, d.loss.low, d.loss.high, d.grade, d.samples, d.unseen,
                        msgspec.json.encode(d.options).decode(), *common,
                    ],
                )  # fmt: skip
                n += 1
            for x in h.luck:
                conn.execute(
                    f"INSERT INTO review_luck VALUES ({', '.join('?' * len(LUCK_COLUMNS))})",
                    [
                        review.game_id, h.hand, x.seat, x.deal.mean, x.deal.low, x.deal.high,
                        x.won, x.lost, x.luck, *common,
                    ],
                )  # fmt: skip
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return n


def load_review(conn: Any, game_id: str) -> tuple[list[HandReview], dict[str, Any]] | None:
    """The stored review of a game: its hands, and the settings of its latest rows
    (``policy``, ``budget``, ``seed``, ``reviewed_at``, ``through_seq``); None when nothing
    is stored."""
    if "reviews" not in _tables(conn):
        return None
    rows = conn.execute(
        "SELECT hand, seq, seat, kind, taken, best, loss, loss_low, loss_high, grade, samples, "
        "unseen, options, policy, budget, seed, reviewed_at, through_seq FROM reviews "
        "WHERE game_id = ? "
        "ORDER BY hand, seq, seat, kind = 'capture', kind",
        [game_id],
    ).fetchall()
    luck = conn.execute(
        "SELECT hand, seat, deal, deal_low, deal_high, won, lost, luck, policy, budget, seed, "
        "reviewed_at, through_seq FROM review_luck WHERE game_id = ? ORDER BY hand, seat",
        [game_id],
    ).fetchall()
    if not rows and not luck:
        return None
    hands: dict[int, HandReview] = {}
    latest: dict[str, Any] = {}
    for r in rows:
        options = msgspec.json.decode(r[12], type=list[OptionValue])
        d = DecisionReview(
            seq=r[1], hand=r[0], seat=r[2], kind=r[3], taken=r[4], best=r[5],
            options=options, loss=Interval(r[6], r[7], r[8]), grade=r[9], samples=r[10],
            unseen=r[11],
        )  # fmt: skip
        hands.setdefault(r[0], HandReview(r[0], [], [])).decisions.append(d)
        latest = _latest(latest, r[13:18])
    for r in luck:
        latest = _latest(latest, r[8:13])
        x = HandLuck(r[1], Interval(r[2], r[3], r[4]), r[5], r[6], r[7])
        hands.setdefault(r[0], HandReview(r[0], [], [])).luck.append(x)
    return [hands[h] for h in sorted(hands)], latest


def _latest(latest: dict[str, Any], row: Sequence[Any]) -> dict[str, Any]:
    """The settings of the latest of the rows seen (a hand with no decision has luck rows
    only)."""
    policy, budget, seed, at, through = row
    if latest and at < latest["reviewed_at"]:
        return latest
    return {"policy": policy, "budget": budget, "seed": seed, "reviewed_at": at,
            "through_seq": through or 0}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlayerLuck:
    """Luck against skill over a player's reviewed hands (``review_luck`` rows of the seats
    the player sat at): ``won`` the chips actually won, ``deal`` what the deals were worth,
    ``lost`` what the player's decisions lost; ``reviewed`` of ``hands`` ended hands."""

    reviewed: int
    hands: int
    won: int
    deal: float
    lost: float

    @property
    def luck(self) -> float:
        """The rest: ``won - deal + lost`` (the cards turned after the deal, the others' play)."""
        return self.won - self.deal + self.lost


def player_luck(conn: Any, player_id: str) -> PlayerLuck:
    """The luck line of a player over their ended hands (``v_player_hands``) that a stored
    review covers; ``reviewed`` is 0 when none is (or the store keeps no review at all)."""
    hands = conn.execute(
        "SELECT count(*) FROM v_player_hands WHERE player_id = ?", [player_id]
    ).fetchone()[0]
    if "review_luck" not in _tables(conn):
        return PlayerLuck(0, int(hands), 0, 0.0, 0.0)
    row = conn.execute(
        "SELECT count(*), coalesce(sum(r.won), 0), coalesce(sum(r.deal), 0), "
        "coalesce(sum(r.lost), 0) FROM review_luck r JOIN v_player_hands p "
        "ON p.game_id = r.game_id AND p.hand = r.hand AND p.seat = r.seat "
        "WHERE p.player_id = ?",
        [player_id],
    ).fetchone()
    return PlayerLuck(int(row[0]), int(hands), int(row[1]), float(row[2]), float(row[3]))
