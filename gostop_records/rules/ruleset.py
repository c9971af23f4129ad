"""The ruleset model: a frozen field for every rule tables disagree on, its pinned form (the
first event of a game) and its content hash."""

from __future__ import annotations

import difflib
import hashlib
import json
from functools import lru_cache
from typing import Any

import msgspec
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..cards import BONUS_CODES
from ..errors import RulesetError
from .choices import (
    BonusCode,
    BonusFour,
    BonusPlay,
    ChipLimit,
    CupMode,
    DoubleJunk,
    FirstDealer,
    GoBak,
    GoPayout,
    HandFourTie,
    InstantFactor,
    LastTurnRule,
    LayoutFour,
    NagariCarry,
    PlayerCount,
    Points,
    Shaking,
    SitOut,
    SseulRule,
    Steal,
    StealCount,
    TransferOrder,
)

_HASHED_EXCLUDE = {"name", "description"}

#: Fields added after rulesets were first pinned, with the value that plays exactly as
#: before the field existed. At that value a field is left out of the pinned form and the
#: hash, so every log pinned before it keeps its hash and replays unchanged; a missing field
#: reads as that value.
ADDED_FIELDS: dict[str, Any] = {
    "hand_four_factors": None,
    "three_ppuk_factors": None,
    # hudang (p2p E14): no table played it before the field existed
    "hudang_turns": None,
    "hudang_points": 7,
    "hudang_factors": None,
    # jackpot hands (p2p's arcade preset): no table played them before the fields existed
    "jackpot_every": None,
    "jackpot_multiplier": 2,
    # the services' table rules (fours in hand, four on the layout, cup, bonus cards, bombs)
    "hand_four_keep": False,
    "hand_four_kept_multiplier": 1,
    "bonus_four": "never",
    "cup_fixed_when_alone": False,
    "bonus_buried_in_ppuk": False,
    "bonus_steal_at_once": False,
    "shake_asked": False,
    "two_card_bomb_steal": None,
    "two_card_bomb_multiplier": None,
    # seats, chips and the first dealer: no table of three or fewer plays differently
    "sit_out": SitOut.TURN_ORDER,
    "gwang_price": 0,
    "chip_limit": ChipLimit.NONE,
    "end_when_broke": False,
    "first_dealer": FirstDealer.LOT,
    "draw_bonus_wins": False,
    "draw_ties_by_lot": None,
}


