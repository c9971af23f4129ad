"""The per-hand summary tables and columns give the answers the event-level rows give.

``capture_tallies``, ``transfer_tallies`` and ``hand_seats`` are sums of other projection
rows, written by the projection so that the sample queries and the player views read a few
rows per hand; ``decisions.won_by_stop`` says on a Go's row what a join with ``hands`` would.
Here every query that now reads them is set beside the text it replaced, which reads the
event-level rows (``captures``, ``transfers``, ``turns``, ``decisions``, ``payouts``,
``sitting_out``, ``hands``), and the two must agree row for row on simulated corpora of
every preset, 4 and 5 seats and a lenient game with a broken rule included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from store_support import ROOT, break_a_rule, every_preset, games, write_games
from test_queries import _overpaid

from gostop_records.rules import PRESETS, apply_overrides
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store, schema
from gostop_records.store.schema import FLAG_IDS, SPECIAL_KINDS

#: A table of five seats where the seats sitting out sell their brights (gwang-pali).
FIVE = apply_overrides(PRESETS["gostop3"], {"name": "five-seats", "gwang_price": 5}, "test")

QUERIES = ROOT / "samples" / "queries"

#: The sample queries as they read the event-level rows before the summary tables.
EVENT_ROW_QUERIES: dict[str, str] = {
    "capture_kinds": """
SELECT capture_kind,
       count(*) AS cards,
       count(*) FILTER (WHERE position = 1) AS captures,
       round(100.0 * count(*) / sum(count(*)) OVER (), 2) AS pct_of_cards
FROM captures
GROUP BY capture_kind
ORDER BY cards DESC, capture_kind""",
    "junk_by_reason": """
SELECT reason,
       count(*) AS cards,
       count(*) FILTER (WHERE card_kind = 'double_junk') AS double_junk,
       count(*) FILTER (WHERE card_kind = 'bonus') AS bonus_cards,
       count(DISTINCT (game_id, hand)) AS hands
FROM transfers
GROUP BY reason
ORDER BY cards DESC, reason""",
    "second_go_payoff": """
SELECT d.score AS score_at_call,
       count(*) AS second_gos,
       count(*) FILTER (WHERE h.outcome = 'stop' AND h.winner = d.seat) AS paid_off,
       round(count(*) FILTER (WHERE h.outcome = 'stop' AND h.winner = d.seat) / count(*), 3)
           AS payoff_rate
FROM decisions d
JOIN hands h USING (game_id, hand)
WHERE d.kind = 'go' AND d.go_count = 2
GROUP BY d.score
ORDER BY d.score""",
    "specials_before_pi_bak": """
WITH won AS (
    SELECT p.game_id, p.hand, p.payee AS winner, bool_or(p.pi_bak) AS pi_bak
    FROM payouts p
    SEMI JOIN hands h
        ON h.game_id = p.game_id AND h.hand = p.hand AND h.winner = p.payee
        AND h.outcome = 'stop' AND h.checked
    GROUP BY p.game_id, p.hand, p.payee
),
made AS (
    SELECT any_value(w.pi_bak) AS pi_bak,
           count(*) FILTER (WHERE t.ppuk) AS ppuk, count(*) FILTER (WHERE t.jjok) AS jjok,
           count(*) FILTER (WHERE t.ttadak) AS ttadak, count(*) FILTER (WHERE t.sseul) AS sseul,
           count(*) FILTER (WHERE t.bomb) AS bomb, count(*) FILTER (WHERE t.shaken) AS shake
    FROM turns t
    JOIN won w ON t.game_id = w.game_id AND t.hand = w.hand AND t.seat = w.winner
    WHERE t.ppuk OR t.jjok OR t.ttadak OR t.sseul OR t.bomb OR t.shaken
    GROUP BY t.game_id, t.hand
)
SELECT special,
       count(*) FILTER (WHERE n > 0) AS hands_with_special,
       count(*) FILTER (WHERE n > 0 AND pi_bak) AS with_pi_bak,
       round(count(*) FILTER (WHERE n > 0 AND pi_bak)
             / nullif(count(*) FILTER (WHERE n > 0), 0), 3) AS pi_bak_rate
