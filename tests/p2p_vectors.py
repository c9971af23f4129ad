"""A translator of p2p-gostop's engine vectors (tests/vectors/p2p-gostop/) into this engine.

A vector is a position (``setup``: hands, layout, stock top, piles, counters; or ``deal``: a
stacked deck), p2p's actions and what p2p's harness expects afterwards. The translator:

- names cards in this project's codes (``5열`` is 05A, ``11쌍피`` 11D, ``B2b`` B2B);
- plays under ``samples/rulesets/p2p.toml``, with the vector's ``rulesPatch`` turned into
  ruleset overrides (:data:`PATCHES`); a patch no setting can say is :class:`Unsupported`;
- builds the position as a hand state after a deal (the cards a setup leaves out are out of
  play, as in p2p's scenarios);
- turns each p2p action into this engine's inputs: a ``play`` is the played card and the
  stock flips that follow it (p2p flips for the player), a ``chooseTarget`` is the ``chosen``
  layout card of that play or flip, an accepted ``shake`` is a ``shaken`` input before the
  play and a declined one ``shake_declined`` after it (``shake_asked``), a ``chongtong`` end
  is ``four_of_a_month_shown`` and its continue ``four_kept``, ``gukjin`` is
  ``cup_assigned``;
- reads the outcome back in p2p's terms: an event stream of p2p's event names made from this
  engine's consequences (``junk_transferred`` is ``PiStolen``, ``ppuk_made`` is ``Ppeok``,
  ...) and from the state (``GoStopPrompt`` when the hand waits for Go or Stop,
  ``ScoreChanged`` when a seat's score changes), the seats, the layout, the settlement with
  p2p's step kinds, the instant payouts and a ledger of the chips each payment moves.

Comparisons follow p2p's harness (``packages/engine/test/vector-harness.ts``): only the keys a
vector states are compared, event lists are ordered subsequences, card lists are sets. Two
p2p-internal fields are not compared: a ``Ppeok`` event's ``turnIndex`` (p2p's own turn
counter) and a pending prompt's ``resume`` (which of p2p's phases resumes after it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine_helpers import Scenario

from gostop_records import cards as C
from gostop_records import events as E
from gostop_records.engine import Phase, facts_of, legal_actions, settle
from gostop_records.engine.scoring import cup_as_junk
from gostop_records.engine.state import Turn
from gostop_records.errors import IllegalAction
from gostop_records.rules import LastTurnRule, Ruleset, apply_overrides, load_ruleset_file

ROOT = Path(__file__).resolve().parents[1]
VECTORS = Path(__file__).resolve().parent / "vectors" / "p2p-gostop"
RULESET = ROOT / "samples" / "rulesets" / "p2p.toml"
#: The vector files of the suite (push.json and view.json stay out: see docs/rules.md).
FILES = ("score", "pi", "events", "gostop", "settle", "bonus", "deal")


class Unsupported(Exception):
    """The vector asks for something no setting or input of this engine can say."""


def load(name: str) -> list[dict[str, Any]]:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# --- cards ------------------------------------------------------------------------------

_BONUS = {"B2a": "B2", "B2b": "B2B", "B3": "B3"}
_SUFFIX = {
    "광": "G",
    "비광": "G",
    "홍": "R",
    "초": "R",
    "청": "R",
    "비띠": "R",
    "고": "A",
    "열": "A",
    "국진": "A",
    "피a": "J1",
    "피b": "J2",
    "쌍피": "D",
}


def code(name: str) -> str:
    """A p2p card name as this project's card code."""
    if name in _BONUS:
        return _BONUS[name]
    m = re.fullmatch(r"(\d+)(.+)", name)
    if m is None or m.group(2) not in _SUFFIX:
        raise ValueError(f"unknown p2p card {name!r}")
    c = f"{int(m.group(1)):02d}{_SUFFIX[m.group(2)]}"
    if c not in C.CODES:
        raise ValueError(f"unknown p2p card {name!r}")
    return c


_RIBBON = {1: "홍", 2: "홍", 3: "홍", 4: "초", 5: "초", 7: "초", 6: "청", 9: "청", 10: "청"}


def name(code_: str) -> str:
    """This project's card code as p2p's card name."""
    for n, c in _BONUS.items():
        if c == code_:
            return n
    month, rest = int(code_[:2]), code_[2:]
    if rest == "G":
        suffix = "비광" if month == 12 else "광"
    elif rest == "R":
        suffix = _RIBBON.get(month, "비띠")
    elif rest == "A":
        suffix = "고" if month in (2, 4, 8) else "국진" if month == 9 else "열"
    else:
        suffix = {"J1": "피a", "J2": "피b", "D": "쌍피"}[rest]
    return f"{month}{suffix}"


def mask(names: list[str]) -> int:
    return C.mask_of([code(n) for n in names])


def names(m: int) -> list[str]:
    return sorted(name(c) for c in C.codes(m))


# --- rules ------------------------------------------------------------------------------


