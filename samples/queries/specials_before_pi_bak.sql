-- Which specials does the winner make in the hands that end with a pi-bak?
-- For each special, the hands won by a Stop in which the winner made it, and how many of
-- those made a loser pay double for holding too little junk (pi-bak).
WITH won AS (
    SELECT h.game_id, h.hand, h.winner, bool_or(p.pi_bak) AS pi_bak
    FROM hands h
    JOIN payouts p ON p.game_id = h.game_id AND p.hand = h.hand AND p.payee = h.winner
    WHERE h.outcome = 'stop' AND h.checked
    GROUP BY h.game_id, h.hand, h.winner
),
made AS (
    SELECT w.pi_bak, coalesce(s.ppuk, 0) AS ppuk, coalesce(s.jjok, 0) AS jjok,
           coalesce(s.ttadak, 0) AS ttadak, coalesce(s.sseul, 0) AS sseul,
           coalesce(s.bomb, 0) AS bomb, coalesce(s.shake, 0) AS shake
    FROM won w
    LEFT JOIN v_specials_by_seat s
        ON s.game_id = w.game_id AND s.hand = w.hand AND s.seat = w.winner
)
SELECT special,
       count(*) FILTER (WHERE n > 0) AS hands_with_special,
       count(*) FILTER (WHERE n > 0 AND pi_bak) AS with_pi_bak,
       round(count(*) FILTER (WHERE n > 0 AND pi_bak)
             / nullif(count(*) FILTER (WHERE n > 0), 0), 3) AS pi_bak_rate
FROM (UNPIVOT made ON ppuk, jjok, ttadak, sseul, bomb, shake INTO NAME special VALUE n)
GROUP BY special
ORDER BY special;
