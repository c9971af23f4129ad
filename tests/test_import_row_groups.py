"""Where an import cuts its transactions: never just past a multiple of DuckDB's row group.

A transaction's last row group is partial; a small one is merged with the groups after it
at the next checkpoint, which rewrites them (see :func:`gostop_records.store.importer.ripe`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from hypothesis import given
from hypothesis import strategies as st

from gostop_records.store.importer import DEFAULT_BATCH_EVENTS, ROW_GROUP_ROWS, ripe


def transactions(parts: list[int], bound: int, row_group: int) -> list[int]:
    """The events of each transaction an import writes, parts being taken in order."""
    out: list[int] = []
    count = 0
    for step in parts:
        count += step
        if ripe(count, step, bound, row_group):
            out.append(count)
            count = 0
    if count:
        out.append(count)
    return out


@given(
    step=st.integers(1, 500),
    n=st.integers(1, 400),
    groups=st.integers(2, 4),
    over=st.integers(0, 999),
)
def test_parts_of_one_size_never_leave_a_small_row_group(
    step: int, n: int, groups: int, over: int
) -> None:
    row_group = 1000
    bound = groups * row_group + over
    written = transactions([step] * n, bound, row_group)
    assert sum(written) == step * n
    for count in written[:-1]:
        assert count <= bound + step - 1 or count == step  # the bound holds, as before
        tail = count % row_group
        # a full last group, or one that the next part would have carried past the end
        assert tail == 0 or tail + step >= row_group or count >= bound
        if step <= row_group // 2 and bound >= 2 * row_group + step:
            assert tail == 0 or tail >= row_group - step  # never a small group


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=200), st.integers(1, 20_000))
def test_a_transaction_is_never_written_empty_nor_past_its_bound_by_more_than_a_part(
    parts: list[int], bound: int
) -> None:
    written = transactions(parts, bound, 1000)
    assert sum(written) == sum(parts)
    assert all(c > 0 for c in written)
    assert all(c < bound + max(parts) for c in written)


def test_the_import_bound_spans_two_row_groups() -> None:
    # the import's pieces (about 20,000 events) then cut each transaction near 245,760
    assert 2 * ROW_GROUP_ROWS < DEFAULT_BATCH_EVENTS < 3 * ROW_GROUP_ROWS


def test_row_group_rows_is_duckdbs(tmp_path: Path) -> None:
    conn = duckdb.connect(str(tmp_path / "t.duckdb"))
    conn.execute("CREATE TABLE t AS SELECT range AS i FROM range(?)", [ROW_GROUP_ROWS + 1])
    conn.execute("CHECKPOINT")
    counts = conn.execute(
        "SELECT row_group_id, sum(count) FROM pragma_storage_info('t') "
        "WHERE column_id = 0 AND segment_type <> 'VALIDITY' GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert [c for _, c in counts] == [ROW_GROUP_ROWS, 1]
