"""The decisions of a store as one Parquet file, for people who train their own bots.

``gostop db export --decisions --out FILE.parquet`` writes a row per legal option of every
decision (:func:`~.decisions.find_decisions`, every kind, every seat, every game of the
store): which decision it is (game, hand, seq, seat, kind), what the seat knew when it
decided (its information set, :func:`~.decisions.information_set`, as columns: its hand, the
layout, every seat's captured cards and counts, scores and Gos, how many cards each hand and
the stock hold), the option, and whether it was the one chosen: exactly one row of each
decision is. Where a review of the game is stored (``gostop review --store``, the table
``reviews``), its expected chips for the option and the option's loss against the best are
joined in; elsewhere these columns are null.

A sale (4-5 seats) has no view: the seat sitting out sees no table, and the price is a
fact; its view columns are null.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .. import cards as C
from .. import events as E
from ..atomic import written_whole
from ..plain import Record
from .decisions import Decision, find_decisions, label
from .model import OptionValue

__all__ = ["DECISION_COLUMNS", "DecisionExport", "decision_rows", "export_decisions"]


def _codes(mask: int) -> list[str]:
    return [C.CODES[i] for i in C.indices(mask)]


#: The columns of the export, in order, with their Arrow types (built by :func:`_schema`).
DECISION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("game_id", "string"),
    ("hand", "int32"),
    ("seq", "int32"),
    ("seat", "int32"),
    ("kind", "string"),  # go_stop, cup, four, capture, play, bomb, shake, flip_only, sell
    ("players", "int32"),
    ("stake", "int32"),
    ("options", "int32"),  # legal options of the decision (rows of it)
    # the seat's view (null for a sale)
    ("own_hand", "list<string>"),  # the seat's cards as the record knows them
    ("own_hand_unknown", "int32"),  # cards of its hand the record did not see
    ("layout", "list<string>"),
    ("own_pile", "list<string>"),  # the seat's captured cards
    ("piles", "list<list<string>>"),  # every seat's captured cards, by seat
    ("captured", "list<int32>"),  # how many cards each seat has captured, by seat
    ("hand_counts", "list<int32>"),  # cards in each seat's hand, by seat
    ("scores", "list<int32>"),  # each seat's score now, by seat
    ("go_counts", "list<int32>"),  # Gos called, by seat
    ("own_score", "int32"),
    ("own_go_count", "int32"),
    ("stock", "int32"),  # cards left in the stock
    ("unseen", "int32"),  # cards whose place the seat did not know
    # the option
    ("option_index", "int32"),
    ("option", "string"),  # in the script notation: "go", "play 09R choose 09J1"
    ("option_type", "string"),  # the input's event type (go_called, card_played, ...)
    ("chosen", "bool"),
    # the stored review, where there is one (null elsewhere)
    ("review_chips", "double"),  # expected chips of the option, from the decision on
    ("review_chips_low", "double"),  # its 95% interval
    ("review_chips_high", "double"),
    ("review_loss", "double"),  # best option's expected chips minus this option's
    ("review_best", "bool"),
    ("review_grade", "string"),  # the grade of the decision (the option chosen)
    ("review_policy", "string"),
    ("review_budget", "int32"),
)


def _type(name: str) -> Any:
    import pyarrow as pa

    if name.startswith("list<"):
        return pa.list_(_type(name[5:-1]))
    return {
        "string": pa.string(),
        "int32": pa.int32(),
        "double": pa.float64(),
        "bool": pa.bool_(),
    }[name]


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([(c, _type(t)) for c, t in DECISION_COLUMNS])


def _option_type(option: Any) -> str:
    tag = getattr(type(option), "__struct_config__", None)
    if tag is not None and isinstance(tag.tag, str):
        return tag.tag
    return "keep_brights" if type(option).__name__ == "Keep" else type(option).__name__


def _view_columns(d: Decision) -> dict[str, Any]:
    if d.view is None:
        return {}
    s = d.view.state
    seat = d.seat
    n = s.players
    return {
        "own_hand": _codes(s.hands[seat]),
        "own_hand_unknown": s.hand_unknown[seat],
        "layout": _codes(s.layout),
        "own_pile": _codes(s.piles[seat]),
        "piles": [_codes(s.piles[q]) for q in range(n)],
        "captured": [s.piles[q].bit_count() for q in range(n)],
        "hand_counts": [s.hand_count(q) for q in range(n)],
        "scores": [s.score_of(q) for q in range(n)],
        "go_counts": [s.go_count[q] for q in range(n)],
        "own_score": s.score_of(seat),
        "own_go_count": s.go_count[seat],
        "stock": s.stock_remaining(),
        "unseen": d.view.unseen.bit_count(),
    }


#: A stored review of a decision: its options by label, its grade, policy and budget.
Reviewed = dict[tuple[int, int, int, str], tuple[dict[str, OptionValue], str, str, int]]


def stored_reviews(conn: Any, game_id: str) -> Reviewed:
    """The stored review rows of a game (table ``reviews``), by (hand, seq, seat, kind)."""
    tables = {
        r[0]
        for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }
    if "reviews" not in tables:
        return {}
    rows = conn.execute(
        "SELECT hand, seq, seat, kind, options, grade, policy, budget FROM reviews "
        "WHERE game_id = ?",
        [game_id],
    ).fetchall()
    out: Reviewed = {}
    for hand, seq, seat, kind, options, grade, policy, budget in rows:
        opts = msgspec.json.decode(options, type=list[OptionValue])
        out[(hand, seq, seat, kind)] = ({o.label: o for o in opts}, grade, policy, budget)
    return out


def decision_rows(
    game_id: str, envelopes: Sequence[E.Envelope], reviewed: Reviewed | None = None
) -> Iterable[dict[str, Any]]:
    """The rows of one game: a row per legal option of every decision (see the module
    docstring); ``reviewed`` is :func:`stored_reviews` of the game, when there is one."""
    if not envelopes or type(envelopes[0].event) is not E.GameStarted:
        return
    players = len(envelopes[0].event.players)
    for d in find_decisions(envelopes):
        base: dict[str, Any] = {
            "game_id": game_id,
            "hand": d.hand,
            "seq": d.seq,
            "seat": d.seat,
            "kind": d.kind,
            "players": players,
            "stake": d.stake,
            "options": len(d.options),
            **_view_columns(d),
        }
        review = (reviewed or {}).get((d.hand, d.seq, d.seat, d.kind))
        best = None
        if review is not None:
            best = max((o.chips.mean for o in review[0].values()), default=None)
        for k, option in enumerate(d.options):
            row = dict(base)
            text = label(option)
            row["option_index"] = k
            row["option"] = text
            row["option_type"] = _option_type(option)
            row["chosen"] = k == d.taken
            if review is not None:
                o = review[0].get(text)
                if o is not None and best is not None:
                    row["review_chips"] = o.chips.mean
                    row["review_chips_low"] = o.chips.low
                    row["review_chips_high"] = o.chips.high
                    row["review_loss"] = best - o.chips.mean
                    row["review_best"] = o.best
                row["review_grade"] = review[1]
                row["review_policy"] = review[2]
                row["review_budget"] = review[3]
            yield row


@dataclass(slots=True)
class DecisionExport(Record):
    path: str
    games: int = 0
    decisions: int = 0
    rows: int = 0
    reviewed: int = 0  # decisions with a stored review joined


#: Rows buffered before a row group is written.
_BATCH = 50_000


def export_decisions(store: Any, out: Path, *, progress: Any = None) -> DecisionExport:
    """Every decision of every game of ``store`` to the Parquet file ``out`` (zstd), one
    row per legal option; ``progress(done, total)`` after each game."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _schema()
    names = [c for c, _ in DECISION_COLUMNS]
    report = DecisionExport(str(out))
    ids = store.game_ids()
    buf: list[dict[str, Any]] = []

    def flush(writer: Any) -> None:
        if buf:
            cols = {c: [r.get(c) for r in buf] for c in names}
            writer.write_table(pa.table(cols, schema=schema))
            buf.clear()

    with written_whole(out) as tmp, pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
        for k, gid in enumerate(ids, 1):
            reviewed = stored_reviews(store.conn, gid)
            for row in decision_rows(gid, store.events(gid), reviewed):
                buf.append(row)
                report.rows += 1
                if row["chosen"]:
                    report.decisions += 1
                    report.reviewed += row.get("review_grade") is not None
                if len(buf) >= _BATCH:
                    flush(writer)
            report.games += 1
            if progress is not None:
                progress(k, len(ids))
        flush(writer)
    return report