def _patch(rules: Ruleset, key: str, value: Any) -> dict[str, Any]:
    if key == "gukjin":
        return {"cup_mode": {"ask": "player_choice", "auto": "auto_best"}[value]}
    if key == "piBakZeroExempt":
        return {"pi_bak_zero_exempt": value}
    if key == "piBakThreshold":
        return {"pi_bak_max_units": value}
    if key == "nagariCap":
        return {"nagari_carry_cap": value}
    if key == "goScoring" and value == "doubleOnly":
        return {"go_payout": "double_from_third"}
    if key == "threePpeokPoints":
        return {"three_ppuk_points": value}
    if key == "chongtongPoints":
        return {"hand_four_points": value}
    if key == "ppeokPayout":
        return {"first_ppuk_points": {"off": [], "baseMultiple": [1, 2, 3]}[value]}
    if key == "firstTtadakPayout" and value is False:
        return {"first_ttadak_points": 0}
    if key == "lastTurnPpeokSteal" and value is True:
        return {
            "last_turn_exceptions": sorted(rules.last_turn_exceptions - {LastTurnRule.PPUK_TAKEN})
        }
    if key == "naturalPpeokSteal" and value is False:
        return {"natural_stack_steal": 0}
    if key == "twoCardBomb":
        return {
            "two_card_bomb": True,
            "two_card_bomb_multiplier": {"noMultiplier": 1, "double": None}[value],
        }
    if key == "bothChongtong" and value == "dealerWins":
        return {"all_hand_fours": "dealer_wins"}
    if key == "floorChongtong" and value in ("dealerWins", "redeal"):
        return {"layout_four": {"dealerWins": "dealer_wins", "redeal": "redeal"}[value]}
    if key == "bonusCards":
        return {"bonus_cards": {0: [], 2: ["B2", "B3"], 3: ["B2", "B3", "B2B"]}[value]}
    if key == "bonusChongtong":
        four = {"never": "never", "firstTurn": "first_turn", "always": "always"}[value]
        return {"bonus_four": four}
    if key == "chongtongContinue" and value is False:
        return {"hand_four_keep": False}  # shown at once: the translator shows it, as p2p does
    if key == "firstDealer" and value in ("pickCard", "timeOfDay", "rockPaperScissors"):
        # pickCard: the highest month deals (a draw by day); timeOfDay: by the vector's isNight;
        # rockPaperScissors is a name p2p's engine does not play (rules.ts lists it among
        # UNIMPLEMENTED_RULES: "replaced by the card pick"), so its table draws by day as
        # under pickCard (_first_pick reads isNight under timeOfDay only)
        return {"first_dealer": "draw"}
    if key == "dealFloorBonusSteal":
        # p2p's bonus dealt to the layout steals only as the deal ends (deal.ts: gainCards
        # with steal at the deal), when every pile is still empty: nothing can be taken, so
        # either value plays the same hands as this engine (a deal's bonus takes no junk)
        return {}
    if key == "hudang":
        # E14: five turns in a row without a card taken win 7 points (INSTANT_UNIT_POINTS)
        return {"hudang_turns": 5 if value else None, "hudang_points": 7}
    if key == "limitedLiability":
        return {"chip_limit": "limited_liability" if value else "holdings"}
    raise Unsupported(f"rulesPatch {key}={json.dumps(value)}: no ruleset setting says it")


def rules_of(v: dict[str, Any]) -> Ruleset:
    base = load_ruleset_file(RULESET)
    over: dict[str, Any] = {}
    preset = v.get("preset")
    if preset == "traditional":
        over["bonus_steal"] = 0  # p2p's traditional preset: bonusSteal=false
    elif preset == "arcade":
        # p2p's arcade preset: a x2 jackpot every fifth hand, on every win (rules.ts ARCADE,
        # settle.ts applyRoundMultipliers: instant wins too). Its push is an answer to a win
        # that no vector gives (a push action is Unsupported: no input says it here).
        over.update(jackpot_every=5, jackpot_multiplier=2)
        for kind in ("hand_four", "three_ppuk", "hudang"):
            over[f"{kind}_factors"] = sorted({*base.instant_factors(kind), "jackpot"})
    elif preset is not None:
        raise Unsupported(f"p2p preset {preset!r} has no ruleset")
    if "pickPools" in (v.get("deal") or {}):
        over["first_dealer"] = "draw"  # p2p's first pick (R4) starts the vector
    if ((v.get("expect") or {}).get("ledger") or {}).get("start") is not None:
        # a ledger from balances: p2p's table caps a payment at the loser's (M2), so the
        # chips are counted (see _scenario) under chip_limit = holdings
        over["chip_limit"] = "holdings"
    for key, value in (v.get("rulesPatch") or {}).items():
        over.update(_patch(base, key, value))
    return apply_overrides(base, {"name": "p2p", **over}, v["id"]) if over else base


# --- running a vector -------------------------------------------------------------------

_REASONS = {
    "bonus": "bonus",
    "ppuk_taken": "ppeokTaken",
    "own_ppuk": "selfPpeok",
    "stack": "naturalPpeok",
    "jjok": "jjok",
    "ttadak": "ttadak",
    "sseul": "sseul",
    "bomb": "bomb",
}
_END = {
    "stop": "stop",
    "auto_stop": "autoStop",
    "cards_exhausted": "exhausted",
    "three_ppuk": "threePpeok",
    "hand_four": "chongtong",
    "hand_fours": "bothChongtong",
    "layout_four": "floorChongtong",
    "hudang": "hudang",
}
_PPUK_KIND = {1: "firstPpeok", 2: "secondPpeok", 3: "thirdPpeok"}
_STEPS = {
    "shake": "shake",
    "bomb": "bomb",
    "pi_bak": "piBak",
    "gwang_bak": "gwangBak",
    "meong_tta": "meongtta",
    "go_bak": "goBak",
    "nagari_carry": "nagariCarry",
    "jackpot": "jackpot",
}


@dataclass
class Run:
    """A vector played through the engine, and what it produced in p2p's terms."""

    sc: Scenario
    events: list[dict[str, Any]] = field(default_factory=list)
    payouts: list[dict[str, Any]] = field(default_factory=list)
    target: tuple[int, str, list[str], str] | None = None  # a play or flip awaiting its choice
    rejected: int | None = None
    both_fours: bool = False
    start: int = 0  # the actions the start used (the first pick's)
    to_pick: list[int] = field(default_factory=list)  # seats yet to pick for the first deal

    @property
    def h(self) -> Any:
        return self.sc.game.hand  # None while the first dealer is being drawn


def _breakdown(run: Run, seat: int) -> dict[str, Any]:
    h = run.h
    sc = h.itemised(seat)
    pts = {ln.combo: ln.points for ln in sc.lines}
    pile = h.piles[seat]
    return {
        "total": sc.total,
        "gwang": pts.get("bright", 0),
        "yeol": pts.get("animal", 0),
        "godori": pts.get("godori", 0),
        "tti": pts.get("ribbon", 0),
        "hongdan": pts.get("hongdan", 0),
        "cheongdan": pts.get("cheongdan", 0),
        "chodan": pts.get("chodan", 0),
        "pi": pts.get("junk", 0),
        "piCount": sc.junk_units,
        "yeolCount": sc.animals,
        "gukjinAsPi": bool(pile & C.CUP) and sc.cup_role == "junk",
    }


