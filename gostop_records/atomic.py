"""Files written whole or not at all.

A log, a page or an export is written into ``PATH.part`` beside it and renamed over ``PATH``
once complete (a rename within a folder is atomic), so that a reader never sees half a file
and an interrupted writer leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["written_whole"]


@contextlib.contextmanager
def written_whole(path: str | os.PathLike[str]) -> Iterator[Path]:
    """The path to write into: renamed over ``path`` when the block ends, removed when it
    raises. An OS error about the temporary file names ``path``, the file the caller asked
    for (a missing folder, a full disk), not a name the caller never gave."""
    final = Path(path)
    if not final.parent.is_dir():  # said here: some writers name only the temporary file
        raise OSError(errno.ENOENT, f"cannot write: no folder {final.parent}", os.fspath(final))
    tmp = final.with_name(final.name + ".part")
    try:
        yield tmp
        os.replace(tmp, final)
    except OSError as exc:
        if exc.filename is not None and os.fspath(exc.filename) == os.fspath(tmp):
            raise OSError(exc.errno, exc.strerror, os.fspath(final)) from None
        raise
    finally:
        tmp.unlink(missing_ok=True)
