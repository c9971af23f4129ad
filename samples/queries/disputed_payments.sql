-- Which recorded payments differ from what the rules make due, and by how much?
-- Each row: the payer and payee, the chips the rules compute, the chips the table recorded,
-- and the multipliers behind the computed amount (to settle "I paid 24, it should be 12").
SELECT game_id, hand, payer, payer_name, payee, payee_name,
       computed_chips, recorded_chips, difference,
       multiplier, gwang_bak, pi_bak, meong_tta, go_bak, shakes, bombs, carry
FROM v_payout_disputes
ORDER BY abs(difference) DESC, game_id, hand, payer;