def build(v: dict[str, Any], rules: Ruleset, stake: int) -> Run:
    """The vector's starting position."""
    if "deal" in v:
        return _build_deal(v, rules, stake)
    s = v["setup"]
    sc = _scenario(v, rules, stake)
    dealer = s.get("dealer", 0)
    turn = s.get("turn", 0)
    # a legal deal first, then the vector's position in its place (the cards a setup leaves
    # out are out of play, as in p2p's scenarios)
    # the hand's number in the game (p2p's roundNumber: its jackpot rounds)
    sc.game.hand_no = s.get("roundNumber", 1) - 1
    sc.start_hand(dealer)
    sc.input(sc.dealt([[], []], _layout_fill(sc), []))
    h = sc.hand
    n = 2
    h.order = [turn, 1 - turn]
    h.turn_index = 0
    h.turn_seat = turn
    h.hands = [mask(x) for x in s["hands"]]
    h.hand_unknown = [0] * n
    captured = s.get("captured") or [[], []]
    h.piles = [mask(x) for x in captured]
    layout = mask(s.get("floor") or [])
    h.owner = [-1] * 13
    h.buried = [0] * 13
    for pile in s.get("ppeokPiles") or []:
        cards = mask(pile["cards"])
        month = C.month_of(C.index(code(pile["cards"][0])))
        h.buried[month] = cards & C.BONUS
        layout |= cards
        if pile.get("owner") is not None:
            h.owner[month] = pile["owner"]
    h.layout = layout
    h.stock = [C.index(code(x)) for x in s.get("deck") or []]
    h.stock_pos = 0
    h.stock_count = len(h.stock)
    h.seen = layout | h.piles[0] | h.piles[1] | h.hands[0] | h.hands[1] | mask(s.get("deck") or [])
    seats = s.get("seats") or [{}, {}]
    for seat, info in enumerate(seats):
        h.turns_taken[seat] = info.get("turnsTaken", 0)
        h.go_count[seat] = info.get("goCount", 0)
        h.go_score[seat] = info.get("lastGoScore", 0)
        h.go_order[seat] = seat + 1 if h.go_count[seat] else 0
        h.shakes[seat] = info.get("shakes", 0)
        h.bombs[seat] = info.get("bombs", 0)
        ppuk_turns = info.get("ppeokTurns", [])
        h.ppuk_count[seat] = len(ppuk_turns)
        streak = 0
        while streak + 1 in ppuk_turns:
            streak += 1
        h.ppuk_streak[seat] = streak  # ppuk on turns 1..k in a row: the first-ppuk streak
        h.idle_turns[seat] = info.get("noCaptureStreak", 0)
    h.cup_role = None
    if any(info.get("gukjinAsPi") for info in seats):
        h.cup_role = "junk"
    elif rules.cup_mode.value == "player_choice" and (h.piles[0] | h.piles[1]) & C.CUP:
        h.cup_role = "animal"
    carry = s.get("carry", 1)
    h.carry = carry
    sc.game.carry = carry
    h.fours_pending = 0
    h.phase = Phase.PLAY
    h.turn = Turn(h.layout)
    h.instant_dues = []
    h.turn_ends = []
    return Run(sc)


def _scenario(v: dict[str, Any], rules: Ruleset, stake: int) -> Scenario:
    """A game of two; the chips each holds counted first when the vector's ledger starts
    from balances (p2p caps a payment at them: ``chip_limit``)."""
    sc = Scenario(rules, stake=stake)
    start = (v["expect"].get("ledger") or {}).get("start")
    if start is not None:
        sc.input(E.ChipsCounted(chips=list(start)))
    return sc


def _layout_fill(sc: Scenario) -> list[str]:
    """Any legal layout, replaced by the vector's own right after the deal."""
    t = sc.table
    out: list[str] = []
    for m in range(1, 13):
        if len(out) == t.layout_size:
            break
        out.append(C.codes(C.MONTH_MASKS[m])[0])
    return out


def _build_deal(v: dict[str, Any], rules: Ruleset, stake: int) -> Run:
    d = v["deal"]
    sc = _scenario(v, rules, stake)
    dealer = d.get("dealer", 0)
    used, first_events = 0, []
    if "pickPools" in d:
        drawn = _first_pick(v, sc)
        if drawn.rejected is not None or drawn.to_pick:
            return drawn  # the draw waits for a pick: no deal yet
        dealer, used = sc.game.next_dealer, drawn.start
        first_events = drawn.events
    carry = d.get("carry", 1)
    sc.game.carry = carry
    top = [code(x) for x in d.get("deck") or []]
    # no stacked deck (a first-pick vector): the months spread, so no four is dealt
    order = top + [c for c in C.codes(sc.table.deck) if c not in top] if top else _spread(sc)
    run = Run(sc, events=first_events, start=used)
    _deal(run, dealer, order)
    h = sc.hand
    if h.phase is Phase.ENDED and h.outcome == "void" and h.reason == "layout_four":
        # p2p redeals at once (R6 redeal); here the void hand ends and the same dealer deals
        # the next hand (the dealer stays and the carry is unchanged after a void deal).
        # The facts are the same: a void deal recorded, then a deal by the same dealer.
        # p2p draws the new deck from its seed, which the vector does not state: any deal
        # with no four on the layout stands for it.
        ended = max(i for i, x in enumerate(run.events) if x["type"] == "RoundEnded")
        run.events[ended] = {"type": "Redealt", "seat": dealer}
        _deal(run, dealer, _spread(sc))
    h = sc.hand
    holders = [seat for seat in range(2) if h.fours_pending & (1 << seat)]
    auto = len(holders) > 1 or (
        holders and (v.get("rulesPatch") or {}).get("chongtongContinue") is False
    )
    if auto:
        run.both_fours = len(holders) > 1
        _show_fours(run, holders, "auto")
    return run


def _spread(sc: Scenario) -> list[str]:
    """A deck order whose months spread over hands and layout, so that no four is dealt."""
    by_month = [C.codes(C.MONTH_MASKS[m]) for m in range(1, 13)]
    top = [ms[r] for r in range(4) for ms in by_month]
    return top + [c for c in C.codes(sc.table.deck) if c not in top]


def _deal(run: Run, dealer: int, order: list[str]) -> None:
    """The hand started and dealt from ``order`` as p2p deals (dealer's hand, the other's,
    then the layout), with p2p's events.

    A bonus card dealt to the layout goes to the dealer's pile and the layout is filled up
    from the stock within ``cards_dealt`` (``bonus_to_pile``); p2p tells each replacement as
    a ``CardFlipped`` of the dealer. The facts are the same: p2p lays the replacement loose on
    the layout (deal.ts placeLoose), it captures nothing, and ``cards_dealt`` names it as
    the layout card dealt after the eight places, in the order dealt."""
    sc = run.sc
    t = sc.table
    hs = t.hand_size
    hands: list[list[str]] = [[], []]
    hands[dealer] = order[:hs]
    hands[1 - dealer] = order[hs : 2 * hs]
    pos = 2 * hs
    layout: list[str] = []
    bonus: list[str] = []
    while len(layout) < t.layout_size:
        c = order[pos]
        pos += 1
        (bonus if c in C.BONUS_CODES else layout).append(c)
    stock = order[pos:]
    sc.start_hand(dealer)
    out = sc.input(E.CardsDealt(hands=hands, layout=layout, stock=stock, bonus_to_pile=bonus))
    run.events.append(
        {"type": "Dealt", "seat": dealer, "dealer": dealer, "deckCount": sc.hand.stock_remaining()}
    )
    _record(run, out)
    # p2p's refills: the cards dealt after its eight layout places, a round per bonus found
    placed = t.layout_size
    dealt = order[2 * hs : pos]
    found = [c for c in dealt[:placed] if c in C.BONUS_CODES]
    while found:
        refills = dealt[placed : placed + len(found)]
        run.events.append(
            {"type": "CardFlipped", "seat": dealer, "cards": [name(c) for c in refills]}
        )
        placed += len(found)
        found = [c for c in refills if c in C.BONUS_CODES]


