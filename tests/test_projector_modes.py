"""The in-place fold (``project``) and the copying fold (``Projector``) always agree.

``project`` changes one state in place for speed and rebuilds it from the hand's
checkpoint when an input is refused or retracted; ``Projector`` keeps every earlier state.
On real logs, fuzzed logs and logs with retractions both must report the same issues, stop
at the same seq with the same rule, and end in the same state.
"""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import mutated_log, real_logs, snapshot

from gostop_records import events as E
from gostop_records.errors import ProjectionError
from gostop_records.projector import Projector, project


def _copying(envs: list[E.Envelope], strict: bool) -> Any:
    p = Projector(strict)
    for env in envs:
        p.feed(env)
    return p.finish()


def _outcome(fold: Any, envs: list[E.Envelope], strict: bool) -> Any:
    try:
        pr = fold(envs, strict)
    except ProjectionError as exc:
        return ("error", exc.seq, exc.rule, exc.reason)
    state = snapshot(pr.game) if pr.game is not None else None
    return ("ok", [str(i) for i in pr.issues], pr.last_seq, state)


def _agree(envs: list[E.Envelope]) -> None:
    for strict in (True, False):
        fast = _outcome(lambda e, s: project(e, strict=s), envs, strict)
        slow = _outcome(_copying, envs, strict)
        assert fast == slow


def _with_retractions(envs: list[E.Envelope], where: set[int]) -> list[E.Envelope]:
    """Before each chosen input, retract the previous input and enter it again (with its
    consequences), as a recorder fixing a typo would: the state must come out the same."""
    out: list[E.Envelope] = []
    last: list[E.Envelope] = []  # the latest input and its consequences, renumbered
    for i, env in enumerate(envs):
        if E.is_input(env.event) and i in where and last and last[0].seq > 1:
            retract = E.EntryRetracted(seq=last[0].seq, reason="typo")
            out.append(msgspec.structs.replace(env, seq=len(out) + 1, event=retract))
            again = []
            for e in last:
                again.append(msgspec.structs.replace(e, seq=len(out) + 1))
                out.append(again[-1])
            last = again
        env = msgspec.structs.replace(env, seq=len(out) + 1)
        out.append(env)
        if E.is_input(env.event):
            last = [env]
        else:
            last.append(env)
    return out


def test_real_logs_agree() -> None:
    for envs in real_logs():
        _agree(list(envs))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(envs=mutated_log())
def test_fuzzed_logs_agree(envs: list[E.Envelope]) -> None:
    _agree(envs)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_logs_with_retractions_agree(data: st.DataObject) -> None:
    envs = list(data.draw(st.sampled_from(real_logs())))
    where = data.draw(st.sets(st.integers(0, len(envs) - 1), max_size=6))
    fixed = _with_retractions(envs, where)
    _agree(fixed)
    # a retraction followed by the same entry again changes nothing
    assert snapshot(project(fixed).game) == snapshot(project(envs).game)
