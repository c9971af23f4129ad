"""A command run as a user runs it: one process and every process it starts, timed whole.

:func:`run_tree` starts a command, waits for it, and measures the whole process tree: its
wall time from the start to the exit, the CPU seconds of every process in it (from the
kernel's accounting of waited-for children) and its memory, polled from ``/proc`` while it
runs: the largest sum of the resident sets of all its live processes at one moment (the
tree's peak), and the largest high-water mark of any one of them. The same polls read each
process's own CPU seconds, as last seen before it ended (so to within one interval).

Why polled, and not ``getrusage(RUSAGE_CHILDREN).ru_maxrss``: that is the largest single
process, never the sum of an importer and its workers; and on Linux a child started with
``vfork`` (which ``subprocess`` uses) inherits its parent's high-water mark at ``exec``, so
the benchmark's own peak would be read as the command's. Polling misses a spike shorter than
the interval, so the tree's peak is a lower bound, to within one interval (50 ms).
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["TreeRun", "busy_cores", "busy_loaded", "load_average", "loaded", "run_tree"]

#: A run is taken under load when the 1-minute load average exceeds this many runnable
#: processes per core (the load average counts the bench's own work too: it is the run's
#: reading, at its start and end).
LOADED_PER_CORE = 0.5
#: A round is taken under load when, in the moment before it, other work (and the host of a
#: virtual machine, as steal) kept more than this many cores busy.
LOADED_CORES = 0.25
BUSY_S = 0.5
POLL_S = 0.05
#: Clock ticks per second, the unit of /proc's CPU times.
_TICK = os.sysconf("SC_CLK_TCK")


def load_average() -> float:
    """The 1-minute load average now."""
    return os.getloadavg()[0]


def loaded(load: float) -> bool:
    """Whether a run with this 1-minute load average was taken under load."""
    return load > LOADED_PER_CORE * (os.cpu_count() or 1)


def _busy_ticks() -> tuple[int, int]:
    """(busy, steal) clock ticks of all cores so far, from ``/proc/stat``'s first line: user,
    nice, system, irq and softirq are busy; steal is the time the host ran something else."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    ticks += [0] * (8 - len(ticks))
    user, nice, system, _idle, _iowait, irq, softirq, steal = ticks[:8]
    return user + nice + system + irq + softirq, steal


def busy_cores(seconds: float = BUSY_S) -> float:
    """How many cores other work kept busy over the next ``seconds``, steal included: read
    before a round, while the bench itself waits, so that the reading is the machine's and
    not the bench's own (which a load average, smoothed over a minute, still counts)."""
    busy0, steal0 = _busy_ticks()
    start = time.monotonic()
    time.sleep(seconds)
    busy1, steal1 = _busy_ticks()
    elapsed = time.monotonic() - start
    return ((busy1 - busy0) + (steal1 - steal0)) / _TICK / elapsed


def busy_loaded(busy: float) -> bool:
    """Whether a round after this :func:`busy_cores` reading was taken under load."""
    return busy > LOADED_CORES


@dataclass(frozen=True, slots=True)
class TreeRun:
    wall: float  # seconds from the start to the exit of the command
    cpu: float  # user + system seconds of every process of the tree
    tree_peak_kib: int  # the largest sum of the tree's resident sets at one poll
    largest_kib: int  # the largest high-water mark (VmHWM) of one process of the tree
    processes: int  # how many processes the tree held at once, at most
    stdout: str
    returncode: int
    #: each process's user + system seconds as last polled, the command's own first
    process_cpu: tuple[float, ...] = ()


def _cpu_seconds(pid: int) -> float | None:
    """User + system seconds of a live process so far, or None (gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # pid (comm) state ppid ...: comm may hold spaces, so split after ')'
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _status(pid: int) -> tuple[int, int, int] | None:
    """(parent pid, VmRSS KiB, VmHWM KiB) of a live process, or None (gone, or a zombie)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    ppid = rss = hwm = 0
    for line in text.splitlines():
        if line.startswith("PPid:"):
            ppid = int(line.split()[1])
        elif line.startswith("VmRSS:"):
            rss = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    if not rss:
        return None
    return ppid, rss, hwm


def _descendants(root: int) -> set[int]:
    """``root`` and its live descendants, from every process's parent in ``/proc``."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    # pid (comm) state ppid ...: comm may hold spaces, so split after ')'
                    parent[int(name)] = int(f.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out = set()
    for pid in parent:
        p = pid
        while p and p != root:
            p = parent.get(p, 0)
        if p == root:
            out.add(pid)
    return out


#: The tree is searched for new processes at every this many polls (a search reads every
#: process's stat: a few milliseconds); its known processes are read at every poll.
SEARCH_EVERY = 4


def run_tree(
    argv: Sequence[str], env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> TreeRun:
    """Run ``argv`` to its end, measuring its whole process tree (see the module)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = largest = most = 0
    done = threading.Event()
    start = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=None if env is None else dict(env),
        cwd=cwd,
    )
    cpus: dict[int, float] = {proc.pid: 0.0}  # the command first, then as first seen

    def poll() -> None:
        nonlocal peak, largest, most
        pids: set[int] = {proc.pid}
        k = 0
        while not done.is_set():
            if k % SEARCH_EVERY == 0:
                pids |= _descendants(proc.pid)
            k += 1
            sizes = []
            for pid in list(pids):
                st = _status(pid)
                seconds = _cpu_seconds(pid)
                if st is None or seconds is None:
                    pids.discard(pid)
                else:
                    sizes.append(st[1:])
                    cpus[pid] = seconds
            if sizes:
                peak = max(peak, sum(r for r, _ in sizes))
                largest = max(largest, *(h for _, h in sizes))
                most = max(most, len(sizes))
            done.wait(POLL_S)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    poller.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError(
            f"{' '.join(argv)}: exit code {proc.returncode}: {err.decode(errors='replace')[-2000:]}"
        )
    return TreeRun(
        wall,
        cpu,
        peak,
        largest,
        most,
        out.decode(errors="replace"),
        proc.returncode,
        tuple(cpus.values()),
    )