def _first_pick(v: dict[str, Any], sc: Scenario) -> Run:
    """p2p's first pick (R4) as ``dealer_drawn`` inputs (first_dealer = draw).

    In each round every seat still drawing picks a card of that round's pool by index; p2p's
    pickCard deals to the highest month (a draw by day), timeOfDay by its ``isNight``. This
    engine takes a round's draws as one input, so the round is entered when its last seat
    has picked and a refused draw is that pick. The dealer the input names is p2p's rule as
    stated here; the engine refuses it if its own rule disagrees."""
    d = v["deal"]
    night = bool(d.get("isNight")) and (v.get("rulesPatch") or {}).get("firstDealer") == (
        "timeOfDay"
    )
    reject = (v["expect"].get("reject") or {}).get("index")
    actions = v.get("actions") or []
    run = Run(sc)
    seats, rnd, ties = [0, 1], 0, 0
    picks: dict[int, str] = {}
    k = 0
    while k < len(actions) and actions[k]["type"] == "pickFirst":
        a = actions[k]
        card = code(d["pickPools"][rnd][a["index"]])
        picks[a["seat"]] = card
        run.to_pick = [s for s in seats if s not in picks]
        if run.to_pick:
            k += 1
            continue
        # p2p's compareFirstPick: a bonus card beats every month, two bonus cards tie
        bonus = [s for s in seats if picks[s] in C.BONUS_CODES]
        months = {s: C.month_of(C.index(c)) for s, c in picks.items() if s not in bonus}
        if bonus:
            top = bonus
        else:
            best = (min if night else max)(months.values())
            top = [s for s in seats if months[s] == best]
        dealer = top[0] if len(top) == 1 else None
        reason = "bonus" if bonus else "month"
        by_lot = dealer is None and ties + 1 >= 3  # p2p's FIRST_PICK_MAX_TIES
        if by_lot:
            # p2p draws the seat from its seeded generator, which the vector does not
            # state: the record names the seat the lot chose, here the first tied seat
            dealer, reason = top[0], "random"
        draws = [E.DealerDraw(seat=s, card=picks[s]) for s in sorted(picks)]
        try:
            sc.input(E.DealerDrawn(draws=draws, night=night, dealer=dealer, by_lot=by_lot))
        except IllegalAction:
            if k != reject:
                raise
            run.rejected = k
            del picks[a["seat"]]
            run.to_pick = [s for s in seats if s not in picks]
            return run
        run.events.append({"type": "FirstPicked", "picks": [name(picks[s]) for s in seats]})
        k += 1
        if by_lot:
            run.events.append({"type": "FirstPickTie", "ties": ties + 1})
        if dealer is None:
            ties += 1
            run.events.append({"type": "FirstPickTie", "ties": ties})
            seats, picks, rnd = list(sc.game.draw_tied), {}, rnd + 1
            continue
        run.events.append({"type": "FirstPickerChosen", "seat": dealer, "reason": reason})
        run.start = k
        return run
    if not run.to_pick:
        run.to_pick = seats  # no pick yet
    return run


def _show_fours(run: Run, seats: list[int], choice: str) -> None:
    h = run.h
    shown = []
    for seat in seats:
        for m in range(1, 13):
            if h.hands[seat] & C.MONTH_MASKS[m] == C.MONTH_MASKS[m]:
                shown.append(E.FourShown(seat=seat, month=m, cards=C.codes(C.MONTH_MASKS[m])))
                run.events.append(
                    {
                        "type": "Chongtong",
                        "seat": seat,
                        "months": [m],
                        "choice": choice,
                        "cards": names(C.MONTH_MASKS[m]),
                    }
                )
    out = run.sc.input(E.FourOfAMonthShown(shown=shown))
    _record(run, out)


