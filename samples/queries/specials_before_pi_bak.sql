-- Which specials does the winner make in the hands that end with a pi-bak?
-- For each special, the hands won by a Stop in which the winner made it, and how many of
-- those made a loser pay double for holding too little junk (pi-bak).
-- hand_seats holds each seat's specials and payouts in the hand: the winner's row of a
-- hand won by a Stop (and paid to the winner) says it all, with no join, and one pass
-- counts every special (count_if: a filtered count(*) per special costs twice the time).
WITH counted AS (
    SELECT count_if(ppuk_made > 0) AS ppuk_n, count_if(ppuk_made > 0 AND pi_bak) AS ppuk_p,
           count_if(jjok_made > 0) AS jjok_n, count_if(jjok_made > 0 AND pi_bak) AS jjok_p,
           count_if(ttadak_made > 0) AS ttadak_n, count_if(ttadak_made > 0 AND pi_bak) AS ttadak_p,
           count_if(sseul_made > 0) AS sseul_n, count_if(sseul_made > 0 AND pi_bak) AS sseul_p,
           count_if(bomb_made > 0) AS bomb_n, count_if(bomb_made > 0 AND pi_bak) AS bomb_p,
           count_if(shake_made > 0) AS shake_n, count_if(shake_made > 0 AND pi_bak) AS shake_p
    FROM (SELECT *, pi_bak_received > 0 AS pi_bak FROM hand_seats)
    WHERE won AND outcome = 'stop' AND checked AND payments_received > 0
        -- a hand in which the winner made no special counts for none
        AND ppuk_made + jjok_made + ttadak_made + sseul_made + bomb_made + shake_made > 0
    HAVING count(*) > 0
)
SELECT special, hands_with_special, with_pi_bak,
       round(with_pi_bak / nullif(hands_with_special, 0), 3) AS pi_bak_rate
FROM (
    UNPIVOT counted
    ON (ppuk_n, ppuk_p) AS ppuk, (jjok_n, jjok_p) AS jjok, (ttadak_n, ttadak_p) AS ttadak,
       (sseul_n, sseul_p) AS sseul, (bomb_n, bomb_p) AS bomb, (shake_n, shake_p) AS shake
    INTO NAME special VALUE hands_with_special, with_pi_bak
)
ORDER BY special;
