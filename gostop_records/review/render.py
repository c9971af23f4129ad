"""A review as text for a terminal (the HTML page is :mod:`gostop_records.web.review_page`).

Every decision is one line: where it was (seq, seat, kind), the option taken and the best
one, the chips lost with their 95% interval, and the grade; under it the options, each with
its expected chips and interval. A grade stands only where the loss is clear of the noise.
"""

from __future__ import annotations

from .model import DecisionReview, GameReview, HandLuck, HandReview, Interval

__all__ = ["EXACT", "chips", "kind_name", "luck_words", "span", "text", "verdict"]

#: What a decision says when no unseen card changes its chips (a sale, a known end).
EXACT = "exact: no unseen card changes these chips"


def chips(x: float) -> str:
    """Chips with a sign and one decimal (``+8.0``, ``-2.5``)."""
    return f"{x:+.1f}"


def span(i: Interval) -> str:
    """An interval as ``[low, high]``."""
    return f"[{i.low:+.1f}, {i.high:+.1f}]"


def header(r: GameReview) -> str:
    who = "every seat" if r.seat is None else f"seat {r.seat}"
    return (
        f"review of game {r.game_id} · {r.ruleset} · {r.players} players · stake {r.stake} · "
        f"{who}\nrollouts: {r.policy} at every seat, {r.budget} deals of the unseen cards a "
        f"decision, seed {r.seed}; chips from the decision to the end of the hand, 95% intervals"
    )


def kind_name(kind: str) -> str:
    """A decision's kind in words: ``go/stop``, ``flip-only``, ``capture``."""
    return kind.replace("_", "/") if kind == "go_stop" else kind.replace("_", "-")


def verdict(d: DecisionReview) -> str:
    """The grade, after the chips lost when the option taken was not the best found."""
    if d.taken == d.best:
        return d.grade
    return f"lost {d.loss.mean:.1f} chips {span(d.loss)}: {d.grade}"


def luck_words(x: HandLuck) -> str:
    """One seat's luck against skill in a hand."""
    return (
        f"deal worth {chips(x.deal.mean)} {span(x.deal)}, won {x.won:+d}, "
        f"lost to decisions {x.lost:.1f}, luck {chips(x.luck)}"
    )


def decision_lines(d: DecisionReview) -> list[str]:
    head = f"  seq {d.seq:>4}  seat {d.seat}  {kind_name(d.kind):<9} took {d.taken!r}"
    if d.taken != d.best:
        head += f", best {d.best!r}"
    lines = [f"{head}  {verdict(d)}"]
    width = max(len(o.label) for o in d.options)
    for o in sorted(d.options, key=lambda o: -o.chips.mean):
        tags = ", ".join(t for t, on in (("taken", o.taken), ("best", o.best)) if on)
        row = f"        {o.label:<{width}}  {chips(o.chips.mean):>7} {span(o.chips):<17} {tags}"
        lines.append(row.rstrip())
    if not d.samples:
        lines.append(f"        ({EXACT})")
    return lines


def hand_lines(h: HandReview) -> list[str]:
    lines = [f"hand {h.hand}: {len(h.decisions)} decision(s)"]
    for d in h.decisions:
        lines.extend(decision_lines(d))
    if h.luck:
        lines.append("  luck and skill (won = deal worth - lost to decisions + luck):")
        for x in h.luck:
            lines.append(f"    seat {x.seat}: {luck_words(x)}")
    return lines


def text(r: GameReview) -> str:
    """The whole review as lines of text."""
    lines = [header(r)]
    for h in r.hands:
        lines.append("")
        lines.extend(hand_lines(h))
    return "\n".join(lines)
