"""The reading loop every replay runs first: the records of a JSON Lines log and their typed
envelopes.

It runs once per event before the rules do, so it is compiled in the native build (``make
native``; see ``NATIVE_MODULES``): as Python, the two generators around the decoder cost a
third as much as the decoder itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO

from ..errors import LogError
from ..events import Envelope
from .codec import _UNREADABLE, _VERSION_OF, _decode_json, _json_env_dec
from .lead import LeadCheck

__all__ = ["json_records", "open_read", "typed_lines"]


def json_records(lines: Iterable[bytes], at_start: bool = True) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of each record: a byte-order mark at the start of the file, blank
    lines and Windows line ends are taken care of here, once for every reader."""
    for lineno, line in enumerate(lines, 1):
        if lineno == 1 and at_start and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line or line.isspace():
            continue
        if line.endswith(b"\r\n"):
            line = line[:-2] + b"\n"
        yield lineno, line


def open_read(path: str | os.PathLike[str]) -> IO[bytes]:
    """A log opened for reading; a file that cannot be read is a :class:`LogError`."""
    try:
        return open(path, "rb")
    except OSError as exc:
        raise LogError(f"cannot read: {exc.strerror}", file=os.fspath(path)) from None


def typed_lines(path: str | os.PathLike[str]) -> Iterator[Envelope]:
    """The envelopes of a log read without keeping stored forms, in one tight loop.

    A line in the current typed form decodes here in one call; any other line (a byte-order
    mark, a blank line, an older version, an unknown type, an error) takes the general path
    of :func:`json_records` and ``codec._decode_json``, with the same result. The file is
    opened here, so that no interpreted generator stands between this loop and its reader.
    """
    name = os.fspath(path)
    decode = _json_env_dec.decode
    versions = _VERSION_OF
    leads = LeadCheck()
    with open_read(path) as f:
        lineno = 0
        for line in f:
            lineno += 1
            try:
                env = decode(line)
            except _UNREADABLE:  # the general path below names the fault
                pass
            else:
                if env.v == versions[type(env.event)] and leads.own(line, env.game_id):
                    yield env
                    continue
            for at, clean in json_records((line,), at_start=lineno == 1):
                yield _decode_json(clean, name, lineno + at - 1, None, False)[0]
