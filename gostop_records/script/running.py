"""A script run through the rules: every event's payload in log order, the sealed log, and
a log amended at one seq."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from .. import events as E
from .. import log as L
from ..engine.game import GameState, apply_game, start_game
from ..engine.table import table_for
from ..errors import GostopError
from ..rules import Ruleset
from .deals import complete_deal, named_at, parse_input, read_line
from .model import EPOCH, GameScript, ScriptError
from .reading import parse_script


@dataclass(slots=True)
class _Run:
    gs: GameState
    seq: int = 0
    undo: list[tuple[int, GameState]] = field(default_factory=list)


def payloads(script: GameScript) -> Iterator[tuple[int | None, bool, Any]]:
    """(hand field, is input, payload) of every event of a scripted game, in log order."""
    rules = script.rules
    n = script.players
    table = table_for(rules, n, script.stake)
    names = script.names or tuple(f"Player {s + 1}" for s in range(n))
    if len(names) != n:
        raise ScriptError(f"{script.where}: {len(names)} names for {n} players")
    started = E.GameStarted(
        ruleset=rules.pinned(),
        players=[E.Player(id=f"p{s + 1}", name=names[s]) for s in range(n)],
        stake=script.stake,
        venue=script.venue,
        notes=script.notes,
    )
    run = _Run(start_game(script.game_id, started))
    run.seq = 1
    yield None, True, started
    yield from _lines(run, script.pre, script.where)
    for k, hs in enumerate(script.hands, 1):
        where = f"{script.where}, hand {k}"
        # who deals and who plays, by the table grammar's ``hand`` line (one reading)
        words = ["hand"]
        if hs.dealer is not None:
            words += ["dealer", str(hs.dealer)]
        if hs.out:
            words += ["out", *hs.out]
        if hs.order:
            words += ["order", *hs.order]
        here = f"{script.where}, line {hs.line}"
        (head,) = parse_input(" ".join(words), run.gs, here)
        with named_at(here):  # the rules' word on who deals and plays, before the deal
            apply_game(run.gs, head)
        d = complete_deal(table, hs, where, f"{script.game_id}/hand{k}", head)
        started_hand = msgspec.structs.replace(head, deck=d.deck)
        yield from _apply(run, started_hand, where)
        dealt = E.CardsDealt(hands=d.hands, layout=d.layout, stock=d.stock, bonus_to_pile=d.bonus)
        yield from _apply(run, dealt, where)
        yield from _lines(run, hs.inputs, script.where)


def _lines(
    run: _Run, lines: Sequence[tuple[int, str]], where: str
) -> Iterator[tuple[int | None, bool, Any]]:
    for n, text in lines:
        here = f"{where}, line {n}: {text!r}"
        target = run.undo[-1][0] if run.undo else None
        want = read_line(text, here).draw
        for payload in parse_input(text, run.gs, here, target):
            if type(payload) is E.EntryRetracted:
                _target, before = run.undo.pop()
                run.gs = before
                run.seq += 1
                yield _hand_field(run.gs), True, payload
                continue
            for item in _apply(run, payload, here):
                ev = item[2]
                if want is not None and type(ev) is E.BonusCardTaken and ev.replacement != want:
                    raise ScriptError(f"{here}: the card drawn is {ev.replacement}, not {want}")
                yield item


def _hand_field(gs: GameState) -> int | None:
    return gs.hand_no or None


def _apply(run: _Run, payload: Any, where: str) -> Iterator[tuple[int | None, bool, Any]]:
    before = run.gs
    try:
        run.gs, derived = apply_game(before, payload)
    except GostopError as exc:
        state = f"\n{before.hand}" if before.hand is not None else ""
        raise ScriptError(f"{where}: {exc}{state}") from None
    run.seq += 1
    if type(payload) is E.HandStarted:
        run.undo.clear()
    run.undo.append((run.seq, before))
    hand = _hand_field(run.gs)
    yield hand, True, payload
    for ev in derived:
        run.seq += 1
        yield hand, False, ev


def build(
    script: GameScript | str,
    *,
    start: datetime | None = None,
    rules: Ruleset | None = None,
    where: str = "<script>",
) -> list[E.Envelope]:
    """The sealed log of a script (a :class:`GameScript` or its text form).

    Each input takes ``step`` seconds (a ``game`` attribute, default 1) from ``start``; the
    consequences carry the time of the input they follow.
    """
    if isinstance(script, str):
        script = parse_script(script, where=where, rules=rules)
    t = start or EPOCH
    step = timedelta(seconds=script.step_seconds)
    chain = L.Chain()
    out = []
    stamp = L.timestamp(t)
    for seq, (hand, is_input, payload) in enumerate(payloads(script), 1):
        if is_input and seq > 1:
            t += step
            stamp = L.timestamp(t)
        env = L.envelope(
            script.game_id, seq, hand, payload, by=script.by, at=stamp, recorded_at=stamp
        )
        out.append(chain.seal(env))
    return out


def amend(envelopes: Sequence[E.Envelope], seq: int, event: Any) -> list[E.Envelope]:
    """The log with the payload at ``seq`` replaced and the chain sealed again.

    For records of a table that broke a rule: the chain verifies, only the rules object.
    """
    if not any(env.seq == seq for env in envelopes):
        raise ScriptError(f"no event with seq {seq}")
    out = [
        msgspec.structs.replace(env, event=event, prev="", hash="") if env.seq == seq else env
        for env in envelopes
    ]
    return L.seal(out)


def load(path: str | Path, rules: Ruleset | None = None) -> list[E.Envelope]:
    """Build the log of a script file."""
    p = Path(path)
    return build(p.read_text(encoding="utf-8"), where=str(p), rules=rules)
