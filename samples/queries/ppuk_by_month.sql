-- How often is a ppuk made in each month?
-- Ppuk per 100 hands, month by month.
-- The month of a ppuk is the month of the card played into a pair on the layout.
WITH total AS (SELECT count(*) AS hands FROM hands),
made AS (
    SELECT played_month AS month, count(*) AS ppuk
    FROM turns WHERE ppuk GROUP BY played_month
)
SELECT m.month, coalesce(made.ppuk, 0) AS ppuk,
       round(100.0 * coalesce(made.ppuk, 0) / total.hands, 2) AS per_100_hands
FROM range(1, 13) AS m(month)
CROSS JOIN total
LEFT JOIN made ON made.month = m.month
ORDER BY m.month;
