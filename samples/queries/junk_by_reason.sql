-- How much junk changes hands, and for what reason?
-- Cards transferred per reason, with the double junk and bonus cards among them, and the
-- number of hands in which it happened.
SELECT reason,
       count(*) AS cards,
       count(*) FILTER (WHERE card_kind = 'double_junk') AS double_junk,
       count(*) FILTER (WHERE card_kind = 'bonus') AS bonus_cards,
       count(DISTINCT (game_id, hand)) AS hands
FROM transfers
GROUP BY reason
ORDER BY cards DESC, reason;
