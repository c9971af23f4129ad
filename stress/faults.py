"""A full disk, on a small tmpfs: the recording and the import stop with "no space left on
FILE", keep what is durable, and continue once there is space.

Mounting needs root; where it is impossible the probe says so and is skipped.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from gostop_records.errors import GostopError, NoSpaceError
from gostop_records.recorder import RecordingSession
from gostop_records.store import Store

from . import recording as R
from .figures import Figures

__all__ = ["disk_full_import", "disk_full_recording", "small_disk"]

DISK_BYTES = 8 << 20


@contextlib.contextmanager
def small_disk(where: Path, size: int = DISK_BYTES) -> Iterator[Path | None]:
    """A tmpfs of ``size`` bytes mounted at ``where`` (None when mounting is impossible)."""
    where.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        yield None
        return
    if done.returncode != 0:
        yield None
        return
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def _fill(disk: Path, leave: int) -> Path:
    """A file that takes all the free space of the disk but ``leave`` bytes."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    filler = disk / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free - leave))
    return filler


def _clear(disk: Path) -> None:
    for p in disk.iterdir():
        p.unlink()


def disk_full_recording(
    work: Path, *, kind: str, leaves: list[int], seed: int = 3, hands: int = 3
) -> Figures:
    """Record a game on a disk that fills up (``kind``: ``jsonl`` or ``duckdb``), once per
    amount of free space in ``leaves``; then free the space, resume, record the rest.

    A trial survives when the fault is "no space left on FILE", every entry after it gets
    the same error (no rule refusals), the events on disk are every event acknowledged, and
    the resumed recording ends equal to one made without a fault."""
    fig = Figures(f"disk full: recording ({kind})")
    start = time.perf_counter()
    entries = R.inputs("matgo", 2, seed, hands=hands)
    ref = work / f"ref-{kind}-{seed}.{kind}"
    with R.start(ref, "matgo", 2, "g1") as s:
        R.record(s, entries)
    want = R.payloads(R.stored(ref, "g1"))
    with small_disk(work / f"disk-{kind}") as disk:
        if disk is None:
            fig.skipped = "a tmpfs cannot be mounted here (needs root)"
            return fig
        for leave in leaves:
            fig.trials += 1
            _clear(disk)
            path = disk / f"rec.{kind}"
            if kind == "duckdb":
                Store(path).close()
            filler = _fill(disk, leave)
            acknowledged = 0
            fault: BaseException | None = None
            try:
                with R.start(path, "matgo", 2, "g1") as s:
                    for ev in entries:
                        try:
                            R.record(s, [ev])
                        except NoSpaceError as exc:
                            fault = exc
                            break
                        acknowledged = s.last_seq
                    if fault is not None:
                        try:
                            R.record(s, entries[-1:])
                            fault = AssertionError("an entry after the fault was accepted")
                        except NoSpaceError:
                            pass
                        except GostopError as exc:
                            fault = AssertionError(f"an entry after the fault: {exc}")
            except NoSpaceError as exc:  # the game's first event did not fit
                fault = exc
            except Exception as exc:
                fig.tracebacks += 1
                fig.fail(f"leave {leave}: {type(exc).__name__}: {exc}")
                continue
            if fault is None:
                fig.fail(f"leave {leave}: the disk never filled up")
                continue
            if not isinstance(fault, NoSpaceError) or str(path) not in str(fault):
                fig.fail(f"leave {leave}: {fault}")
                continue
            filler.unlink()
            try:
                durable = R.stored(path, "g1")
                if len(durable) < acknowledged:
                    fig.lost += acknowledged - len(durable)
                    fig.fail(f"leave {leave}: {acknowledged} acknowledged, {len(durable)} kept")
                    continue
                if durable:
                    with RecordingSession.resume(R.open_sink(path, create=False), "g1") as s:
                        R.record(s, entries[R.inputs_before(s.envelopes) :])
                else:
                    with R.start(path, "matgo", 2, "g1") as s:
                        R.record(s, entries)
                got = R.payloads(R.stored(path, "g1"))
            except Exception as exc:
                fig.tracebacks += not isinstance(exc, GostopError)
                fig.fail(f"leave {leave}: after the fault: {type(exc).__name__}: {exc}")
                continue
            if got != want:
                fig.fail(f"leave {leave}: the resumed recording differs from the reference")
                continue
            fig.survived += 1
    fig.seconds = time.perf_counter() - start
    return fig


def disk_full_import(work: Path, logs: list[Path], *, leaves: list[int]) -> Figures:
    """Import ``logs`` into a store on a disk that fills up; free the space; import again.

    A trial survives when the import stops with "no space left on FILE" (no traceback, not a
    conflict), the store then opens and verifies, and the second import ends equal to an
    import without a fault."""
    from .fuzz import tables

    fig = Figures("disk full: import")
    start = time.perf_counter()
    with Store(work / "import-ref.duckdb") as ref:
        ref.import_paths(logs, workers=0)
        want = tables(ref)
    with small_disk(work / "disk-import", 16 << 20) as disk:
        if disk is None:
            fig.skipped = "a tmpfs cannot be mounted here (needs root)"
            return fig
        for leave in leaves:
            fig.trials += 1
            _clear(disk)
            path = disk / "club.duckdb"
            Store(path).close()
            filler = _fill(disk, leave)
            try:
                with Store(path) as st:
                    report = st.import_paths(logs, workers=0, batch_events=2_000)
                fig.fail(f"leave {leave}: the disk never filled up ({report.summary()})")
                continue
            except NoSpaceError as exc:
                if str(path) not in str(exc):
                    fig.fail(f"leave {leave}: {exc}")
                    continue
            except Exception as exc:
                fig.tracebacks += not isinstance(exc, GostopError)
                fig.fail(f"leave {leave}: {type(exc).__name__}: {exc}")
                continue
            filler.unlink()
            try:
                with Store(path) as st:
                    if not st.verify().ok:
                        fig.fail(f"leave {leave}: the store does not verify after the fault")
                        continue
                    st.import_paths(logs, workers=0)
                    got = tables(st)
            except Exception as exc:
                fig.tracebacks += not isinstance(exc, GostopError)
                fig.fail(f"leave {leave}: after the fault: {type(exc).__name__}: {exc}")
                continue
            if got != want:
                fig.lost += 1
                fig.fail(f"leave {leave}: the store differs from an import without a fault")
                continue
            fig.survived += 1
    fig.seconds = time.perf_counter() - start
    return fig
