"""Which SQL statements a query may run: reads only, told apart by DuckDB's own parser.

DuckDB's settings (:mod:`.query`: read-only files, no external access) keep a query from
writing files or reaching outside the store, but not from everything that changes the
running database: ``CHECKPOINT`` (which DuckDB parses as a ``CALL``) and the table functions
``checkpoint()`` and ``force_checkpoint()`` run even inside a ``READ ONLY`` transaction and
stall every writer of the store while they do. So each statement is parsed here
(``extract_statements`` gives its type; ``json_serialize_sql`` gives a SELECT's tree) and
refused, with the reason and what to use instead, unless it is:

- a SELECT in any of its spellings (``WITH``, ``VALUES``, ``FROM t``, ``TABLE t``,
  ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``) whose table functions are all in
  :data:`TABLE_FUNCTIONS` (the file readers among them still meet DuckDB's external-access
  setting);
- ``EXPLAIN [ANALYZE]`` of such a SELECT (``ANALYZE`` runs it, under the same limits);
- a ``PRAGMA`` of :data:`READ_PRAGMAS`, or ``CALL`` of its table function (``CALL
  pragma_version()``): they only tell.

Without DuckDB's json extension (built into its Python wheels) no SELECT can be read, and
every one is refused: the check fails closed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import QueryRefusedError

__all__ = ["READ_PRAGMAS", "READ_STATEMENTS", "TABLE_FUNCTIONS", "check_read_only", "error_text"]

#: Statement types a query may run (DESCRIBE, SHOW and SUMMARIZE parse as SELECT; CALL is
#: checked further, since CHECKPOINT parses as one).
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})
#: PRAGMAs that only tell (the others change settings).
READ_PRAGMAS = frozenset(
    {
        "collations",
        "database_list",
        "database_size",
        "functions",
        "metadata_info",
        "platform",
        "show",
        "show_databases",
        "show_tables",
        "show_tables_expanded",
        "storage_info",
        "table_info",
        "user_agent",
        "version",
    }
)
#: Table functions a query may call: generators, the catalog, and file readers (which work
#: only where files may be read). Any other is refused: DuckDB's list holds functions that
#: checkpoint, turn logging or profiling on, run SQL given as text, or scan Python objects.
TABLE_FUNCTIONS = frozenset(
    {
        "generate_series",
        "range",
        "repeat",
        "repeat_row",
        "unnest",
        "query_table",
        "summary",
        "histogram",
        "histogram_values",
        "json_each",
        "json_tree",
        "test_all_types",
        "icu_calendar_names",
        "pg_timezone_names",
        # the catalog
        "duckdb_columns",
        "duckdb_constraints",
        "duckdb_databases",
        "duckdb_dependencies",
        "duckdb_extensions",
        "duckdb_functions",
        "duckdb_indexes",
        "duckdb_keywords",
        "duckdb_schemas",
        "duckdb_sequences",
        "duckdb_settings",
        "duckdb_tables",
        "duckdb_types",
        "duckdb_views",
        *(f"pragma_{name}" for name in READ_PRAGMAS),
        # files: DuckDB refuses them unless files may be read (gostop db query --allow-files)
        "glob",
        "read_blob",
        "read_csv",
        "read_csv_auto",
        "read_json",
        "read_json_auto",
        "read_json_objects",
        "read_json_objects_auto",
        "read_ndjson",
        "read_ndjson_auto",
        "read_ndjson_objects",
        "read_parquet",
        "parquet_scan",
        "parquet_metadata",
        "parquet_schema",
        "read_text",
        "sniff_csv",
    }
)

_INSTEAD = {
    "COPY": "to write files use gostop db export",
    "EXPORT": "to write files use gostop db export",
    "INSERT": "events are added by gostop db import or a recorder",
    "UPDATE": "events are never edited: a correction is a new event",
    "DELETE": "events are never deleted",
    "ATTACH": "a query reads this store only",
    "LOAD": "a query installs and loads no extension",
    "SET": "a query runs with the store's settings",
    "VARIABLE_SET": "a query runs with the store's settings",
    "CHECKPOINT": "the store checkpoints itself; a query never does",
    "PIVOT": "a PIVOT without its values creates a type first: name them (ON x IN (...))",
}

_LEADING = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
_EXPLAIN = re.compile(r"\AEXPLAIN(?:\s+ANALY[SZ]E)?\b", re.IGNORECASE)
_PRAGMA = re.compile(r"\APRAGMA\s+([A-Za-z_][A-Za-z0-9_]*)\s*(=)?", re.IGNORECASE)
_CALL = re.compile(r"\ACALL\b", re.IGNORECASE)
_CHECKPOINT = re.compile(r"\A(?:FORCE\s+)?CHECKPOINT\b", re.IGNORECASE)


#: Tables no query reads: ``person_keys`` holds each person's key to their sealed names
#: (``gostop_records.names``), which only the store's own reads open.
SECRET_TABLES = frozenset({"person_keys"})


def check_read_only(conn: Any, sql: str, *, max_statements: int | None = None) -> list[Any]:
    """The parsed statements of ``sql``, at most ``max_statements`` of them;
    :class:`QueryRefusedError` naming the first statement that is not a read, and why."""
    import duckdb

    try:
        statements = conn.extract_statements(sql)
    except (duckdb.Error, ValueError) as exc:  # ValueError: a type this duckdb cannot name
        raise QueryRefusedError(f"SQL: {error_text(exc)}") from None
    if not statements:
        raise QueryRefusedError("SQL: no statement given")
    if max_statements is not None and len(statements) > max_statements:
        raise QueryRefusedError(
            f"SQL: {len(statements)} statements given; a query here is "
            f"{'one statement' if max_statements == 1 else f'at most {max_statements}'} "
            "(SELECT, WITH ... SELECT, VALUES, DESCRIBE, SHOW or EXPLAIN)"
        )
    try:
        for k, st in enumerate(statements, 1):
            _check_one(conn, st, k, len(statements) > 1)
    except duckdb.Error as exc:
        raise QueryRefusedError(f"SQL: {error_text(exc)}") from None
    return list(statements)


def _strip(text: str) -> str:
    return text[_LEADING.match(text).end() :]  # type: ignore[union-attr]


def _refusal(k: int, many: bool, kind: str, hint: str | None = None) -> QueryRefusedError:
    which = f"statement {k} " if many else "the statement "
    return QueryRefusedError(
        f"SQL here is read-only: {which}is {kind}, which writes or changes the store or "
        f"the session; {hint or _INSTEAD.get(kind.split()[-1], 'queries run read-only')}"
    )


def _check_one(conn: Any, st: Any, k: int, many: bool, depth: int = 0) -> None:
    kind = st.type.name
    text = _strip(st.query)
    if kind == "CALL" and _CHECKPOINT.match(text):
        kind = "CHECKPOINT"
    elif kind == "MULTI":  # what DuckDB runs as several statements: a PIVOT of unnamed values
        kind = "PIVOT"
    if kind not in READ_STATEMENTS:
        raise _refusal(k, many, kind if depth == 0 else f"EXPLAIN of {kind}")
    if kind == "SELECT":
        _check_functions(conn, text, k, many)
    elif kind == "CALL":
        # CALL f(...) runs the table function f: checked as SELECT * FROM f(...) is
        _check_functions(conn, "SELECT * FROM " + text[_CALL.match(text).end() :], k, many)  # type: ignore[union-attr]
    elif kind == "EXPLAIN":
        m = _EXPLAIN.match(text)
        inner = conn.extract_statements(text[m.end() :]) if m and depth < 4 else []
        if len(inner) != 1:
            raise _refusal(k, many, "EXPLAIN", "explain one SELECT at a time")
        _check_one(conn, inner[0], k, many, depth + 1)
    elif kind == "PRAGMA":
        m = _PRAGMA.match(text)
        if not m:  # IMPORT DATABASE parses as a PRAGMA
            raise _refusal(k, many, " ".join(text.split()[:2]).upper())
        name = m.group(1).lower()
        if m.group(2) or name not in READ_PRAGMAS:
            raise _refusal(
                k,
                many,
                f"PRAGMA {name}",
                "the PRAGMAs a query may run only tell: " + ", ".join(sorted(READ_PRAGMAS)),
            )


def _check_functions(conn: Any, text: str, k: int, many: bool) -> None:
    """Refuses a SELECT that calls a table function outside :data:`TABLE_FUNCTIONS`."""
    row = conn.execute("SELECT json_serialize_sql(?)", [text]).fetchall()
    tree = json.loads(row[0][0])
    if tree.get("error"):
        raise QueryRefusedError(f"SQL: {tree.get('error_message') or 'cannot be read'}")
    secret = _tables_read(tree) & SECRET_TABLES
    if secret:
        raise QueryRefusedError(
            f"SQL: {', '.join(sorted(secret))} holds each person's key to their sealed "
            "names: no query reads it"
        )
    for name in sorted(_table_functions(tree)):
        if name.lower() not in TABLE_FUNCTIONS:
            which = f"statement {k}" if many else "the statement"
            raise QueryRefusedError(
                f"SQL here is read-only: {which} calls the table function {name}(), which "
                "a query may not run (it changes the store or the session, or runs "
                "other code); tables, views and functions such as range() and unnest() work"
            )


def _tables_read(node: Any) -> set[str]:
    """The tables a serialized statement names, lower case: each ``FROM t``, and each name
    given to ``query_table()`` (one that is not a constant counts as every secret table:
    a name computed at run time cannot be checked here)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if n.get("type") == "BASE_TABLE":
                found.add(str(n.get("table_name", "")).lower())
            fn = n.get("function")
            if (
                n.get("type") == "TABLE_FUNCTION"
                and isinstance(fn, dict)
                and str(fn.get("function_name", "")).lower() == "query_table"
            ):
                for arg in fn.get("arguments") or []:
                    expr = arg.get("expression", {}) if isinstance(arg, dict) else {}
                    literal = expr.get("literal") if expr.get("class") == "CONSTANT" else None
                    if isinstance(literal, dict) and isinstance(literal.get("text"), str):
                        found.add(literal["text"].lower())
                    else:
                        found |= SECRET_TABLES
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return found


def _table_functions(node: Any) -> set[str]:
    """The names of the table functions anywhere in a serialized statement."""
    found: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            if n.get("type") == "TABLE_FUNCTION" and isinstance(n.get("function"), dict):
                found.add(str(n["function"].get("function_name", "")))
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)
    return found


#: DuckDB's own catalog (``pg_sequences``, ``duckdb_tables()``, ...): a "did you mean" that
#: names one of them leads a reader of the store away from its tables.
_SYSTEM_NAME = re.compile(r'"(?:pg_|duckdb_|sqlite_|information_schema)')


def error_text(exc: BaseException) -> str:
    """DuckDB's error, without its blank lines: the error, its hint, the query's line with
    a caret under the fault. A refused file read says how a query reads files; a hint that
    names DuckDB's own catalog instead of a table of the store says how to list those."""
    text = str(exc).strip()
    if "disabled by configuration" in text or "external access" in text.lower():
        return (
            f"{text.splitlines()[0]} (a query reads the store only; "
            "gostop db query --allow-files lets it read files)"
        )
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n".join(
        "SHOW TABLES lists the store's tables and views"
        if line.startswith("Did you mean") and _SYSTEM_NAME.search(line)
        else line
        for line in lines
    )
