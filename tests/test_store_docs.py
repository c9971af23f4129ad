"""The store's table documentation: complete, true to the schema, and docs/sql.md carries it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from gostop_records import events as E
from gostop_records.rules import PRESETS, Ruleset
from gostop_records.sim.selfplay import simulate
from gostop_records.store import Store
from gostop_records.store import columns as docs
from gostop_records.store.schema import (
    EVENT_COLUMNS,
    HEADS_COLUMNS,
    PEOPLE_COLUMNS,
    PERSON_EVENT_COLUMNS,
    PERSON_KEY_COLUMNS,
    TABLES,
    VIEWS,
)

ROOT = Path(__file__).resolve().parent.parent
SQL_DOC = "docs/sql.md"
REFRESH = f"python -m gostop_records.store.columns --write-readme {SQL_DOC}"
_SPAN = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?")
_DOTTED = re.compile(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")

Catalog = dict[str, list[str]]


def schema_columns() -> dict[str, list[str]]:
    out = {"events": [c for c, _ in EVENT_COLUMNS]}
    out.update({t: [c for c, _ in cols] for t, cols in TABLES.items()})
    out["heads"] = [c for c, _ in HEADS_COLUMNS]
    out["person_events"] = [c for c, _ in PERSON_EVENT_COLUMNS]
    out["people"] = [c for c, _ in PEOPLE_COLUMNS]
    out["person_keys"] = [c for c, _ in PERSON_KEY_COLUMNS]
    return out


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A small store: two matgo games and one 3-player game, two hands each."""
    logs = [
        *simulate(PRESETS["matgo"], 2, 2, 2, 41),
        *simulate(PRESETS["gostop3"], 3, 1, 2, 41),
    ]
    s = Store(tmp_path_factory.mktemp("docs") / "docs.duckdb")
    report = s.import_envelopes([env for game in logs for env in game])
    assert report.ok and report.imported == 3, report.summary()
    yield s
    s.close()


@pytest.fixture(scope="module")
def catalog(store: Store) -> Catalog:
    """Every table and view of a store as DuckDB shows it: name -> columns in order."""
    rows = store.conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
    ).fetchall()
    out: Catalog = {}
    for table, column in rows:
        out.setdefault(table, []).append(column)
    return out


def test_every_table_and_column_has_a_description() -> None:
    columns = schema_columns()
    assert set(docs.TABLE_DOCS) == set(columns), "TABLE_DOCS must cover events and TABLES"
    for table, cols in columns.items():
        assert docs.TABLE_DOCS[table].strip(), f"{table} has an empty description"
        described = docs.COLUMN_DOCS.get(table, {})
        missing = [c for c in cols if not described.get(c, "").strip()]
        extra = sorted(set(described) - set(cols))
        assert not missing, f"{table}: columns without a description: {missing}"
        assert not extra, f"{table}: descriptions of columns the schema lacks: {extra}"
    assert set(docs.COLUMN_DOCS) == set(columns)


def test_every_view_is_documented() -> None:
    assert set(docs.VIEW_DOCS) == set(VIEWS)
    assert all(text.strip() for text in docs.VIEW_DOCS.values())


def test_every_relation_of_a_store_is_documented(catalog: Catalog) -> None:
    documented = set(docs.TABLE_DOCS) | set(docs.VIEW_DOCS)
    assert set(catalog) - {"meta"} == documented
    for table, cols in schema_columns().items():
        assert catalog[table] == cols, f"{table}: the store's columns differ from the schema"


def test_view_docs_name_every_column_of_the_view(catalog: Catalog) -> None:
    """A view's description names each of its columns, or a table all of whose columns
    the view repeats (``v_events`` is every ``events`` column and three more)."""
    for view, text in docs.VIEW_DOCS.items():
        named = set(_SPAN.findall(text))
        covered = set(named)
        for rel in named & set(catalog):
            if set(catalog[rel]) <= set(catalog[view]):
                covered |= set(catalog[rel])
        missing = [c for c in catalog[view] if c not in covered]
        assert not missing, f"{view}: its description does not name {missing}"


def _resolves(name: str, here: str, catalog: Catalog) -> bool:
    if "." not in name:
        return name in catalog[here] or name in catalog or name in E.EVENT_TYPES
    head, tail = name.split(".")
    if head in catalog:
        return tail in catalog[head]
    if head in E.EVENT_TYPES:
        return tail in {f.name for f in msgspec.structs.fields(E.EVENT_TYPES[head])}
    return head == "rules" and tail in Ruleset.model_fields


def _unresolved(text: str, here: str, catalog: Catalog, store: Store) -> list[str]:
    """Backticked spans of ``text`` that name nothing real, read in the context of ``here``.

    A plain or dotted name must resolve (see :mod:`gostop_records.store.columns`); command
    lines pass; anything else must run as a SQL expression on ``here``.
    """
    bad = []
    for span in _SPAN.findall(text):
        if span.startswith(("gostop ", "--")):
            continue
        if _NAME.fullmatch(span):
            if not _resolves(span, here, catalog):
                bad.append(span)
            continue
        try:
            store.conn.execute(f"SELECT {span} FROM {here} LIMIT 0")
        except Exception as exc:  # duckdb's binder and parser errors
            bad.append(f"{span} ({type(exc).__name__})")
    return bad


