"""What an import does with a run of a game, against what the store holds.

One decision for every way whole games come in (``db import`` of files, an upload to the
server, a finished ``/play`` hand): a run whose chain breaks is rejected; a run that
differs from the stored events is a conflict (the store keeps its version); a run the
store holds in full is skipped; a run that leaves a gap is rejected; otherwise its new
events are checked by the rules after the stored ones and appended.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import Finding
from ..events import Envelope
from .game_runs import Checked, FileScan, Run, check_links, replay

__all__ = ["Conflict", "judge"]


@dataclass(frozen=True, slots=True)
class Conflict:
    """The run differs from the stored game: nothing of it is written."""

    problem: Finding


def judge(
    read: Run,
    stored: Sequence[str],
    earlier: Callable[[], list[Envelope]],
    *,
    strict: bool,
    scan: FileScan | None = None,
    replayed: Checked | Finding | None = None,
) -> Checked | Finding | Conflict | None:
    """The verdict on ``read``: checked (to append), a problem (rejected), a conflict, or
    None (skipped: the store holds it all).

    ``stored``: the hashes of the game's stored events in seq order; ``earlier()``: the
    game's events before the run when it starts past seq 1 (read only then).
    ``replayed``: the rules' verdict on the run taken as a whole game (``replay(read,
    read.events, 0, strict)``), computed beforehand off the writer's path; used when the
    store holds none of the game.
    """
    file, run = read.file, read.events
    gid = run[0].game_id
    broken = check_links(run, read.bad_hash)
    if broken is not None:
        return Finding(file=file, game_id=gid, seq=broken[0], reason=broken[1], rule="hash_chain")
    n = len(stored)
    for env in run:
        if env.seq > n:
            break
        if stored[env.seq - 1] != env.hash:
            return Conflict(
                Finding(
                    file=file,
                    game_id=gid,
                    seq=env.seq,
                    reason=f"the store holds another event at seq {env.seq} (stored hash "
                    f"{stored[env.seq - 1][:12]}..., file {env.hash[:12]}...); the stored "
                    "events are kept",
                )
            )
    if run[-1].seq <= n:
        return None
    first = run[0].seq
    if first > n + 1:
        return Finding(
            file=file,
            game_id=gid,
            seq=first,
            reason=f"the file's events start at seq {first}, but the store holds {n}: "
            f"seq {n + 1}..{first - 1} are missing",
            rule="seq_dense",
            line=scan.line_of(read.index, 0, gid) if scan is not None else None,
        )
    if n and first == n + 1 and run[0].prev != stored[-1]:
        reason = "does not continue the stored hash chain of the game"
        return Conflict(Finding(file=file, game_id=gid, seq=first, reason=reason))
    if n == 0 and first == 1 and replayed is not None:
        return replayed
    full = list(run) if first == 1 else [*earlier()[: first - 1], *run]
    return replay(read, full, n, strict)