class Ruleset(BaseModel):
    """Every rule a Go-Stop table can disagree on, resolved to a value."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    name: str = Field(description="Preset name, or the name given to a custom ruleset.")
    description: str = Field("", description="What this ruleset is and where it comes from.")

    # Players and deck
    players: tuple[PlayerCount, ...] = Field(
        description="Player counts this ruleset is played with (2 = matgo, 3 = Go-Stop)."
    )
    hand_size_2p: int = Field(10, ge=1, le=12, description="Cards in each hand with 2 players.")
    layout_size_2p: int = Field(8, ge=1, le=12, description="Face-up layout cards with 2 players.")
    hand_size_3p: int = Field(7, ge=1, le=10, description="Cards in each hand with 3 players.")
    layout_size_3p: int = Field(6, ge=1, le=10, description="Face-up layout cards with 3 players.")
    bonus_cards: tuple[BonusCode, ...] = Field(
        (),
        description="Bonus cards (jokers) in the deck; the digit is their junk units (G2, G24).",
    )
    double_junk: DoubleJunk = Field(
        DoubleJunk.STANDARD, description="Which junk cards count two units (A1, A2)."
    )
    december_ribbon_counts: bool = Field(
        True,
        description="The rain ribbon 12R counts toward the 5-ribbon total (never toward a set).",
    )

    # The deal
    layout_four: LayoutFour = Field(
        LayoutFour.REDEAL, description="Four of a month dealt to the layout (G7, C2.4, A25)."
    )
    hand_four_points: Points = Field(
        10,
        description="Points each opponent pays a player dealt four of a month: an instant win "
        "(general page 5 chips, CARDAVIA 5, Hangame 10).",
    )
    all_hand_fours: HandFourTie = Field(
        HandFourTie.REDEAL, description="Every player holds a four at the deal (G8, C2.5, A25)."
    )
    some_hand_fours: HandFourTie = Field(
        HandFourTie.FIRST_IN_TURN_ORDER,
        description="Two of three players hold a four (unspecified by every source; A25).",
    )
    single_hand: bool = Field(
        False, description="The game is one hand: no dealer rotation, no carry (CARDAVIA C0.5)."
    )

    # Turn specials
    shaking: Shaking = Field(Shaking.NONE, description="Heundeum, if played, and when (A26).")
    shake_multiplier: int = Field(2, ge=1, le=4, description="Payment factor per shake (G33).")
    bombs: bool = Field(
        False,
        description="Three of a month in hand with the fourth face up "
        "may be played at once to take all four (G19, A31: always optional).",
    )
    two_card_bomb: bool = Field(
        False, description="Two in hand with the other two face up may also bomb (variant)."
    )
    bomb_steal: Steal = Field(0, description="Junk each opponent gives for a bomb (A11).")
    bomb_multiplier: int = Field(
        1, ge=1, le=4, description="Payment factor per bomb; 2 = a bomb counts as a shake (A11)."
    )
    bonus_play: BonusPlay = Field(
        BonusPlay.DRAW_AND_PLAY_AGAIN, description="Playing a bonus card from the hand (A27)."
    )
    bonus_steal: Steal = Field(
        0, description="Junk each opponent gives when a bonus card is played or flipped (variant)."
    )
    jjok_steal: Steal = Field(1, description="Junk per opponent for a jjok/chok (G17.3, C3.6).")
    ttadak_steal: Steal = Field(1, description="Junk per opponent for a ttadak (G17.2, C3.5).")
    sseul_steal: Steal = Field(1, description="Junk per opponent for a sweep (G17.1, A6).")
    sseul_rule: SseulRule = Field(SseulRule.FLOOR_EMPTY, description="What a sweep is (A6).")
    natural_stack_steal: Steal = Field(
        1, description="Junk per opponent for taking a stack dealt to the layout (G17.4, C4.2)."
    )
    ppuk_taken_steal: Steal = Field(
        1, description="Junk per opponent for taking another player's ppuk (G17.4, C4.2)."
    )
    own_ppuk_steal: Steal = Field(
        2, description="Junk per opponent for taking one's own ppuk, ja-ppuk (G18, C4.2, A10)."
    )
    steal_count: StealCount = Field(StealCount.UNITS, description="What a steal counts (A8).")
    transfer_order: TransferOrder = Field(
        TransferOrder.LEAST_VALUABLE_FIRST, description="Which junk card is handed over (A8)."
    )
    cup_mode: CupMode = Field(CupMode.AUTO_BEST, description="How the September cup scores (A9).")
    cup_transferable: bool = Field(
        True, description="The cup, when it counts as junk, can be taken by a steal (C4.3: no)."
    )
    last_turn_exceptions: frozenset[LastTurnRule] = Field(
        frozenset(), description="Specials void on a player's last turn (C4.1, A12)."
    )
    last_turn_auto_stop: bool = Field(
        True, description="Qualifying on one's last turn is an automatic Stop (C6.5, A13)."
    )
    three_ppuk_points: Points | None = Field(
        None, description="A third ppuk in one hand is an instant win for these points (C4.4)."
    )
    first_ppuk_points: tuple[Points, ...] = Field(
        (),
        description="Instant payments for a ppuk on a player's 1st turn, then on the 2nd and "
        "3rd turns in a row (Hangame 7, 14, 21); empty = none (C4.5).",
    )
    first_ttadak_points: Points = Field(
        0, description="Instant payment for a ttadak on a player's first turn (variant)."
    )
    instant_win_multipliers: bool = Field(
        False,
        description="Shakes, bombs and the nagari carry multiply instant wins (Pmang: no; A24); "
        "the shorthand for every kind of instant win at once, unless a kind sets its own.",
    )
    hand_four_factors: frozenset[InstantFactor] | None = Field(
        None,
        description="The factors that multiply a hand-four instant win, of nagari_carry, "
        "shake, bomb (p2p: [nagari_carry]); none = as instant_win_multipliers says (A24).",
    )
    three_ppuk_factors: frozenset[InstantFactor] | None = Field(
        None,
        description="The factors that multiply a three-ppuk instant win, of nagari_carry, "
        "shake, bomb (p2p: []); none = as instant_win_multipliers says (A24).",
    )
    hudang_turns: int | None = Field(
        None,
        ge=2,
        le=10,
        description="Hudang (허당, Hangame's old matgo, p2p E14): a seat that takes no card "
        "on this many of its turns in a row wins the hand at once for hudang_points; "
        "none = no hudang (A24).",
    )
    hudang_points: Points = Field(
        7, description="Points of a hudang win from every other seat (p2p 7; A24)."
    )
    hudang_factors: frozenset[InstantFactor] | None = Field(
        None,
        description="The factors that multiply a hudang win, of nagari_carry, shake, bomb "
        "(p2p: [nagari_carry]); none = as instant_win_multipliers says (A24).",
    )

    # Go / Stop
    target_2p: int = Field(7, ge=1, le=20, description="Points to Stop with 2 players (G25, C0.4).")
    target_3p: int = Field(3, ge=1, le=20, description="Points to Stop with 3 players (G25).")
    go_payout: GoPayout = Field(GoPayout.STANDARD, description="How Gos raise a payout (A16).")
    go_double_from: int = Field(
        4,
        ge=1,
        le=10,
        description="general_page Go payout: the Go count from which the payout doubles "
        '("more than 3 times" = 4).',
    )

    # Settlement
    gwang_bak: bool = Field(
        True, description="x2 when the winner scores brights and the loser has none (A20)."
    )
    pi_bak: bool = Field(True, description="x2 when the winner scores junk and the loser has few.")
    pi_bak_max_units: int = Field(
        7,
        ge=0,
        le=20,
        description="Pi-bak applies when the loser holds at most this many junk units "
        "(general page 5, CARDAVIA fewer than 5 = 4, matgo 7, 3 players 5; A19).",
    )
    pi_bak_zero_exempt: bool = Field(
        False, description="A loser with no junk at all is exempt from pi-bak (Pmang; A19)."
    )
    loser_cup_protects: bool = Field(
        False, description="The loser's cup counts 2 junk units against pi-bak (C6.4)."
    )
    meong_tta: bool = Field(True, description="x2 when the winner has many animals (A21).")
    meong_tta_min_animals: int = Field(7, ge=1, le=10, description="Animals for meong-tta.")
    meong_tta_loser_zero: bool = Field(
        False, description="Meong-tta only against a loser with no animals (regional, A21)."
    )
    go_bak: GoBak = Field(GoBak.NONE, description="What a loser who called Go pays (A22).")
    nagari_carry: NagariCarry = Field(
        NagariCarry.CUMULATIVE, description="How a no-winner hand raises the next payment (A23)."
    )
    nagari_carry_cap: int | None = Field(
        None, ge=1, le=1024, description="Largest nagari carry factor (Pmang 8); none = no cap."
    )
    jackpot_every: int | None = Field(
        None,
        ge=2,
        le=100,
        description="A jackpot hand (대박판, p2p's arcade preset: 5): every hand whose number "
        "in the game is a multiple of this multiplies its payments by jackpot_multiplier; "
        "none = no jackpot hands.",
    )
    jackpot_multiplier: int = Field(
        2, ge=2, le=8, description="Payment factor of a jackpot hand (p2p's arcade preset 2)."
    )

    # The services' table rules: fours in hand, the cup, bonus cards, two-card bombs
    # (all in ADDED_FIELDS)
    hand_four_keep: bool = Field(
        False,
        description="The holder of four of a month in hand may keep playing instead of "
        "showing it and winning at once (들고치기: Pmang, Netmarble, p2p); playing a card "
        "without showing it keeps it. False = shown at the deal (A24).",
    )
    hand_four_kept_multiplier: int = Field(
        1,
        ge=1,
        le=4,
        description="Payment factor per kept four when its holder wins by a Stop (Netmarble 2; "
        "Pmang and p2p 1: their x4 is the shake and the bomb the four allows).",
    )
    bonus_four: BonusFour = Field(
        BonusFour.NEVER,
        description="A four completed in hand by a bonus card's replacement counts as a dealt "
        "four: never (Pmang), on the holder's first turn (p2p) or always (Hangame).",
    )
    cup_fixed_when_alone: bool = Field(
        False,
        description="A transferable cup counted as junk stays in its holder's pile as an "
        "animal when it is the only junk a steal could take (Pmang, p2p; A9).",
    )
    bonus_buried_in_ppuk: bool = Field(
        False,
        description="A bonus card flipped in a turn that then makes a ppuk stays in the ppuk "
        "stack, with no steal, and goes to whoever takes the stack (p2p B2); false = the "
        "flipper takes it at once.",
    )
    shake_asked: bool = Field(
        False,
        description="A player who plays a card of a month they hold three of, the month "
        "absent from the layout, is asked to shake once the card is chosen, and the answer "
        "is recorded before the flip, a decline too (shake_declined; p2p E11). False = a "
        "shake is shown unasked before the card and a decline leaves no record.",
    )
    bonus_steal_at_once: bool = Field(
        False,
        description="A bonus card played from the hand steals at once, before its "
        "replacement is played (p2p B1); false = with the turn's other steals.",
    )
    two_card_bomb_steal: Steal | None = Field(
        None,
        description="Junk each opponent gives for a two-card bomb (Hangame 1, CS470 1); "
        "none = bomb_steal, as a three-card bomb (A11).",
    )
    two_card_bomb_multiplier: int | None = Field(
        None,
        ge=1,
        le=4,
        description="Payment factor per two-card bomb (Hangame 1, Pmang 2); none = "
        "bomb_multiplier, as a three-card bomb (A11).",
    )

    # Seats, chips and the first dealer (4 or 5 at one table, gwang-pali, chips, 밤일낮장)
    sit_out: SitOut = Field(
        SitOut.TURN_ORDER,
        description="With 4 or 5 at a 3-player table, who sits out each hand: turn_order "
        "(the dealer and the next two play), choice (recorded; the dealer plays), or watch "
        "(general page G1: players beyond three watch and join at the next deal; no 4th seat).",
    )
    gwang_price: Points = Field(
        0,
        description="Gwang-pali: points per bright a seat sitting out sells from its hand, "
        "paid by each player of the hand (GoStopCalculator: 5 at 100 a point); 0 = no sale.",
    )
    chip_limit: ChipLimit = Field(
        ChipLimit.NONE,
        description="What the chips each player brings limit: none, holdings (a loser pays "
        "no more than they hold, the shortfall recorded) or limited_liability (also a winner "
        "gains from each loser at most their own holdings; Hangame 유한책임제).",
    )
    end_when_broke: bool = Field(
        False, description="The sitting ends when a player has no chips left (chips counted)."
    )
    first_dealer: FirstDealer = Field(
        FirstDealer.LOT,
        description="How the first dealer is chosen: lot (G3) or draw (밤일낮장: each draws a "
        "card, by night the lowest month deals, by day the highest; recorded).",
    )
    draw_bonus_wins: bool = Field(
        False,
        description="The draw for the first dealer is from the whole deck and a bonus card "
        "beats every month, by night or by day; two bonus cards tie (p2p R4). False = the "
        "draw is from the 48 cards.",
    )
    draw_ties_by_lot: int | None = Field(
        None,
        ge=1,
        le=10,
        description="After this many tied draws in a row the first dealer among the tied "
        "seats is chosen by lot, and the record names them (p2p: 3); none = the tied seats "
        "draw until one deals.",
    )

    @field_validator("players")
    @classmethod
    def _players_sorted(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if not v:
            raise ValueError("at least one player count (2 or 3)")
        return tuple(sorted(set(v)))  # type: ignore[return-value]

    @field_validator("bonus_cards")
    @classmethod
    def _bonus_unique(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError("a bonus card is listed twice")
        return tuple(sorted(v, key=BONUS_CODES.index))

    @model_validator(mode="after")
    def _deal_fits(self) -> Ruleset:
        for n in self.players:
            hand, layout = self.deal_size(n)
            if n * hand + layout > 48:
                raise ValueError(f"{n} hands of {hand} and a layout of {layout} exceed 48 cards")
        return self

    # --- derived facts -------------------------------------------------------------------

    def seats(self) -> tuple[int, ...]:
        """The seat counts a game may have: the player counts, and 4 and 5 where three play
        and the others sit out each hand (unless players beyond three only watch)."""
        if 3 in self.players and self.sit_out is not SitOut.WATCH:
            return (*self.players, 4, 5)
        return self.players

    def deal_size(self, players: int) -> tuple[int, int]:
        """(hand size, layout size) for a player count."""
        if players == 2:
            return self.hand_size_2p, self.layout_size_2p
        return self.hand_size_3p, self.layout_size_3p

    def target(self, players: int) -> int:
        return self.target_2p if players == 2 else self.target_3p

    def content(self) -> dict[str, Any]:
        """Every rule field as JSON-ready values (name and description excluded)."""
        data = self.model_dump(mode="json", exclude=_HASHED_EXCLUDE)
        data["last_turn_exceptions"] = sorted(data["last_turn_exceptions"])
        for k, v in data.items():
            if isinstance(v, list) and k in _SETS:
                data[k] = sorted(v)
        return data

    def hashed(self) -> dict[str, Any]:
        """The rules as pinned and hashed: :meth:`content` without the later fields that
        play as before they existed (:data:`ADDED_FIELDS`)."""
        data = self.content()
        for k, neutral in ADDED_FIELDS.items():
            if getattr(self, k) == neutral:
                del data[k]
        return data

    @property
    def content_hash(self) -> str:
        """A stable hash of the rules themselves: equal rules, equal hash, whatever the name.

        Computed once per distinct ruleset (about 150 us each time: the projection of every
        game reads it, and a corpus holds a few rulesets in thousands of games)."""
        try:
            return _content_hash(self)
        except TypeError:  # a copy given an unhashable value (``model_copy(update=...)``)
            return _content_hash.__wrapped__(self)

    def instant_factors(self, kind: str) -> frozenset[InstantFactor]:
        """The factors that multiply an instant win of this kind (``hand_four``,
        ``three_ppuk``): the kind's own setting, else the ``instant_win_multipliers`` switch."""
        own = getattr(self, f"{kind}_factors", None)
        if own is not None:
            return own
        return _ALL_FACTORS if self.instant_win_multipliers else frozenset()

    def pinned(self) -> dict[str, Any]:
        """The form stored in ``game_started``: name, description, every rule and the hash."""
        data = {"name": self.name, "description": self.description, **self.hashed()}
        data["hash"] = self.content_hash
        return data

    @classmethod
    def from_pinned(cls, data: dict[str, Any]) -> Ruleset:
        """Rebuild a pinned ruleset and check its hash; the hash names the rules, not the name.

        A corpus pins the same few rulesets in every game: identical pinned forms are
        validated once and share one (immutable) Ruleset.
        """
        key = _PINNED_KEY.encode(data)
        hit = _PINNED.get(key)
        if hit is not None:
            return hit
        rs = cls._from_pinned(data)
        if len(_PINNED) >= 256:
            _PINNED.clear()
        _PINNED[key] = rs
        return rs

    @classmethod
    def _from_pinned(cls, data: dict[str, Any]) -> Ruleset:
        body = {k: v for k, v in data.items() if k != "hash"}
        try:
            rs = cls.model_validate(body)
        except ValidationError as exc:
            raise RulesetError(describe_validation("pinned ruleset", exc)) from None
        want = data.get("hash")
        if want is not None and want != rs.content_hash:
            raise RulesetError(
                f"pinned ruleset {rs.name!r}: hash {want} does not match its rules "
                f"({rs.content_hash}); the ruleset was edited after it was pinned"
            )
        return rs

    @classmethod
    def field_docs(cls) -> dict[str, str]:
        return {k: (f.description or "") for k, f in cls.model_fields.items()}


