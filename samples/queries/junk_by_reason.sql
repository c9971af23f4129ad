-- How much junk changes hands, and for what reason?
-- Cards transferred per reason, with the double junk and bonus cards among them, and the
-- number of hands in which it happened.
-- transfer_tallies counts each hand's transfers rows by reason: one row per hand and
-- reason, so the hands are counted without a distinct count over every card.
SELECT reason,
       sum(cards)::BIGINT AS cards,
       sum(double_junk)::BIGINT AS double_junk,
       sum(bonus_cards)::BIGINT AS bonus_cards,
       count(*) AS hands
FROM transfer_tallies
GROUP BY reason
ORDER BY cards DESC, reason;
