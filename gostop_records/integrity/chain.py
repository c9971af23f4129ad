"""The hash chain of a game's events: where the integrity wing finds it.

The chain is defined in :mod:`gostop_records.log.chain` (canonical bytes, :class:`Chain`,
:func:`verify`, the one check of seq order and links), beside the log's readers: every
reader checks the chain as it reads, and the checked read (``log/reading``) uses the
chain's own encoder and digest. This module names the chain's public API for the wing, so that the
chain, seals, signatures and checkpoints are read in one place; it defines nothing.
"""

from __future__ import annotations

# the chain's public API is the log's, name for name: its list is kept in one place, there
from ..log.chain import *  # noqa: F403
from ..log.chain import __all__ as __all__
