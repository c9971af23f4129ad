"""What every table and column of the store means (:data:`TABLE_DOCS`,
:data:`COLUMN_DOCS`): the one text the SQL reference (:mod:`.columns`), the schema's
comments and the code read.

Writing conventions (a test holds the descriptions to them): a name in backticks is a
column of the table or view described, ``table.column``, a table or view, an event type,
``event_type.field`` or ``rules.setting`` (a :class:`~gostop_records.rules.Ruleset` field);
any other backticked text is a SQL expression or literal that runs on the table described.
Seats are 0-based indices into the game's seat order.
"""

from __future__ import annotations

from ..engine import rulebook as RB
from .schema import BAK_IDS, SPECIAL_KINDS

__all__ = ["COLUMN_DOCS", "TABLE_DOCS"]


_STOP_ONLY = "NULL except on a loser's row of a hand won by a Stop"


TABLE_DOCS: dict[str, str] = {
    "events": (
        "The record: one row per envelope of a game's log, the payload exactly as it was "
        "hashed. Key (`game_id`, `seq`), the one declared primary key; every other table is "
        "derived from these rows."
    ),
    "games": (
        "One row per game (one event stream: a sitting of hands with the same players and "
        "ruleset), from its `game_started` event and the projector's findings. Key `game_id`."
    ),
    "hands": (
        "One row per hand started: what the record says (`hand_started`, `hand_ended`, "
        "`go_called`, `stop_called`, `payment_recorded`) beside what the rules compute for "
        "it. Key (`game_id`, `hand`)."
    ),
    "turns": (
        "One row per turn: a seat's play (with the shake before it and any bonus card played "
        "from hand first), the stock flip(s) after it and what they brought. Key "
        "(`game_id`, `hand`, `turn`)."
    ),
    "captures": (
        "One row per card taken into a pile: every card of a `cards_captured` event and every "
        "`bonus_card_taken`. Key (`game_id`, `seq`, `card`); the cards of one capture share "
        "`seq`."
    ),
    "transfers": (
        "One row per junk card handed from one pile to another (`junk_transferred`: a steal "
        "for a jjok, ttadak, sseul, bomb, bonus card, stack or ppuk). Key (`game_id`, `seq`)."
    ),
    "decisions": (
        "One row per decision after a turn: `go_called`, `stop_called` (chosen or "
        "automatic) and `cup_assigned`. Key (`game_id`, `seq`)."
    ),
    "scores": (
        "One row per seat that played every hand the rules checked (`hands.checked`), "
        "whatever its outcome (a seat sitting out has none): the seat's final pile scored "
        "by the game's ruleset, itemised by combination. Key (`game_id`, `hand`, `seat`)."
    ),
    "payouts": (
        "One row per payer and payee of a checked hand (`hands.checked`): the chips the rules "
        "make due (`payment_due`, and the settlement proof of a Stop) beside the chips the "
        "table recorded (`payment_recorded`). There is a row for every pair the rules "
        "charge, for every loser of a hand won by a Stop (even at 0 chips) and for every "
        "pair with a recorded payment. Key (`game_id`, `hand`, `payer`, `payee`)."
    ),
    "sitting_out": (
        "One row per seat sitting out a hand at a table of 4 or 5 seats (`seats_sat_out`: "
        "three play each hand), with the brights it sold (`brights_sold`, gwang-pali). Key "
        "(`game_id`, `hand`, `seat`)."
    ),
    "capped_payments": (
        "One row per payment the chips on the table limited (`payment_capped`): a loser "
        "who pays no more than they hold, or a winner's gain capped at their own chips "
        "(`rules.chip_limit`). Key (`game_id`, `hand`, `seq`, `payer`, `payee`)."
    ),
    "capture_tallies": (
        "The `captures` rows of each hand counted by `capture_kind`: one row per hand and "
        "kind of capture it had, so that a question over every hand reads a few rows per "
        "hand rather than one per card. Key (`game_id`, `hand`, `capture_kind`)."
    ),
    "transfer_tallies": (
        "The `transfers` rows of each hand counted by `reason`: one row per hand and reason "
        "junk changed hands for in it. Key (`game_id`, `hand`, `reason`)."
    ),
    "hand_seats": (
        "One row per seat of every hand started (a seat sitting out included): what the seat "
        "made of the hand, summed from the hand's `turns`, `decisions`, `payouts` and "
        "`sitting_out` rows, with the game's player and the hand's outcome beside them, so "
        "that a question per player or per winner reads one row per seat and joins nothing "
        "(`v_player_hands` is its ended hands). Key (`game_id`, `hand`, `seat`)."
    ),
    "player_games": (
        "One row per seat of a game with an ended hand: the seat's `hand_seats` rows of "
        "ended hands summed, so that a player's figures over the whole store "
        "(`v_player_stats`) read one row per game rather than one per hand. Written with the "
        "game's other rows (after a live append, from all of the game's `hand_seats` rows). "
        "Key (`game_id`, `seat`)."
    ),
    "seats": (
        "One row per seat of a game: hands played and sat out, the chips counted at the "
        "start of the sitting (`chips_counted`) and held now, and the card it drew for the "
        "first deal (`dealer_drawn`). Key (`game_id`, `seat`)."
    ),
    "issues": (
        "One row per disagreement the projector found between the record and the rules, or "
        "per event it kept without checking. A strict import or append keeps only warnings; "
        "a lenient one (`--lenient`) also keeps the violations of the games it stores. No "
        "key."
    ),
    "positions": (
        "One row per game: the last event its projection rows were derived through, which "
        "equals the game's last `events` row when the projections are current. Key "
        "`game_id`."
    ),
    "heads": (
        "The store's own chain of game heads, a record like `events` and never rebuilt: one "
        "row per live append (a game started, a hand ended or sealed, any other entry), "
        "per game imported, per loss accepted, per rebuild and per repair, each chained to the "
        "one before it, so that a game deleted, replaced or cut short is found by "
        "`gostop db verify` (see "
        "[Seals and signatures](seals.md)). Key `entry`."
    ),
    "person_events": (
        "The people record: renames and merges of persons (`person_renamed`, "
        "`persons_merged`), one stream of its own hash-chained like a game's and never "
        "rebuilt; each append adds a `heads` entry of kind `'people'`. Key `seq`; the "
        "columns are those of `events`, `game_id` always `'people'` (see "
        "[Players as people](recording.md#players-as-people))."
    ),
    "person_keys": (
        "Each person's key (AES-256), under which the names a game recorded into the store "
        "holds are sealed before the event is hashed: outside every hashed record, never "
        "exported. `gostop people forget` deletes a person's row, after which nobody can "
        "read their name (see [Forget](operations.md#forget)). Key `person_id`."
    ),
    "people": (
        "What the people record says of each person it names, derived from "
        "`person_events` again on every append and by `gostop db rebuild`: a person seated "
        "in games and never renamed or merged has no row (see `v_people`). Key `person_id`."
    ),
}


