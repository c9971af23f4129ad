"""The row types are the schema: the DDL, the column docs and the Arrow schema all come from
them, and the DDL they give is, column for column, the one schema version 9 wrote."""

from __future__ import annotations

from pathlib import Path

import duckdb
import msgspec
import pytest

from gostop_records.store import columns as docs
from gostop_records.store.layout import arrow_schema
from gostop_records.store.schema import (
    EVENT_COLUMNS,
    SCHEMA_VERSION,
    TABLES,
    create_schema,
    projection_ddl,
)
from gostop_records.store.tables import COLUMN_AT, ROWS, PayoutRow, sql_columns
from gostop_records.store.tables.fields import SqlType, table_row

# Every table's columns and types as schema version 9 created them (written out, not derived:
# a file of that version must keep opening without a migration).
SCHEMA_9: dict[str, str] = {
    "events": (
        "game_id VARCHAR, seq INTEGER, type VARCHAR, hand INTEGER, at VARCHAR, recorded_at "
        "VARCHAR, by VARCHAR, v INTEGER, payload JSON, hash VARCHAR"
    ),
    "heads": (
        "entry BIGINT, kind VARCHAR, game_id VARCHAR, seq INTEGER, head VARCHAR, recorded_at "
        "VARCHAR, detail VARCHAR, prev VARCHAR, hash VARCHAR"
    ),
    "person_events": (
        "game_id VARCHAR, seq INTEGER, type VARCHAR, hand INTEGER, at VARCHAR, recorded_at "
        "VARCHAR, by VARCHAR, v INTEGER, payload JSON, hash VARCHAR"
    ),
    "people": (
        "person_id VARCHAR, name VARCHAR, named_at VARCHAR, merged_into VARCHAR, counts_for "
        "VARCHAR, forgotten BOOLEAN"
    ),
    "person_keys": "person_id VARCHAR, key BLOB",
    "games": (
        "game_id VARCHAR, ruleset VARCHAR, ruleset_hash VARCHAR, players TINYINT, player_ids "
        "VARCHAR[], player_names VARCHAR[], stake INTEGER, venue VARCHAR, started_at VARCHAR, "
        "started_on DATE, last_at VARCHAR, recorded_by VARCHAR, events INTEGER, hands INTEGER, "
        "hands_ended INTEGER, violations INTEGER"
    ),
    "hands": (
        "game_id VARCHAR, hand INTEGER, ruleset VARCHAR, players TINYINT, dealer TINYINT, "
        "started_at VARCHAR, date DATE, outcome VARCHAR, winner TINYINT, reason VARCHAR, carry "
        "INTEGER, next_carry INTEGER, turns INTEGER, gos INTEGER, stop_score INTEGER, "
        "winner_score INTEGER, go_count INTEGER, go_points INTEGER, points INTEGER, chips "
        "INTEGER, recorded_chips INTEGER, ended BOOLEAN, checked BOOLEAN"
    ),
    "turns": (
        "game_id VARCHAR, hand INTEGER, turn INTEGER, seq INTEGER, seat TINYINT, action "
        "VARCHAR, played VARCHAR, played_month TINYINT, played_kind VARCHAR, chosen VARCHAR, "
        "bomb_cards VARCHAR[], flipped VARCHAR, flipped_month TINYINT, flipped_kind VARCHAR, "
        "flips TINYINT, bonus_cards TINYINT, shaken BOOLEAN, bomb BOOLEAN, flip_only BOOLEAN, "
        "ppuk BOOLEAN, jjok BOOLEAN, ttadak BOOLEAN, sseul BOOLEAN, captured INTEGER, "
        "junk_taken INTEGER, score_after INTEGER"
    ),
    "captures": (
        "game_id VARCHAR, hand INTEGER, seq INTEGER, turn INTEGER, seat TINYINT, card VARCHAR, "
        "month TINYINT, card_kind VARCHAR, capture_kind VARCHAR, source VARCHAR, position "
        "TINYINT"
    ),
    "transfers": (
        "game_id VARCHAR, hand INTEGER, seq INTEGER, turn INTEGER, from_seat TINYINT, to_seat "
        "TINYINT, card VARCHAR, month TINYINT, card_kind VARCHAR, reason VARCHAR"
    ),
    "decisions": (
        "game_id VARCHAR, hand INTEGER, seq INTEGER, turn INTEGER, seat TINYINT, kind VARCHAR, "
        "go_count INTEGER, score INTEGER, auto BOOLEAN, cup_role VARCHAR, won_by_stop BOOLEAN"
    ),
    "scores": (
        "game_id VARCHAR, hand INTEGER, seat TINYINT, winner BOOLEAN, total INTEGER, brights "
        "TINYINT, animals TINYINT, ribbons TINYINT, junk_units INTEGER, bright_points INTEGER, "
        "animal_points INTEGER, godori_points INTEGER, ribbon_points INTEGER, hongdan_points "
        "INTEGER, cheongdan_points INTEGER, chodan_points INTEGER, junk_points INTEGER, "
        "cup_role VARCHAR, go_count INTEGER, shakes INTEGER, bombs INTEGER, ppuk INTEGER"
    ),
    "payouts": (
        "game_id VARCHAR, hand INTEGER, payer TINYINT, payee TINYINT, reason VARCHAR, points "
        "INTEGER, chips INTEGER, instant_chips INTEGER, recorded_chips INTEGER, hand_recorded "
        "BOOLEAN, difference INTEGER, stake INTEGER, score INTEGER, go_count INTEGER, go_points "
        "INTEGER, multiplier INTEGER, gwang_bak BOOLEAN, pi_bak BOOLEAN, meong_tta BOOLEAN, "
        "go_bak BOOLEAN, shakes INTEGER, bombs INTEGER, carry INTEGER, dokbak BOOLEAN, ruleset "
        "VARCHAR, payer_name VARCHAR, payee_name VARCHAR"
    ),
    "sitting_out": (
        "game_id VARCHAR, hand INTEGER, seq INTEGER, seat TINYINT, rule VARCHAR, brights_sold "
        "VARCHAR[], sale_points INTEGER, sale_chips INTEGER"
    ),
    "capped_payments": (
        "game_id VARCHAR, hand INTEGER, seq INTEGER, payer TINYINT, payee TINYINT, due INTEGER, "
        "paid INTEGER, shortfall INTEGER, cap VARCHAR"
    ),
    "capture_tallies": (
        "game_id VARCHAR, hand INTEGER, capture_kind VARCHAR, cards SMALLINT, captures SMALLINT"
    ),
    "transfer_tallies": (
        "game_id VARCHAR, hand INTEGER, reason VARCHAR, cards SMALLINT, double_junk SMALLINT, "
        "bonus_cards SMALLINT"
    ),
    "hand_seats": (
        "game_id VARCHAR, hand INTEGER, seat TINYINT, player_id VARCHAR, player_name VARCHAR, "
        "started_at VARCHAR, date DATE, ruleset VARCHAR, outcome VARCHAR, ended BOOLEAN, "
        "checked BOOLEAN, won BOOLEAN, sat_out BOOLEAN, gos SMALLINT, chips INTEGER, "
        "recorded_chips INTEGER, payments_received SMALLINT, ppuk_made SMALLINT, ppuk_suffered "
        "SMALLINT, jjok_made SMALLINT, jjok_suffered SMALLINT, ttadak_made SMALLINT, "
        "ttadak_suffered SMALLINT, sseul_made SMALLINT, sseul_suffered SMALLINT, bomb_made "
        "SMALLINT, bomb_suffered SMALLINT, shake_made SMALLINT, shake_suffered SMALLINT, "
        "gwang_bak_paid SMALLINT, gwang_bak_received SMALLINT, pi_bak_paid SMALLINT, "
        "pi_bak_received SMALLINT, meong_tta_paid SMALLINT, meong_tta_received SMALLINT, "
        "go_bak_paid SMALLINT, go_bak_received SMALLINT"
    ),
    "player_games": (
        "game_id VARCHAR, seat TINYINT, player_id VARCHAR, player_name VARCHAR, last_started_at "
        "VARCHAR, hands INTEGER, hands_sat_out INTEGER, wins INTEGER, chips BIGINT, "
        "recorded_chips BIGINT, gos INTEGER, gos_paid_off INTEGER, ppuk_made INTEGER, "
        "ppuk_suffered INTEGER, jjok_made INTEGER, jjok_suffered INTEGER, ttadak_made INTEGER, "
        "ttadak_suffered INTEGER, sseul_made INTEGER, sseul_suffered INTEGER, bomb_made "
        "INTEGER, bomb_suffered INTEGER, shake_made INTEGER, shake_suffered INTEGER, "
        "gwang_bak_paid INTEGER, gwang_bak_received INTEGER, pi_bak_paid INTEGER, "
        "pi_bak_received INTEGER, meong_tta_paid INTEGER, meong_tta_received INTEGER, "
        "go_bak_paid INTEGER, go_bak_received INTEGER"
    ),
    "seats": (
        "game_id VARCHAR, seat TINYINT, player_id VARCHAR, hands_played INTEGER, hands_sat_out "
        "INTEGER, chips_counted INTEGER, chips_held INTEGER, broke BOOLEAN, draw_card VARCHAR, "
        "first_dealer BOOLEAN"
    ),
    "issues": (
        "game_id VARCHAR, seq INTEGER, hand INTEGER, rule VARCHAR, reason VARCHAR, severity VARCHAR"
    ),
    "positions": "game_id VARCHAR, seq INTEGER, hash VARCHAR",
}


