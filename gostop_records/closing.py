"""A thing that holds something open (a file, a database, a game being written) and is
used in a ``with`` block that closes it at the end, however the block ends."""

from __future__ import annotations

from typing import Self

__all__ = ["Closing"]


class Closing:
    """``with thing:`` gives the thing itself and calls its :meth:`close` on the way out."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