def _record(run: Run, out: list[Any], before: Any = None) -> None:
    """This engine's consequences as p2p's events, in order."""
    h = run.h
    sseul_said = False
    drawn: list[dict[str, Any]] = []  # p2p tells the replacement drawn after the steals
    for ev in out:
        t = type(ev)
        if t is E.CardsCaptured:
            cards = C.mask_of(ev.cards)
            run.events.append({"type": "Captured", "seat": ev.seat, "cards": names(cards)})
            kind = ev.kind
            if kind in ("jjok", "ttadak") and before is not None and _last_turn(before, ev.seat):
                # a last-turn jjok or ttadak is no special in p2p: just the cards taken
                kind = "last_turn"
            if kind == "pair":
                played = before.turn.played if before is not None and before.turn else -1
                layout_card = [
                    c
                    for c in ev.cards
                    if (before is None or before.layout & C.bit(c)) and C.index(c) != played
                ]
                run.events.append(
                    {
                        "type": "Matched",
                        "seat": ev.seat,
                        "source": "play" if ev.source == "hand" else "flip",
                        "target": name(layout_card[0]) if layout_card else None,
                    }
                )
            elif kind == "jjok":
                run.events.append({"type": "Jjok", "seat": ev.seat, "cards": names(cards)})
            elif kind == "ttadak":
                run.events.append({"type": "Ttadak", "seat": ev.seat, "cards": names(cards)})
            elif kind in ("ppuk_taken", "stack", "own_ppuk"):
                month = C.month_of(C.index(ev.cards[0]))
                owner = before.owner[month] if before is not None else -1
                run.events.append(
                    {
                        "type": "PpeokTaken",
                        "seat": ev.seat,
                        "pileOwner": None if owner < 0 else owner,
                        "natural": kind == "stack",
                    }
                )
                if kind == "own_ppuk":
                    run.events.append({"type": "SelfPpeok", "seat": ev.seat})
        elif t is E.PpukMade:
            run.events.append(
                {
                    "type": "Ppeok",
                    "seat": ev.seat,
                    "cards": names(C.mask_of(ev.cards)),
                    "count": ev.count,
                }
            )
        elif t is E.BonusCardTaken:
            source = ev.source
            if source == "layout":
                source = "deal" if before is None else "floor"
            run.events.append(
                {"type": "BonusGained", "seat": ev.seat, "cards": [name(ev.card)], "source": source}
            )
            if ev.replacement is not None:
                drawn.append(
                    {"type": "CardDrawn", "seat": ev.seat, "cards": [name(ev.replacement)]}
                )
        elif t is E.JunkTransferred:
            if ev.reason == "sseul" and not sseul_said:
                sseul_said = True
                # p2p tells the sweep before the steals of the turn
                first = next(
                    i
                    for i in range(len(run.events) - 1, -1, -1)
                    if run.events[i]["type"] != "PiStolen"
                )
                run.events.insert(first + 1, {"type": "Sseul", "seat": ev.to_seat})
            stolen = {
                "type": "PiStolen",
                "seat": ev.to_seat,
                "from": ev.from_seat,
                "to": ev.to_seat,
                "cards": [name(ev.card)],
                "reason": _REASONS[ev.reason],
            }
            if ev.reason == "bomb":
                # p2p steals for a bomb as it is played, before the flip (turn.ts actBomb);
                # here the bomb's steal is the first of its turn's steals, taken as the turn
                # resolves. The same card changes hands for the same reason: nothing between
                # the bomb and the resolution can change the opponent's pile, and no steal
                # of the turn comes before the bomb's. So it is told after the bomb.
                at = max(i for i, x in enumerate(run.events) if x["type"] == "Bomb") + 1
                while at < len(run.events) and run.events[at]["type"] == "PiStolen":
                    at += 1
                run.events.insert(at, stolen)
            else:
                run.events.append(stolen)
        elif t is E.PaymentDue:
            if ev.reason in ("first_ppuk", "first_ttadak"):
                kind = (
                    _PPUK_KIND.get(h.ppuk_streak[ev.payee], "firstPpeok")
                    if ev.reason == "first_ppuk"
                    else "firstTtadak"
                )
                pay = {"kind": kind, "to": ev.payee, "from": ev.payer, "points": ev.points}
                run.payouts.append(pay)
                run.events.append({"type": "InstantPayout", "seat": ev.payee, **pay})
        elif t is E.HandEnded:
            if ev.reason == "hudang":
                run.events.append({"type": "Hudang", "seat": ev.winner})
            reason = _END.get(ev.reason, ev.reason)
            if run.both_fours:
                reason = "bothChongtong"
            run.events.append({"type": "RoundEnded", "reason": reason, "winner": ev.winner})
            if ev.outcome == "nagari":
                run.events.append({"type": "Nagari", "multiplier": ev.next_carry})
        elif t is E.StopCalled:
            run.events.append({"type": "Stop", "seat": ev.seat, "auto": ev.auto})
    run.events.extend(drawn)


def _last_turn(before: Any, seat: int) -> bool:
    """Whether the turn resolving on this input is the seat's last, with the ruleset voiding
    jjok and ttadak on it (the state before the input: after the play, before the flip)."""
    rules = before.table.rules
    voided = {LastTurnRule.JJOK, LastTurnRule.TTADAK} <= rules.last_turn_exceptions
    return voided and before.turns_left(seat) == 0


def _after_input(run: Run, scores: list[dict[str, Any]]) -> list[dict[str, Any]]:
    h = run.h
    now = [_breakdown(run, s) for s in range(2)]
    for s in range(2):
        if now[s] != scores[s]:
            run.events.append({"type": "ScoreChanged", "seat": s, "breakdown": now[s]})
    if h.phase is Phase.DECIDE:
        run.events.append(
            {"type": "GoStopPrompt", "seat": h.decider, "score": h.score_of(h.decider)}
        )
    return now


def _input(run: Run, ev: Any, scores: list[dict[str, Any]]) -> list[dict[str, Any]]:
    before = run.h.copy()
    out = run.sc.input(ev)
    t = type(ev)
    after = run.h
    for seat in range(2):
        if after.kept_fours[seat] > before.kept_fours[seat]:
            # the holder played on instead of showing: p2p's "continue" answer
            months = [
                m for m in range(1, 13) if before.hands[seat] & C.MONTH_MASKS[m] == C.MONTH_MASKS[m]
            ]
            run.events.append(
                {
                    "type": "Chongtong",
                    "seat": seat,
                    "months": months,
                    "choice": "continue",
                    "cards": names(sum(C.MONTH_MASKS[m] for m in months)),
                }
            )
    if t is E.CardPlayed:
        run.events.append(
            {
                "type": "CardPlayed",
                "seat": ev.seat,
                "cards": [name(ev.card)],
                "bonus": ev.card in C.BONUS_CODES,
            }
        )
    elif t is E.CardFlipped:
        run.events.append({"type": "CardFlipped", "seat": ev.seat, "cards": [name(ev.card)]})
    elif t is E.Shaken:
        run.events.append(
            {
                "type": "Shake",
                "seat": ev.seat,
                "month": ev.month,
                "accepted": True,
                "cards": names(C.mask_of(ev.cards)),
            }
        )
    elif t is E.ShakeDeclined:
        run.events.append(
            {"type": "Shake", "seat": ev.seat, "month": ev.month, "accepted": False, "cards": []}
        )
    elif t is E.BombPlayed:
        cards = C.mask_of(ev.cards)
        run.events.append(
            {
                "type": "Bomb",
                "seat": ev.seat,
                "month": ev.month,
                "handCards": len(ev.cards),
                "cards": names(cards | before.layout & C.MONTH_MASKS[ev.month]),
            }
        )
    elif t is E.GoCalled:
        run.events.append({"type": "Go", "seat": ev.seat, "count": ev.count, "score": ev.score})
    elif t is E.CupAssigned:
        run.events.append({"type": "GukjinPlaced", "seat": ev.seat, "asPi": ev.role == "junk"})
    _record(run, out, before)
    return _after_input(run, scores)


def _choice_needed(h: Any, card: str) -> bool:
    i = C.index(card)
    return (h.layout & C.MONTH_MASKS[C.month_of(i)]).bit_count() == 2


def play(v: dict[str, Any], run: Run) -> None:
    """The vector's actions, as this engine's inputs."""
    actions = list(v.get("actions") or [])
    reject = (v["expect"].get("reject") or {}).get("index")
    if run.h is None or run.rejected is not None:
        return  # the first dealer is still being drawn
    scores = [_breakdown(run, s) for s in range(2)]
    k = run.start
    while k < len(actions):
        a = actions[k]
        nxt = actions[k + 1] if k + 1 < len(actions) else None
        try:
            k, scores = _act(run, a, nxt, k, scores)
        except IllegalAction:
            if k == reject:
                run.rejected = k
                return
            raise
        if run.target is not None:
            return