def _written(columns: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{c} {t}" for c, t in columns)


def test_the_derived_columns_are_schema_version_9s() -> None:
    assert SCHEMA_VERSION == 9, "a new version: add its columns here beside version 9's"
    assert {t: _written(sql_columns(row)) for t, row in ROWS.items()} == SCHEMA_9


def test_a_new_file_has_the_derived_types(tmp_path: Path) -> None:
    """DuckDB, asked after ``create_schema``, names the types the row types say."""
    conn = duckdb.connect(str(tmp_path / "s.duckdb"))
    try:
        create_schema(conn)
        for table, row in ROWS.items():
            described = tuple((r[0], r[1]) for r in conn.execute(f"DESCRIBE {table}").fetchall())
            assert described == sql_columns(row), table
    finally:
        conn.close()


def test_projection_ddl_names_each_column_once_in_order() -> None:
    ddl = projection_ddl("payouts")
    names = list(PayoutRow.__struct_fields__)
    at = [ddl.index(f'"{n}" ') for n in names]
    assert at == sorted(at) and TABLES["payouts"][0] == ("game_id", "VARCHAR")


def test_every_field_is_described_and_placed() -> None:
    for table, row in ROWS.items():
        described = docs.COLUMN_DOCS[table]
        assert list(described) == list(row.__struct_fields__), table
        assert all(text.strip() for text in described.values()), table
        assert docs.TABLE_DOCS[table].strip(), table
        assert COLUMN_AT[table] == {c: i for i, c in enumerate(row.__struct_fields__)}


def test_a_row_built_by_name_is_the_tuple_the_table_takes() -> None:
    values = {name: k for k, name in enumerate(PayoutRow.__struct_fields__)}
    row = msgspec.structs.astuple(PayoutRow(**values))
    assert row == tuple(range(len(TABLES["payouts"])))


def test_the_arrow_schema_carries_types_and_descriptions() -> None:
    pa = pytest.importorskip("pyarrow")
    schema = arrow_schema(EVENT_COLUMNS, "events")
    assert schema.names == [c for c, _ in EVENT_COLUMNS]
    assert schema.field("seq").type == pa.int32()
    assert (
        schema.field("hash").metadata[b"description"] == docs.COLUMN_DOCS["events"]["hash"].encode()
    )
    assert schema.metadata[b"description"] == docs.TABLE_DOCS["events"].encode()
    turns = arrow_schema(TABLES["turns"], "turns")
    assert turns.field("seat").type == pa.int8()
    assert turns.field("bomb_cards").type == pa.list_(pa.string())


def test_an_annotation_without_a_sql_type_is_refused() -> None:
    odd = table_row("Odd", "a table", [("x", float)])
    with pytest.raises(TypeError, match="no SQL type"):
        sql_columns(odd)


def test_the_annotated_type_wins_over_the_python_type() -> None:
    from typing import Annotated

    row = table_row("Narrow", "a table", [("n", Annotated[int, SqlType("UBIGINT")])])
    assert sql_columns(row) == (("n", "UBIGINT"),)
