"""The groups ``gostop rules show`` lists a ruleset's settings under, in order.

A setting that a rulebook rule reads belongs to that rule's group (``Rule.group``). The
settings read by the rules of play themselves (the deal, steals, the last turn, which
``engine/turn.py`` and ``engine/table.py`` apply move by move, not through a rulebook object)
are placed here, so that every front end lists the same groups.
"""

from __future__ import annotations

#: The group titles, in the order they are listed; a group not named here follows them.
GROUP_TITLES: tuple[str, ...] = (
    "Players and deck",
    "The deal",
    "Shaking, bombs and bonus cards",
    "Junk steals",
    "September cup",
    "Last turn",
    "Instant payments",
    "Go / Stop",
    "Settlement",
    "Seats and chips",
)

#: The group of each setting that no rulebook rule reads.
PLAY_SETTINGS: dict[str, str] = {
    **dict.fromkeys(
        ("players", "hand_size_2p", "layout_size_2p", "hand_size_3p", "layout_size_3p"),
        "Players and deck",
    ),
    **dict.fromkeys(("all_hand_fours", "some_hand_fours", "single_hand"), "The deal"),
    **dict.fromkeys(
        (
            "two_card_bomb",
            "bomb_steal",
            "bonus_play",
            "bonus_steal",
            "bonus_buried_in_ppuk",
            "bonus_steal_at_once",
        ),
        "Shaking, bombs and bonus cards",
    ),
    **dict.fromkeys(
        (
            "jjok_steal",
            "ttadak_steal",
            "sseul_steal",
            "sseul_rule",
            "natural_stack_steal",
            "ppuk_taken_steal",
            "own_ppuk_steal",
            "steal_count",
            "transfer_order",
        ),
        "Junk steals",
    ),
    "cup_transferable": "September cup",
    **dict.fromkeys(("last_turn_exceptions", "last_turn_auto_stop"), "Last turn"),
    **dict.fromkeys(("target_2p", "target_3p"), "Go / Stop"),
    **dict.fromkeys(("sit_out", "chip_limit", "end_when_broke", "first_dealer"), "Seats and chips"),
}

#: The group of a setting found in neither place.
OTHER = "Other"