def _act(
    run: Run, a: dict[str, Any], nxt: dict[str, Any] | None, k: int, scores: list[dict[str, Any]]
) -> tuple[int, list[dict[str, Any]]]:
    kind = a["type"]
    seat = a.get("seat", 0)
    h = run.h
    step = k + 1
    target = None
    if nxt is not None and nxt["type"] == "chooseTarget":
        target = code(nxt["card"])
        step = k + 2
    if kind == "play":
        card = code(a["card"])
        answer = None
        if nxt is not None and nxt["type"] == "shake":
            step = k + 2
            answer = bool(nxt.get("accept"))
            if answer:
                # an accepted shake is told before the card, as p2p tells it (Shake, then
                # CardPlayed): the same facts as the answer after the card
                month = C.month_of(C.index(card))
                cards = h.hands[seat] & C.MONTH_MASKS[month]
                scores = _input(run, E.Shaken(seat=seat, month=month, cards=C.codes(cards)), scores)
        chosen = None
        if card not in C.BONUS_CODES and _choice_needed(h, card):
            if target is None:
                options = sorted(C.codes(h.layout & C.MONTH_MASKS[C.month_of(C.index(card))]))
                run.target = (seat, card, options, "play")
                return step, scores
            chosen, target = target, None
        scores = _input(run, E.CardPlayed(seat=seat, card=card, chosen=chosen), scores)
        if _shake_due(run):
            if answer is None:
                return step, scores  # p2p's shake prompt: the answer is the next action
            scores = _answer_shake(run, seat, answer, scores)
        scores = _flips(run, seat, target, scores)
        return step, scores
    if kind == "bomb":
        month = a["month"]
        cards = h.hands[seat] & C.MONTH_MASKS[month]
        scores = _input(run, E.BombPlayed(seat=seat, month=month, cards=C.codes(cards)), scores)
        return k + 1, _flips(run, seat, None, scores)
    if kind == "flipOnly":
        scores = _input(run, E.FlipOnlyPlayed(seat=seat), scores)
        return k + 1, _flips(run, seat, None, scores)
    if kind == "go":
        ev = E.GoCalled(seat=seat, count=h.go_count[seat] + 1, score=h.score_of(seat))
        return k + 1, _input(run, ev, scores)
    if kind == "stop":
        return k + 1, _input(run, E.StopCalled(seat=seat, score=h.score_of(seat)), scores)
    if kind == "gukjin":
        role = "junk" if a["asPi"] else "animal"
        return k + 1, _input(run, E.CupAssigned(seat=seat, role=role), scores)  # type: ignore[arg-type]
    if kind == "chongtong":
        if not h.fours_pending & (1 << seat):
            raise AssertionError(f"seat {seat} has no four waiting to be shown or kept")
        if a["choice"] == "continue":
            # the holder's own decision, recorded when made (four_kept)
            return k + 1, _input(run, E.FourKept(seat=seat), scores)
        _show_fours(run, [seat], "end")
        return k + 1, [_breakdown(run, s) for s in range(2)]
    if kind == "shake":
        if not _shake_due(run):
            raise Unsupported("a shake answered with no shake asked")
        scores = _answer_shake(run, seat, bool(a.get("accept")), scores)
        return k + 1, _flips(run, seat, None, scores)
    raise Unsupported(f"p2p action {kind!r} has no input here")


def _shake_due(run: Run) -> int:
    """The month whose shake the player is asked about (shake_asked), or 0."""
    turn = run.h.turn
    return turn.shake_due if run.h.phase is Phase.FLIP and turn is not None else 0


