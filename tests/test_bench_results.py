"""The bench's bookkeeping: RESULTS.md holds the latest run alone, ratios come from
alternated pairs, a command's memory is its whole process tree."""

import subprocess
import sys
import time

from bench.__main__ import shown_args, with_bots_of
from bench.bots import BEGIN, END
from bench.figures import Figure, render_markdown, stamped
from bench.process import busy_cores, busy_loaded, loaded, run_tree
from bench.runs import pair_order, spread

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


def test_a_run_rewrites_the_file_keeping_only_the_bots_section() -> None:
    text = with_bots_of(OLD, NEW)
    assert text.startswith(NEW.rstrip("\n"))
    assert "1 events/s" not in text
    assert "Where replay's time goes" not in text and "The table service" not in text
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    assert "strong beats greedy" in text


def test_the_command_shown_leaves_out_where_the_run_kept_its_files() -> None:
    argv = ["--archive", "--out", "/tmp/x", "--pairs", "4", "--results=/tmp/r.md", "--million"]
    assert shown_args(argv) == "--archive --pairs 4 --million"
    assert shown_args(["--out=/tmp/x"]) == ""


def test_a_first_run_writes_its_table_alone() -> None:
    assert with_bots_of("", NEW) == NEW
    assert with_bots_of("# Benchmark results\n\n| a |\n", NEW) == NEW


def test_pairs_alternate_their_order() -> None:
    seen: list[str] = []

    def run(name: str):
        return lambda: seen.append(name) or len(seen)

    for k in range(4):
        pair_order([("a", run("a")), ("b", run("b"))], k)
    assert seen == ["a", "b", "b", "a", "a", "b", "b", "a"]


def test_a_ratio_is_the_median_of_the_pairs_with_its_range() -> None:
    assert spread([0.5, 0.25, 0.75]) == "0.50 (0.25-0.75, 3 pairs)"
    assert spread([2.0], "x") == "2.00x (2.00-2.00x, 1 pair)"


def test_a_figure_taken_under_load_is_marked() -> None:
    busy = 1.5  # cores other work kept busy before a round
    assert busy_loaded(busy) and not busy_loaded(0.0)
    assert loaded(100.0) and not loaded(0.0)  # a run's 1-minute load average
    quiet, hot = stamped([Figure("a", 1, "u"), Figure("b", 1, "u", loads=(busy,))], 0.0)
    assert quiet.load_text() == "0.00" and not quiet.under_load
    assert hot.under_load and "LOADED" in hot.load_text()
    text = render_markdown([quiet, hot], "a machine", "a corpus", "--quick", (0.0, 100.0))
    assert "| b | 1.00 u | - | - |  | 1.50 LOADED |" in text
    assert "1 of 2 figures were taken under load" in text
    assert "(a loaded run)" not in text  # the run began on a quiet machine


def test_the_cores_kept_busy_are_read_from_the_machine() -> None:
    """A child spinning beside the reading counts (the machine's own work, not only the
    bench's): at least most of a core."""
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        assert busy_cores(0.5) > 0.5
    finally:
        spin.kill()
        spin.wait()


CHILD = """
import subprocess, sys, time
block = bytearray(48 << 20)  # touched: resident
child = subprocess.Popen([sys.executable, "-c",
    "import time; b = bytearray(48 << 20); time.sleep(0.6)"])
child.wait()
"""


def test_a_command_s_memory_is_its_whole_process_tree() -> None:
    run = run_tree([sys.executable, "-c", CHILD])
    assert run.returncode == 0 and run.processes == 2
    # each process holds about 48 MiB at once: the tree more than either
    assert run.largest_kib > 48 << 10
    assert run.tree_peak_kib > run.largest_kib + (40 << 10)
    assert run.wall > 0.5 and run.cpu > 0


SPINNER = """
import subprocess, sys
subprocess.run([sys.executable, "-c",
    "import time\\nwhile time.process_time() < 0.4: pass"], check=True)
"""


def test_each_process_s_cpu_is_read_the_command_s_first() -> None:
    """The child spins until it has used 0.4 s of CPU, its parent waits: the polls read
    each (to within one 50 ms interval), the command first."""
    run = run_tree([sys.executable, "-c", SPINNER])
    assert run.returncode == 0 and len(run.process_cpu) == 2
    command, child = run.process_cpu
    assert child >= 0.3 and command < child
    assert sum(run.process_cpu) <= run.cpu + 0.05


def test_the_bench_counts_turns_as_the_store_does(tmp_path) -> None:
    from bench.runs import TurnCounter
    from gostop_records.rules import PRESETS
    from gostop_records.sim.selfplay import simulate
    from gostop_records.store import Store

    counter = TurnCounter()
    with Store(tmp_path / "t.duckdb") as store:
        # gamerules deals bonus cards, so turns that play one from the hand come up
        for log in simulate(PRESETS["gamerules"], 3, 4, 10, seed=7):
            for env in log:
                counter.feed(env)
            store.import_envelopes(log)
        (rows,) = store.query("SELECT count(*) FROM turns").rows[0]
        (bonus,) = store.query("SELECT count(*) FROM turns WHERE played_kind = 'bonus'").rows[0]
    assert counter.turns == rows
    assert bonus  # the case the counter must not miss is in the sample
