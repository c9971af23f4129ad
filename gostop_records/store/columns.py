"""The store's SQL reference, rendered: every table, column and view with its type and its
meaning (from the row types of :mod:`.tables`, and :mod:`.query_docs`), so the
section of ``docs/sql.md`` between ``<!-- tables:start -->`` and ``<!-- tables:end -->`` is
rendered, never typed: ``python -m gostop_records.store.columns --write-readme docs/sql.md``
refreshes it, and a test fails when it, the schema or these descriptions drift apart. (Its
links are relative to ``docs/``.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .query_docs import EXAMPLES, JOINS, VIEW_DOCS
from .tables import PROJECTION_ROWS, ROWS, column_docs, sql_columns, table_doc
from .views import VIEWS

__all__ = [
    "COLUMN_DOCS",
    "EXAMPLES",
    "JOINS",
    "README_END",
    "README_START",
    "TABLE_DOCS",
    "VIEW_DOCS",
    "column_types",
    "main",
    "markdown",
    "replace_section",
    "write_readme",
]

#: What every table means: its row type's docstring.
TABLE_DOCS: dict[str, str] = {name: table_doc(row) for name, row in ROWS.items()}
#: What every column means: its field's description.
COLUMN_DOCS: dict[str, dict[str, str]] = {name: column_docs(row) for name, row in ROWS.items()}

README_START = "<!-- tables:start -->"
README_END = "<!-- tables:end -->"


def column_types(table: str) -> tuple[tuple[str, str], ...]:
    """(column, SQL type) of a table, as :mod:`.schema` creates it."""
    return sql_columns(ROWS[table])


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table_section(table: str) -> list[str]:
    docs = COLUMN_DOCS.get(table, {})
    out = [
        f"#### `{table}`",
        "",
        TABLE_DOCS[table],
        "",
        "| column | type | meaning |",
        "|---|---|---|",
    ]
    for col, sql_type in column_types(table):
        if not docs.get(col, "").strip():
            raise KeyError(f"column {table}.{col} has no description in its row type")
        out.append(f"| `{col}` | {sql_type} | {_cell(docs[col])} |")
    out.append("")
    return out


def markdown() -> str:
    """The generated section (docs/sql.md): keys and joins, every table with its columns,
    views, examples."""
    out = ["### Keys and joins", "", JOINS, "", "### Tables", ""]
    for table in ("events", *PROJECTION_ROWS, "heads", "person_events", "people", "person_keys"):
        out.extend(_table_section(table))
    out += ["### Views", ""]
    for view in VIEWS:
        out.append(f"- `{view}`: {VIEW_DOCS[view]}")
    out += ["", "### Example queries", ""]
    for question, sql in EXAMPLES:
        out += ["```sql", f"-- {question}", sql, "```", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def replace_section(text: str, section: str) -> str:
    """``text`` with what lies between the tables markers replaced by ``section``."""
    start, end = text.find(README_START), text.find(README_END)
    once = text.count(README_START) == 1 and text.count(README_END) == 1
    if not once or end < start:
        raise ValueError(f"expected one {README_START} followed by one {README_END}")
    head = text[: start + len(README_START)]
    return f"{head}\n\n{section.strip(chr(10))}\n\n{text[end:]}"


def write_readme(path: str | Path) -> bool:
    """Refresh the generated section of the README at ``path``; whether the file changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    new = replace_section(text, markdown())
    if new == text:
        return False
    p.write_text(new, encoding="utf-8")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m gostop_records.store.columns --write-readme README.md [--check]``."""
    parser = argparse.ArgumentParser(
        prog="python -m gostop_records.store.columns",
        description="Print the store's table documentation as Markdown, or refresh the "
        "README section between the tables markers.",
    )
    parser.add_argument("--write-readme", metavar="README", help="the README to refresh")
    parser.add_argument(
        "--check",
        action="store_true",
        help="with --write-readme: change nothing, exit 1 if it is stale",
    )
    args = parser.parse_args(argv)
    if args.write_readme is None:
        if args.check:
            parser.error("--check needs --write-readme")
        sys.stdout.write(markdown())
        return 0
    path = Path(args.write_readme)
    try:
        if not args.check:
            write_readme(path)
            return 0
        text = path.read_text(encoding="utf-8")
        stale = replace_section(text, markdown()) != text
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"{path}: {exc}\n")
        return 1
    if stale:
        sys.stderr.write(
            f"{path}: the tables section is out of date: run python -m "
            f"gostop_records.store.columns --write-readme {path}\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
