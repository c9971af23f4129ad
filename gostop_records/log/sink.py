"""A log file as a recording session's sink, beside the writer it appends with."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from ..errors import LogError, NoSpaceError, is_no_space
from ..events import Envelope
from .files import LogWriter, log_format, read_log, repair_tail

__all__ = ["JsonlSink"]


try:  # advisory file locks keep two recorders off one log (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class JsonlSink:
    """A log file (JSON Lines, or msgpack by suffix) as a recording session's sink
    (:class:`~gostop_records.recorder.EventSink`), appended one synced record at a time.

    The file is locked while the sink is open, so a second recorder on the same file is
    refused instead of interleaving. An incomplete last record (a crash during a write,
    which was never acknowledged) is cut off on opening; ``repaired`` says how many bytes.
    The file may hold other games: only the session's game is read back and appended to.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = True, fsync: bool = True):
        self.path = Path(path)
        self.location = str(self.path)
        self.fsync = fsync
        log_format(self.path)  # refuse an unknown suffix before touching the file
        if not create and not self.path.exists():
            raise LogError("no such log file", file=self.location)
        self._lock: IO[bytes] | None = None
        self._writer: LogWriter | None = None
        self._take_lock()
        try:
            self.repaired = repair_tail(self.path)
            self._versions: dict[str, int] = {}
            if self.path.exists():
                for env in read_log(self.path):
                    self._versions[env.game_id] = env.seq
        except BaseException:
            self.close()
            raise

    def _take_lock(self) -> None:
        try:
            self._lock = open(self.path, "ab")  # noqa: SIM115 - held for the sink's life
        except OSError as exc:
            raise LogError(f"cannot open for writing: {exc.strerror}", file=self.location) from None
        if fcntl is None:
            return
        try:
            fcntl.flock(self._lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise LogError(
                "the log is being written by another recording (it is locked); "
                "close that one first",
                file=self.location,
            ) from None

    def version(self, game_id: str) -> int:
        return self._versions.get(game_id, 0)

    def game_events(self, game_id: str) -> list[Envelope]:
        if not self._versions.get(game_id):
            return []
        return [env for env in read_log(self.path) if env.game_id == game_id]

    def append(
        self, envs: Sequence[Envelope], expected_version: int, checked: object = None
    ) -> None:
        """The envelopes of one game, all or none: a write that fails part way cuts the
        file back to where it was."""
        first = envs[0]
        stored = self._versions.get(first.game_id, 0)
        if stored != expected_version or first.seq != expected_version + 1:
            raise LogError(
                f"stale expected version: the log holds game {first.game_id!r} up to seq "
                f"{stored}, this append of seq {first.seq} expected {expected_version}",
                file=self.location,
                seq=first.seq,
            )
        if self._writer is None:
            self._writer = LogWriter(self.path, fsync=self.fsync, repair=True)
        durable = self.path.stat().st_size
        try:
            for env in envs:
                self._writer.write(env)
        except OSError as exc:
            self._drop_writer(durable)
            if is_no_space(exc):
                raise NoSpaceError(self.location) from None
            raise LogError(f"cannot write: {exc.strerror}", file=self.location) from None
        self._versions[first.game_id] = envs[-1].seq

    def _drop_writer(self, durable: int) -> None:
        """After a failed write: the file cut back to its last whole record, and the bytes
        still buffered dropped, so that nothing of the failed record reaches the file."""
        assert self._writer is not None
        with contextlib.suppress(OSError):
            self._writer._f.close()  # a flush that fails again leaves the file closed
        self._writer = None
        with contextlib.suppress(OSError):
            os.truncate(self.path, durable)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> JsonlSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