def test_descriptions_name_only_columns_that_exist(catalog: Catalog, store: Store) -> None:
    found = {}
    for table, text in docs.TABLE_DOCS.items():
        found[table] = _unresolved(text, table, catalog, store)
    for table, cols in docs.COLUMN_DOCS.items():
        for col, text in cols.items():
            found[f"{table}.{col}"] = _unresolved(text, table, catalog, store)
    for view, text in docs.VIEW_DOCS.items():
        found[view] = _unresolved(text, view, catalog, store)
    bad = {where: spans for where, spans in found.items() if spans}
    assert not bad, f"descriptions name what does not exist: {bad}"


def test_joins_paragraph_names_real_tables_and_columns(catalog: Catalog) -> None:
    every_column = {c for cols in catalog.values() for c in cols}
    bad = []
    for span in _SPAN.findall(docs.JOINS):
        if _NAME.fullmatch(span) and "." not in span:
            if span not in catalog and span not in every_column and span not in E.EVENT_TYPES:
                bad.append(span)
            continue
        for head, tail in _DOTTED.findall(span):
            if tail not in catalog.get(head, ()):
                bad.append(f"{head}.{tail}")
    assert not bad, f"the joins paragraph names what does not exist: {bad}"


def test_the_checks_catch_a_stale_name(catalog: Catalog, store: Store) -> None:
    """The resolver is not vacuous: a dropped column, a bad setting, a bad SQL span fail."""
    assert _unresolved("see `pi_bak` and `hands.pi_bak`", "scores", catalog, store) == [
        "pi_bak",
        "hands.pi_bak",
    ]
    assert _unresolved("`rules.no_such_setting`", "payouts", catalog, store)
    assert _unresolved("`payload ->> 'seat'`", "hands", catalog, store)
    assert not _unresolved("`payload ->> 'seat'` and `'stop'`", "events", catalog, store)


def _rendered_columns(md: str) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list[tuple[str, str, str]]] = {}
    table = None
    for line in md.splitlines():
        head = re.fullmatch(r"#### `(\w+)`", line)
        if head:
            table = head.group(1)
            out[table] = []
            continue
        row = re.fullmatch(r"\| `(\w+)` \| ([^|]+) \| (.*) \|", line)
        if row and table is not None:
            out[table].append((row.group(1), row.group(2), row.group(3)))
    return out


def test_markdown_renders_schema_types_and_descriptions() -> None:
    rendered = _rendered_columns(docs.markdown())
    expected = {
        "events": EVENT_COLUMNS,
        **TABLES,
        "heads": HEADS_COLUMNS,
        "person_events": PERSON_EVENT_COLUMNS,
        "people": PEOPLE_COLUMNS,
        "person_keys": PERSON_KEY_COLUMNS,
    }
    assert list(rendered) == list(expected)
    for table, cols in expected.items():
        want = [(c, t, docs.COLUMN_DOCS[table][c]) for c, t in cols]
        assert rendered[table] == want, table
    md = docs.markdown()
    for view in VIEWS:
        assert f"- `{view}`: {docs.VIEW_DOCS[view]}" in md
    for _question, sql in docs.EXAMPLES:
        assert sql in md


def test_markdown_refuses_an_undocumented_column(monkeypatch: pytest.MonkeyPatch) -> None:
    trimmed = {t: dict(c) for t, c in docs.COLUMN_DOCS.items()}
    del trimmed["payouts"]["pi_bak"]
    monkeypatch.setattr(docs, "COLUMN_DOCS", trimmed)
    with pytest.raises(KeyError, match=r"payouts\.pi_bak"):
        docs.markdown()


def _section(text: str) -> str:
    start = text.index(docs.README_START) + len(docs.README_START)
    return text[start : text.index(docs.README_END)].strip("\n")


def test_the_sql_page_carries_the_generated_section() -> None:
    page = (ROOT / SQL_DOC).read_text(encoding="utf-8")
    assert _section(page) == docs.markdown().strip("\n"), (
        f"{SQL_DOC}'s tables section is out of date: run `{REFRESH}`"
    )


def test_the_generated_links_lead_to_pages_beside_it() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", docs.markdown()):
        if "://" not in target:
            assert (ROOT / SQL_DOC).parent.joinpath(target).exists(), target


def test_examples_run_and_return_rows(store: Store) -> None:
    for question, sql in docs.EXAMPLES:
        result = store.query(sql)
        assert result.columns, question
        assert result.rows, f"no rows for: {question}"


def test_write_readme_replaces_only_the_section(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    before = f"# title\n\ntext\n\n{docs.README_START}\nold tables\n{docs.README_END}\n\nmore\n"
    readme.write_text(before, encoding="utf-8")
    assert docs.main(["--write-readme", str(readme), "--check"]) == 1
    assert readme.read_text(encoding="utf-8") == before
    assert docs.main(["--write-readme", str(readme)]) == 0
    after = readme.read_text(encoding="utf-8")
    assert _section(after) == docs.markdown().strip("\n")
    assert after.startswith(f"# title\n\ntext\n\n{docs.README_START}\n")
    assert after.endswith(f"{docs.README_END}\n\nmore\n")
    assert docs.main(["--write-readme", str(readme), "--check"]) == 0
    assert docs.write_readme(readme) is False


def test_write_readme_without_markers_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n", encoding="utf-8")
    assert docs.main(["--write-readme", str(readme)]) == 1
    assert "tables:start" in capsys.readouterr().err
    assert readme.read_text(encoding="utf-8") == "# no markers\n"
