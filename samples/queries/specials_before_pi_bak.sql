-- Which specials does the winner make in the hands that end with a pi-bak?
-- For each special, the hands won by a Stop in which the winner made it, and how many of
-- those made a loser pay double for holding too little junk (pi-bak).
-- hand_seats holds each seat's specials and payouts in the hand: the winner's row of a
-- hand won by a Stop (and paid to the winner) says it all, with no join.
WITH made AS (
    SELECT pi_bak_received > 0 AS pi_bak,
           ppuk_made AS ppuk, jjok_made AS jjok, ttadak_made AS ttadak,
           sseul_made AS sseul, bomb_made AS bomb, shake_made AS shake
    FROM hand_seats
    WHERE won AND outcome = 'stop' AND checked AND payments_received > 0
        -- a hand in which the winner made no special counts for none
        AND ppuk_made + jjok_made + ttadak_made + sseul_made + bomb_made + shake_made > 0
)
SELECT special,
       count(*) FILTER (WHERE n > 0) AS hands_with_special,
       count(*) FILTER (WHERE n > 0 AND pi_bak) AS with_pi_bak,
       round(count(*) FILTER (WHERE n > 0 AND pi_bak)
             / nullif(count(*) FILTER (WHERE n > 0), 0), 3) AS pi_bak_rate
FROM (UNPIVOT made ON ppuk, jjok, ttadak, sseul, bomb, shake INTO NAME special VALUE n)
GROUP BY special
ORDER BY special;
