"""bench/RESULTS.md: a run rewrites its table and keeps every section below it."""

from bench.__main__ import with_sections_of
from bench.bots import BEGIN, END

OLD = f"""# Benchmark results

| figure | value |
|---|---|
| replay | 1 events/s |

### Where replay's time goes

Measured by hand.

## The table service

{BEGIN}
## Bot strength
strong beats greedy
{END}
"""

NEW = """# Benchmark results

| figure | value |
|---|---|
| replay | 2 events/s |

How the figures are made:

- notes
"""


def test_a_run_keeps_the_sections_below_its_table() -> None:
    text = with_sections_of(OLD, NEW)
    assert text.startswith(NEW.rstrip("\n"))
    assert "1 events/s" not in text
    tail = OLD[OLD.index("### Where replay's time goes") :]
    assert text.endswith(tail)
    assert text.count(BEGIN) == 1 and text.count(END) == 1


def test_a_first_run_writes_its_table_alone() -> None:
    assert with_sections_of("", NEW) == NEW
    assert with_sections_of("# Benchmark results\n\n| a |\n", NEW) == NEW
