-- Which specials does the winner make in the hands that end with a pi-bak?
-- For each special, the hands won by a Stop in which the winner made it, and how many of
-- those made a loser pay double for holding too little junk (pi-bak).
WITH won AS (
    -- per hand won by a Stop: the winner, and whether any loser paid a pi-bak
    SELECT p.game_id, p.hand, p.payee AS winner, bool_or(p.pi_bak) AS pi_bak
    FROM payouts p
    SEMI JOIN hands h
        ON h.game_id = p.game_id AND h.hand = p.hand AND h.winner = p.payee
        AND h.outcome = 'stop' AND h.checked
    GROUP BY p.game_id, p.hand, p.payee
),
made AS (
    -- the winner's specials in each such hand; specials are rare, so only the turns
    -- that made one are joined (a hand without any counts for no special)
    SELECT any_value(w.pi_bak) AS pi_bak,
           count(*) FILTER (WHERE t.ppuk) AS ppuk, count(*) FILTER (WHERE t.jjok) AS jjok,
           count(*) FILTER (WHERE t.ttadak) AS ttadak, count(*) FILTER (WHERE t.sseul) AS sseul,
           count(*) FILTER (WHERE t.bomb) AS bomb, count(*) FILTER (WHERE t.shaken) AS shake
    FROM turns t
    JOIN won w ON t.game_id = w.game_id AND t.hand = w.hand AND t.seat = w.winner
    WHERE t.ppuk OR t.jjok OR t.ttadak OR t.sseul OR t.bomb OR t.shaken
    GROUP BY t.game_id, t.hand
)
SELECT special,
       count(*) FILTER (WHERE n > 0) AS hands_with_special,
       count(*) FILTER (WHERE n > 0 AND pi_bak) AS with_pi_bak,
       round(count(*) FILTER (WHERE n > 0 AND pi_bak)
             / nullif(count(*) FILTER (WHERE n > 0), 0), 3) AS pi_bak_rate
FROM (UNPIVOT made ON ppuk, jjok, ttadak, sseul, bomb, shake INTO NAME special VALUE n)
GROUP BY special
ORDER BY special;