def _answer_shake(
    run: Run, seat: int, accept: bool, scores: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """p2p's answer to its shake prompt: ``shaken`` with the card played, or
    ``shake_declined``."""
    h = run.h
    m = _shake_due(run)
    if accept:
        shown = h.hands[seat] & C.MONTH_MASKS[m] | C.bit(C.ALL_CARDS[h.turn.played].code)
        return _input(run, E.Shaken(seat=seat, month=m, cards=C.codes(shown)), scores)
    return _input(run, E.ShakeDeclined(seat=seat, month=m), scores)


def _flips(
    run: Run, seat: int, target: str | None, scores: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The stock flips p2p makes for the player after a play."""
    while run.h.phase in (Phase.FLIP, Phase.FLIP_AS_PLAY) and run.h.turn_seat == seat:
        h = run.h
        top = h.stock_top()
        if top is None:
            raise Unsupported("the vector's stock runs out before the turn ends")
        card = C.ALL_CARDS[top].code
        chosen = None
        if card not in C.BONUS_CODES and _choice_needed(h, card) and h.phase is Phase.FLIP:
            played = h.turn.played
            same = played >= 0 and C.month_of(played) == C.month_of(top)
            if not same:
                if target is None:
                    options = sorted(C.codes(h.layout & C.MONTH_MASKS[C.month_of(top)]))
                    run.target = (seat, card, options, "flip")
                    return scores
                chosen, target = target, None
        scores = _input(run, E.CardFlipped(seat=seat, card=card, chosen=chosen), scores)
    return scores


# --- comparing ----------------------------------------------------------------------------


def partial(got: Any, want: Any) -> bool:
    """p2p's partialMatch: only the keys ``want`` states; lists by length and item."""
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(partial(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, dict):
        return isinstance(got, dict) and all(partial(got.get(k), w) for k, w in want.items())
    return bool(got == want)


def _norm(ev: dict[str, Any]) -> dict[str, Any]:
    out = dict(ev)
    if isinstance(out.get("cards"), list):
        out["cards"] = sorted(out["cards"])
    out.pop("turnIndex", None)  # p2p's own turn counter
    return out


def _subsequence(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    start = 0
    for w in want:
        nw = _norm(w)
        for i in range(start, len(got)):
            if partial(_norm(got[i]), nw):
                start = i + 1
                break
        else:
            raise AssertionError(f"event {w} not found in order in {[e['type'] for e in got]}")


def _steps(run: Run) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The settlement of the hand in p2p's terms: its fields and its steps."""
    h = run.h
    g = run.sc.game
    res: dict[str, Any] = {"nextCarry": g.carry, "nextDealer": g.next_dealer}
    if h.outcome in ("nagari", "void"):
        res.update(winner=None, finalPoints=0)
        return res, []
    w = h.winner
    res["winner"] = w
    res["loser"] = 1 - w
    if h.outcome == "instant":
        due = next(d for d in g.results[-1].dues if d[4] not in ("first_ppuk", "first_ttadak"))
        rules = h.table.rules
        base = {
            "three_ppuk": rules.three_ppuk_points,
            "hand_four": rules.hand_four_points,
            "layout_four": rules.hand_four_points,
            "hudang": rules.hudang_points,
        }[h.reason]
        steps = [{"kind": "base", "value": base}]
        if due[2] != base:
            steps.append({"kind": "nagariCarry", "value": due[2] // base})
        res.update(finalPoints=due[2], multiplier=due[2] // base, basePoints=base)
        return res, steps
    proof = h.proof
    lo = proof.losers[0]
    s = proof.score.total
    n = proof.go_count
    steps = [{"kind": "base", "value": s}]
    gp = proof.go_points
    if n:
        if gp == s + n:
            steps.append({"kind": "goBonus", "value": n})
        elif gp == (s + n) * 2 ** (n - 2):
            steps += [
                {"kind": "goBonus", "value": n},
                {"kind": "goMultiplier", "value": 2 ** (n - 2)},
            ]
        elif gp == s * 2 ** (n - 2):
            steps.append({"kind": "goMultiplier", "value": 2 ** (n - 2)})
    for f in lo.factors:
        if lo.applies(f.rule) and f.rule in _STEPS:
            steps.append({"kind": _STEPS[f.rule], "value": f.factor})
    res.update(finalPoints=lo.pays_points, basePoints=s, multiplier=lo.multiplier)
    cups = []
    for seat in range(2):
        pile = h.piles[seat]
        if seat == w:
            cups.append(bool(pile & C.CUP) and proof.score.cup_role == "junk")
        else:
            # the loser's cup moves to junk where that dodges pi-bak (loser_cup_protects)
            rules = h.table.rules
            dodge = rules.loser_cup_protects and h.table.units(pile) <= rules.pi_bak_max_units
            cups.append(bool(pile & C.CUP) and dodge)
    res["gukjinAsPi"] = cups
    return res, steps


def _same_steps(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> bool:
    """Base and Go steps in order, the factors in any order (their product is the same)."""
    head = [s for s in want if s["kind"] in ("base", "goBonus", "goMultiplier")]
    ghead = [s for s in got if s["kind"] in ("base", "goBonus", "goMultiplier")]
    key = lambda s: (s["kind"], s["value"])  # noqa: E731
    tail = sorted((key(s) for s in want if s not in head), key=str)
    gtail = sorted((key(s) for s in got if s not in ghead), key=str)
    return [key(s) for s in ghead] == [key(s) for s in head] and gtail == tail


def _preview(run: Run, seat: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    h = run.h
    proof = settle(h.table, facts_of(h, seat))
    lo = proof.losers[0]
    s = proof.score.total
    steps = [{"kind": "base", "value": s, "op": "add", "total": s}]
    total = s
    if proof.go_count and proof.go_points != s:
        total = proof.go_points
        steps.append({"kind": "goBonus", "value": proof.go_count, "op": "add", "total": total})
    for f in lo.factors:
        if lo.applies(f.rule) and f.rule in _STEPS:
            total *= f.factor
            steps.append({"kind": _STEPS[f.rule], "value": f.factor, "op": "mul", "total": total})
    return {"winner": seat, "finalPoints": lo.pays_points}, steps


def _pending(run: Run) -> dict[str, Any] | None:
    h = run.h
    if h is None:
        return {"kind": "pickFirst", "seats": run.to_pick}
    if run.target is not None:
        seat, card, options, source = run.target
        return {
            "kind": "target",
            "seat": seat,
            "source": source,
            "card": name(card),
            "options": [name(c) for c in options],
        }
    p = h.phase
    if p is Phase.PLAY:
        if h.fours_pending:
            seat = (h.fours_pending & -h.fours_pending).bit_length() - 1
            months = [
                m for m in range(1, 13) if h.hands[seat] & C.MONTH_MASKS[m] == C.MONTH_MASKS[m]
            ]
            return {"kind": "chongtong", "seat": seat, "months": months}
        return {"kind": "play", "seat": h.turn_seat}
    if p is Phase.DECIDE:
        return {"kind": "goStop", "seat": h.decider, "score": h.score_of(h.decider)}
    if p is Phase.CUP:
        return {"kind": "gukjin", "seat": h.decider}
    if _shake_due(run):
        card = name(C.ALL_CARDS[h.turn.played].code)
        return {"kind": "shake", "seat": h.turn_seat, "card": card, "month": _shake_due(run)}
    if p in (Phase.FLIP, Phase.FLIP_AS_PLAY):
        return {"kind": "flip", "seat": h.turn_seat}
    return None


def _action(a: dict[str, Any], h: Any) -> Any:
    """A p2p action as the matching input of this engine's legal_actions (None: no match)."""
    kind = a["type"]
    seat = a.get("seat", 0)
    if kind == "play":
        return lambda x: type(x) is E.CardPlayed and x.seat == seat and x.card == code(a["card"])
    if kind == "bomb":
        return lambda x: type(x) is E.BombPlayed and x.seat == seat and x.month == a["month"]
    if kind == "flipOnly":
        return lambda x: type(x) is E.FlipOnlyPlayed and x.seat == seat
    if kind in ("go", "stop"):
        t = E.GoCalled if kind == "go" else E.StopCalled
        return lambda x: type(x) is t and x.seat == seat
    if kind == "chongtong" and a["choice"] == "end":
        return lambda x: type(x) is E.FourOfAMonthShown and any(f.seat == seat for f in x.shown)
    if kind == "chongtong" and a["choice"] == "continue":
        return lambda x: type(x) is E.FourKept and x.seat == seat
    if kind == "chooseTarget":
        return lambda x: type(x) is E.CardPlayed and x.seat == seat and x.chosen == code(a["card"])
    raise Unsupported(f"p2p action {kind} {a.get('choice', '')} has no input here")


def _legal(run: Run, seat: int) -> list[Any]:
    h = run.h
    if run.target is not None:
        s, card, options, _source = run.target
        return [E.CardPlayed(seat=s, card=card, chosen=c) for c in options]
    acts = legal_actions(h)
    if h.phase is Phase.DECIDE:
        acts = [
            E.GoCalled(
                seat=h.decider, count=h.go_count[h.decider] + 1, score=h.score_of(h.decider)
            ),
            E.StopCalled(seat=h.decider, score=h.score_of(h.decider)),
        ]
    return [a for a in acts if getattr(a, "seat", seat) == seat or type(a) is E.FourOfAMonthShown]


def _floor(run: Run) -> list[dict[str, Any]]:
    h = run.h
    out = []
    for m in range(1, 13):
        cards = h.layout & C.MONTH_MASKS[m]
        if not cards:
            continue
        kind = "loose"
        if cards.bit_count() == 3:
            kind = "ppeok" if h.owner[m] >= 0 else "natural"
        owner = h.owner[m] if h.owner[m] >= 0 else None
        out.append({"month": m, "kind": kind, "owner": owner, "cards": names(cards | h.buried[m])})
    return out


def _seat(run: Run, seat: int) -> dict[str, Any]:
    h = run.h
    rules = h.table.rules
    two = h.two_bombs[seat]
    factor = (
        rules.bomb_multiplier
        if rules.two_card_bomb_multiplier is None
        else rules.two_card_bomb_multiplier
    )
    return {
        "hand": names(h.hands[seat]),
        "captured": names(h.piles[seat]),
        "piCount": h.itemised(seat).junk_units,
        "score": _breakdown(run, seat),
        "goCount": h.go_count[seat],
        "lastGoScore": h.go_score[seat],
        "shakes": h.shakes[seat],
        "bombs": h.bombs[seat] - (two if factor == 1 else 0),
        "bombTokens": h.flip_only[seat],
        "ppeokCount": h.ppuk_count[seat],
        "gukjinAsPi": bool(h.piles[seat] & C.CUP)
        and cup_as_junk(h.table, h.piles[seat], h.cup_role),
    }


def _sorted(x: Any) -> Any:
    return sorted(x) if isinstance(x, list) else x


def check(v: dict[str, Any], run: Run) -> None:
    """Every expectation of the vector against the run (AssertionError naming the first miss)."""
    e = v["expect"]
    h = run.h
    ended = h is not None and h.phase is Phase.ENDED

    def need(ok: bool, what: str, got: Any) -> None:
        if not ok:
            raise AssertionError(f"{v['id']}: {what}: got {got!r}")

    if "reject" in e:
        need(run.rejected == e["reject"]["index"], "reject", run.rejected)
    if "phase" in e:
        want = e["phase"]
        got = "chooseFirst" if h is None else "end" if ended else "turn"
        need(got == want, f"phase {want}", got)
    if "pending" in e:
        want = dict(e["pending"]) if e["pending"] is not None else None
        if want is not None:
            want.pop("resume", None)
            want = {
                k: (_sorted([name(code(c)) for c in x]) if k == "options" else x)
                for k, x in want.items()
            }
        got = _pending(run) if not ended else None
        if got is not None and "options" in got:
            got["options"] = sorted(got["options"])
        need(partial(got, want) if want is not None else got is None, f"pending {want}", got)
    if "result" in e:
        want = e["result"]
        got = None
        if ended:
            reason = "bothChongtong" if run.both_fours else _END.get(h.reason, h.reason)
            got = {"reason": reason, "winner": h.winner}
        need(partial(got, want) if want is not None else got is None, f"result {want}", got)
    if "dealer" in e:
        need(h.dealer == e["dealer"], "dealer", h.dealer)
    if "turn" in e:
        need(h.turn_seat == e["turn"], "turn", h.turn_seat)
    for seat, want in enumerate(e.get("seats") or []):
        if want is None:
            continue
        got = _seat(run, seat)
        inc = want.get("capturedIncludes", [])
        rest = {k: _sorted(x) if k in ("hand", "captured") else x for k, x in want.items()}
        rest.pop("capturedIncludes", None)
        need(partial(got, rest), f"seat {seat} {rest}", got)
        need(set(inc) <= set(got["captured"]), f"seat {seat} captures {inc}", got["captured"])
    if "floor" in e:
        want = [dict(g, cards=sorted(g["cards"])) if "cards" in g else g for g in e["floor"]]
        need(partial(_floor(run), want), f"floor {want}", _floor(run))
    if "floorCards" in e:
        got = sorted(x for g in _floor(run) for x in g["cards"])
        need(got == sorted(e["floorCards"]), "floor cards", got)
    if "deckCount" in e:
        need(h.stock_remaining() == e["deckCount"], "deck count", h.stock_remaining())
    if "events" in e:
        _subsequence(run.events, e["events"])
    for t, n in (e.get("eventCounts") or {}).items():
        got = sum(1 for x in run.events if x["type"] == t)
        need(got == n, f"{n} {t} events", got)
    for t in e.get("noEvents") or []:
        need(
            all(x["type"] != t for x in run.events),
            f"no {t} event",
            [x["type"] for x in run.events],
        )
    if "settlement" in e:
        want = dict(e["settlement"])
        steps = want.pop("steps", None)
        need(ended, "the hand has ended", h.phase)
        got, gsteps = _steps(run)
        need(partial(got, want), f"settlement {want}", got)
        if steps is not None:
            need(_same_steps(gsteps, steps), f"steps {steps}", gsteps)
    if "instantPayouts" in e:
        need(run.payouts == e["instantPayouts"], "instant payouts", run.payouts)
    if "ledger" in e:
        led = e["ledger"]
        g = run.sc.game
        got = g.holdings()  # counted from the ledger's start, with what the caps let through
        need(got == led["balances"], "balances", got)
        if "amounts" in led:
            amounts = [d[3] for r in g.results for d in r.dues if d[3]]
            if h.phase is not Phase.ENDED:
                amounts = [pts * g.stake for _p, _q, pts, _w in h.instant_dues]
            need(amounts == led["amounts"], "amounts", amounts)
    if "legal" in e:
        want = e["legal"]
        acts = _legal(run, want["seat"])
        for a in want.get("includes") or []:
            match = _action(a, h)
            need(any(match(x) for x in acts), f"legal {a}", acts)
        for a in want.get("excludes") or []:
            match = _action(a, h)
            need(not any(match(x) for x in acts), f"not legal {a}", acts)
    if "preview" in e:
        want = dict(e["preview"])
        seat = want.pop("seat")
        steps = want.pop("steps", None)
        got, gsteps = _preview(run, seat)
        need(partial(got, want), f"preview {want}", got)
        if steps is not None:
            need(_same_steps(gsteps, steps), f"preview steps {steps}", gsteps)
        if steps is not None:
            need(gsteps[-1]["total"] == steps[-1]["total"], "preview total", gsteps)


def run_vector(v: dict[str, Any]) -> Run:
    """Build, play and check one vector; Unsupported when it cannot be expressed."""
    rules = rules_of(v)
    stake = (v["expect"].get("ledger") or {}).get("perPoint", 1)
    run = build(v, rules, stake)
    play(v, run)
    check(v, run)
    return run