COLUMN_DOCS: dict[str, dict[str, str]] = {
    "person_keys": {
        "person_id": "the person's id, as the games' seats name them",
        "key": "32 random bytes: the key of the person's sealed names",
    },
    "people": {
        "person_id": "the person's id, as the games' seats name them (`games.player_ids`)",
        "name": "the name a `person_renamed` gave (sealed in the record, opened here), to "
        "show from then on; NULL when none did",
        "named_at": "when that rename was made (`person_events.at`)",
        "merged_into": "the person a `persons_merged` made this one's games count for; "
        "NULL when none did",
        "counts_for": "the person this one's games count for: `person_id` itself, or the "
        "end of its merges",
        "forgotten": "a `person_forgotten` forgot the person (or the one they count for): "
        "their key is gone and `name` is `'(forgotten)'`",
    },
    "heads": {
        "entry": "the entry's number: 1, 2, 3 ..., dense",
        "kind": "`'game_appended'` (a game's first live append), `'hand_sealed'` (an append "
        "that ends a hand or holds a signed checkpoint), `'appended'` (any other live append), "
        "`'game_imported'`, `'migrated'` (stored before the chain began, or past its latest "
        "entry when version 4 began chaining every append), `'loss_accepted'`, `'rebuild'` "
        "or `'repaired'` (`gostop db repair`: a game's events the chain missed, and last the "
        "repair's own record), `'people'` (an append to the people record, `person_events`), "
        "`'game_resealed'` (`gostop people upgrade`: a game re-chained with its names sealed; "
        "`detail` keeps its old first and head hashes and, for each seat given a minted id, "
        "its old id sealed under the new person's key)",
        "game_id": "the game written; NULL for a rebuild, a repair's record or the people record",
        "seq": "the game's number of events after the write (its last `events.seq`; the "
        "people record's, for its entries); 0 for a rebuild, a repair's record or a game "
        "whose loss was accepted whole",
        "head": "`events.hash` of that last event: the game's head; NULL when it has none",
        "recorded_at": "when the entry was written (RFC 3339 UTC text)",
        "detail": "JSON text: what a loss, a rebuild or a repair was about (a repair's "
        "record: the games adopted with their seq ranges, each re-linked entry with its old "
        "`prev` and `hash`); NULL otherwise",
        "prev": "`hash` of the entry before; 64 zeros for entry 1",
        "hash": "SHA-256 of `prev` and the entry's other fields: the chain `gostop db verify` "
        "checks",
    },
    "events": {
        "game_id": "the game (one stream per game)",
        "seq": "position in the game's stream: 1, 2, 3 ..., dense",
        "type": "the payload's type tag, e.g. `'card_played'` (see [The event format](events.md))",
        "hand": "hand number within the game, from 1; NULL for game-level events such as "
        "`game_started`",
        "at": "when it happened at the table: RFC 3339 UTC text, e.g. "
        "`'2026-01-08T00:00:08.000Z'`; a reserved word, write `\"at\"` "
        "(parsed in `v_events.at_ts`)",
        "recorded_at": "when it was recorded, same format as `at`",
        "by": "who or what recorded it: a recorder's name, `'sim'`, `'play'`, `'import:...'`; "
        'a reserved word, write `"by"`',
        "v": "the payload's schema version (older payloads are upcast on read)",
        "payload": "the event's payload as JSON, exactly as hashed, with its `type`; read a "
        "field with `payload ->> 'seat'`",
        "hash": "SHA-256 (64 hex digits) of the envelope's prev (the `hash` of the game's "
        "event before, 64 zeros for `seq` 1; not stored, `v_events.prev` shows it) and the "
        "canonical bytes of every other envelope field: the hash chain `gostop db verify` "
        "checks",
    },
    "games": {
        "game_id": "the game",
        "ruleset": "name of the ruleset pinned in `game_started`, e.g. `'matgo'`",
        "ruleset_hash": "content hash of the pinned rules (`'sha256:'` and 64 hex digits): "
        "equal for equal rules whatever their name",
        "players": "number of seats, 2 to 5 (at 4 or 5, three play each hand)",
        "player_ids": "player ids in seat order: seat s is element s + 1 (DuckDB lists "
        "count from 1), e.g. `player_ids[1]` for seat 0",
        "player_names": "display names in seat order, indexed like `player_ids`",
        "stake": "chips per point: chips anywhere in the store are points times this",
        "venue": "`game_started.venue`; NULL when not given",
        "started_at": "`events.at` of the game's first event (RFC 3339 UTC text)",
        "started_on": "the UTC date of `started_at`",
        "last_at": "`events.at` of the game's last stored event",
        "recorded_by": "`events.by` of the game's first event",
        "events": "number of stored events (the last `events.seq`), retracted ones included",
        "hands": "hands started (`hand_started` events not undone by a retraction)",
        "hands_ended": "hands with a `hand_ended` event (not undone by a retraction)",
        "violations": "the game's `issues` rows with severity `'violation'`; 0 unless the "
        "game was stored leniently",
    },
    "hands": {
        "game_id": "the game",
        "hand": "hand number within the game, from 1",
        "ruleset": "the game's ruleset name (`games.ruleset`), kept on every hand so that a "
        "question by ruleset reads `hands` alone: a join with `games` on the text `game_id` "
        "makes such a query 8 to 25 times slower on millions of hands",
        "players": "number of seats (`games.players`), kept like `ruleset`",
        "dealer": "0-based seat that dealt and plays first (`hand_started.dealer`)",
        "started_at": "`events.at` of the hand's `hand_started` event (RFC 3339 UTC text)",
        "date": "the UTC date of `started_at`",
        "outcome": "`hand_ended.outcome`: `'stop'`, `'instant'` (four of a month in hand, "
        "three ppuk, hudang), `'nagari'` (no winner: the next hand pays more) or `'void'` "
        "(the deal did not stand); NULL while the hand has not ended",
        "winner": "0-based seat of `hand_ended.winner`; NULL for a nagari, a void deal or a "
        "hand not ended",
        "reason": "`hand_ended.reason` as recorded: `'stop'`, `'auto_stop'`, `'hand_four'`, "
        "`'three_ppuk'`, `'hudang'`, `'cards_exhausted'`, `'layout_four'` or `'hand_fours'`; "
        "NULL while the hand has not ended",
        "carry": "nagari factor this hand's payments were multiplied by (1 = none; "
        "`hand_ended.carry`); NULL while the hand has not ended",
        "next_carry": "nagari factor the next hand starts with (`hand_ended.next_carry`); "
        "NULL while the hand has not ended",
        "turns": "turns played: the hand's rows in `turns`",
        "gos": "`go_called` events in the hand, all seats together",
        "stop_score": "`stop_called.score`: the combination score the Stop was called on, "
        "as recorded (chosen or automatic); NULL without a Stop",
        "winner_score": "the winner's combination score at the Stop as the rules compute it, "
        "before Go points; NULL unless `checked` and `outcome` is `'stop'`",
        "go_count": "the winner's Gos in the hand; NULL unless `checked` and `outcome` is `'stop'`",
        "go_points": "`winner_score` with the Go bonus by `rules.go_payout`: each loser's "
        "points before multipliers; NULL unless `checked` and `outcome` is "
        "`'stop'`",
        "points": "points the rules make due in the hand, all payers together (Stop shares "
        "after multipliers plus instant payments; 0 for a nagari or void deal); "
        "NULL unless `checked`",
        "chips": "`points` in chips (times `games.stake`); NULL unless `checked`",
        "recorded_chips": "chips recorded as paid in the hand (`payment_recorded`, all "
        "pairs); NULL when no payment was recorded",
        "ended": "whether the record holds the hand's `hand_ended` event",
        "checked": "whether the rules re-derived the hand to its end; false for a hand in "
        "progress or one kept unchecked after a rule violation (lenient import), "
        "which have no `scores` or `payouts` rows",
    },
    "turns": {
        "game_id": "the game",
        "hand": "the hand",
        "turn": "turn number within the hand, from 1, in the order played",
        "seq": "`seq` of the turn's first event (shake, play or flip)",
        "seat": "0-based seat whose turn it is",
        "action": "how the turn was played: `'card'`, `'bomb'` or `'flip_only'`; NULL when "
        "the record holds no play for it",
        "played": "code of the hand card played (after a bonus card played from hand, the "
        "card played next); NULL for a bomb or a flip-only turn",
        "played_month": "month (1-12) of `played`, or the bomb's month; NULL for a flip-only "
        "turn and a bonus card",
        "played_kind": "card kind of `played`: `'bright'`, `'animal'`, `'ribbon'`, `'junk'`, "
        "`'double_junk'` or `'bonus'`; NULL when `played` is",
        "chosen": "the layout card taken when the played card matched two "
        "(`card_played.chosen`); NULL otherwise",
        "bomb_cards": "the hand cards of a bomb (`bomb_played.cards`); NULL unless `bomb`",
        "flipped": "code of the stock card flipped (the last one when a flipped bonus card "
        "made the seat flip again); NULL when the turn has no flip",
        "flipped_month": "month (1-12) of `flipped`; NULL for a bonus card or no flip",
        "flipped_kind": "card kind of `flipped`; NULL when `flipped` is",
        "flips": "`card_flipped` events in the turn (more than 1 after a flipped bonus card)",
        "bonus_cards": "bonus cards taken during the turn (also counted in `captured`)",
        "shaken": "whether the seat shook (heundeum: showed three of a month) this turn",
        "bomb": "whether the turn was a bomb (`action` is `'bomb'`)",
        "flip_only": "whether the turn played no hand card (`action` is `'flip_only'`)",
        "ppuk": "whether the turn made a ppuk (`ppuk_made`: three of a month left on the layout)",
        "jjok": "whether the turn made a jjok (a capture of kind `'jjok'`)",
        "ttadak": "whether the turn made a ttadak (a capture of kind `'ttadak'`)",
        "sseul": "whether the turn swept the layout: it captured and left the layout empty, "
        "or brought a `'sseul'` junk transfer (a reading of the record: also true "
        "where the ruleset gives that sweep nothing)",
        "captured": "cards the turn took into piles (its `captures` rows: captured cards and "
        "bonus cards); junk received by steals is in `junk_taken`",
        "junk_taken": "junk cards (not units) handed to `seat` by steals during the turn",
        "score_after": "the seat's combination score after the turn, without Go points, as "
        "the rules computed it; NULL for a turn the rules did not resolve (the rest of a hand "
        "after a violation, a turn still in progress)",
    },
    "captures": {
        "game_id": "the game",
        "hand": "the hand",
        "seq": "`seq` of the `cards_captured` or `bonus_card_taken` event",
        "turn": "`turns.turn` it happened in; 0 for a bonus card taken at the deal",
        "seat": "0-based seat whose pile took the card",
        "card": "the card's code, e.g. `'09A'`",
        "month": "the card's month (1-12); NULL for a bonus card",
        "card_kind": "the card's printed kind: `'bright'`, `'animal'`, `'ribbon'`, `'junk'`, "
        "`'double_junk'` or `'bonus'` (the September cup `'09A'` is "
        "`'animal'` whatever it scores as)",
        "capture_kind": "`cards_captured.kind`: `'pair'`, `'stack'`, `'ppuk_taken'`, "
        "`'own_ppuk'`, `'ttadak'`, `'jjok'`, `'last_turn_three'`, `'bomb'`; "
        "`'bonus'` for a bonus card",
        "source": "where the capture came from: `'hand'`, `'flip'` or `'hand_and_flip'`; for "
        "a bonus card where it was met: `'hand'`, `'flip'` or `'layout'`",
        "position": "the card's place (1, 2, ...) among the cards of its capture event, as the "
        "event lists them: `count(*) FILTER (WHERE position = 1)` counts captures",
    },
    "transfers": {
        "game_id": "the game",
        "hand": "the hand",
        "seq": "`seq` of the `junk_transferred` event",
        "turn": "`turns.turn` it happened in",
        "from_seat": "0-based seat whose pile gave the card",
        "to_seat": "0-based seat whose pile received it: the one who earned the steal",
        "card": "the card's code",
        "month": "the card's month (1-12); NULL for a bonus card",
        "card_kind": "the card's printed kind: `'junk'`, `'double_junk'`, `'bonus'`, or "
        "`'animal'` for the September cup where it counts as junk and "
        "`rules.cup_transferable` lets it be stolen",
        "reason": "why it was handed over: `'jjok'`, `'ttadak'`, `'sseul'`, `'stack'`, "
        "`'ppuk_taken'`, `'own_ppuk'`, `'bomb'` or `'bonus'`",
    },
    "decisions": {
        "game_id": "the game",
        "hand": "the hand",
        "seq": "`seq` of the decision's event",
        "turn": "`turns.turn` the decision followed",
        "seat": "0-based seat that decided",
        "kind": "`'go'`, `'stop'` or `'cup'` (the September cup's role)",
        "go_count": "for a Go, its number for this seat in the hand (`go_called.count`); for "
        "a Stop, the seat's Gos before it; NULL for `'cup'`",
        "score": "for a Go or a Stop, the combination score recorded with it "
        "(`go_called.score`, `stop_called.score`); for `'cup'`, the seat's "
        "combination score with the role just chosen (NULL when the rules did not follow the "
        "hand)",
        "auto": "for a Stop, whether it was automatic (`stop_called.auto`: qualifying on the "
        "last turn); false for a Go; NULL for `'cup'`",
        "cup_role": "for `'cup'`, the role chosen: `'animal'` or `'junk'`; NULL otherwise",
        "won_by_stop": "whether `seat` won the hand by a Stop (`hands.outcome` `'stop'` and "
        "`hands.winner` this seat): for a Go, whether it paid off; false while the hand goes "
        "on",
    },
    "scores": {
        "game_id": "the game",
        "hand": "the hand",
        "seat": "0-based seat",
        "winner": "whether this seat won the hand (by a Stop or an instant win)",
        "total": "combination score of the final pile, without Go points (the winner's "
        "equals `hands.winner_score` after a Stop): the sum of the eight points "
        "columns",
        "brights": "bright cards in the pile",
        "animals": "animals in the pile, the September cup left out when it counts as junk",
        "ribbons": "ribbons that count toward the ribbon total (`rules.december_ribbon_counts` "
        "decides for 12R)",
        "junk_units": "junk units in the pile: junk 1, double junk 2, bonus cards 2 or 3, the "
        "cup 2 when it counts as junk",
        # each combination's column, in the rulebook's words
        **{c.column: c.column_text for c in RB.COMBINATIONS},
        "cup_role": "how the September cup in this pile counts, `'animal'` or `'junk'` (by "
        "`rules.cup_mode` or the holder's `cup_assigned`); NULL when the pile has "
        "no cup",
        "go_count": "Gos this seat called in the hand",
        "shakes": "times this seat shook in the hand",
        "bombs": "bombs this seat played in the hand",
        "ppuk": "ppuks this seat made in the hand",
    },
    "payouts": {
        "game_id": "the game",
        "hand": "the hand",
        "payer": "0-based seat that owes",
        "payee": "0-based seat that is owed",
        "reason": "the reasons of the pair's dues joined by `'+'`: `'stop'`, "
        + ", ".join(f"`'{i.id}'`" for i in RB.INSTANTS)
        + ", `'gwang_pali'` (e.g. `'first_ppuk+stop'`); a loser's row of a hand won by a "
        "Stop always includes `'stop'`; NULL for a pair with a recorded payment only",
        "points": "points the payer owes the payee in the hand: the Stop share after "
        "multipliers and dokbak, plus instant payments; 0 when nothing is due",
        "chips": "`points` in chips (times `stake`)",
        "instant_chips": "the part of `chips` due for instant reasons (not `'stop'`); 0 when none",
        "recorded_chips": "chips the table recorded for this pair (`payment_recorded`, "
        "summed); NULL when none was recorded for it",
        "hand_recorded": "whether any payment was recorded for the hand; when false, payments "
        "were not entered and `difference` is NULL",
        "difference": "recorded minus computed chips (a pair with no recorded payment counts "
        "0) when `hand_recorded`, else NULL; positive when the table paid more",
        "stake": "chips per point (`games.stake`)",
        "score": f"the winner's combination score, before Go points; {_STOP_ONLY}",
        "go_count": f"the winner's Gos; {_STOP_ONLY}",
        "go_points": f"`score` with the Go bonus by `rules.go_payout`; {_STOP_ONLY}",
        "multiplier": "product of the factors that apply to this loser ("
        + ", ".join(m.name for m in RB.MULTIPLIERS if m is not RB.NAGARI_CARRY)
        + ", nagari `carry`; 1 = none): the Stop share is `go_points` times it before "
        f"dokbak; {_STOP_ONLY}",
        # each multiplier's flag column, in the rulebook's words
        **{m.id: f"{m.column_text}; {_STOP_ONLY}" for m in RB.MULTIPLIERS if m.column},
        "shakes": f"times the winner shook in the hand; {_STOP_ONLY}",
        "bombs": f"bombs the winner played in the hand; {_STOP_ONLY}",
        "carry": f"the hand's nagari factor, also a factor of `multiplier`; {_STOP_ONLY}",
        RB.DOKBAK.id: f"{RB.DOKBAK.column_text}; {_STOP_ONLY}",
        "ruleset": "`games.ruleset`, on the row so that a question about payments joins no `games`",
        "payer_name": "the payer's name (`games.player_names`)",
        "payee_name": "the payee's name (`games.player_names`)",
    },
    "sitting_out": {
        "game_id": "the game",
        "hand": "the hand",
        "seq": "`seq` of the hand's `seats_sat_out` event",
        "seat": "0-based seat that sits the hand out",
        "rule": "the rule that chose it (`seats_sat_out.rule`, `rules.sit_out`): "
        "`'turn_order'` or `'choice'`",
        "brights_sold": "the brights the seat sold (`brights_sold.cards`); empty when none",
        "sale_points": "points each player of the hand owes for the sale (brights times "
        "`rules.gwang_price`); NULL when nothing was sold",
        "sale_chips": "chips the seat is owed for the sale from every player together, after "
        "any cap of `capped_payments`; NULL when nothing was sold or the hand was not checked",
    },
    "capped_payments": {
        "game_id": "the game",
        "hand": "the hand",
        "seq": "`seq` of the `payment_capped` event",
        "payer": "0-based seat that owes",
        "payee": "0-based seat that is owed",
        "due": "chips the rules make due before the cap (`payment_due.chips`)",
        "paid": "chips the cap lets through",
        "shortfall": "`due - paid`: what the payee does not get",
        "cap": "`'loser_holdings'` (the payer had no more) or `'winner_holdings'` (limited "
        "liability: the payee's own chips at the hand's start)",
    },
    "capture_tallies": {
        "game_id": "the game",
        "hand": "the hand",
        "capture_kind": "`captures.capture_kind`",
        "cards": "the hand's `captures` rows of that kind: cards taken",
        "captures": "those whose `captures.position` is 1: captures made",
    },
    "transfer_tallies": {
        "game_id": "the game",
        "hand": "the hand",
        "reason": "`transfers.reason`",
        "cards": "the hand's `transfers` rows for that reason: cards handed over",
        "double_junk": "those whose `transfers.card_kind` is `'double_junk'`",
        "bonus_cards": "those whose `transfers.card_kind` is `'bonus'`",
    },
    "hand_seats": {
        "game_id": "the game",
        "hand": "the hand",
        "seat": "0-based seat",
        "player_id": "the seat's player id (`games.player_ids`)",
        "player_name": "the seat's player name (`games.player_names`)",
        "started_at": "`hands.started_at`",
        "date": "`hands.date`",
        "ruleset": "`hands.ruleset`",
        "outcome": "`hands.outcome`; NULL while the hand goes on",
        "ended": "`hands.ended`",
        "checked": "`hands.checked`",
        "won": "the seat won the hand (`hands.winner`), instant wins included",
        "sat_out": "the seat sat the hand out (a `sitting_out` row)",
        "gos": "the Gos the seat called in the hand (`decisions` rows of kind `'go'`)",
        "chips": "net chips the rules make due to the seat in the hand: `payouts.chips` "
        "received minus paid (0 for a hand not checked)",
        "recorded_chips": "net chips recorded: `payouts.recorded_chips` received minus paid, "
        "a payment not recorded counting 0",
        "payments_received": "`payouts` rows with the seat as payee",
        "ppuk_made": "the seat's turns with ppuk (`turns.ppuk`)",
        "ppuk_suffered": "the other seats' turns with ppuk in the hand",
        "jjok_made": "the seat's turns with jjok (`turns.jjok`)",
        "jjok_suffered": "the other seats' turns with jjok in the hand",
        "ttadak_made": "the seat's turns with ttadak (`turns.ttadak`)",
        "ttadak_suffered": "the other seats' turns with ttadak in the hand",
        "sseul_made": "the seat's turns with sseul (`turns.sseul`)",
        "sseul_suffered": "the other seats' turns with sseul in the hand",
        "bomb_made": "the seat's turns with bomb (`turns.bomb`)",
        "bomb_suffered": "the other seats' turns with bomb in the hand",
        "shake_made": "the seat's turns with shake (`turns.shaken`)",
        "shake_suffered": "the other seats' turns with shake in the hand",
    },
    "player_games": {
        "game_id": "the game",
        "seat": "0-based seat",
        "player_id": "`hand_seats.player_id`",
        "player_name": "`hand_seats.player_name`",
        "last_started_at": "the latest `hand_seats.started_at` of the seat's ended hands",
        "hands": "ended hands the seat played (not sat out)",
        "hands_sat_out": "ended hands the seat sat out",
        "wins": "ended hands the seat won",
        "chips": "the sum of `hand_seats.chips` over the ended hands",
        "recorded_chips": "the sum of `hand_seats.recorded_chips` over the ended hands",
        "gos": "the sum of `hand_seats.gos` over the ended hands",
        "gos_paid_off": "the Gos of the ended hands the seat won by a Stop",
    },
    "seats": {
        "game_id": "the game",
        "seat": "0-based seat",
        "player_id": "the seat's player id (`games.player_ids`)",
        "hands_played": "hands started in which the seat played (did not sit out)",
        "hands_sat_out": "hands the seat sat out (`sitting_out` rows)",
        "chips_counted": "chips the seat held at the start of the sitting "
        "(`chips_counted.chips`); NULL when the table counted none",
        "chips_held": "`chips_counted` plus the chips the rules made due to and from the "
        "seat so far (after caps); NULL when the table counted no chips",
        "broke": "whether the sitting ended with this seat out of chips (`sitting_ended`)",
        "draw_card": "the card the seat drew last for the first deal (`dealer_drawn`); NULL "
        "when the first dealer was not drawn",
        "first_dealer": "whether the draw made this seat the first dealer; NULL when the "
        "first dealer was not drawn",
    },
    "issues": {
        "game_id": "the game",
        "seq": "the event the issue is about; NULL when it is about the end of the log "
        "(e.g. a consequence missing there)",
        "hand": "number of the latest hand started when it was found; 0 before the first hand",
        "rule": "id of the rule or check, e.g. `'consequence_missing'`, `'unknown_event_type'`",
        "reason": "what disagrees, in words",
        "severity": "`'violation'` (the record breaks a rule; after an input the rules "
        "refuse, the rest of its hand is kept unchecked) or `'warning'` (kept but "
        "not checked, e.g. an unknown event type)",
    },
    "positions": {
        "game_id": "the game",
        "seq": "`seq` of the last event the game's projection rows include",
        "hash": "`hash` of that event",
    },
}


COLUMN_DOCS["hand_seats"].update(
    (f"{b}_{side}", f"the seat's `payouts` rows of the hand as {role} that carry `payouts.{b}`")
    for b in BAK_IDS
    for side, role in (("paid", "payer"), ("received", "payee"))
)

COLUMN_DOCS["player_games"].update(
    (c, f"the sum of `hand_seats.{c}` over the ended hands")
    for c in (
        *(f"{k}_{side}" for k in SPECIAL_KINDS for side in ("made", "suffered")),
        *(f"{b}_{side}" for b in BAK_IDS for side in ("paid", "received")),
    )
)

# the people record keeps its events as ``events`` keeps a game's
COLUMN_DOCS["person_events"] = {
    **COLUMN_DOCS["events"],
    "game_id": "always `'people'`: the people record is one stream",
    "seq": "position in the people record: 1, 2, 3 ..., dense",
    "hand": "always NULL",
}