@lru_cache(maxsize=256)
def _content_hash(rules: Ruleset) -> str:
    """:attr:`Ruleset.content_hash` (a ruleset is frozen, so equal rulesets share it)."""
    blob = json.dumps(rules.hashed(), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


_PINNED: dict[bytes, Ruleset] = {}
#: The cache key of a pinned form: its JSON with keys sorted at every depth (a replay reads a
#: pinned ruleset per game; msgspec writes it in about a sixth of the time of ``json.dumps``).
_PINNED_KEY = msgspec.json.Encoder(enc_hook=str, order="sorted")
_ALL_FACTORS = frozenset(InstantFactor)
_SETS = {k for k, f in Ruleset.model_fields.items() if "frozenset" in str(f.annotation)}


def describe_validation(where: str, exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "(ruleset)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = _unknown_field(str(err["loc"][-1]) if err["loc"] else "")
        lines.append(f"{where}: field {field}: {msg}")
    return "\n".join(lines)


def _unknown_field(name: str) -> str:
    """Why a field is refused: the ruleset's fields nearest its name, else where every field
    is listed (there are some ninety: a list of all of them hides the one meant)."""
    near = difflib.get_close_matches(name, Ruleset.model_fields, n=3, cutoff=0.6)
    if near:
        return f"unknown field; did you mean {' or '.join(near)}?"
    return "unknown field; gostop rules show PRESET lists every field, docs/rules.md says each"