FROM (UNPIVOT made ON ppuk, jjok, ttadak, sseul, bomb, shake INTO NAME special VALUE n)
GROUP BY special
ORDER BY special""",
}

_FLAG = {"shake": "shaken"}


def _event_row_player_hands() -> str:
    """``v_player_hands`` grouped from the event-level rows (the view before ``hand_seats``)."""
    flags = [_FLAG.get(k, k) for k in SPECIAL_KINDS]
    zero_baks = [f"false AS {b}_paid, false AS {b}_received" for b in FLAG_IDS]
    side_baks = [
        f"unnest([{b}, false]) AS {b}_paid, unnest([false, {b}]) AS {b}_received" for b in FLAG_IDS
    ]
    facts = (
        "SELECT game_id, hand, unnest([payer, payee]) AS seat, unnest([-chips, chips]) AS chips,"
        " unnest([-coalesce(recorded_chips, 0), coalesce(recorded_chips, 0)]) AS recorded, "
        + ", ".join([*side_baks, *(f"0 AS {k}" for k in SPECIAL_KINDS), "0 AS gos"])
        + " FROM payouts UNION ALL SELECT game_id, hand, seat, 0, 0, "
        + ", ".join([*zero_baks, *(f"{f}::INTEGER" for f in flags), "0"])
        + " FROM turns WHERE "
        + " OR ".join(flags)
        + " UNION ALL SELECT game_id, hand, seat, 0, 0, "
        + ", ".join([*zero_baks, *("0" for _ in flags), "1"])
        + " FROM decisions WHERE kind = 'go'"
    )
    per_seat = ", ".join(
        [
            "sum(chips) AS chips",
            "sum(recorded) AS recorded",
            *(f"sum({k}) AS {k}" for k in SPECIAL_KINDS),
            "sum(gos) AS gos",
            *(
                f"count(*) FILTER (WHERE {b}_{s}) AS {b}_{s}"
                for b in FLAG_IDS
                for s in ("paid", "received")
            ),
        ]
    )
    totals = ", ".join(
        f"count(*) FILTER (WHERE {f}) AS {k}" for k, f in zip(SPECIAL_KINDS, flags, strict=True)
    )
    specials = ", ".join(
        f"coalesce(o.{k}, 0) AS {k}_made, coalesce(t.{k}, 0) - coalesce(o.{k}, 0) AS {k}_suffered"
        for k in SPECIAL_KINDS
    )
    baks = ", ".join(f"coalesce(o.{b}_{s}, 0)" for b in FLAG_IDS for s in ("paid", "received"))
    return f"""
        WITH facts AS ({facts}),
        own AS (SELECT game_id, hand, seat, {per_seat} FROM facts GROUP BY game_id, hand, seat),
        totals AS (SELECT game_id, hand, {totals} FROM turns WHERE {" OR ".join(flags)}
                   GROUP BY game_id, hand),
        seats AS (SELECT h.game_id, h.hand, h.started_at, h.date, h.ruleset, h.outcome,
                         h.winner, unnest(range(h.players::BIGINT)) AS seat
                  FROM hands h WHERE h.ended)
        SELECT s.game_id, s.hand, s.started_at, s.date, s.ruleset, s.seat::TINYINT AS seat,
               g.player_ids[s.seat + 1], g.player_names[s.seat + 1], s.outcome,
               coalesce(s.winner = s.seat, false), coalesce(o.gos, 0), coalesce(o.chips, 0),
               coalesce(o.recorded, 0), {specials}, {baks}, x.seat IS NOT NULL
        FROM seats s JOIN games g USING (game_id)
        LEFT JOIN own o ON o.game_id = s.game_id AND o.hand = s.hand AND o.seat = s.seat
        LEFT JOIN totals t ON t.game_id = s.game_id AND t.hand = s.hand
        LEFT JOIN sitting_out x ON x.game_id = s.game_id AND x.hand = s.hand AND x.seat = s.seat
        ORDER BY ALL"""


EVENT_ROW_GOS = """
    SELECT d.game_id, d.hand, d.seq, d.seat, g.player_ids[d.seat + 1],
           g.player_names[d.seat + 1], h.ruleset, h.date, d.go_count, d.score, h.outcome,
           coalesce(h.outcome = 'stop' AND h.winner = d.seat, false)
    FROM decisions d JOIN hands h USING (game_id, hand) JOIN games g USING (game_id)
    WHERE d.kind = 'go' AND h.ended ORDER BY ALL"""

#: ``v_player_stats``' Go counts as they were, counted over ``v_player_gos``.
EVENT_ROW_GO_COUNTS = """
    SELECT player_id, count(*), count(*) FILTER (WHERE paid_off)
    FROM v_player_gos GROUP BY player_id ORDER BY player_id"""


_SUMMED = [
    *(f"{k}_{side}" for k in SPECIAL_KINDS for side in ("made", "suffered")),
    *(f"{b}_{side}" for b in FLAG_IDS for side in ("paid", "received")),
]

#: ``v_player_stats`` as schema 6 grouped it: every ``v_player_hands`` row by player.
HAND_ROW_PLAYER_STATS = f"""
    SELECT player_id, arg_max(player_name, started_at) AS player_name,
           count(DISTINCT game_id) AS games, count(*) FILTER (WHERE NOT sat_out) AS hands,
           count(*) FILTER (WHERE won) AS wins, sum(chips) AS chips,
           round(sum(chips) / nullif(count(*) FILTER (WHERE NOT sat_out), 0), 2)
           AS avg_chips, sum(recorded_chips) AS recorded_chips, sum(gos) AS gos,
           coalesce(sum(gos) FILTER (WHERE won AND outcome = 'stop'), 0) AS gos_paid_off,
           {", ".join(f"sum({c}) AS {c}" for c in _SUMMED)}
    FROM v_player_hands GROUP BY player_id ORDER BY player_id"""

#: ``player_games`` as SQL over ``hand_seats``.
HAND_ROW_PLAYER_GAMES = f"""
    SELECT game_id, seat, any_value(player_id), any_value(player_name), max(started_at),
           count(*) FILTER (WHERE NOT sat_out), count(*) FILTER (WHERE sat_out),
           count(*) FILTER (WHERE won), sum(chips), sum(recorded_chips), sum(gos),
           coalesce(sum(gos) FILTER (WHERE won AND outcome = 'stop'), 0),
           {", ".join(f"sum({c})" for c in _SUMMED)}
    FROM hand_seats WHERE ended GROUP BY game_id, seat ORDER BY ALL"""


#: ``v_payout_disputes`` as it read the names and the ruleset from ``games``.
GAMES_JOIN_DISPUTES = (
    """
    SELECT p.game_id, p.hand, g.ruleset, p.payer, g.player_names[p.payer + 1] AS payer_name,
           p.payee, g.player_names[p.payee + 1] AS payee_name, p.reason,
           p.chips AS computed_chips, coalesce(p.recorded_chips, 0) AS recorded_chips,
           coalesce(p.recorded_chips, 0) - p.chips AS difference, p.multiplier, """
    + "".join(f"p.{rid}, " for rid in schema.FLAG_IDS)
    + """p.shakes, p.bombs, p.carry, p.go_count, p.go_points, p.score
    FROM payouts p JOIN games g USING (game_id)
    WHERE p.hand_recorded AND coalesce(p.recorded_chips, 0) <> p.chips ORDER BY ALL"""
)


def _store(tmp: Path, logs: list[Any], *, strict: bool = True) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    db = tmp / "store.duckdb"
    with Store(db) as store:
        report = store.import_paths(write_games(tmp / "logs", logs, per_file=4), strict=strict)
        assert report.ok
    return db


def _tables(seed: int) -> list[Any]:
    """Games of 4 and 5 seats."""
    return [*simulate(FIVE, 4, 1, 3, seed), *simulate(FIVE, 5, 1, 3, seed + 1)]


def _corpus(seed: int) -> list[Any]:
    broken, _ = break_a_rule(games("gostop3", 3, count=1, hands=2, seed=seed + 7)[0])
    disputed = _overpaid(games("matgo", 2, count=1, hands=2, seed=seed + 9)[0])
    return [*every_preset(count=2, hands=3, seed=seed), *_tables(seed), broken, disputed]


def _assert_same_answers(db: Path) -> None:
    with Store(db, read_only=True) as store:
        for name, old in EVENT_ROW_QUERIES.items():
            new = (QUERIES / f"{name}.sql").read_text(encoding="utf-8")
            assert store.query(new).rows == store.query(old).rows, name
        # the person a seat's rows count for (``person_id``, ``names``, ``ids``) came later
        new_hands = store.query(
            "SELECT * EXCLUDE (person_id) FROM v_player_hands ORDER BY ALL"
        ).rows
        assert new_hands == store.query(_event_row_player_hands()).rows
        new_gos = store.query("SELECT * EXCLUDE (person_id) FROM v_player_gos ORDER BY ALL").rows
        assert new_gos == store.query(EVENT_ROW_GOS).rows
        disputes = store.query("SELECT * FROM v_payout_disputes ORDER BY ALL").rows
        assert disputes == store.query(GAMES_JOIN_DISPUTES).rows
        assert (
            store.query(
                "SELECT p.ruleset, p.payer_name, p.payee_name FROM payouts p ORDER BY ALL"
            ).rows
            == store.query(
                "SELECT g.ruleset, g.player_names[p.payer + 1], g.player_names[p.payee + 1] "
                "FROM payouts p JOIN games g USING (game_id) ORDER BY ALL"
            ).rows
        )
        assert (
            store.query("SELECT * FROM player_games ORDER BY ALL").rows
            == store.query(HAND_ROW_PLAYER_GAMES).rows
        )
        assert (
            store.query("SELECT * EXCLUDE (names, ids) FROM v_player_stats ORDER BY player_id").rows
            == store.query(HAND_ROW_PLAYER_STATS).rows
        )
        stats = store.query(
            "SELECT player_id, gos, gos_paid_off FROM v_player_stats ORDER BY player_id"
        ).rows
        called = {r[0]: r[1:] for r in store.query(EVENT_ROW_GO_COUNTS).rows}
        assert stats == [(p, *called.get(p, (0, 0))) for p, *_ in stats]


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _store(tmp_path_factory.mktemp("layout"), _corpus(31), strict=False)


def test_summary_queries_answer_as_the_event_rows_do(corpus_db: Path) -> None:
    _assert_same_answers(corpus_db)
    with Store(corpus_db, read_only=True) as store:
        # the corpus exercises what the queries count: every answer has rows, some
        # winners made a special in a pi-bak hand, seats sat out, a hand went unchecked, a
        # recorded payment differs from the computed one
        for name in EVENT_ROW_QUERIES:
            assert store.query((QUERIES / f"{name}.sql").read_text()).rows, name
        facts = store.query(
            "SELECT count(*) FILTER (WHERE sat_out), count(*) FILTER (WHERE NOT checked), "
            "sum(pi_bak_received), sum(gos), (SELECT count(*) FROM v_payout_disputes) "
            "FROM hand_seats"
        ).rows[0]
        assert all(facts), facts


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000))
def test_summary_tables_agree_on_any_corpus(
    tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    logs = [*every_preset(count=1, hands=2, seed=seed), *_tables(seed)]
    _assert_same_answers(_store(tmp_path_factory.mktemp("any"), logs))


def test_live_appends_keep_the_summaries_as_an_import_makes_them(tmp_path: Path) -> None:
    """Appending a game event by event (each hand re-derived as it goes) leaves the same
    summary rows as importing it whole."""
    logs = [*_tables(12), *games("matgo", 2, count=1, hands=3)]
    imported = _store(tmp_path / "imported", logs)
    live = tmp_path / "live.duckdb"
    with Store(live) as store:
        for game in logs:
            for env in game:
                store.append(env.game_id, [env], store.version(env.game_id))
    tables = ("capture_tallies", "transfer_tallies", "hand_seats", "player_games", "decisions")
    with Store(imported, read_only=True) as a, Store(live, read_only=True) as b:
        for t in tables:
            want = a.query(f"SELECT * FROM {t} ORDER BY ALL").rows
            assert want and b.query(f"SELECT * FROM {t} ORDER BY ALL").rows == want, t


def _drop_schema_7_columns(store: Store) -> None:
    """The columns schema 7 added: a file made by an older version has none of them."""
    store.conn.execute("ALTER TABLE decisions DROP COLUMN won_by_stop")
    for c in ("ruleset", "payer_name", "payee_name"):
        store.conn.execute(f"ALTER TABLE payouts DROP COLUMN {c}")


def test_a_version_5_store_gets_the_summaries(tmp_path: Path) -> None:
    """Opening a version 5 file for writing adds the summary tables and fills them (the
    projection rows are derived again), as an import would have."""
    logs = [*_tables(3), *games("matgo", 2, count=2, hands=2, seed=3)]
    db = _store(tmp_path, logs)
    tables = ("capture_tallies", "transfer_tallies", "hand_seats")
    with Store(db, read_only=True) as store:
        want = {t: store.query(f"SELECT * FROM {t} ORDER BY ALL").rows for t in tables}
    with Store(db) as store:
        for t in (*tables, "player_games"):
            store.conn.execute(f"DROP TABLE {t}")
        _drop_schema_7_columns(store)
        store.conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    with Store(db) as store:
        assert schema.file_version(store.conn) == schema.SCHEMA_VERSION >= 8
        for t in tables:
            assert want[t] and store.query(f"SELECT * FROM {t} ORDER BY ALL").rows == want[t], t
        assert store.verify().ok
    _assert_same_answers(db)


def test_a_version_6_store_gets_won_by_stop_and_player_games(tmp_path: Path) -> None:
    """Opening a version 6 file (``decisions`` without ``won_by_stop``, no ``player_games``)
    for writing adds the column and the table and fills them, as an import would have."""
    logs = [*_tables(5), *games("matgo", 2, count=2, hands=3, seed=5)]
    db = _store(tmp_path, logs)
    with Store(db, read_only=True) as store:
        want = store.query("SELECT * FROM decisions ORDER BY ALL").rows
    assert any(r[-1] for r in want) and not all(r[-1] for r in want)
    with Store(db) as store:
        totals = store.query("SELECT * FROM player_games ORDER BY ALL").rows
        payouts = store.query("SELECT * FROM payouts ORDER BY ALL").rows
        store.conn.execute("DROP VIEW v_player_gos")
        store.conn.execute("DROP VIEW v_player_stats")
        store.conn.execute("DROP VIEW v_payout_disputes")
        store.conn.execute("DROP TABLE player_games")
        _drop_schema_7_columns(store)
        store.conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    with Store(db) as store:
        assert schema.file_version(store.conn) == schema.SCHEMA_VERSION >= 8
        assert store.query("SELECT * FROM decisions ORDER BY ALL").rows == want
        assert store.query("SELECT * FROM payouts ORDER BY ALL").rows == payouts
        assert totals and store.query("SELECT * FROM player_games ORDER BY ALL").rows == totals
        assert store.verify().ok
    _assert_same_answers(db)
